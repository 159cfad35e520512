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
//! - [`SPIN_FOREVER`] (plugin `spin_forever`): `spin` loops forever in `execute`.
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
//!
//! All tools but `echo` and `shout` take `{"type":"object","properties":{}}`.

include!(concat!(env!("OUT_DIR"), "/fixtures.rs"));
