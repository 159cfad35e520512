/* Native unit test of {{name}}: ./test.sh (compiles tool.c with the host C compiler). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "airlock_tool.h"

typedef struct {
    size_t lines, words, chars, bytes;
} text_counts;
void count_text(const char *text, size_t len, text_counts *out);

static int failures;
#define CHECK(cond)                                                                          \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);         \
            failures++;                                                                      \
        }                                                                                    \
    } while (0)

int main(void) {
    text_counts c;
    count_text("", 0, &c);
    CHECK(c.lines == 0 && c.words == 0 && c.chars == 0);
    count_text("one two\nthree", 13, &c);
    CHECK(c.lines == 2 && c.words == 3 && c.chars == 13);
    count_text("h\xc3\xa9llo\n", 7, &c); /* "héllo\n": 6 characters, 7 bytes */
    CHECK(c.lines == 1 && c.words == 1 && c.chars == 6 && c.bytes == 7);

    /* The whole entrypoint, as the host calls it. */
    airlock_result r = airlock_call_execute("{{tool}}", "{\"text\": \"a b\\nc\"}");
    CHECK(r.status == AIRLOCK_OK);
    CHECK(r.text && strcmp(r.text, "lines: 2, words: 3, characters: 5, bytes: 5") == 0);
    airlock_result_free(&r);

    /* Bad arguments are invalid-params naming the field. */
    r = airlock_call_execute("{{tool}}", "{}");
    CHECK(r.status == AIRLOCK_ERR_INVALID_PARAMS && strstr(r.text, "missing field `text`"));
    airlock_result_free(&r);
    r = airlock_call_validate("{{tool}}", "{\"text\": 42}");
    CHECK(r.status == AIRLOCK_ERR_INVALID_PARAMS && strstr(r.text, "field `text`: expected a string"));
    airlock_result_free(&r);
    r = airlock_call_validate("{{tool}}", "{\"text\": ");
    CHECK(r.status == AIRLOCK_ERR_INVALID_PARAMS && strstr(r.text, "not valid JSON"));
    airlock_result_free(&r);

    /* The tool's own validation: a text over 1 MiB. */
    size_t big = 1024 * 1024 + 1;
    char *json = malloc(big + 16);
    strcpy(json, "{\"text\":\"");
    memset(json + 9, 'x', big);
    strcpy(json + 9 + big, "\"}");
    r = airlock_call_validate("{{tool}}", json);
    CHECK(r.status == AIRLOCK_ERR_INVALID_PARAMS && strstr(r.text, "field `text`: is longer than"));
    airlock_result_free(&r);
    free(json);

    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("all tests passed\n");
    return 0;
}
