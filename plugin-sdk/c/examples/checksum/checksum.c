/*
 * checksum: an airlock tool in C. CRC-32 and/or SHA-256 of workspace files, one line per
 * file like sha256sum ("<hex>  <path>"), streaming each file in 64 KiB chunks.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "airlock_tool.h"
#include "hashes.h"

#define MAX_PATHS 100
#define CHUNK (64 * 1024)

static const char *const ALGORITHMS[] = {"crc32", "sha256", "both", NULL};

typedef struct {
    const char *const *paths;
    size_t count;
    const char *algorithm;
} checksum_args;

/* Reads and checks the arguments; false (with the error recorded in args) when bad. */
static bool read_args(airlock_args *args, checksum_args *out) {
    airlock_args_strings(args, "paths", &out->paths, &out->count, MAX_PATHS, false);
    airlock_args_enum(args, "algorithm", ALGORITHMS, "sha256", &out->algorithm);
    for (size_t i = 0; i < out->count && !airlock_args_failed(args); i++) {
        if (out->paths[i][0] == 0) airlock_args_reject(args, "paths", "entry %zu is an empty path", i);
    }
    return !airlock_args_failed(args);
}

static airlock_result checksum_validate(airlock_args *args) {
    checksum_args a;
    return read_args(args, &a) ? airlock_ok() : airlock_args_error(args);
}

static char *checksum_describe_call(airlock_args *args) {
    checksum_args a;
    if (!read_args(args, &a)) return NULL;
    if (a.count == 1) return airlock_sprintf("Checksum %s (%s)", a.paths[0], a.algorithm);
    return airlock_sprintf("Checksum %s and %zu more (%s)", a.paths[0], a.count - 1, a.algorithm);
}

/* Hashes one file into line (the sha256sum-style line); an error result when it fails. */
static airlock_result hash_file(const char *path, const char *algorithm, airlock_buf *line, unsigned char *chunk) {
    char *abs;
    airlock_result r = airlock_resolve_in_workspace(path, &abs);
    if (!airlock_is_ok(&r)) return r;
    struct stat st;
    if (stat(abs, &st) != 0) {
        r = airlock_file_error(abs, errno);
        free(abs);
        return r;
    }
    if (S_ISDIR(st.st_mode)) {
        r = airlock_err_invalid_params("'%s' is a directory, not a file", path);
        free(abs);
        return r;
    }
    FILE *f = fopen(abs, "rb");
    if (!f) {
        r = airlock_file_error(abs, errno);
        free(abs);
        return r;
    }
    bool crc = strcmp(algorithm, "sha256") != 0, sha = strcmp(algorithm, "crc32") != 0;
    uint32_t crc_value = 0;
    sha256_ctx ctx;
    sha256_init(&ctx);
    size_t n;
    while ((n = fread(chunk, 1, CHUNK, f)) > 0) {
        if (crc) crc_value = crc32_update(crc_value, chunk, n);
        if (sha) sha256_update(&ctx, chunk, n);
    }
    int read_error = ferror(f) ? (errno ? errno : EIO) : 0; /* never a silent short read */
    fclose(f);
    if (read_error) {
        r = airlock_file_error(abs, read_error);
        free(abs);
        return r;
    }
    char *shown = airlock_display_path(abs);
    free(abs);
    if (crc) airlock_buf_printf(line, "%08x%s", (unsigned)crc_value, sha ? " " : "");
    if (sha) {
        uint8_t digest[32];
        char hex[65];
        sha256_final(&ctx, digest);
        to_hex(digest, 32, hex);
        airlock_buf_puts(line, hex);
    }
    airlock_buf_printf(line, "  %s\n", shown);
    free(shown);
    return airlock_ok();
}

static airlock_result checksum_execute(airlock_args *args) {
    checksum_args a;
    if (!read_args(args, &a)) return airlock_args_error(args);
    airlock_log_info("checksum: %zu file(s), %s", a.count, a.algorithm);

    unsigned char *chunk = malloc(CHUNK);
    if (!chunk) return airlock_err_execution("out of memory");
    airlock_buf out = {0}, errors = {0};
    size_t failed = 0, not_found = 0;
    airlock_status first_status = AIRLOCK_OK;
    for (size_t i = 0; i < a.count; i++) {
        airlock_buf line = {0};
        airlock_result r = hash_file(a.paths[i], a.algorithm, &line, chunk);
        if (airlock_is_ok(&r)) {
            airlock_buf_append(&out, line.data, line.len);
        } else {
            failed++;
            if (r.status == AIRLOCK_ERR_NOT_FOUND) not_found++;
            if (first_status == AIRLOCK_OK) first_status = r.status;
            const char *what = r.status == AIRLOCK_ERR_NOT_FOUND ? "not found" : airlock_status_name(r.status);
            airlock_buf_printf(&out, "%s: %s: %s\n", a.paths[i], what, r.text);
            airlock_buf_printf(&errors, "%s%s", errors.len ? "; " : "", r.text);
            airlock_log_warn("checksum: %s: %s", a.paths[i], r.text);
        }
        airlock_buf_free(&line);
        airlock_result_free(&r);
    }
    free(chunk);
    if (failed == a.count) {
        /* Nothing was hashed: report an error the model can act on. */
        airlock_status status = not_found == failed ? AIRLOCK_ERR_NOT_FOUND : first_status;
        airlock_result r = airlock_err(status, "%s", errors.data);
        airlock_buf_free(&out);
        airlock_buf_free(&errors);
        return r;
    }
    airlock_buf_free(&errors);
    if (failed) airlock_buf_printf(&out, "(%zu of %zu file(s) failed)\n", failed, a.count);
    return airlock_ok_buf(&out);
}

static const airlock_tool_def TOOLS[] = {{
    .name = "checksum",
    .display_name = "Checksum",
    .description =
        "Computes the SHA-256 and/or CRC-32 checksum of one or more files of the workspace. "
        "Returns one line per file like sha256sum: `<hex>  <path>` (with algorithm \"both\": "
        "`<crc32> <sha256>  <path>`). A file that cannot be read gets a line saying why; the "
        "call fails only when no file could be read.",
    .parameters_json =
        "{\"type\":\"object\",\"properties\":{"
        "\"paths\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"minItems\":1,\"maxItems\":100,"
        "\"description\":\"Files to checksum, relative to the workspace root (or absolute inside it).\"},"
        "\"algorithm\":{\"type\":\"string\",\"enum\":[\"crc32\",\"sha256\",\"both\"],\"default\":\"sha256\","
        "\"description\":\"Which checksum to compute (default sha256).\"}},"
        "\"required\":[\"paths\"],\"additionalProperties\":false}",
    .kind = AIRLOCK_KIND_READ,
    .files = AIRLOCK_FILES({".", AIRLOCK_ACCESS_READ}),
    .validate = checksum_validate,
    .describe_call = checksum_describe_call,
    .execute = checksum_execute,
}};

AIRLOCK_EXPORT_TOOLS("checksum", "0.1.0", TOOLS);
