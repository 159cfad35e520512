/*
 * airlock_tool.h: write airlock tools in C.
 *
 * A tool is a C function plus its schema. List your tools in a table and export it:
 *
 *     static airlock_result hello_execute(airlock_args *args) {
 *         const char *name;
 *         airlock_args_string(args, "name", &name);
 *         if (airlock_args_failed(args)) return airlock_args_error(args);
 *         return airlock_ok_textf("Hello, %s!", name);
 *     }
 *
 *     static const airlock_tool_def TOOLS[] = {{
 *         .name = "hello", .display_name = "Hello", .description = "Greets someone.",
 *         .parameters_json = "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},"
 *                            "\"required\":[\"name\"]}",
 *         .kind = AIRLOCK_KIND_THINK,
 *         .execute = hello_execute,
 *     }};
 *     AIRLOCK_EXPORT_TOOLS("hello", "0.1.0", TOOLS);
 *
 * airlock_tool.c implements every export of the `airlock:tool/tool@0.2.0` interface on top
 * of the wit-bindgen C bindings (bindings/plugin.{c,h}): it dispatches by tool name, parses
 * the JSON arguments (a parse failure is `invalid-params`), converts results and errors to
 * the contract's types and takes care of the canonical-ABI ownership rules. Tool code never
 * touches the generated types.
 *
 * Memory: every `char *` in an `airlock_result` is malloc'd and owned by the result; the
 * helper frees it after handing a copy to the host. Strings you get from `airlock_args`
 * belong to the args and live until the entrypoint returns. Out of memory aborts (the host
 * sees a trap and throws the instance away).
 *
 * Compiled natively (not for wasm32), the same file offers the pure parts (JSON, paths,
 * results, dispatch) so a tool's logic can be unit-tested with the host C compiler; the
 * workspace root then comes from $AIRLOCK_WORKSPACE (else the current directory) and log
 * lines go to stderr when $AIRLOCK_LOG is set.
 */
#ifndef AIRLOCK_TOOL_H
#define AIRLOCK_TOOL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Describing tools ------------------------------------------------------------ */

/* What a tool does (the contract's `kind`). read, search, fetch and think are read-only
 * and run without confirmation. */
typedef enum {
    AIRLOCK_KIND_READ = 0,
    AIRLOCK_KIND_EDIT,
    AIRLOCK_KIND_DELETE,
    AIRLOCK_KIND_MOVE,
    AIRLOCK_KIND_SEARCH,
    AIRLOCK_KIND_EXECUTE,
    AIRLOCK_KIND_FETCH,
    AIRLOCK_KIND_THINK,
    AIRLOCK_KIND_OTHER,
} airlock_kind;

typedef enum {
    AIRLOCK_ACCESS_READ = 0,
    AIRLOCK_ACCESS_READ_WRITE = 1,
} airlock_access;

/* A request for a directory tree: "." (the workspace), "src", or "~/...". */
typedef struct {
    const char *path;
    airlock_access access;
} airlock_file_request;

/* A list of file requests, for `.files`: AIRLOCK_FILES({".", AIRLOCK_ACCESS_READ}). */
#define AIRLOCK_FILES(...) ((const airlock_file_request[]){__VA_ARGS__, {0, AIRLOCK_ACCESS_READ}})
/* A NULL-terminated list of strings, for `.network`, `.env`, `.processes`. */
#define AIRLOCK_LIST(...) ((const char *const[]){__VA_ARGS__, NULL})

/* ---- Status and results ---------------------------------------------------------- */

/* AIRLOCK_OK or one of the contract's `tool-error` cases. */
typedef enum {
    AIRLOCK_OK = 0,
    AIRLOCK_ERR_INVALID_PARAMS,
    AIRLOCK_ERR_NOT_FOUND,
    AIRLOCK_ERR_PERMISSION_DENIED,
    AIRLOCK_ERR_TIMEOUT,
    AIRLOCK_ERR_EXECUTION,
    AIRLOCK_ERR_CANCELLED,
} airlock_status;

/* The outcome of a call. On success `text` is what the model is told (plain text, or JSON
 * when `is_json`); on failure `text` is the error message, also for the model, so say what
 * to do differently. `display_markdown`, when set, is what the user is shown instead of a
 * summary of `text`. All strings are malloc'd and owned by the result (may be NULL). */
typedef struct {
    airlock_status status;
    bool is_json;
    char *text;
    size_t len;
    char *display_markdown;
} airlock_result;

airlock_result airlock_ok(void);                       /* success, no content (validate) */
airlock_result airlock_ok_text(const char *text);      /* copies text */
airlock_result airlock_ok_textf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
airlock_result airlock_ok_json(const char *json);      /* copies; the caller makes valid JSON */
airlock_result airlock_err(airlock_status status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
airlock_result airlock_err_invalid_params(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
airlock_result airlock_err_not_found(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
airlock_result airlock_err_permission_denied(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
airlock_result airlock_err_execution(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Sets the markdown the user is shown (copied); returns r for chaining. */
airlock_result airlock_with_display(airlock_result r, const char *markdown);
static inline bool airlock_is_ok(const airlock_result *r) { return r->status == AIRLOCK_OK; }
void airlock_result_free(airlock_result *r);
/* "invalid-params", "not-found", ... */
const char *airlock_status_name(airlock_status status);

/* ---- A growable string buffer (results, JSON output) ----------------------------- */

typedef struct {
    char *data; /* NUL-terminated when non-NULL */
    size_t len;
    size_t cap;
} airlock_buf;

void airlock_buf_append(airlock_buf *b, const char *s, size_t len);
void airlock_buf_puts(airlock_buf *b, const char *s);
void airlock_buf_printf(airlock_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends s (len bytes) as a quoted, escaped JSON string. */
void airlock_buf_json_string(airlock_buf *b, const char *s, size_t len);
void airlock_buf_free(airlock_buf *b);
/* Success results that take over the buffer (it is left empty). */
airlock_result airlock_ok_buf(airlock_buf *b);
airlock_result airlock_ok_json_buf(airlock_buf *b);
/* A malloc'd, quoted JSON string for s. */
char *airlock_json_escape(const char *s);
/* malloc'd printf. */
char *airlock_sprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- JSON values and arguments --------------------------------------------------- */

typedef enum {
    AIRLOCK_JSON_NULL,
    AIRLOCK_JSON_BOOL,
    AIRLOCK_JSON_NUMBER,
    AIRLOCK_JSON_STRING,
    AIRLOCK_JSON_ARRAY,
    AIRLOCK_JSON_OBJECT,
} airlock_json_type;

typedef struct airlock_json airlock_json; /* a value inside a parsed document */
typedef struct airlock_json_doc airlock_json_doc;

/* Parses text (len bytes) with cJSON (cjson/). Returns NULL and a message in *error on
 * malformed JSON, text that is not UTF-8, nesting deeper than 64 levels, lone surrogates,
 * trailing characters and strings holding a NUL (\u0000). cJSON is lenient where RFC 8259
 * is not but the meaning is plain: leading zeros (01), a bare point (1.), control
 * characters inside strings. */
airlock_json_doc *airlock_json_parse(const char *text, size_t len, char *error, size_t error_size);
void airlock_json_free(airlock_json_doc *doc);
const airlock_json *airlock_json_root(const airlock_json_doc *doc);

airlock_json_type airlock_json_type_of(const airlock_json *v);
const char *airlock_json_type_name(airlock_json_type t); /* "string", "an array", ... */
/* The member `key` of an object (the last one if repeated), or NULL. */
const airlock_json *airlock_json_get(const airlock_json *object, const char *key);
/* Number of elements of an array or members of an object; 0 otherwise. */
size_t airlock_json_len(const airlock_json *v);
/* Element i of an array, or NULL. */
const airlock_json *airlock_json_at(const airlock_json *array, size_t i);
/* Member i of an object (its key in *key), or NULL. */
const airlock_json *airlock_json_member(const airlock_json *object, size_t i, const char **key);
/* The decoded string (NUL-terminated, never holding a NUL; *len, if given, is its length), or NULL. */
const char *airlock_json_string(const airlock_json *v, size_t *len);
double airlock_json_number(const airlock_json *v);
bool airlock_json_bool(const airlock_json *v);

/* The arguments of one call: the parsed JSON object plus the first error a getter found.
 * Getters return true on success; on failure they return false, leave *out at its default
 * and remember an invalid-params message naming the field (the first one wins). Check
 * once at the end:
 *     if (airlock_args_failed(args)) return airlock_args_error(args);            */
typedef struct airlock_args airlock_args;

/* The whole arguments object. */
const airlock_json *airlock_args_json(const airlock_args *args);
const char *airlock_args_tool(const airlock_args *args); /* the tool's name */
bool airlock_args_has(const airlock_args *args, const char *field); /* present and not null */

/* Required fields: missing, null or the wrong type is an error. */
bool airlock_args_string(airlock_args *args, const char *field, const char **out);
bool airlock_args_int(airlock_args *args, const char *field, int64_t *out);
bool airlock_args_number(airlock_args *args, const char *field, double *out);
bool airlock_args_bool(airlock_args *args, const char *field, bool *out);
/* An array of strings: *items (owned by args) gets *count entries; at most max_items
 * (0 = no limit) and at least one unless allow_empty. */
bool airlock_args_strings(airlock_args *args, const char *field, const char *const **items,
                          size_t *count, size_t max_items, bool allow_empty);
/* Optional fields: missing or null gives the default; the wrong type is an error. */
bool airlock_args_string_or(airlock_args *args, const char *field, const char *dflt, const char **out);
bool airlock_args_int_or(airlock_args *args, const char *field, int64_t dflt, int64_t *out);
bool airlock_args_number_or(airlock_args *args, const char *field, double dflt, double *out);
bool airlock_args_bool_or(airlock_args *args, const char *field, bool dflt, bool *out);
/* A string that must be one of a NULL-terminated list of choices (optional when dflt). */
bool airlock_args_enum(airlock_args *args, const char *field, const char *const *choices,
                       const char *dflt, const char **out);
/* Records an invalid-params error about `field` yourself (printf-style detail). */
bool airlock_args_reject(airlock_args *args, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

bool airlock_args_failed(const airlock_args *args);
/* The invalid-params result for the first recorded error. */
airlock_result airlock_args_error(const airlock_args *args);

/* ---- Confirmations (tools that change things) ------------------------------------ */

typedef enum {
    AIRLOCK_CONFIRM_NONE = 0,
    AIRLOCK_CONFIRM_EDIT,
    AIRLOCK_CONFIRM_EXEC,
    AIRLOCK_CONFIRM_INFO,
} airlock_confirm_kind;

typedef enum { AIRLOCK_RISK_LOW = 0, AIRLOCK_RISK_MEDIUM, AIRLOCK_RISK_HIGH } airlock_risk;

/* What the user approves before `execute`. Strings are malloc'd and owned (freed by the
 * helper); `urls` is a malloc'd array of url_count malloc'd strings. */
typedef struct {
    airlock_confirm_kind kind;
    /* edit */
    char *path; /* absolute */
    char *original;
    char *proposed;
    bool is_new_file;
    /* exec */
    char *command;
    char *root_command;
    char *directory;
    airlock_risk risk;
    /* info */
    char *prompt;
    char **urls;
    size_t url_count;
} airlock_confirmation;

/* ---- The tool table -------------------------------------------------------------- */

typedef struct {
    const char *name;            /* what the model calls: ^[a-z][a-z0-9_]{0,62}$ */
    const char *display_name;    /* "Checksum" */
    const char *description;     /* for the model: what it does, returns, limits */
    const char *parameters_json; /* JSON Schema of the arguments; top level {"type":"object",...} */
    airlock_kind kind;
    bool streams_output;         /* sends live output with airlock_emit */
    bool not_parallel_safe;      /* default false = parallel-safe (as in the Rust kit) */
    /* Capabilities requested (each NULL = none). */
    const airlock_file_request *files; /* AIRLOCK_FILES(...) */
    const char *const *network;        /* AIRLOCK_LIST("https://example.com") */
    const char *const *env;
    const char *const *processes;
    /* Hooks. Only execute is required. validate runs before confirm and execute too. */
    airlock_result (*validate)(airlock_args *args);
    /* One human line for this call (malloc'd, e.g. airlock_sprintf); NULL = display name. */
    char *(*describe_call)(airlock_args *args);
    /* Fill *out (kind stays NONE for no confirmation); return airlock_ok() or an error. */
    airlock_result (*confirm)(airlock_args *args, airlock_confirmation *out);
    /* New arguments (airlock_ok_json) that make the file exactly `proposed`. */
    airlock_result (*modify_args)(airlock_args *args, const char *proposed, size_t proposed_len);
    airlock_result (*execute)(airlock_args *args);
} airlock_tool_def;

typedef struct {
    const char *name;    /* plugin name: ^[a-z][a-z0-9_-]{0,62}$ */
    const char *version; /* semver */
    const airlock_tool_def *tools;
    size_t tool_count;
} airlock_plugin_def;

/* The one plugin of this component; define it with AIRLOCK_EXPORT_TOOLS once. */
extern const airlock_plugin_def AIRLOCK_PLUGIN;
#define AIRLOCK_EXPORT_TOOLS(plugin_name, plugin_version, table)                            \
    const airlock_plugin_def AIRLOCK_PLUGIN = {(plugin_name), (plugin_version), (table),   \
                                               sizeof(table) / sizeof((table)[0])}

/* ---- Calling the entrypoints without the host (what the exports do; for tests) --- */

airlock_result airlock_call_validate(const char *tool, const char *args_json);
char *airlock_call_describe_call(const char *tool, const char *args_json); /* malloc'd */
airlock_result airlock_call_confirm(const char *tool, const char *args_json, airlock_confirmation *out);
airlock_result airlock_call_modify_args(const char *tool, const char *args_json, const char *proposed);
airlock_result airlock_call_execute(const char *tool, const char *args_json);
void airlock_confirmation_free(airlock_confirmation *c);

/* ---- Workspace, files, host ------------------------------------------------------ */

/* The workspace root, absolute and normalised (cached for the call). */
const char *airlock_workspace_root(void);
/* The call's id, for log lines (malloc'd). */
char *airlock_call_id(void);
/* Resolves a path from the model, absolute or relative to the workspace root, to a
 * normalised absolute path (*out, malloc'd). Empty -> invalid-params; outside the
 * workspace -> permission-denied. Returns airlock_ok() on success. */
airlock_result airlock_resolve_in_workspace(const char *path, char **out);
/* The same against an explicit root (pure; for tests). */
airlock_result airlock_resolve_in(const char *root, const char *path, char **out);
/* Lexical normalisation: drops "." and empty parts, resolves ".." (never above "/"). */
char *airlock_normalize(const char *path);
/* path relative to the workspace root for messages ("src/a.c", "." for the root). */
char *airlock_display_path(const char *abs_path);
/* Turns errno from a failed file operation on abs_path into a tool error: a missing file
 * is not-found (path in the message) unless none of its parent folders is visible, which
 * means the tool was not granted access (permission-denied, saying so). */
airlock_result airlock_file_error(const char *abs_path, int err);

/* Logging through airlock:host/log (the host's log file, never the terminal). */
typedef enum {
    AIRLOCK_LOG_TRACE = 0,
    AIRLOCK_LOG_DEBUG,
    AIRLOCK_LOG_INFO,
    AIRLOCK_LOG_WARN,
    AIRLOCK_LOG_ERROR,
} airlock_log_level;
void airlock_log(airlock_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define airlock_log_debug(...) airlock_log(AIRLOCK_LOG_DEBUG, __VA_ARGS__)
#define airlock_log_info(...) airlock_log(AIRLOCK_LOG_INFO, __VA_ARGS__)
#define airlock_log_warn(...) airlock_log(AIRLOCK_LOG_WARN, __VA_ARGS__)
#define airlock_log_error(...) airlock_log(AIRLOCK_LOG_ERROR, __VA_ARGS__)
/* Live output to the user (only shown for tools with .streams_output). */
void airlock_emit(const char *chunk);

/* ---- Programs (airlock:host/process, contract 0.2.0) ------------------------------ */

/* What a finished program wrote and how it ended. stdout_text and stderr_text are malloc'd
 * and NUL-terminated; free them with airlock_run_output_free. */
typedef struct {
    bool exited;     /* it exited by itself: code holds its exit code */
    int32_t code;
    bool signaled;   /* a signal ended it (9 when the host killed it) */
    int32_t signal;
    bool timed_out;
    char *stdout_text;
    char *stderr_text;
} airlock_run_output;

/* Runs argv (NULL-terminated, the program first; no shell) in the workspace root through
 * the host and waits for its end, filling *out. The host starts only a program the tool
 * requests (.processes = AIRLOCK_LIST("git")) and the user granted; a refusal comes back as
 * the error result (permission-denied, invalid-params or execution) with the host's reason,
 * to return to the model as is. Natively (unit tests) nothing runs: an execution error. */
airlock_result airlock_run(const char *const *argv, airlock_run_output *out);
void airlock_run_output_free(airlock_run_output *out);

/* ---- HTTP (wasi:http 0.2.12, outgoing-handler) ----------------------------------- */

/* Bytes of a response body airlock_http_request reads when given max_body 0. */
#define AIRLOCK_HTTP_DEFAULT_MAX_BODY ((size_t)8 << 20)

/* One request header; a list of them ends with {NULL, NULL}. */
typedef struct {
    const char *name;
    const char *value;
} airlock_http_header;

/* A response. body is malloc'd and NUL-terminated (body_len bytes before the NUL, which may
 * hold NULs themselves); free it with airlock_http_response_free. */
typedef struct {
    uint16_t status;
    char *body;
    size_t body_len;
    bool truncated; /* the body was longer than max_body: the rest was not read */
} airlock_http_response;

/* Sends one request through the host's wasi:http and reads the response into *out:
 * method ("GET", "POST", ...), an http:// or https:// url, headers (NULL or a list ending
 * with {NULL, NULL}), a body of body_len bytes (NULL: none), at most max_body bytes of the
 * response body kept (0: AIRLOCK_HTTP_DEFAULT_MAX_BODY). The host sends it only to a
 * destination the tool requests (.network = AIRLOCK_LIST("https://api.example.com")) and the
 * user granted; otherwise the error result is permission-denied, naming the host, to
 * return to the model as is. A bad url: invalid-params; a failed request (no such host,
 * refused connection): execution. Redirects are returned as they are, never followed.
 * Natively (unit tests) nothing is sent: an execution error after the url is checked. */
airlock_result airlock_http_request(const char *method, const char *url, const airlock_http_header *headers,
                                    const void *body, size_t body_len, size_t max_body,
                                    airlock_http_response *out);
/* airlock_http_request("GET", url, NULL, NULL, 0, max_body, out). */
airlock_result airlock_http_get(const char *url, size_t max_body, airlock_http_response *out);
void airlock_http_response_free(airlock_http_response *out);

#ifdef __cplusplus
}
#endif
#endif
