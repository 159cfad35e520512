/* Native unit test of the run_echo example (run by ../../tests/run.sh): natively nothing
 * runs (there is no host), so the test checks the confirmation and that a call fails
 * saying why instead of running anything. */
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

    if (failures) {
        fprintf(stderr, "run_echo: %d check(s) failed\n", failures);
        return 1;
    }
    printf("run_echo: all checks passed\n");
    return 0;
}
