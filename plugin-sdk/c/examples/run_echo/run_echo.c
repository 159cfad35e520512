/* run_echo: the C kit's example of running a program through airlock:host/process (contract
 * 0.2.0). It requests the command prefix `echo` and read access to the workspace, where the
 * program runs, and asks the user first with an exec confirmation. Without the grant the
 * host refuses the start, and the refusal (permission-denied, with the host's reason) goes
 * back to the model as is.
 *
 * The C kit has no HTTP example: its bindings cover the airlock contract, not wasi:http
 * (plugin-sdk/c/README.md, "Reaching the network").
 *
 * Build: ../../build.sh . run-echo.wasm    Test: ../../tests/run.sh (natively) */
#include <stdlib.h>
#include <string.h>

#include "airlock_tool.h"

#define MAX_WORDS 64

/* The command line a call runs, as the user is shown it (malloc'd), or NULL for bad args. */
static char *run_echo_line(airlock_args *args) {
    const char *const *words;
    size_t count;
    if (!airlock_args_strings(args, "words", &words, &count, MAX_WORDS, true)) return NULL;
    airlock_buf line = {0};
    airlock_buf_puts(&line, "echo");
    for (size_t i = 0; i < count; i++) {
        airlock_buf_puts(&line, " ");
        airlock_buf_puts(&line, words[i]);
    }
    return line.data;
}

static airlock_result run_echo_validate(airlock_args *args) {
    char *line = run_echo_line(args);
    free(line);
    return line ? airlock_ok() : airlock_args_error(args);
}

static char *run_echo_describe_call(airlock_args *args) {
    char *line = run_echo_line(args);
    char *described = line ? airlock_sprintf("Run %s", line) : NULL;
    free(line);
    return described;
}

static airlock_result run_echo_confirm(airlock_args *args, airlock_confirmation *out) {
    char *line = run_echo_line(args);
    if (!line) return airlock_args_error(args);
    out->kind = AIRLOCK_CONFIRM_EXEC;
    out->command = line;
    out->root_command = strdup("echo");
    out->directory = strdup(airlock_workspace_root());
    out->risk = AIRLOCK_RISK_LOW;
    return airlock_ok();
}

static airlock_result run_echo_execute(airlock_args *args) {
    const char *const *words;
    size_t count;
    if (!airlock_args_strings(args, "words", &words, &count, MAX_WORDS, true)) return airlock_args_error(args);
    /* An argv, not a shell line: the words are never read as shell syntax. */
    const char *argv[MAX_WORDS + 2] = {"echo"};
    for (size_t i = 0; i < count; i++) argv[i + 1] = words[i];
    argv[count + 1] = NULL;
    airlock_run_output output;
    airlock_result r = airlock_run(argv, &output);
    if (!airlock_is_ok(&r)) return r; /* the host's refusal, for the model */
    airlock_result_free(&r);
    if (!output.exited || output.code != 0) {
        r = airlock_err_execution("echo failed (code %d): %s", (int)output.code, output.stderr_text);
    } else {
        r = airlock_ok_text(output.stdout_text);
    }
    airlock_run_output_free(&output);
    return r;
}

static const airlock_tool_def TOOLS[] = {{
    .name = "run_echo",
    .display_name = "RunEcho",
    .description = "Runs `echo` with the given words and returns what it printed.",
    .parameters_json = "{\"type\":\"object\",\"properties\":{\"words\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},"
                       "\"description\":\"The words echo prints.\"}},\"required\":[\"words\"],\"additionalProperties\":false}",
    .kind = AIRLOCK_KIND_EXECUTE,
    .files = AIRLOCK_FILES({".", AIRLOCK_ACCESS_READ}),
    .processes = AIRLOCK_LIST("echo"),
    .validate = run_echo_validate,
    .describe_call = run_echo_describe_call,
    .confirm = run_echo_confirm,
    .execute = run_echo_execute,
}};

AIRLOCK_EXPORT_TOOLS("run-echo", "0.1.0", TOOLS);
