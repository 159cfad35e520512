/*
 * {{name}}: an airlock plugin written in C. Its tool `{{tool}}` counts the lines, words
 * and characters of a text. Build: ./build.sh   Test: ./test.sh
 */
#include <string.h>

#include "airlock_tool.h"

/* Running a program: airlock_run(argv, &out) (request it with .processes = AIRLOCK_LIST("git"));
 * an HTTP request: airlock_http_get(url, max_body, &resp) (request the destination with
 * .network = AIRLOCK_LIST("https://api.example.com")). A refusal comes back as the error
 * result for the model. Both are shown in the kit's examples/http_and_process (README.md,
 * "Running programs", "Reaching the network"). */

#define MAX_TEXT (1024 * 1024)

typedef struct {
    size_t lines, words, chars, bytes;
} text_counts;

/* The tool's logic, free of any airlock call so test.c can check it directly. */
void count_text(const char *text, size_t len, text_counts *out) {
    memset(out, 0, sizeof *out);
    int in_word = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if ((c & 0xc0) != 0x80) out->chars++; /* count UTF-8 code points, not bytes */
        if (c == '\n') out->lines++;
        int space = c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
        if (!space && !in_word) out->words++;
        in_word = !space;
    }
    if (len > 0 && text[len - 1] != '\n') out->lines++; /* a last line without a newline */
    out->bytes = len;
}

/* Reads and checks the arguments; on failure the error is recorded in args. */
static bool read_text(airlock_args *args, const char **text) {
    if (!airlock_args_string(args, "text", text)) return false;
    if (strlen(*text) > MAX_TEXT)
        return airlock_args_reject(args, "text", "is longer than %d bytes; send a shorter text", MAX_TEXT);
    return true;
}

static airlock_result count_validate(airlock_args *args) {
    const char *text;
    return read_text(args, &text) ? airlock_ok() : airlock_args_error(args);
}

static airlock_result count_execute(airlock_args *args) {
    const char *text;
    if (!read_text(args, &text)) return airlock_args_error(args);
    text_counts c;
    count_text(text, strlen(text), &c);
    airlock_log_info("counted %zu bytes", c.bytes);
    return airlock_ok_textf("lines: %zu, words: %zu, characters: %zu, bytes: %zu", c.lines, c.words, c.chars,
                            c.bytes);
}

static const airlock_tool_def TOOLS[] = {{
    .name = "{{tool}}",
    .display_name = "Count text",
    .description = "Counts the lines, words and characters of a text. Returns one line: "
                   "`lines: N, words: N, characters: N, bytes: N`.",
    .parameters_json = "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\","
                       "\"description\":\"The text to count (at most 1 MiB).\"}},"
                       "\"required\":[\"text\"],\"additionalProperties\":false}",
    .kind = AIRLOCK_KIND_THINK, /* touches nothing: no capabilities requested */
    .validate = count_validate,
    .execute = count_execute,
}};

AIRLOCK_EXPORT_TOOLS("{{name}}", "0.1.0", TOOLS);
