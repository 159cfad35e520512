/* Native unit test of the checksum example (run by ../../tests/run.sh): known vectors of
 * the hashes, then the whole tool on files in a temporary workspace. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "airlock_tool.h"
#include "hashes.h"

static int failures;
#define CHECK(cond)                                                                          \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);         \
            failures++;                                                                      \
        }                                                                                    \
    } while (0)

static void sha_hex(const char *data, size_t len, char hex[65]) {
    sha256_ctx ctx;
    uint8_t digest[32];
    sha256_init(&ctx);
    /* Feed in uneven pieces to exercise the buffering. */
    for (size_t i = 0; i < len;) {
        size_t n = (i % 7) + 1;
        if (n > len - i) n = len - i;
        sha256_update(&ctx, data + i, n);
        i += n;
    }
    sha256_final(&ctx, digest);
    to_hex(digest, 32, hex);
}

int main(void) {
    char hex[65];
    sha_hex("", 0, hex);
    CHECK(strcmp(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855") == 0);
    sha_hex("abc", 3, hex);
    CHECK(strcmp(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") == 0);
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    sha_hex(two, strlen(two), hex);
    CHECK(strcmp(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1") == 0);
    CHECK(crc32_update(0, "123456789", 9) == 0xcbf43926u);
    CHECK(crc32_update(crc32_update(0, "1234", 4), "56789", 5) == 0xcbf43926u);

    char dir[] = "/tmp/checksum-test.XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    setenv("AIRLOCK_WORKSPACE", dir, 1);
    char path[256];
    snprintf(path, sizeof path, "%s/abc.txt", dir);
    FILE *f = fopen(path, "w");
    fputs("abc", f);
    fclose(f);

    airlock_result r = airlock_call_execute("checksum", "{\"paths\":[\"abc.txt\"]}");
    CHECK(r.status == AIRLOCK_OK &&
          strcmp(r.text, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  abc.txt\n") == 0);
    airlock_result_free(&r);
    r = airlock_call_execute("checksum", "{\"paths\":[\"abc.txt\",\"missing.txt\"],\"algorithm\":\"crc32\"}");
    CHECK(r.status == AIRLOCK_OK && strstr(r.text, "352441c2  abc.txt\n") &&
          strstr(r.text, "missing.txt: not found"));
    airlock_result_free(&r);
    r = airlock_call_execute("checksum", "{\"paths\":[\"missing.txt\"]}");
    CHECK(r.status == AIRLOCK_ERR_NOT_FOUND && strstr(r.text, "'missing.txt' does not exist"));
    airlock_result_free(&r);
    r = airlock_call_execute("checksum", "{\"paths\":[\"../etc/passwd\"]}");
    CHECK(r.status == AIRLOCK_ERR_PERMISSION_DENIED && strstr(r.text, "outside the workspace"));
    airlock_result_free(&r);
    r = airlock_call_validate("checksum", "{\"paths\":[\"a\"],\"algorithm\":\"md5\"}");
    CHECK(r.status == AIRLOCK_ERR_INVALID_PARAMS && strstr(r.text, "field `algorithm`"));
    airlock_result_free(&r);
    r = airlock_call_validate("checksum", "{\"paths\":\"a\"}");
    CHECK(r.status == AIRLOCK_ERR_INVALID_PARAMS && strstr(r.text, "field `paths`: expected an array"));
    airlock_result_free(&r);
    char *line = airlock_call_describe_call("checksum", "{\"paths\":[\"a\",\"b\"]}");
    CHECK(strcmp(line, "Checksum a and 1 more (sha256)") == 0);
    free(line);

    unlink(path);
    rmdir(dir);
    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("checksum tests passed\n");
    return 0;
}
