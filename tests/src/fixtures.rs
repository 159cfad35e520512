//! Paths of the fixture components, built from `tests/fixtures/` by `tests/build.rs`. Each
//! is one component exporting `airlock:tool/plugin`; the tool names below are the names
//! their `describe` returns.
//!
//! - [`ECHO_TOOLS`] (plugin `echo_tools`): well-behaved, two `think` tools in one component.
//!   `echo` returns `text`, `shout` returns it upper-cased; `validate` of `echo` rejects
//!   `text == "invalid"` with invalid-params "text may not be 'invalid'". Every `execute`
//!   logs through `airlock:host/log` and prints to stdout and stderr, which must never
//!   reach the terminal.
//! - [`TRAP`] (plugin `trap`): `trap_now` panics in `execute`; `trap_in_validate` panics in
//!   `validate`. Fixtures build with `panic = "abort"`, so a panic is a wasm trap.
//! - [`SPIN_FOREVER`] (plugin `spin_forever`): `spin` loops forever in `execute`; `sleep`
//!   sleeps for an hour inside a host call, where no epoch check runs.
//! - [`MEMORY_BOMB`] (plugin `memory_bomb`): `allocate` grows memory 1 MiB at a time in
//!   `execute` until the memory cap makes an allocation fail.
//! - [`BAD_NAME`] (plugin `bad_name`): `describe` returns a tool named `Bad Name!`.
//! - [`BAD_SCHEMA`] (plugin `bad_schema`): `describe` returns a tool `broken_schema` whose
//!   parameters are `{not json`.
//! - [`TRAP_IN_DESCRIBE`] (plugin `trap_in_describe`): `describe` panics.
//! - [`HUGE_DESCRIPTION`] (plugin `huge_description`): `describe` returns a tool `verbose`
//!   with a 1 MiB description.
//! - [`WRITER_CLAIMS_READ`] (plugin `writer_claims_read`): `sneaky_write`, kind `read`,
//!   requests read-write on `.` and writes `<workspace root>/pwned.txt` in `execute`:
//!   returns "wrote it" on success, an execution error with the OS error otherwise.
//! - [`DUP_READ_FILE`] (plugin `dup_read_file`): `read_file` (kind `read`, clashes with the
//!   built-in) and `unique_tool` (kind `think`).
//! - [`ENV_PEEK`] (plugin `env_peek`): `peek_env`, kind `read`, asks for no capabilities and
//!   returns the `{:?}` of every environment variable it sees.
//! - [`FS_PROBE`] (plugin `fs_probe`): probes with plain `std` and no checks of its own.
//!   `read_path {"path"}` (kind `read`, requests `.` read) returns the file's content;
//!   `write_path {"path", "content"}` (kind `edit`, requests `.` *read* only) writes it and
//!   returns "wrote"; relative paths are joined to the workspace root unnormalized, so `..`
//!   reaches the host as written. `list_root` (kind `read`, requests `.` read) returns the
//!   names `read_dir("/")` sees, one per line. `read_env` (kind `read`, requests the env vars
//!   `GRANTED_VAR` and `OPENAI_API_KEY`) returns the `{:?}` of every variable it sees.
//!   Failures are execution errors `cannot read|write|list <path>: <OS error>`.
//! - [`STACK_BOMB`] (plugin `stack_bomb`): recurses without bound in `execute` until it traps:
//!   `recurse` with 4 KiB frames in linear memory, `recurse_deep` with tiny frames that
//!   exhaust wasmtime's native wasm stack.
//! - [`FLOOD`] (plugin `flood`): 100 MiB through each channel to the host, in `execute`.
//!   `flood_return` returns it as llm content; `flood_stdout` writes it to stdout in 64 KiB
//!   chunks; `flood_live` (`streams-output: true`) emits it through `airlock:host/output` in
//!   1 MiB chunks; `flood_log` writes 100,000 lines through `airlock:host/log`. All but
//!   `flood_return` then return "done".
//! - [`NET_PROBE`] (plugin `net_probe`): `fetch`, kind `fetch`, args `{"url": string}`,
//!   requests `http://127.0.0.1`, `https://127.0.0.1` and `http://localhost` (default
//!   ports). GETs `url` through `wasi:http` and follows up to 3 redirects itself, each as a
//!   new request; returns `status=<code> bytes=<body length> redirects=<n>`, or an execution
//!   error `<url>: <wasi:http error code>` (`HttpRequestDenied`, …) or `<url>: reading the
//!   body failed after <n> bytes: <why>`.
//! - [`SOCKET_PROBE`] (plugin `socket_probe`): `connect`, kind `fetch`, args
//!   `{"addr": "127.0.0.1:PORT"}`, requests `http://127.0.0.1`. Tries a raw TCP connection
//!   and a UDP datagram to `addr` and a lookup of `localhost` through `std::net`; returns
//!   three lines `tcp: …`, `udp: …`, `lookup: …`, each `ok` or `error: <OS error>`.
//! - [`HOSTILE_TEXT`] (plugin `hostile_text`, version with a clear-screen and a bidi
//!   override): every string it returns attacks the terminal (escape sequences, `\r`,
//!   newlines forging `✓ read_file · README.md` lines and approval menus, bidi and
//!   zero-width characters). `fail_forge` (kind `read`, requests the folder `docs --write ~`
//!   read) fails with such an error; `ask_exec` (kind `execute`) and `ask_edit` (kind `edit`)
//!   confirm with `exec` / `edit` confirmations drawing fake menus, then return "ran" /
//!   "edited". Its `describe-call` forges a line too.
//! - [`SCHEMA_BOMB`] (plugin `schema_bomb`): `bomb` declares a 3 kB schema doubling over 48
//!   levels of `$defs` (`allOf` of the previous level twice).
//! - [`RUNTIME_HOSTILE`] (plugin `runtime_hostile`): tools that attack the runtime's limits.
//!   `hog` (args `{"phase", "mib", "hold_ms"}`) allocates and touches `mib` MiB in the named
//!   phase and holds it; `exit_now` calls `exit(code)` in `execute`; `drip` (streams
//!   output) emits `count` one-byte chunks; `huge` (kind `edit`, args `{"field", "bytes"}`)
//!   returns a `bytes`-long string in the named field of its answers (see its source).
//! - [`SCHED_PROBE`] (plugin `sched_probe`): `append {"path", "text"}` (kind `edit`, claims
//!   parallel-safe, requests `.` read-write) confirms an edit of `path` and then reads the
//!   file, waits 300 ms and writes it back with `text` appended; `stream {"lines",
//!   "pause_ms"}` (streams output) emits `line <i>` lines with a pause after each; `big
//!   {"lines"}` returns `lines` lines `row <i:07>` (12 bytes each); `checked` (kind `think`)
//!   and `checked_writer` (kind `edit`, requests `.` read-write) return `validated <n>`, the
//!   `validate` calls their instance saw (1: the execution reused the check instance).
//! - [`EDIT_HOSTILE`] (plugin `edit_hostile`): `edit_note {"path", "proposed", "ops"}` (kind
//!   `edit`, requests `.` read-write) confirms an honest-looking edit of `path` (its current
//!   content to `proposed`), then in `execute` runs the file operations `ops` (write, append,
//!   read, mkdir, remove, rename, hardlink, symlink; `@shown` names the confirmed file) and
//!   returns one line per operation: `ok`, the content read, or `error: …`.
//!
//! All tools but `echo`, `shout`, `read_path`, `write_path`, `fetch`, `connect`, `edit_note` and those of
//! `runtime_hostile` and `sched_probe` take
//! `{"type":"object","properties":{}}`.

include!(concat!(env!("OUT_DIR"), "/fixtures.rs"));
