/* http_and_process: the C kit's example of reaching outside the sandbox, each through what
 * the user grants.
 *
 * - http_get GETs a URL through wasi:http (airlock_http_get). It requests http://127.0.0.1:*
 *   (any port on this machine's loopback address) so the kit's tests can play the web with
 *   a local server; a real tool requests its API's host instead
 *   (.network = AIRLOCK_LIST("https://api.github.com")).
 * - run_echo runs `echo` through airlock:host/process (contract 0.2.0, airlock_run), asking
 *   the user first with an exec confirmation. It requests the command prefix `echo` and read
 *   access to the workspace, where the program runs.
 *
 * Without the grant neither reaches anything: the host's refusal comes back as a
 * permission-denied result with the reason, which goes to the model as is.
 *
 * Build: ../../build.sh . http-and-process.wasm    Test: ../../tests/run.sh (natively) */
#include <stdlib.h>
#include <string.h>

#include "airlock_tool.h"

#define MAX_WORDS 64
/* Bytes of a body the model is shown. */
#define MAX_BODY (64 * 1024)

static airlock_result http_get_validate(airlock_args *args) {
    const char *url;
    return airlock_args_string(args, "url", &url) ? airlock_ok() : airlock_args_error(args);
}

static char *http_get_describe_call(airlock_args *args) {
    const char *url;
    return airlock_args_string(args, "url", &url) ? airlock_sprintf("GET %s", url) : NULL;
}

static airlock_result http_get_execute(airlock_args *args) {
    const char *url;
    if (!airlock_args_string(args, "url", &url)) return airlock_args_error(args);
    airlock_http_response response;
    airlock_result r = airlock_http_get(url, MAX_BODY, &response);
    if (!airlock_is_ok(&r)) return r; /* the host's refusal, for the model */
    airlock_result_free(&r);
    r = airlock_ok_textf("HTTP %u\n\n%s%s", (unsigned)response.status, response.body,
                         response.truncated ? "\n[body cut at 64 KiB]" : "");
    airlock_http_response_free(&response);
    return r;
}

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
    .name = "http_get",
    .display_name = "HttpGet",
    .description = "GETs a URL and returns the status line and the body (at most 64 KiB).",
    .parameters_json = "{\"type\":\"object\",\"properties\":{\"url\":{\"type\":\"string\","
                       "\"description\":\"The http:// or https:// URL to GET.\"}},\"required\":[\"url\"],\"additionalProperties\":false}",
    .kind = AIRLOCK_KIND_FETCH,
    .network = AIRLOCK_LIST("http://127.0.0.1:*"),
    .validate = http_get_validate,
    .describe_call = http_get_describe_call,
    .execute = http_get_execute,
}, {
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

AIRLOCK_EXPORT_TOOLS("http-and-process", "0.1.0", TOOLS);
