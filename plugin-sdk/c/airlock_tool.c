/*
 * airlock_tool.c: the helper layer of airlock's C plugin kit (see airlock_tool.h).
 *
 * Part 1 (everywhere): results, string buffers, a small JSON reader, typed argument
 * getters, paths, dispatch by tool name. Part 2 (wasm32 only): the exports of
 * `airlock:tool/tool@0.2.0` and the host imports, over the wit-bindgen C bindings in
 * bindings/plugin.{c,h}. Natively, part 2 is replaced by stand-ins so tools can be
 * unit-tested with the host C compiler.
 */
#include "airlock_tool.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#ifndef __wasm__
#include <unistd.h>
#endif

/* ==== Memory ======================================================================= */

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) abort();
    return p;
}

static void *xrealloc(void *p, size_t n) {
    void *q = realloc(p, n ? n : 1);
    if (!q) abort();
    return q;
}

static char *xstrndup(const char *s, size_t n) {
    char *p = xmalloc(n + 1);
    if (n) memcpy(p, s, n);
    p[n] = 0;
    return p;
}

static char *xstrdup(const char *s) { return xstrndup(s, strlen(s)); }

static char *vformat(const char *fmt, va_list ap, size_t *len_out) {
    va_list copy;
    va_copy(copy, ap);
    int n = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    if (n < 0) n = 0;
    char *s = xmalloc((size_t)n + 1);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    if (len_out) *len_out = (size_t)n;
    return s;
}

char *airlock_sprintf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *s = vformat(fmt, ap, NULL);
    va_end(ap);
    return s;
}

/* ==== Results ====================================================================== */

airlock_result airlock_ok(void) {
    airlock_result r = {AIRLOCK_OK, false, NULL, 0, NULL};
    return r;
}

airlock_result airlock_ok_text(const char *text) {
    airlock_result r = airlock_ok();
    r.len = strlen(text);
    r.text = xstrndup(text, r.len);
    return r;
}

airlock_result airlock_ok_textf(const char *fmt, ...) {
    airlock_result r = airlock_ok();
    va_list ap;
    va_start(ap, fmt);
    r.text = vformat(fmt, ap, &r.len);
    va_end(ap);
    return r;
}

airlock_result airlock_ok_json(const char *json) {
    airlock_result r = airlock_ok_text(json);
    r.is_json = true;
    return r;
}

static airlock_result verr(airlock_status status, const char *fmt, va_list ap) {
    airlock_result r = airlock_ok();
    r.status = status == AIRLOCK_OK ? AIRLOCK_ERR_EXECUTION : status;
    r.text = vformat(fmt, ap, &r.len);
    return r;
}

airlock_result airlock_err(airlock_status status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    airlock_result r = verr(status, fmt, ap);
    va_end(ap);
    return r;
}

#define DEFINE_ERR(fn, status)                                                              \
    airlock_result fn(const char *fmt, ...) {                                              \
        va_list ap;                                                                        \
        va_start(ap, fmt);                                                                 \
        airlock_result r = verr(status, fmt, ap);                                          \
        va_end(ap);                                                                        \
        return r;                                                                          \
    }
DEFINE_ERR(airlock_err_invalid_params, AIRLOCK_ERR_INVALID_PARAMS)
DEFINE_ERR(airlock_err_not_found, AIRLOCK_ERR_NOT_FOUND)
DEFINE_ERR(airlock_err_permission_denied, AIRLOCK_ERR_PERMISSION_DENIED)
DEFINE_ERR(airlock_err_execution, AIRLOCK_ERR_EXECUTION)

airlock_result airlock_with_display(airlock_result r, const char *markdown) {
    free(r.display_markdown);
    r.display_markdown = markdown ? xstrdup(markdown) : NULL;
    return r;
}

void airlock_result_free(airlock_result *r) {
    free(r->text);
    free(r->display_markdown);
    r->text = r->display_markdown = NULL;
    r->len = 0;
}

const char *airlock_status_name(airlock_status status) {
    switch (status) {
    case AIRLOCK_OK: return "ok";
    case AIRLOCK_ERR_INVALID_PARAMS: return "invalid-params";
    case AIRLOCK_ERR_NOT_FOUND: return "not-found";
    case AIRLOCK_ERR_PERMISSION_DENIED: return "permission-denied";
    case AIRLOCK_ERR_TIMEOUT: return "timeout";
    case AIRLOCK_ERR_EXECUTION: return "execution";
    case AIRLOCK_ERR_CANCELLED: return "cancelled";
    }
    return "execution";
}

/* ==== Buffers and JSON output ====================================================== */

static void buf_reserve(airlock_buf *b, size_t extra) {
    if (extra > SIZE_MAX - b->len - 1) abort();
    size_t need = b->len + extra + 1;
    if (need <= b->cap) return;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need) cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    b->data = xrealloc(b->data, cap);
    b->cap = cap;
}

void airlock_buf_append(airlock_buf *b, const char *s, size_t len) {
    buf_reserve(b, len);
    if (len) memcpy(b->data + b->len, s, len);
    b->len += len;
    b->data[b->len] = 0;
}

void airlock_buf_puts(airlock_buf *b, const char *s) { airlock_buf_append(b, s, strlen(s)); }

void airlock_buf_printf(airlock_buf *b, const char *fmt, ...) {
    va_list ap, copy;
    va_start(ap, fmt);
    va_copy(copy, ap);
    int n = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    if (n > 0) {
        buf_reserve(b, (size_t)n);
        vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
        b->len += (size_t)n;
    }
    va_end(ap);
}

void airlock_buf_json_string(airlock_buf *b, const char *s, size_t len) {
    static const char hex[] = "0123456789abcdef";
    airlock_buf_append(b, "\"", 1);
    size_t start = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        const char *esc = NULL;
        char u[7];
        switch (c) {
        case '"': esc = "\\\""; break;
        case '\\': esc = "\\\\"; break;
        case '\n': esc = "\\n"; break;
        case '\r': esc = "\\r"; break;
        case '\t': esc = "\\t"; break;
        case '\b': esc = "\\b"; break;
        case '\f': esc = "\\f"; break;
        default:
            if (c < 0x20 || c == 0x7f) {
                u[0] = '\\'; u[1] = 'u'; u[2] = '0'; u[3] = '0';
                u[4] = hex[c >> 4]; u[5] = hex[c & 15]; u[6] = 0;
                esc = u;
            }
        }
        if (esc) {
            airlock_buf_append(b, s + start, i - start);
            airlock_buf_puts(b, esc);
            start = i + 1;
        }
    }
    airlock_buf_append(b, s + start, len - start);
    airlock_buf_append(b, "\"", 1);
}

void airlock_buf_free(airlock_buf *b) {
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

airlock_result airlock_ok_buf(airlock_buf *b) {
    airlock_result r = airlock_ok();
    r.text = b->data ? b->data : xstrdup("");
    r.len = b->len;
    b->data = NULL;
    b->len = b->cap = 0;
    return r;
}

airlock_result airlock_ok_json_buf(airlock_buf *b) {
    airlock_result r = airlock_ok_buf(b);
    r.is_json = true;
    return r;
}

char *airlock_json_escape(const char *s) {
    airlock_buf b = {0};
    airlock_buf_json_string(&b, s, strlen(s));
    return b.data;
}

/* ==== JSON reader ==================================================================
 * cJSON (cjson/, version and source in README.md) parses; this layer copies its tree into
 * the kit's own nodes, which know their key's and string's lengths, and adds what cJSON does
 * not check: the text must be UTF-8, nothing but whitespace may follow the value, and a
 * string may not hold a NUL (`\u0000`), because cJSON's C strings would silently end there
 * and the tool would read less than the host checked. Nesting deeper than JSON_MAX_DEPTH is
 * refused by cJSON itself (CJSON_NESTING_LIMIT), so its recursion stays shallow.
 * cJSON is compiled into this file, so every build of airlock_tool.c (build.sh, the native
 * tests, a project's own scripts) gets it without a new source to list. */

#define JSON_MAX_DEPTH 64
#define CJSON_NESTING_LIMIT JSON_MAX_DEPTH
#include "cjson/cJSON.c"

struct airlock_json {
    airlock_json_type type;
    bool boolean;
    double number;
    const char *str; /* the string value (cJSON's copy) */
    size_t str_len;
    const char *key; /* member key when inside an object */
    size_t count;    /* children */
    const airlock_json *first, *next;
};

struct airlock_json_doc {
    cJSON *tree; /* owns the strings the nodes point into */
    airlock_json *nodes;
    size_t count;
};

/* Length of the valid UTF-8 sequence at s[0..avail), or 0. */
static size_t utf8_seq(const unsigned char *s, size_t avail) {
    unsigned char c = s[0];
    size_t n;
    unsigned min, cp;
    if (c < 0x80) return 1;
    if (c >= 0xc2 && c <= 0xdf) { n = 2; cp = c & 0x1f; min = 0x80; }
    else if (c >= 0xe0 && c <= 0xef) { n = 3; cp = c & 0x0f; min = 0x800; }
    else if (c >= 0xf0 && c <= 0xf4) { n = 4; cp = c & 0x07; min = 0x10000; }
    else return 0;
    if (avail < n) return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
    return n;
}

/* The first thing this layer refuses in text before cJSON reads it (invalid UTF-8, or a
 * `\u0000` escape: a backslash run of odd length before `u0000`), or NULL; *at is its byte. */
static const char *json_precheck(const unsigned char *s, size_t len, size_t *at) {
    size_t backslashes = 0;
    for (size_t i = 0; i < len;) {
        size_t k = utf8_seq(s + i, len - i);
        if (!k) { *at = i; return "invalid UTF-8"; }
        if (s[i] == 'u' && backslashes % 2 == 1 && len - i >= 5 && memcmp(s + i + 1, "0000", 4) == 0) {
            *at = i - 1;
            return "a string holds a NUL character (\\u0000)";
        }
        backslashes = s[i] == '\\' ? backslashes + 1 : 0;
        i += k;
    }
    return NULL;
}

static size_t json_count(const cJSON *item) {
    size_t n = 1;
    for (const cJSON *c = item->child; c; c = c->next) n += json_count(c);
    return n;
}

/* Copies item (and its children, depth first) into doc->nodes; returns its node. */
static airlock_json *json_copy(airlock_json_doc *doc, const cJSON *item) {
    airlock_json *n = &doc->nodes[doc->count++];
    memset(n, 0, sizeof *n);
    switch (item->type & 0xff) {
    case cJSON_False: n->type = AIRLOCK_JSON_BOOL; break;
    case cJSON_True: n->type = AIRLOCK_JSON_BOOL; n->boolean = true; break;
    case cJSON_Number: n->type = AIRLOCK_JSON_NUMBER; n->number = item->valuedouble; break;
    case cJSON_String:
        n->type = AIRLOCK_JSON_STRING;
        n->str = item->valuestring;
        n->str_len = strlen(item->valuestring);
        break;
    case cJSON_Array: n->type = AIRLOCK_JSON_ARRAY; break;
    case cJSON_Object: n->type = AIRLOCK_JSON_OBJECT; break;
    default: n->type = AIRLOCK_JSON_NULL; break;
    }
    airlock_json *last = NULL;
    for (const cJSON *c = item->child; c; c = c->next) {
        airlock_json *child = json_copy(doc, c);
        child->key = c->string;
        if (last) last->next = child;
        else n->first = child;
        last = child;
        n->count++;
    }
    return n;
}

airlock_json_doc *airlock_json_parse(const char *text, size_t len, char *error, size_t error_size) {
    const unsigned char *s = (const unsigned char *)text;
    size_t at = 0;
    const char *refused = json_precheck(s, len, &at);
    cJSON *tree = NULL;
    if (!refused) {
        const char *end = NULL;
        tree = cJSON_ParseWithLengthOpts(text, len, &end, false);
        at = end ? (size_t)(end - text) : 0;
        if (!tree) refused = "malformed JSON";
        else {
            while (at < len && (s[at] == ' ' || s[at] == '\t' || s[at] == '\n' || s[at] == '\r')) at++;
            if (at != len) refused = "trailing characters after the value";
        }
    }
    if (refused) {
        if (error && error_size) snprintf(error, error_size, "%s at byte %zu", refused, at);
        cJSON_Delete(tree);
        return NULL;
    }
    airlock_json_doc *doc = xmalloc(sizeof *doc);
    doc->tree = tree;
    doc->nodes = xmalloc(json_count(tree) * sizeof(airlock_json));
    doc->count = 0;
    json_copy(doc, tree);
    return doc;
}

void airlock_json_free(airlock_json_doc *doc) {
    if (!doc) return;
    cJSON_Delete(doc->tree);
    free(doc->nodes);
    free(doc);
}

const airlock_json *airlock_json_root(const airlock_json_doc *doc) {
    return doc && doc->count ? &doc->nodes[0] : NULL;
}

airlock_json_type airlock_json_type_of(const airlock_json *v) { return v ? v->type : AIRLOCK_JSON_NULL; }

const char *airlock_json_type_name(airlock_json_type t) {
    switch (t) {
    case AIRLOCK_JSON_NULL: return "null";
    case AIRLOCK_JSON_BOOL: return "a boolean";
    case AIRLOCK_JSON_NUMBER: return "a number";
    case AIRLOCK_JSON_STRING: return "a string";
    case AIRLOCK_JSON_ARRAY: return "an array";
    case AIRLOCK_JSON_OBJECT: return "an object";
    }
    return "?";
}

const airlock_json *airlock_json_get(const airlock_json *object, const char *key) {
    if (!object || object->type != AIRLOCK_JSON_OBJECT) return NULL;
    const airlock_json *found = NULL;
    for (const airlock_json *c = object->first; c; c = c->next)
        if (strcmp(c->key, key) == 0) found = c; /* the last one wins, as in serde_json */
    return found;
}

size_t airlock_json_len(const airlock_json *v) {
    return v && (v->type == AIRLOCK_JSON_ARRAY || v->type == AIRLOCK_JSON_OBJECT) ? v->count : 0;
}

const airlock_json *airlock_json_at(const airlock_json *array, size_t i) {
    if (!array || array->type != AIRLOCK_JSON_ARRAY || i >= array->count) return NULL;
    const airlock_json *c = array->first;
    while (i--) c = c->next;
    return c;
}

const airlock_json *airlock_json_member(const airlock_json *object, size_t i, const char **key) {
    if (!object || object->type != AIRLOCK_JSON_OBJECT || i >= object->count) return NULL;
    const airlock_json *c = object->first;
    while (i--) c = c->next;
    if (key) *key = c->key;
    return c;
}

const char *airlock_json_string(const airlock_json *v, size_t *len) {
    if (!v || v->type != AIRLOCK_JSON_STRING) return NULL;
    if (len) *len = v->str_len;
    return v->str;
}

double airlock_json_number(const airlock_json *v) { return v && v->type == AIRLOCK_JSON_NUMBER ? v->number : 0; }
bool airlock_json_bool(const airlock_json *v) { return v && v->type == AIRLOCK_JSON_BOOL && v->boolean; }

/* ==== Arguments ==================================================================== */

struct airlock_args {
    const char *tool;
    airlock_json_doc *doc;
    const airlock_json *root;
    char *error;
    void **allocs; /* string lists handed out by airlock_args_strings */
    size_t alloc_count;
};

static const char RETRY[] = ". Call the tool again with arguments that match its schema.";

const airlock_json *airlock_args_json(const airlock_args *args) { return args->root; }
const char *airlock_args_tool(const airlock_args *args) { return args->tool; }
bool airlock_args_failed(const airlock_args *args) { return args->error != NULL; }

airlock_result airlock_args_error(const airlock_args *args) {
    if (!args->error) return airlock_err_invalid_params("invalid arguments for %s%s", args->tool, RETRY);
    return airlock_err_invalid_params("%s", args->error);
}

static bool vreject(airlock_args *args, const char *field, const char *fmt, va_list ap) {
    if (args->error) return false;
    char *detail = vformat(fmt, ap, NULL);
    if (field) args->error = airlock_sprintf("invalid arguments for %s: field `%s`: %s%s", args->tool, field, detail, RETRY);
    else args->error = airlock_sprintf("invalid arguments for %s: %s%s", args->tool, detail, RETRY);
    free(detail);
    return false;
}

bool airlock_args_reject(airlock_args *args, const char *field, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vreject(args, field, fmt, ap);
    va_end(ap);
    return false;
}

static bool missing(airlock_args *args, const char *field) {
    if (args->error) return false;
    args->error = airlock_sprintf("invalid arguments for %s: missing field `%s`%s", args->tool, field, RETRY);
    return false;
}

static bool mistyped(airlock_args *args, const char *field, const char *expected, const airlock_json *v) {
    return airlock_args_reject(args, field, "expected %s, got %s", expected,
                               airlock_json_type_name(airlock_json_type_of(v)));
}

/* The field's value, or NULL when missing or null. */
static const airlock_json *field_value(const airlock_args *args, const char *field) {
    const airlock_json *v = airlock_json_get(args->root, field);
    return v && v->type != AIRLOCK_JSON_NULL ? v : NULL;
}

bool airlock_args_has(const airlock_args *args, const char *field) { return field_value(args, field) != NULL; }

static bool get_string(airlock_args *args, const char *field, const airlock_json *v, const char **out) {
    if (v->type != AIRLOCK_JSON_STRING) return mistyped(args, field, "a string", v);
    *out = v->str;
    return true;
}

bool airlock_args_string(airlock_args *args, const char *field, const char **out) {
    const airlock_json *v = field_value(args, field);
    return v ? get_string(args, field, v, out) : missing(args, field);
}

bool airlock_args_string_or(airlock_args *args, const char *field, const char *dflt, const char **out) {
    const airlock_json *v = field_value(args, field);
    *out = dflt;
    return v ? get_string(args, field, v, out) : true;
}

static bool get_int(airlock_args *args, const char *field, const airlock_json *v, int64_t *out) {
    if (v->type != AIRLOCK_JSON_NUMBER) return mistyped(args, field, "an integer", v);
    double d = v->number;
    if (!(d >= -9007199254740992.0 && d <= 9007199254740992.0) || d != (double)(int64_t)d)
        return airlock_args_reject(args, field, "expected an integer, got %g", d);
    *out = (int64_t)d;
    return true;
}

bool airlock_args_int(airlock_args *args, const char *field, int64_t *out) {
    const airlock_json *v = field_value(args, field);
    return v ? get_int(args, field, v, out) : missing(args, field);
}

bool airlock_args_int_or(airlock_args *args, const char *field, int64_t dflt, int64_t *out) {
    const airlock_json *v = field_value(args, field);
    *out = dflt;
    return v ? get_int(args, field, v, out) : true;
}

static bool get_number(airlock_args *args, const char *field, const airlock_json *v, double *out) {
    if (v->type != AIRLOCK_JSON_NUMBER) return mistyped(args, field, "a number", v);
    *out = v->number;
    return true;
}

bool airlock_args_number(airlock_args *args, const char *field, double *out) {
    const airlock_json *v = field_value(args, field);
    return v ? get_number(args, field, v, out) : missing(args, field);
}

bool airlock_args_number_or(airlock_args *args, const char *field, double dflt, double *out) {
    const airlock_json *v = field_value(args, field);
    *out = dflt;
    return v ? get_number(args, field, v, out) : true;
}

static bool get_bool(airlock_args *args, const char *field, const airlock_json *v, bool *out) {
    if (v->type != AIRLOCK_JSON_BOOL) return mistyped(args, field, "a boolean", v);
    *out = v->boolean;
    return true;
}

bool airlock_args_bool(airlock_args *args, const char *field, bool *out) {
    const airlock_json *v = field_value(args, field);
    return v ? get_bool(args, field, v, out) : missing(args, field);
}

bool airlock_args_bool_or(airlock_args *args, const char *field, bool dflt, bool *out) {
    const airlock_json *v = field_value(args, field);
    *out = dflt;
    return v ? get_bool(args, field, v, out) : true;
}

bool airlock_args_strings(airlock_args *args, const char *field, const char *const **items, size_t *count,
                          size_t max_items, bool allow_empty) {
    static const char *const none[1] = {NULL};
    *items = none;
    *count = 0;
    const airlock_json *v = field_value(args, field);
    if (!v) return missing(args, field);
    if (v->type != AIRLOCK_JSON_ARRAY) return mistyped(args, field, "an array of strings", v);
    if (v->count == 0 && !allow_empty) return airlock_args_reject(args, field, "give at least one entry");
    if (max_items && v->count > max_items)
        return airlock_args_reject(args, field, "at most %zu entries are allowed, got %zu", max_items, v->count);
    const char **list = xmalloc((v->count + 1) * sizeof(char *));
    size_t i = 0;
    for (const airlock_json *c = v->first; c; c = c->next, i++) {
        if (c->type != AIRLOCK_JSON_STRING) {
            free(list);
            char name[160];
            snprintf(name, sizeof name, "%s[%zu]", field, i);
            return mistyped(args, name, "a string", c);
        }
        list[i] = c->str;
    }
    list[i] = NULL;
    args->allocs = xrealloc(args->allocs, (args->alloc_count + 1) * sizeof(void *));
    args->allocs[args->alloc_count++] = list;
    *items = list;
    *count = v->count;
    return true;
}

bool airlock_args_enum(airlock_args *args, const char *field, const char *const *choices, const char *dflt,
                       const char **out) {
    const char *s;
    bool ok = dflt ? airlock_args_string_or(args, field, dflt, &s) : airlock_args_string(args, field, &s);
    *out = dflt;
    if (!ok) return false;
    for (size_t i = 0; choices[i]; i++) {
        if (strcmp(s, choices[i]) == 0) {
            *out = choices[i];
            return true;
        }
    }
    airlock_buf allowed = {0};
    for (size_t i = 0; choices[i]; i++) airlock_buf_printf(&allowed, "%s\"%s\"", i ? ", " : "", choices[i]);
    airlock_args_reject(args, field, "\"%s\" is not one of %s", s, allowed.data ? allowed.data : "");
    airlock_buf_free(&allowed);
    return false;
}

/* Whether d is a finite whole number, without converting an out-of-range double (undefined
 * behaviour in C, and a trap in wasm without the non-trapping conversions). */
static bool is_integral(double d) {
    if (d - d != 0) return false;                                    /* inf, nan */
    if (d >= 4503599627370496.0 || d <= -4503599627370496.0) return true; /* |d| >= 2^52 */
    return d == (double)(int64_t)d;
}

/* Checks the arguments against the shallow part of the tool's own schema: every name in
 * "required" is present, and every present property has the declared "type" (and, for
 * arrays, the declared "items" type). Deeper checks are the tool's business. */
static bool type_matches(const airlock_json *v, const char *type) {
    switch (v->type) {
    case AIRLOCK_JSON_NULL: return strcmp(type, "null") == 0;
    case AIRLOCK_JSON_BOOL: return strcmp(type, "boolean") == 0;
    case AIRLOCK_JSON_STRING: return strcmp(type, "string") == 0;
    case AIRLOCK_JSON_ARRAY: return strcmp(type, "array") == 0;
    case AIRLOCK_JSON_OBJECT: return strcmp(type, "object") == 0;
    case AIRLOCK_JSON_NUMBER:
        if (strcmp(type, "number") == 0) return true;
        /* No (int64_t) cast before the range check: converting 1e300 is undefined behaviour
         * (and may trap in wasm). Integral values of any size are JSON Schema integers. */
        return strcmp(type, "integer") == 0 && is_integral(v->number);
    }
    return false;
}

/* True when v matches the schema's "type" (a string or a list of strings; absent = any). */
static bool schema_type_ok(const airlock_json *schema, const airlock_json *v, const char **expected) {
    const airlock_json *t = airlock_json_get(schema, "type");
    *expected = NULL;
    if (!t) return true;
    if (t->type == AIRLOCK_JSON_STRING) {
        *expected = t->str;
        return type_matches(v, t->str);
    }
    if (t->type == AIRLOCK_JSON_ARRAY) {
        for (const airlock_json *c = t->first; c; c = c->next) {
            if (c->type != AIRLOCK_JSON_STRING) continue;
            if (!*expected) *expected = c->str;
            if (type_matches(v, c->str)) return true;
        }
        return *expected == NULL;
    }
    return true;
}

static const char *with_article(const char *type) {
    if (strcmp(type, "integer") == 0) return "an integer";
    if (strcmp(type, "array") == 0) return "an array";
    if (strcmp(type, "object") == 0) return "an object";
    if (strcmp(type, "string") == 0) return "a string";
    if (strcmp(type, "number") == 0) return "a number";
    if (strcmp(type, "boolean") == 0) return "a boolean";
    return type;
}

static void check_schema(airlock_args *args, const airlock_json *schema) {
    const airlock_json *required = airlock_json_get(schema, "required");
    for (size_t i = 0; i < airlock_json_len(required); i++) {
        const char *name = airlock_json_string(airlock_json_at(required, i), NULL);
        if (name && !airlock_json_get(args->root, name)) missing(args, name);
    }
    const airlock_json *props = airlock_json_get(schema, "properties");
    if (!props || props->type != AIRLOCK_JSON_OBJECT) return;
    for (const airlock_json *p = props->first; p; p = p->next) {
        const airlock_json *v = airlock_json_get(args->root, p->key);
        const char *expected;
        if (!v) continue;
        if (v->type == AIRLOCK_JSON_NULL && !airlock_json_get(p, "type")) continue;
        if (!schema_type_ok(p, v, &expected)) {
            mistyped(args, p->key, with_article(expected), v);
            continue;
        }
        const airlock_json *items = airlock_json_get(p, "items");
        if (v->type == AIRLOCK_JSON_ARRAY && items && items->type == AIRLOCK_JSON_OBJECT) {
            size_t i = 0;
            for (const airlock_json *c = v->first; c; c = c->next, i++) {
                if (!schema_type_ok(items, c, &expected)) {
                    char name[160];
                    snprintf(name, sizeof name, "%s[%zu]", p->key, i);
                    mistyped(args, name, with_article(expected), c);
                    break;
                }
            }
        }
    }
}

/* ==== Dispatch ===================================================================== */

static const airlock_tool_def *find_tool(const char *name) {
    for (size_t i = 0; i < AIRLOCK_PLUGIN.tool_count; i++)
        if (strcmp(AIRLOCK_PLUGIN.tools[i].name, name) == 0) return &AIRLOCK_PLUGIN.tools[i];
    return NULL;
}

static airlock_result unknown_tool(const char *name) {
    airlock_buf known = {0};
    for (size_t i = 0; i < AIRLOCK_PLUGIN.tool_count; i++)
        airlock_buf_printf(&known, "%s%s", i ? ", " : "", AIRLOCK_PLUGIN.tools[i].name);
    airlock_result r = airlock_err_invalid_params("this plugin has no tool named '%s'; its tools are: %s", name,
                                                  known.data ? known.data : "");
    airlock_buf_free(&known);
    return r;
}

static void close_args(airlock_args *args) {
    airlock_json_free(args->doc);
    free(args->error);
    for (size_t i = 0; i < args->alloc_count; i++) free(args->allocs[i]);
    free(args->allocs);
    memset(args, 0, sizeof *args);
}

/* Parses the arguments of tool t and checks them against its schema. */
static airlock_result open_args(const airlock_tool_def *t, const char *json, size_t len, airlock_args *args) {
    memset(args, 0, sizeof *args);
    args->tool = t->name;
    size_t i = 0;
    while (i < len && (json[i] == ' ' || json[i] == '\t' || json[i] == '\n' || json[i] == '\r')) i++;
    if (i == len) {
        json = "{}";
        len = 2;
    }
    char error[96];
    args->doc = airlock_json_parse(json, len, error, sizeof error);
    if (!args->doc)
        return airlock_err_invalid_params("invalid arguments for %s: the arguments are not valid JSON (%s)%s", t->name,
                                          error, RETRY);
    args->root = airlock_json_root(args->doc);
    if (args->root->type != AIRLOCK_JSON_OBJECT)
        return airlock_err_invalid_params("invalid arguments for %s: expected a JSON object, got %s%s", t->name,
                                          airlock_json_type_name(args->root->type), RETRY);
    if (t->parameters_json) {
        airlock_json_doc *schema = airlock_json_parse(t->parameters_json, strlen(t->parameters_json), error, sizeof error);
        if (!schema)
            return airlock_err_execution("the parameters schema of tool %s is not valid JSON (%s); fix the plugin",
                                         t->name, error);
        check_schema(args, airlock_json_root(schema));
        airlock_json_free(schema);
        if (args->error) return airlock_args_error(args);
    }
    return airlock_ok();
}

/* A hook's result, or the getter error it ignored. */
static airlock_result checked(airlock_args *args, airlock_result r) {
    if (r.status == AIRLOCK_OK && args->error) {
        airlock_result_free(&r);
        return airlock_args_error(args);
    }
    return r;
}

typedef enum { CALL_VALIDATE, CALL_CONFIRM, CALL_MODIFY, CALL_EXECUTE } call_kind;

static airlock_result run(call_kind kind, const char *tool, const char *json, size_t len, const char *proposed,
                          size_t proposed_len, airlock_confirmation *conf) {
    const airlock_tool_def *t = find_tool(tool);
    if (!t) return unknown_tool(tool);
    airlock_args args;
    airlock_result r = open_args(t, json, len, &args);
    if (r.status == AIRLOCK_OK && kind != CALL_MODIFY && t->validate) r = checked(&args, t->validate(&args));
    if (r.status == AIRLOCK_OK) {
        switch (kind) {
        case CALL_VALIDATE: break;
        case CALL_CONFIRM:
            if (t->confirm) r = checked(&args, t->confirm(&args, conf));
            break;
        case CALL_MODIFY:
            if (t->modify_args) r = checked(&args, t->modify_args(&args, proposed, proposed_len));
            else r = airlock_err_invalid_params("this tool has no editable proposal");
            break;
        case CALL_EXECUTE:
            if (t->execute) r = checked(&args, t->execute(&args));
            else r = airlock_err_execution("tool %s has no execute function; fix the plugin", t->name);
            break;
        }
    }
    close_args(&args);
    if (r.status != AIRLOCK_OK && !r.text) {
        r.text = xstrdup(airlock_status_name(r.status));
        r.len = strlen(r.text);
    }
    if (r.status == AIRLOCK_OK && !r.text) {
        r.text = xstrdup("");
        r.len = 0;
    }
    return r;
}

static char *describe_call_n(const char *tool, const char *json, size_t len) {
    const airlock_tool_def *t = find_tool(tool);
    if (!t) return xstrdup(tool);
    const char *fallback = t->display_name ? t->display_name : t->name;
    airlock_args args;
    airlock_result r = open_args(t, json, len, &args);
    char *line = NULL;
    if (r.status == AIRLOCK_OK && t->describe_call) line = t->describe_call(&args);
    airlock_result_free(&r);
    close_args(&args);
    return line ? line : xstrdup(fallback);
}

airlock_result airlock_call_validate(const char *tool, const char *args_json) {
    return run(CALL_VALIDATE, tool, args_json, strlen(args_json), NULL, 0, NULL);
}

char *airlock_call_describe_call(const char *tool, const char *args_json) {
    return describe_call_n(tool, args_json, strlen(args_json));
}

airlock_result airlock_call_confirm(const char *tool, const char *args_json, airlock_confirmation *out) {
    memset(out, 0, sizeof *out);
    return run(CALL_CONFIRM, tool, args_json, strlen(args_json), NULL, 0, out);
}

airlock_result airlock_call_modify_args(const char *tool, const char *args_json, const char *proposed) {
    return run(CALL_MODIFY, tool, args_json, strlen(args_json), proposed, strlen(proposed), NULL);
}

airlock_result airlock_call_execute(const char *tool, const char *args_json) {
    return run(CALL_EXECUTE, tool, args_json, strlen(args_json), NULL, 0, NULL);
}

void airlock_confirmation_free(airlock_confirmation *c) {
    free(c->path); free(c->original); free(c->proposed);
    free(c->command); free(c->root_command); free(c->directory);
    free(c->prompt);
    for (size_t i = 0; i < c->url_count; i++) free(c->urls[i]);
    free(c->urls);
    memset(c, 0, sizeof *c);
}

/* ==== Paths ======================================================================== */

char *airlock_normalize(const char *path) {
    size_t n = strlen(path);
    bool absolute = n && path[0] == '/';
    /* Component start offsets in the output; the output never outgrows the input + 2. */
    char *out = xmalloc(n + 3);
    size_t *starts = xmalloc((n / 2 + 2) * sizeof(size_t));
    size_t depth = 0, len = 0, ups = 0; /* ups: leading ".." kept in a relative path */
    if (absolute) out[len++] = '/';
    size_t i = 0;
    while (i < n) {
        while (i < n && path[i] == '/') i++;
        size_t j = i;
        while (j < n && path[j] != '/') j++;
        size_t part = j - i;
        if (part == 0 || (part == 1 && path[i] == '.')) {
            /* skip */
        } else if (part == 2 && path[i] == '.' && path[i + 1] == '.') {
            if (depth > ups) {
                depth--;
                len = starts[depth];
            } else if (!absolute) {
                starts[depth++] = len;
                ups++;
                if (len && out[len - 1] != '/') out[len++] = '/';
                out[len++] = '.';
                out[len++] = '.';
            }
        } else {
            starts[depth++] = len;
            if (len && out[len - 1] != '/') out[len++] = '/';
            memcpy(out + len, path + i, part);
            len += part;
        }
        i = j;
    }
    /* A popped component may leave a trailing '/' (except the root itself). */
    if (len > 1 && out[len - 1] == '/') len--;
    if (len == 0) out[len++] = absolute ? '/' : '.';
    out[len] = 0;
    free(starts);
    return out;
}

/* Whether abs lies in root (or is root); both normalised. */
static bool path_within(const char *root, const char *abs) {
    size_t r = strlen(root);
    if (r == 1 && root[0] == '/') return abs[0] == '/';
    return strncmp(abs, root, r) == 0 && (abs[r] == 0 || abs[r] == '/');
}

airlock_result airlock_resolve_in(const char *root_in, const char *path, char **out) {
    *out = NULL;
    const char *p = path;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    if (!*p)
        return airlock_err_invalid_params(
            "the path is empty; give a path relative to the workspace root or an absolute path inside it");
    char *root = airlock_normalize(root_in);
    char *joined = path[0] == '/' ? xstrdup(path) : airlock_sprintf("%s/%s", root, path);
    char *resolved = airlock_normalize(joined);
    free(joined);
    airlock_result r = airlock_ok();
    if (path_within(root, resolved)) {
        *out = resolved;
    } else {
        r = airlock_err_permission_denied("path '%s' is outside the workspace %s; use a path inside it", path, root);
        free(resolved);
    }
    free(root);
    return r;
}

airlock_result airlock_resolve_in_workspace(const char *path, char **out) {
    return airlock_resolve_in(airlock_workspace_root(), path, out);
}

char *airlock_display_path(const char *abs) {
    const char *root = airlock_workspace_root();
    size_t r = strlen(root);
    if (strcmp(abs, root) == 0) return xstrdup(".");
    if (path_within(root, abs)) return xstrdup(abs + (r == 1 ? 1 : r + 1));
    return xstrdup(abs);
}

/* Whether some folder above abs inside the workspace is visible to this instance: paths
 * the host did not grant look like missing files from inside the sandbox. */
static bool within_grant(const char *abs) {
    const char *root = airlock_workspace_root();
    char *p = xstrdup(abs);
    bool visible = false;
    for (;;) {
        char *slash = strrchr(p, '/');
        if (!slash) break;
        if (slash == p) slash[1] = 0; /* "/" */
        else *slash = 0;
        if (!path_within(root, p)) break;
        struct stat st;
        if (stat(p, &st) == 0) {
            visible = true;
            break;
        }
        if (slash == p) break;
    }
    free(p);
    return visible;
}

airlock_result airlock_file_error(const char *abs, int err) {
    char *shown = airlock_display_path(abs);
    airlock_result r;
    bool denied = err == EACCES || err == EPERM;
#ifdef ENOTCAPABLE
    denied = denied || err == ENOTCAPABLE;
#endif
    if (err == ENOENT && within_grant(abs))
        r = airlock_err_not_found("'%s' does not exist; check the path", shown);
    else if (err == ENOENT || denied)
        r = airlock_err_permission_denied(
            "cannot access '%s': this tool has not been granted access to it (or only read access); "
            "the user can grant it in the airlock policy (`airlock plugins grant %s ...`)",
            shown, AIRLOCK_PLUGIN.name);
    else if (err == ENOTDIR)
        r = airlock_err_invalid_params("'%s' or one of its parents is not a directory", shown);
    else if (err == EISDIR)
        r = airlock_err_invalid_params("'%s' is a directory, not a file", shown);
    else
        r = airlock_err_execution("cannot access '%s': %s", shown, strerror(err));
    free(shown);
    return r;
}

/* ==== Host: shared ================================================================= */

static char *workspace_root_cache;
static void host_workspace_root(char **out);
static void host_log(airlock_log_level level, const char *message, size_t len);

const char *airlock_workspace_root(void) {
    if (!workspace_root_cache) {
        char *raw = NULL;
        host_workspace_root(&raw);
        workspace_root_cache = airlock_normalize(raw && raw[0] ? raw : "/");
        free(raw);
    }
    return workspace_root_cache;
}

void airlock_log(airlock_log_level level, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    size_t len;
    char *message = vformat(fmt, ap, &len);
    va_end(ap);
    host_log(level, message, len);
    free(message);
}

/* ---- HTTP: the url, on every host -------------------------------------------------- */

/* Where a request goes: scheme, authority ("host[:port]"), path with query ("/..."), and
 * the host alone (for messages). The strings are malloc'd. */
typedef struct {
    bool https;
    char *authority;
    char *path;
    char *host;
} http_target;

static void http_target_free(http_target *t) {
    free(t->authority);
    free(t->path);
    free(t->host);
    memset(t, 0, sizeof *t);
}

static bool ascii_prefix(const char *s, const char *prefix) {
    for (; *prefix; s++, prefix++)
        if (!*s || (*s | 0x20) != *prefix) return false;
    return true;
}

/* Splits an http:// or https:// url; false (and nothing to free) when it is not one. */
static bool parse_http_url(const char *url, http_target *t) {
    memset(t, 0, sizeof *t);
    if (!url) return false;
    const char *rest;
    if (ascii_prefix(url, "https://")) {
        t->https = true;
        rest = url + 8;
    } else if (ascii_prefix(url, "http://")) {
        rest = url + 7;
    } else {
        return false;
    }
    size_t n = strcspn(rest, "/?#");
    if (n == 0) return false;
    for (size_t i = 0; i < n; i++)
        if (rest[i] == '@' || (unsigned char)rest[i] <= ' ' || rest[i] == 0x7f) return false;
    const char *tail = rest + n;
    size_t tail_len = strcspn(tail, "#");
    for (size_t i = 0; i < tail_len; i++)
        if ((unsigned char)tail[i] <= ' ' || tail[i] == 0x7f) return false;
    t->authority = xstrndup(rest, n);
    if (tail_len == 0) t->path = xstrdup("/");
    else if (tail[0] == '/') t->path = xstrndup(tail, tail_len);
    else t->path = airlock_sprintf("/%.*s", (int)tail_len, tail);
    /* The host: "[v6]" keeps its brackets; else what comes before the port. */
    const char *a = t->authority;
    const char *close = a[0] == '[' ? strchr(a, ']') : NULL;
    size_t host_len = close ? (size_t)(close - a) + 1 : a[0] == '[' ? strlen(a) : strcspn(a, ":");
    t->host = xstrndup(a, host_len);
    return true;
}

static airlock_result bad_http_url(const char *url) {
    return airlock_err_invalid_params("'%s' is not an http:// or https:// URL with a host", url ? url : "(null)");
}

airlock_result airlock_http_get(const char *url, size_t max_body, airlock_http_response *out) {
    return airlock_http_request("GET", url, NULL, NULL, 0, max_body, out);
}

void airlock_http_response_free(airlock_http_response *out) {
    free(out->body);
    out->body = NULL;
    out->body_len = 0;
}

#ifdef __wasm__
/* ==== Host: wasm32 (the component) ================================================= */

#include "bindings/plugin.h"

/* plugin.c (generated with --no-object-file) references this symbol of the component-type
 * object; the type is embedded by `wasm-tools component embed` instead. */
void __component_type_object_force_link_plugin(void) {}

static void host_workspace_root(char **out) {
    plugin_string_t s;
    airlock_host_context_workspace_root(&s); /* allocated for us with cabi_realloc */
    *out = xstrndup((const char *)s.ptr, s.len);
    plugin_string_free(&s);
}

char *airlock_call_id(void) {
    plugin_string_t s;
    airlock_host_context_call_id(&s);
    char *id = xstrndup((const char *)s.ptr, s.len);
    plugin_string_free(&s);
    return id;
}

static void host_log(airlock_log_level level, const char *message, size_t len) {
    plugin_string_t s = {(uint8_t *)message, len}; /* borrowed for the call */
    airlock_host_log_log((airlock_host_log_level_t)level, &s);
}

void airlock_emit(const char *chunk) {
    plugin_string_t s = {(uint8_t *)chunk, strlen(chunk)};
    airlock_host_output_emit(&s);
}

/* Export results are freed by the generated post-return functions with free() whenever
 * their length is non-zero, so every string and list handed back must be malloc'd (our
 * buffers are, and malloc is what cabi_realloc uses), and nothing may be shared. */
static void give(plugin_string_t *dst, char *owned, size_t len) {
    if (!owned || len == 0) {
        free(owned);
        dst->ptr = NULL;
        dst->len = 0;
        return;
    }
    dst->ptr = (uint8_t *)owned;
    dst->len = len;
}

static void give_copy(plugin_string_t *dst, const char *s) {
    if (!s || !*s) give(dst, NULL, 0);
    else give(dst, xstrdup(s), strlen(s));
}

/* Parameters of exports are owned by us: take a NUL-terminated copy and free the original. */
static char *take(plugin_string_t *s, size_t *len) {
    char *c = xstrndup((const char *)s->ptr, s->len);
    if (len) *len = s->len;
    plugin_string_free(s);
    return c;
}

static void give_error(airlock_result *r, exports_airlock_tool_tool_tool_error_t *err) {
    err->tag = (uint8_t)(r->status - 1); /* invalid-params = 0, ... as in the WIT variant */
    if (r->status < AIRLOCK_ERR_INVALID_PARAMS || r->status > AIRLOCK_ERR_CANCELLED)
        err->tag = AIRLOCK_TOOL_TYPES_TOOL_ERROR_EXECUTION;
    give(&err->val.execution, r->text, r->len); /* every case is a string in the same place */
    r->text = NULL;
    airlock_result_free(r);
}

static void give_list(plugin_list_string_t *dst, const char *const *items) {
    size_t n = 0;
    while (items && items[n]) n++;
    dst->len = n;
    dst->ptr = n ? xmalloc(n * sizeof(plugin_string_t)) : NULL;
    for (size_t i = 0; i < n; i++) give_copy(&dst->ptr[i], items[i]);
}

void exports_airlock_tool_tool_describe(exports_airlock_tool_tool_plugin_info_t *ret) {
    memset(ret, 0, sizeof *ret);
    give_copy(&ret->name, AIRLOCK_PLUGIN.name);
    give_copy(&ret->version, AIRLOCK_PLUGIN.version ? AIRLOCK_PLUGIN.version : "0.1.0");
    size_t n = AIRLOCK_PLUGIN.tool_count;
    ret->tools.len = n;
    ret->tools.ptr = n ? xmalloc(n * sizeof(airlock_tool_types_tool_info_t)) : NULL;
    for (size_t i = 0; i < n; i++) {
        const airlock_tool_def *t = &AIRLOCK_PLUGIN.tools[i];
        airlock_tool_types_tool_info_t *info = &ret->tools.ptr[i];
        memset(info, 0, sizeof *info);
        give_copy(&info->name, t->name);
        give_copy(&info->display_name, t->display_name ? t->display_name : t->name);
        give_copy(&info->description, t->description);
        give_copy(&info->parameters, t->parameters_json ? t->parameters_json : "{\"type\":\"object\"}");
        info->kind = (airlock_tool_types_kind_t)t->kind;
        info->streams_output = t->streams_output;
        info->parallel_safe = !t->not_parallel_safe;
        size_t files = 0;
        while (t->files && t->files[files].path) files++;
        info->capabilities.files.len = files;
        info->capabilities.files.ptr = files ? xmalloc(files * sizeof(airlock_tool_types_file_request_t)) : NULL;
        for (size_t f = 0; f < files; f++) {
            give_copy(&info->capabilities.files.ptr[f].path, t->files[f].path);
            info->capabilities.files.ptr[f].access = (airlock_tool_types_access_t)t->files[f].access;
        }
        give_list(&info->capabilities.network, t->network);
        give_list(&info->capabilities.env, t->env);
        give_list(&info->capabilities.processes, t->processes);
    }
}

bool exports_airlock_tool_tool_validate(plugin_string_t *tool, plugin_string_t *args,
                                        exports_airlock_tool_tool_tool_error_t *err) {
    size_t len;
    char *name = take(tool, NULL), *json = take(args, &len);
    airlock_result r = run(CALL_VALIDATE, name, json, len, NULL, 0, NULL);
    free(name);
    free(json);
    if (r.status == AIRLOCK_OK) {
        airlock_result_free(&r);
        return true;
    }
    give_error(&r, err);
    return false;
}

void exports_airlock_tool_tool_describe_call(plugin_string_t *tool, plugin_string_t *args, plugin_string_t *ret) {
    size_t len;
    char *name = take(tool, NULL), *json = take(args, &len);
    char *line = describe_call_n(name, json, len);
    free(name);
    free(json);
    give(ret, line, strlen(line));
}

bool exports_airlock_tool_tool_confirm(plugin_string_t *tool, plugin_string_t *args,
                                       exports_airlock_tool_tool_option_confirmation_t *ret,
                                       exports_airlock_tool_tool_tool_error_t *err) {
    size_t len;
    char *name = take(tool, NULL), *json = take(args, &len);
    airlock_confirmation c;
    memset(&c, 0, sizeof c);
    airlock_result r = run(CALL_CONFIRM, name, json, len, NULL, 0, &c);
    free(name);
    free(json);
    if (r.status != AIRLOCK_OK) {
        airlock_confirmation_free(&c);
        give_error(&r, err);
        return false;
    }
    airlock_result_free(&r);
    memset(ret, 0, sizeof *ret);
    airlock_tool_types_confirmation_t *out = &ret->val;
#define GIVE_FIELD(dst, field) (give(&(dst), c.field, c.field ? strlen(c.field) : 0), c.field = NULL)
    switch (c.kind) {
    case AIRLOCK_CONFIRM_NONE: ret->is_some = false; break;
    case AIRLOCK_CONFIRM_EDIT:
        ret->is_some = true;
        out->tag = AIRLOCK_TOOL_TYPES_CONFIRMATION_EDIT;
        GIVE_FIELD(out->val.edit.path, path);
        GIVE_FIELD(out->val.edit.original, original);
        GIVE_FIELD(out->val.edit.proposed, proposed);
        out->val.edit.is_new_file = c.is_new_file;
        break;
    case AIRLOCK_CONFIRM_EXEC:
        ret->is_some = true;
        out->tag = AIRLOCK_TOOL_TYPES_CONFIRMATION_EXEC;
        GIVE_FIELD(out->val.exec.command, command);
        GIVE_FIELD(out->val.exec.root_command, root_command);
        GIVE_FIELD(out->val.exec.directory, directory);
        out->val.exec.risk = (airlock_tool_types_risk_t)c.risk;
        break;
    case AIRLOCK_CONFIRM_INFO:
        ret->is_some = true;
        out->tag = AIRLOCK_TOOL_TYPES_CONFIRMATION_INFO;
        GIVE_FIELD(out->val.info.prompt, prompt);
        out->val.info.urls.len = c.url_count;
        out->val.info.urls.ptr = c.url_count ? xmalloc(c.url_count * sizeof(plugin_string_t)) : NULL;
        for (size_t i = 0; i < c.url_count; i++) {
            give(&out->val.info.urls.ptr[i], c.urls[i], c.urls[i] ? strlen(c.urls[i]) : 0);
            c.urls[i] = NULL;
        }
        break;
    }
#undef GIVE_FIELD
    airlock_confirmation_free(&c);
    return true;
}

bool exports_airlock_tool_tool_modify_args(plugin_string_t *tool, plugin_string_t *args, plugin_string_t *proposed,
                                           plugin_string_t *ret, exports_airlock_tool_tool_tool_error_t *err) {
    size_t len, plen;
    char *name = take(tool, NULL), *json = take(args, &len), *prop = take(proposed, &plen);
    airlock_result r = run(CALL_MODIFY, name, json, len, prop, plen, NULL);
    free(name);
    free(json);
    free(prop);
    if (r.status != AIRLOCK_OK) {
        give_error(&r, err);
        return false;
    }
    give(ret, r.text, r.len);
    r.text = NULL;
    airlock_result_free(&r);
    return true;
}

bool exports_airlock_tool_tool_execute(plugin_string_t *tool, plugin_string_t *args,
                                       exports_airlock_tool_tool_tool_output_t *ret,
                                       exports_airlock_tool_tool_tool_error_t *err) {
    size_t len;
    char *name = take(tool, NULL), *json = take(args, &len);
    airlock_result r = run(CALL_EXECUTE, name, json, len, NULL, 0, NULL);
    free(name);
    free(json);
    if (r.status != AIRLOCK_OK) {
        give_error(&r, err);
        return false;
    }
    memset(ret, 0, sizeof *ret);
    ret->llm_content.len = 1;
    ret->llm_content.ptr = xmalloc(sizeof(airlock_tool_types_content_part_t));
    airlock_tool_types_content_part_t *part = &ret->llm_content.ptr[0];
    part->tag = r.is_json ? AIRLOCK_TOOL_TYPES_CONTENT_PART_JSON : AIRLOCK_TOOL_TYPES_CONTENT_PART_TEXT;
    give(&part->val.text, r.text, r.len); /* text and json share the slot */
    r.text = NULL;
    if (r.display_markdown) {
        ret->display.is_some = true;
        ret->display.val.tag = AIRLOCK_TOOL_TYPES_DISPLAY_MARKDOWN;
        give(&ret->display.val.val.markdown, r.display_markdown, strlen(r.display_markdown));
        r.display_markdown = NULL;
    }
    airlock_result_free(&r);
    return true;
}

/* Words joined by NUL characters, as airlock:host/process takes an argv. */
static char *join_argv(const char *const *argv, size_t *len) {
    airlock_buf b = {0};
    for (size_t i = 0; argv[i]; i++) {
        if (i > 0) airlock_buf_append(&b, "", 1);
        airlock_buf_puts(&b, argv[i]);
    }
    *len = b.len;
    return b.data ? b.data : xstrdup("");
}

airlock_result airlock_run(const char *const *argv, airlock_run_output *out) {
    memset(out, 0, sizeof *out);
    if (!argv || !argv[0]) return airlock_err_invalid_params("airlock_run: no program given");
    size_t len = 0;
    char *joined = join_argv(argv, &len);
    airlock_host_process_spawn_options_t options = {0};
    options.command.tag = AIRLOCK_HOST_PROCESS_COMMAND_ARGV;
    options.command.val.argv.ptr = (uint8_t *)joined; /* borrowed for the call */
    options.command.val.argv.len = len;
    airlock_host_process_own_child_t child;
    airlock_host_process_spawn_error_t refusal;
    bool started = airlock_host_process_spawn(&options, &child, &refusal);
    free(joined);
    if (!started) {
        airlock_status status = refusal.tag == AIRLOCK_HOST_PROCESS_SPAWN_ERROR_DENIED    ? AIRLOCK_ERR_PERMISSION_DENIED
                                : refusal.tag == AIRLOCK_HOST_PROCESS_SPAWN_ERROR_INVALID ? AIRLOCK_ERR_INVALID_PARAMS
                                                                                          : AIRLOCK_ERR_EXECUTION;
        plugin_string_t *message = &refusal.val.denied; /* every case holds one string */
        airlock_result r = airlock_err(status, "%.*s", (int)message->len, (const char *)message->ptr);
        airlock_host_process_spawn_error_free(&refusal);
        return r;
    }
    airlock_buf stdout_buf = {0}, stderr_buf = {0};
    airlock_host_process_borrow_child_t borrowed = airlock_host_process_borrow_child(child);
    for (;;) {
        airlock_host_process_event_t event;
        airlock_host_process_method_child_next(borrowed, 1000, &event);
        if (event.tag == AIRLOCK_HOST_PROCESS_EVENT_STDOUT) {
            airlock_buf_append(&stdout_buf, (const char *)event.val.stdout_.ptr, event.val.stdout_.len);
        } else if (event.tag == AIRLOCK_HOST_PROCESS_EVENT_STDERR) {
            airlock_buf_append(&stderr_buf, (const char *)event.val.stderr_.ptr, event.val.stderr_.len);
        } else if (event.tag == AIRLOCK_HOST_PROCESS_EVENT_EXITED) {
            airlock_host_process_exit_status_t *status = &event.val.exited;
            out->exited = status->code.is_some;
            out->code = status->code.val;
            out->signaled = status->signal.is_some;
            out->signal = status->signal.val;
            out->timed_out = status->timed_out;
            airlock_host_process_event_free(&event);
            break;
        }
        airlock_host_process_event_free(&event);
    }
    airlock_host_process_child_drop_own(child);
    out->stdout_text = stdout_buf.data ? stdout_buf.data : xstrdup("");
    out->stderr_text = stderr_buf.data ? stderr_buf.data : xstrdup("");
    return airlock_ok();
}

/* What a wasi:http error code means, for the model. */
static airlock_result http_failure(const char *url, const char *host, const wasi_http_types_error_code_t *code) {
    switch (code->tag) {
    case WASI_HTTP_TYPES_ERROR_CODE_HTTP_REQUEST_DENIED:
        return airlock_err_permission_denied(
            "%s: the request to %s was denied: no network grant allows this destination; the user can grant it "
            "with `airlock plugins grant --net`",
            url, host);
    case WASI_HTTP_TYPES_ERROR_CODE_DESTINATION_IP_PROHIBITED:
        return airlock_err_permission_denied(
            "%s: %s is at an address that is not public (loopback, private, link-local), which is reached only "
            "when the user's grant names that address",
            url, host);
    case WASI_HTTP_TYPES_ERROR_CODE_DNS_ERROR:
    case WASI_HTTP_TYPES_ERROR_CODE_DESTINATION_NOT_FOUND:
        return airlock_err_execution("%s: the host name %s could not be resolved", url, host);
    case WASI_HTTP_TYPES_ERROR_CODE_CONNECTION_REFUSED:
        return airlock_err_execution("%s: the connection to %s was refused", url, host);
    case WASI_HTTP_TYPES_ERROR_CODE_CONNECTION_TIMEOUT:
        return airlock_err_execution("%s: the connection to %s timed out", url, host);
    default:
        return airlock_err_execution("%s: the request failed (wasi:http error code %d)", url, (int)code->tag);
    }
}

static void borrowed_string(plugin_string_t *dst, const char *s) {
    dst->ptr = (uint8_t *)s; /* borrowed for the call */
    dst->len = strlen(s);
}

/* Writes the request body and finishes it; false when the host would not take it. */
static bool send_body(wasi_http_types_own_outgoing_body_t out_body, const uint8_t *body, size_t len) {
    wasi_io_streams_own_output_stream_t stream;
    if (!wasi_http_types_method_outgoing_body_write(wasi_http_types_borrow_outgoing_body(out_body), &stream)) {
        wasi_http_types_outgoing_body_drop_own(out_body);
        return false;
    }
    bool ok = true;
    wasi_io_streams_borrow_output_stream_t borrowed = wasi_io_streams_borrow_output_stream(stream);
    for (size_t done = 0; ok && done < len;) {
        size_t n = len - done < 4096 ? len - done : 4096; /* blocking-write-and-flush takes at most 4096 */
        plugin_list_u8_t chunk = {(uint8_t *)body + done, n};
        wasi_io_streams_stream_error_t error;
        ok = wasi_io_streams_method_output_stream_blocking_write_and_flush(borrowed, &chunk, &error);
        if (!ok) wasi_io_streams_stream_error_free(&error);
        done += n;
    }
    wasi_io_streams_output_stream_drop_own(stream);
    wasi_http_types_error_code_t error;
    if (!wasi_http_types_static_outgoing_body_finish(out_body, NULL, &error)) {
        wasi_http_types_error_code_free(&error);
        ok = false;
    }
    return ok;
}

/* Reads at most max bytes of the body of response into *out (and whether there was more). */
static bool read_body(wasi_http_types_borrow_incoming_response_t response, size_t max, airlock_http_response *out) {
    wasi_http_types_own_incoming_body_t body;
    if (!wasi_http_types_method_incoming_response_consume(response, &body)) return false;
    wasi_io_streams_own_input_stream_t stream;
    if (!wasi_http_types_method_incoming_body_stream(wasi_http_types_borrow_incoming_body(body), &stream)) {
        wasi_http_types_incoming_body_drop_own(body);
        return false;
    }
    airlock_buf buf = {0};
    bool ok = true;
    wasi_io_streams_borrow_input_stream_t borrowed = wasi_io_streams_borrow_input_stream(stream);
    for (;;) {
        plugin_list_u8_t chunk;
        wasi_io_streams_stream_error_t error;
        /* One byte past the cap tells a body of exactly max bytes from a longer one. */
        uint64_t want = max - buf.len + 1 < 65536 ? max - buf.len + 1 : 65536;
        if (!wasi_io_streams_method_input_stream_blocking_read(borrowed, want, &chunk, &error)) {
            ok = error.tag == WASI_IO_STREAMS_STREAM_ERROR_CLOSED; /* the end of the body */
            wasi_io_streams_stream_error_free(&error);
            break;
        }
        size_t keep = chunk.len < max - buf.len ? chunk.len : max - buf.len;
        airlock_buf_append(&buf, (const char *)chunk.ptr, keep);
        bool over = keep < chunk.len;
        plugin_list_u8_free(&chunk);
        if (over) {
            out->truncated = true;
            break;
        }
    }
    wasi_io_streams_input_stream_drop_own(stream);
    wasi_http_types_incoming_body_drop_own(body);
    out->body_len = buf.len;
    out->body = buf.data ? buf.data : xstrdup("");
    return ok;
}

airlock_result airlock_http_request(const char *method, const char *url, const airlock_http_header *headers,
                                    const void *body, size_t body_len, size_t max_body,
                                    airlock_http_response *out) {
    memset(out, 0, sizeof *out);
    http_target target;
    if (!parse_http_url(url, &target)) return bad_http_url(url);
    if (max_body == 0) max_body = AIRLOCK_HTTP_DEFAULT_MAX_BODY;
    if (!method || !*method) method = "GET";
    airlock_result r = airlock_ok();

    wasi_http_types_own_fields_t fields = wasi_http_types_constructor_fields();
    for (size_t i = 0; headers && headers[i].name; i++) {
        wasi_http_types_field_name_t name;
        borrowed_string(&name, headers[i].name);
        wasi_http_types_field_value_t value = {(uint8_t *)headers[i].value, strlen(headers[i].value)};
        wasi_http_types_header_error_t error;
        if (!wasi_http_types_method_fields_append(wasi_http_types_borrow_fields(fields), &name, &value, &error)) {
            wasi_http_types_fields_drop_own(fields);
            http_target_free(&target);
            return airlock_err_invalid_params("%s: the header '%s' is not allowed or not valid", url, headers[i].name);
        }
    }
    wasi_http_types_own_outgoing_request_t request = wasi_http_types_constructor_outgoing_request(fields);
    wasi_http_types_borrow_outgoing_request_t req = wasi_http_types_borrow_outgoing_request(request);
    static const struct {
        const char *name;
        uint8_t tag;
    } METHODS[] = {{"GET", WASI_HTTP_TYPES_METHOD_GET},         {"HEAD", WASI_HTTP_TYPES_METHOD_HEAD},
                   {"POST", WASI_HTTP_TYPES_METHOD_POST},       {"PUT", WASI_HTTP_TYPES_METHOD_PUT},
                   {"DELETE", WASI_HTTP_TYPES_METHOD_DELETE},   {"CONNECT", WASI_HTTP_TYPES_METHOD_CONNECT},
                   {"OPTIONS", WASI_HTTP_TYPES_METHOD_OPTIONS}, {"TRACE", WASI_HTTP_TYPES_METHOD_TRACE},
                   {"PATCH", WASI_HTTP_TYPES_METHOD_PATCH}};
    wasi_http_types_method_t m = {0};
    m.tag = WASI_HTTP_TYPES_METHOD_OTHER;
    borrowed_string(&m.val.other, method);
    for (size_t i = 0; i < sizeof METHODS / sizeof METHODS[0]; i++)
        if (strcmp(method, METHODS[i].name) == 0) m.tag = METHODS[i].tag;
    wasi_http_types_scheme_t scheme = {0};
    scheme.tag = target.https ? WASI_HTTP_TYPES_SCHEME_HTTPS : WASI_HTTP_TYPES_SCHEME_HTTP;
    plugin_string_t authority, path; /* the options are pointers: NULL would be none */
    borrowed_string(&authority, target.authority);
    borrowed_string(&path, target.path);
    bool set = wasi_http_types_method_outgoing_request_set_method(req, &m) &&
               wasi_http_types_method_outgoing_request_set_scheme(req, &scheme) &&
               wasi_http_types_method_outgoing_request_set_authority(req, &authority) &&
               wasi_http_types_method_outgoing_request_set_path_with_query(req, &path);
    wasi_http_types_own_outgoing_body_t out_body;
    bool has_body = set && body && wasi_http_types_method_outgoing_request_body(req, &out_body);
    if (!set || (body && !has_body)) {
        wasi_http_types_outgoing_request_drop_own(request);
        r = airlock_err_invalid_params("%s: the host does not take this request (method '%s')", url, method);
        http_target_free(&target);
        return r;
    }

    wasi_http_outgoing_handler_own_future_incoming_response_t future;
    wasi_http_outgoing_handler_error_code_t error;
    if (!wasi_http_outgoing_handler_handle(request, NULL, &future, &error)) {
        if (has_body) wasi_http_types_outgoing_body_drop_own(out_body);
        r = http_failure(url, target.host, &error);
        wasi_http_outgoing_handler_error_code_free(&error);
        http_target_free(&target);
        return r;
    }
    if (has_body && !send_body(out_body, (const uint8_t *)body, body_len)) {
        r = airlock_err_execution("%s: the request body could not be sent", url);
    }

    /* Wait for the response. */
    wasi_http_types_borrow_future_incoming_response_t waiting = wasi_http_types_borrow_future_incoming_response(future);
    wasi_http_types_result_result_own_incoming_response_error_code_void_t got;
    while (!wasi_http_types_method_future_incoming_response_get(waiting, &got)) {
        wasi_io_poll_own_pollable_t ready = wasi_http_types_method_future_incoming_response_subscribe(waiting);
        wasi_io_poll_method_pollable_block(wasi_io_poll_borrow_pollable(ready));
        wasi_io_poll_pollable_drop_own(ready);
    }
    wasi_http_types_future_incoming_response_drop_own(future);
    if (got.is_err) {
        if (airlock_is_ok(&r)) r = airlock_err_execution("%s: the response was already taken", url);
    } else if (got.val.ok.is_err) {
        airlock_result_free(&r);
        r = http_failure(url, target.host, &got.val.ok.val.err);
        wasi_http_types_error_code_free(&got.val.ok.val.err);
    } else {
        wasi_http_types_own_incoming_response_t response = got.val.ok.val.ok;
        wasi_http_types_borrow_incoming_response_t borrowed = wasi_http_types_borrow_incoming_response(response);
        if (airlock_is_ok(&r)) {
            out->status = wasi_http_types_method_incoming_response_status(borrowed);
            if (!read_body(borrowed, max_body, out)) {
                airlock_http_response_free(out);
                r = airlock_err_execution("%s: the response body could not be read", url);
            }
        }
        wasi_http_types_incoming_response_drop_own(response);
    }
    http_target_free(&target);
    return r;
}

#else
/* ==== Host: native stand-ins (unit tests) ========================================== */

static void host_workspace_root(char **out) {
    const char *env = getenv("AIRLOCK_WORKSPACE");
    if (env && *env) {
        *out = xstrdup(env);
        return;
    }
    char cwd[4096];
    *out = xstrdup(getcwd(cwd, sizeof cwd) ? cwd : "/");
}

char *airlock_call_id(void) { return xstrdup("native-test"); }

static void host_log(airlock_log_level level, const char *message, size_t len) {
    static const char *const names[] = {"trace", "debug", "info", "warn", "error"};
    if (getenv("AIRLOCK_LOG"))
        fprintf(stderr, "[%s] %.*s\n", names[level <= AIRLOCK_LOG_ERROR ? level : AIRLOCK_LOG_ERROR], (int)len, message);
}

void airlock_emit(const char *chunk) {
    if (getenv("AIRLOCK_LOG")) fprintf(stderr, "%s", chunk);
}

airlock_result airlock_http_request(const char *method, const char *url, const airlock_http_header *headers,
                                    const void *body, size_t body_len, size_t max_body,
                                    airlock_http_response *out) {
    (void)headers, (void)body, (void)body_len, (void)max_body;
    memset(out, 0, sizeof *out);
    http_target target;
    if (!parse_http_url(url, &target)) return bad_http_url(url);
    http_target_free(&target);
    return airlock_err_execution("%s %s was not sent: requests go through wasi:http, inside a component only",
                                 method ? method : "GET", url);
}

airlock_result airlock_run(const char *const *argv, airlock_run_output *out) {
    memset(out, 0, sizeof *out);
    if (!argv || !argv[0]) return airlock_err_invalid_params("airlock_run: no program given");
    return airlock_err_execution("%s was not run: programs start through airlock:host/process, inside a component only",
                                 argv[0]);
}
#endif

void airlock_run_output_free(airlock_run_output *out) {
    free(out->stdout_text);
    free(out->stderr_text);
    out->stdout_text = NULL;
    out->stderr_text = NULL;
}
