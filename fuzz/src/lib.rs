//! The fuzz targets of airlock: one function per parser that takes untrusted bytes, each
//! taking the fuzzer's raw input. The libFuzzer binaries (`fuzz_targets/`) only call these,
//! and the replay test (`tests/replay.rs`) runs every file of the checked-in corpora
//! (`corpus/<target>/`) through the same function, so a finding stays fixed without nightly
//! tools.
//!
//! A target panics when it finds a problem: the fuzzer keeps the input, the replay test
//! names the file. Besides crashing, a target checks a property where one is cheap:
//!
//! - `wire`: cutting a body into other chunks changes nothing; a decoder never yields more
//!   text than it was given ([`wire`]);
//! - `policy_file`, `trust_file`, `plugins_lock`: what parses is written back by airlock's
//!   own writer and parses again to the same thing;
//! - `gate_grammar`: a line whose commands are known by construction is refused when a deny
//!   rule names one of them, and allowed by prefixes only when each of them is granted;
//! - `sanitize`: what the sanitiser returns holds no hidden character, and a quoted word
//!   reads back, through the gate's own shell reader, as the word;
//! - `web_fetch_url`: a URL printed parses back to itself;
//! - `web_fetch_html`: the page's bytes, decoded as their `<meta>` says, become Markdown
//!   within a bound of the page's size;
//! - `schema_args`: a schema the load-time checks accept validates any argument.
//!
//! Time and memory are bounded by the fuzzer's `-timeout` and `-rss_limit_mb` (see
//! `README.md`) and by the replay test.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod config_file;
pub mod describe;
pub mod gate_grammar;
mod judge;
pub mod plugins_lock;
pub mod policy_file;
pub mod sanitize;
pub mod shell_line;
mod support;
pub mod trust_file;
pub mod web_fetch;
pub mod wire;

// web_fetch's page reading (charset, converter) and URL checks, compiled natively from the
// guest's own files (the guest itself builds for wasm32-wasip2 only); the guest's functions
// this crate does not call are not dead there, and the guest's own workspace formats them.
#[allow(dead_code)]
#[rustfmt::skip]
#[path = "../../plugins/web-fetch/src/page/mod.rs"]
mod page;
#[allow(dead_code)]
#[rustfmt::skip]
#[path = "../../plugins/web-fetch/src/url.rs"]
mod url;

/// A target: takes the fuzzer's input, panics on a finding.
pub type Target = fn(&[u8]);

/// Every target, by the name of its corpus folder (`corpus/<name>/`).
pub const TARGETS: &[(&str, Target)] = &[
    ("wire_gemini", wire::gemini),
    ("wire_openai", wire::openai),
    ("wire_anthropic", wire::anthropic),
    ("policy_file", policy_file::run),
    ("trust_file", trust_file::run),
    ("plugins_lock", plugins_lock::run),
    ("config_file", config_file::run),
    ("shell_line", shell_line::run),
    ("gate_grammar", gate_grammar::run),
    ("sanitize", sanitize::run),
    ("web_fetch_html", web_fetch::html),
    ("web_fetch_url", web_fetch::url),
    ("describe", describe::run),
    ("schema_args", describe::schema_args),
];

/// The target called `name`.
pub fn target(name: &str) -> Option<Target> {
    TARGETS.iter().find(|(n, _)| *n == name).map(|(_, target)| *target)
}

/// The targets' names.
pub fn names() -> Vec<&'static str> {
    TARGETS.iter().map(|(name, _)| *name).collect()
}
