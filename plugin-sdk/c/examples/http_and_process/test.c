/* Native unit test of the http_and_process example (run by ../../tests/run.sh): natively
 * nothing is sent and nothing runs (there is no host), so the test checks the confirmation,
 * the url checks, and that a call fails saying why instead of reaching anything. */
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

int main(void) {
    const char *args = "{\"words\":[\"hello\",\"world\"]}";
    airlock_confirmation confirmation = {0};
    airlock_result r = airlock_call_confirm("run_echo", args, &confirmation);
    CHECK(airlock_is_ok(&r));
    CHECK(confirmation.kind == AIRLOCK_CONFIRM_EXEC);
    CHECK(confirmation.command && strcmp(confirmation.command, "echo hello world") == 0);
    CHECK(confirmation.root_command && strcmp(confirmation.root_command, "echo") == 0);
    airlock_result_free(&r);
    airlock_confirmation_free(&confirmation);

    char *described = airlock_call_describe_call("run_echo", args);
    CHECK(described && strcmp(described, "Run echo hello world") == 0);
    free(described);

    r = airlock_call_execute("run_echo", args);
    CHECK(r.status == AIRLOCK_ERR_EXECUTION);
    CHECK(r.text && strstr(r.text, "airlock:host/process"));
    airlock_result_free(&r);

    r = airlock_call_validate("run_echo", "{\"words\":\"not a list\"}");
    CHECK(r.status == AIRLOCK_ERR_INVALID_PARAMS);
    airlock_result_free(&r);

    const char *get = "{\"url\":\"http://127.0.0.1:8080/hello?x=1\"}";
    described = airlock_call_describe_call("http_get", get);
    CHECK(described && strcmp(described, "GET http://127.0.0.1:8080/hello?x=1") == 0);
    free(described);

    r = airlock_call_execute("http_get", get);
    CHECK(r.status == AIRLOCK_ERR_EXECUTION);
    CHECK(r.text && strstr(r.text, "wasi:http"));
    airlock_result_free(&r);

    const char *bad[] = {"{\"url\":\"ftp://example.com/\"}", "{\"url\":\"http://\"}",
                         "{\"url\":\"http://user@example.com/\"}", "{\"url\":\"http://a b/\"}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        r = airlock_call_execute("http_get", bad[i]);
        CHECK(r.status == AIRLOCK_ERR_INVALID_PARAMS);
        CHECK(r.text && strstr(r.text, "is not an http:// or https:// URL"));
        airlock_result_free(&r);
    }

    r = airlock_call_validate("http_get", "{}");
    CHECK(r.status == AIRLOCK_ERR_INVALID_PARAMS);
    airlock_result_free(&r);

    if (failures) {
        fprintf(stderr, "http_and_process: %d check(s) failed\n", failures);
        return 1;
    }
    printf("http_and_process: all checks passed\n");
    return 0;
}
