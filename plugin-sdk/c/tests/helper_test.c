/* Native tests of the helper layer (airlock_tool.c): JSON reader, argument getters,
 * dispatch, paths, escaping. Run by tests/run.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "airlock_tool.h"

static int failures;
#define CHECK(cond)                                                                          \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);         \
            failures++;                                                                      \
        }                                                                                    \
    } while (0)

/* A probe tool: file_path required, start_line optional integer. */
static airlock_result probe_execute(airlock_args *args) {
    const char *path;
    int64_t start;
    airlock_args_string(args, "file_path", &path);
    airlock_args_int_or(args, "start_line", 1, &start);
    if (airlock_args_failed(args)) return airlock_args_error(args);
    airlock_buf b = {0};
    airlock_buf_puts(&b, "{\"path\":");
    airlock_buf_json_string(&b, path, strlen(path));
    airlock_buf_printf(&b, ",\"start\":%lld}", (long long)start);
    return airlock_ok_json_buf(&b);
}

static airlock_result loose_execute(airlock_args *args) {
    const char *const *items;
    size_t n;
    const char *mode;
    static const char *const modes[] = {"a", "b", NULL};
    airlock_args_strings(args, "items", &items, &n, 3, false);
    airlock_args_enum(args, "mode", modes, "a", &mode);
    if (airlock_args_failed(args)) return airlock_args_error(args);
    return airlock_ok_textf("%zu %s %s", n, n ? items[n - 1] : "-", mode);
}

static const airlock_tool_def TOOLS[] = {
    {.name = "probe", .display_name = "Probe", .description = "Probes.",
     .parameters_json = "{\"type\":\"object\",\"properties\":{\"file_path\":{\"type\":\"string\"},"
                        "\"start_line\":{\"type\":\"integer\"}},\"required\":[\"file_path\"]}",
     .kind = AIRLOCK_KIND_THINK, .execute = probe_execute},
    /* No schema checks beyond the getters. */
    {.name = "loose", .display_name = "Loose", .description = "Loose.", .parameters_json = "{\"type\":\"object\"}",
     .kind = AIRLOCK_KIND_THINK, .execute = loose_execute},
};
AIRLOCK_EXPORT_TOOLS("probe", "0.1.0", TOOLS);

static bool parses(const char *s) {
    char err[96];
    airlock_json_doc *d = airlock_json_parse(s, strlen(s), err, sizeof err);
    airlock_json_free(d);
    return d != NULL;
}

static void expect_error(airlock_result r, airlock_status status, const char *needle) {
    bool ok = r.status == status && r.text && strstr(r.text, needle);
    if (!ok) {
        fprintf(stderr, "expected %s containing \"%s\", got %s: %s\n", airlock_status_name(status), needle,
                airlock_status_name(r.status), r.text ? r.text : "(null)");
        failures++;
    }
    airlock_result_free(&r);
}

static void test_json(void) {
    const char *good[] = {"{}", "[]", "0", "-0.5e+3", "\"x\"", "true", " null ", "{\"a\":[1,{\"b\":null}]}",
                          "\"\\u00e9\\ud83d\\ude00\\/\"", "[1,2,3]", "\"h\xc3\xa9\"",
                          "[\"\\\\u0000\"]" /* an escaped backslash, then the text u0000 */};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) CHECK(parses(good[i]));
    const char *bad[] = {"", "{", "}", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", ".5", "-", "1e",
                         "tru", "nul", "\"abc", "\"\\x\"", "\"\\u12\"", "\"\\ud800\"", "\"\\udc00x\"",
                         "[1] 2", "{} x", "'a'", "[", "[[]", "\"\xff\"", "\"\xc3\"", "\"\xed\xa0\x80\"",
                         "NaN", "+1", "[1 2]", "\"a\\u0000b\"", "{\"a\\u0000\":1}", "[\"\\\\\\u0000\"]", "\xff{}"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        if (parses(bad[i])) {
            fprintf(stderr, "accepted malformed JSON: %s\n", bad[i]);
            failures++;
        }
    }
    /* cJSON reads these as their plain meaning; RFC 8259 refuses them. The host only ever
     * sends serde_json's output, which has none of them. */
    const char *lenient[] = {"01", "1.", "\"a\nb\""};
    for (size_t i = 0; i < sizeof lenient / sizeof *lenient; i++) CHECK(parses(lenient[i]));
    /* Deep nesting is refused, not a stack overflow. */
    size_t n = 100000;
    char *deep = malloc(2 * n + 1);
    memset(deep, '[', n);
    memset(deep + n, ']', n);
    deep[2 * n] = 0;
    CHECK(!parses(deep));
    memset(deep, '[', 64);
    memset(deep + 64, ']', 64);
    deep[128] = 0;
    CHECK(parses(deep));
    free(deep);

    char err[96];
    const char *text = "{\"s\":\"a\\u00e9b\",\"k\":1,\"k\":2,\"u\":\"\\ud83d\\ude00\",\"arr\":[true,false]}";
    airlock_json_doc *d = airlock_json_parse(text, strlen(text), err, sizeof err);
    CHECK(d != NULL);
    const airlock_json *root = airlock_json_root(d);
    size_t len;
    const char *s = airlock_json_string(airlock_json_get(root, "s"), &len);
    CHECK(s && len == 4 && strcmp(s, "a\xc3\xa9" "b") == 0);
    CHECK(airlock_json_number(airlock_json_get(root, "k")) == 2); /* last one wins */
    CHECK(strcmp(airlock_json_string(airlock_json_get(root, "u"), NULL), "\xf0\x9f\x98\x80") == 0);
    CHECK(airlock_json_len(airlock_json_get(root, "arr")) == 2);
    CHECK(airlock_json_bool(airlock_json_at(airlock_json_get(root, "arr"), 0)));
    CHECK(airlock_json_at(airlock_json_get(root, "arr"), 2) == NULL);
    CHECK(airlock_json_get(root, "missing") == NULL);
    airlock_json_free(d);
    /* Text without a terminating NUL: only len bytes are read. */
    char buf[4] = {'[', '1', ']', 'x'};
    d = airlock_json_parse(buf, 3, err, sizeof err);
    CHECK(d != NULL);
    airlock_json_free(d);
}

static void test_args(void) {
    airlock_result r = airlock_call_execute("probe", "{\"file_path\":\"a\\\"b\",\"start_line\":3}");
    CHECK(r.status == AIRLOCK_OK && r.is_json && strcmp(r.text, "{\"path\":\"a\\\"b\",\"start\":3}") == 0);
    airlock_result_free(&r);
    r = airlock_call_execute("probe", "  ");  /* empty args are {} */
    expect_error(r, AIRLOCK_ERR_INVALID_PARAMS, "missing field `file_path`");
    expect_error(airlock_call_validate("probe", "{}"), AIRLOCK_ERR_INVALID_PARAMS, "missing field `file_path`");
    expect_error(airlock_call_validate("probe", "{\"file_path\":1}"), AIRLOCK_ERR_INVALID_PARAMS,
                 "field `file_path`: expected a string, got a number");
    expect_error(airlock_call_validate("probe", "{\"file_path\":\"a\",\"start_line\":1.5}"),
                 AIRLOCK_ERR_INVALID_PARAMS, "field `start_line`: expected an integer");
    expect_error(airlock_call_validate("probe", "[1]"), AIRLOCK_ERR_INVALID_PARAMS, "expected a JSON object");
    expect_error(airlock_call_validate("probe", "{not json"), AIRLOCK_ERR_INVALID_PARAMS, "not valid JSON");
    expect_error(airlock_call_validate("probe", "{\"file_path\":\"a\"} trailing"), AIRLOCK_ERR_INVALID_PARAMS,
                 "not valid JSON");
    expect_error(airlock_call_execute("probe", "{\"file_path\":\"a\\u0000b\"}"), AIRLOCK_ERR_INVALID_PARAMS,
                 "NUL character");
    expect_error(airlock_call_execute("nope", "{}"), AIRLOCK_ERR_INVALID_PARAMS,
                 "no tool named 'nope'; its tools are: probe, loose");
    expect_error(airlock_call_modify_args("probe", "{\"file_path\":\"a\"}", "x"), AIRLOCK_ERR_INVALID_PARAMS,
                 "no editable proposal");
    airlock_confirmation c;
    r = airlock_call_confirm("probe", "{\"file_path\":\"a\"}", &c);
    CHECK(r.status == AIRLOCK_OK && c.kind == AIRLOCK_CONFIRM_NONE);
    airlock_result_free(&r);
    airlock_confirmation_free(&c);
    char *line = airlock_call_describe_call("probe", "garbage");
    CHECK(strcmp(line, "Probe") == 0);
    free(line);
    line = airlock_call_describe_call("nope", "{}");
    CHECK(strcmp(line, "nope") == 0);
    free(line);

    /* Getter errors without schema help. */
    r = airlock_call_execute("loose", "{\"items\":[\"x\",\"y\"],\"mode\":\"b\"}");
    CHECK(r.status == AIRLOCK_OK && strcmp(r.text, "2 y b") == 0);
    airlock_result_free(&r);
    expect_error(airlock_call_execute("loose", "{}"), AIRLOCK_ERR_INVALID_PARAMS, "missing field `items`");
    expect_error(airlock_call_execute("loose", "{\"items\":\"x\"}"), AIRLOCK_ERR_INVALID_PARAMS,
                 "field `items`: expected an array of strings, got a string");
    expect_error(airlock_call_execute("loose", "{\"items\":[\"x\",2]}"), AIRLOCK_ERR_INVALID_PARAMS,
                 "field `items[1]`: expected a string, got a number");
    expect_error(airlock_call_execute("loose", "{\"items\":[]}"), AIRLOCK_ERR_INVALID_PARAMS, "at least one");
    expect_error(airlock_call_execute("loose", "{\"items\":[\"1\",\"2\",\"3\",\"4\"]}"), AIRLOCK_ERR_INVALID_PARAMS,
                 "at most 3 entries");
    expect_error(airlock_call_execute("loose", "{\"items\":[\"x\"],\"mode\":\"c\"}"), AIRLOCK_ERR_INVALID_PARAMS,
                 "field `mode`: \"c\" is not one of \"a\", \"b\"");
    /* Regression: a key with an escaped NUL must never read as the field before the NUL
     * (the last "file_path" must not be "file_path\u0000x", which the host's schema check
     * never saw as file_path). cJSON's C strings would end at the NUL, so such a document is
     * refused whole, whichever field holds it. */
    expect_error(airlock_call_execute("probe", "{\"file_path\":\"ok\",\"file_path\\u0000x\":\"../evil\"}"),
                 AIRLOCK_ERR_INVALID_PARAMS, "NUL character");
    expect_error(airlock_call_execute("probe", "{\"file_path\\u0000\":\"a\"}"), AIRLOCK_ERR_INVALID_PARAMS,
                 "NUL character");
    /* Regression: huge numbers against an "integer" schema are checked without an
     * out-of-range double-to-int64 conversion (UB natively, a trap risk in wasm); they are
     * whole numbers, so the schema passes and the getter says they are out of range. */
    expect_error(airlock_call_execute("probe", "{\"file_path\":\"a\",\"start_line\":1e300}"),
                 AIRLOCK_ERR_INVALID_PARAMS, "field `start_line`: expected an integer, got 1e+300");
    expect_error(airlock_call_execute("probe", "{\"file_path\":\"a\",\"start_line\":-1e19}"),
                 AIRLOCK_ERR_INVALID_PARAMS, "field `start_line`: expected an integer, got -1e+19");
    expect_error(airlock_call_execute("probe", "{\"file_path\":\"a\",\"start_line\":1e999}"),
                 AIRLOCK_ERR_INVALID_PARAMS, "field `start_line`: expected an integer");
    r = airlock_call_execute("probe", "{\"file_path\":\"a\",\"start_line\":9007199254740992}");
    CHECK(r.status == AIRLOCK_OK && strstr(r.text, "\"start\":9007199254740992"));
    airlock_result_free(&r);
    r = airlock_call_execute("loose", "{\"items\":[\"x\"],\"mode\":null}");
    CHECK(r.status == AIRLOCK_OK && strcmp(r.text, "1 x a") == 0);
    airlock_result_free(&r);
}

static void resolves(const char *path, const char *want) {
    char *out;
    airlock_result r = airlock_resolve_in("/home/u/proj", path, &out);
    if (r.status != AIRLOCK_OK || strcmp(out, want) != 0) {
        fprintf(stderr, "resolve %s: got %s %s, want %s\n", path, airlock_status_name(r.status), out ? out : r.text,
                want);
        failures++;
    }
    free(out);
    airlock_result_free(&r);
}

static void test_paths(void) {
    resolves("src/./main.rs", "/home/u/proj/src/main.rs");
    resolves(".", "/home/u/proj");
    resolves("a/../b", "/home/u/proj/b");
    resolves("a//b/", "/home/u/proj/a/b");
    resolves("/home/u/proj/x/../y", "/home/u/proj/y");
    const char *outside[] = {"../other", "/etc/passwd", "/home/u/project", "src/../../x", "/", "/home/u/proj/.."};
    for (size_t i = 0; i < sizeof outside / sizeof *outside; i++) {
        char *out;
        expect_error(airlock_resolve_in("/home/u/proj", outside[i], &out), AIRLOCK_ERR_PERMISSION_DENIED,
                     "outside the workspace");
    }
    char *out;
    expect_error(airlock_resolve_in("/home/u/proj", " ", &out), AIRLOCK_ERR_INVALID_PARAMS, "the path is empty");
    struct { const char *in, *want; } norm[] = {
        {"/", "/"}, {"/..", "/"}, {"/a/../..", "/"}, {"a/..", "."}, {"../a", "../a"}, {"../../a/..", "../.."},
        {"a/./b/../../c", "c"}, {"//a//b", "/a/b"}, {"", "."},
    };
    for (size_t i = 0; i < sizeof norm / sizeof *norm; i++) {
        char *got = airlock_normalize(norm[i].in);
        if (strcmp(got, norm[i].want) != 0) {
            fprintf(stderr, "normalize %s: got %s, want %s\n", norm[i].in, got, norm[i].want);
            failures++;
        }
        free(got);
    }
    char *e = airlock_json_escape("a\"\\\n\t\x01z");
    CHECK(strcmp(e, "\"a\\\"\\\\\\n\\t\\u0001z\"") == 0);
    free(e);
}

/* Random mutations of valid documents must never crash (run under ASan). */
static void fuzz(void) {
    const char *seeds[] = {"{\"a\":[1,2.5e3,\"x\\u00e9\",true,null,{\"b\":\"\\ud83d\\ude00\"}]}",
                           "[[[[\"deep\"]]],-0,1e-9]"};
    const char alphabet[] = "{}[],:\"\\u0123456789abcdefeE+-.tfn \xff\xc3\xa9";
    unsigned seed = 12345;
    char buf[128];
    for (int iter = 0; iter < 200000; iter++) {
        const char *s = seeds[iter % 2];
        size_t len = strlen(s);
        memcpy(buf, s, len);
        int edits = 1 + iter % 4;
        for (int k = 0; k < edits; k++) {
            seed = seed * 1103515245u + 12345u;
            size_t pos = (seed >> 8) % len;
            seed = seed * 1103515245u + 12345u;
            char c = alphabet[(seed >> 8) % (sizeof alphabet - 1)];
            if ((seed >> 20) % 3 == 0 && len > 1) {
                memmove(buf + pos, buf + pos + 1, len - pos - 1);
                len--;
            } else if ((seed >> 20) % 3 == 1 && len < sizeof buf - 1) {
                memmove(buf + pos + 1, buf + pos, len - pos);
                buf[pos] = c;
                len++;
            } else {
                buf[pos] = c;
            }
        }
        char err[96];
        airlock_json_doc *d = airlock_json_parse(buf, len, err, sizeof err);
        airlock_json_free(d);
    }
}

int main(void) {
    test_json();
    test_args();
    test_paths();
    fuzz();
    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("helper tests passed\n");
    return 0;
}
