//! Why a file is not a usable plugin, in one line a person can act on: what the file is
//! (empty, not WebAssembly, WebAssembly text, a core module, a truncated or damaged
//! component, a component of another world) and what to do about it.
//!
//! Invariant: every reason returned is one line (no `\n`), bounded, and names the fix;
//! wasmtime's own message, which may span many lines (a byte dump of the magic number),
//! contributes at most its first line.

use crate::runtime::RuntimeError;

/// The binary magic of every WebAssembly file.
const MAGIC: &[u8; 4] = b"\0asm";
/// Version and layer of a core module.
const CORE_MODULE: [u8; 4] = [1, 0, 0, 0];
/// Version and layer of a component.
const COMPONENT: [u8; 4] = [0x0d, 0, 1, 0];
/// Most characters of an underlying message kept.
const MAX_DETAIL: usize = 200;

/// What to do when a component was built for the wrong target.
const BUILD_HINT: &str =
    "build it for wasm32-wasip2 against the `airlock:tool/plugin` world of wit/since_v0.2.0 (or use plugin-sdk)";

/// One line on why `bytes` (the file's content, when it could be read) failed to load with
/// `error`.
pub fn load_failure(bytes: Option<&[u8]>, error: &RuntimeError) -> String {
    match (error, bytes) {
        (RuntimeError::Compile(message), Some(bytes)) => not_compiled(bytes, message),
        (RuntimeError::Link(message), _) => not_linked(message),
        _ => first_line(&error.to_string()),
    }
}

fn not_compiled(bytes: &[u8], message: &str) -> String {
    if bytes.is_empty() {
        return "an empty file, not a WebAssembly component: rebuild the plugin or remove the file".into();
    }
    if !bytes.starts_with(MAGIC) {
        let text = String::from_utf8_lossy(&bytes[..bytes.len().min(64)]);
        let start = text.trim_start();
        if start.starts_with("(module") || start.starts_with("(component") {
            return "WebAssembly text, not a binary component: compile it with `wasm-tools parse`, then \
                    make it a component"
                .into();
        }
        return format!(
            "not a WebAssembly file (it starts with {}): an airlock plugin is a `.wasm` component; {BUILD_HINT}",
            preview(bytes)
        );
    }
    let version = bytes.get(4..8);
    if version == Some(&CORE_MODULE[..]) {
        return "a WebAssembly module, not a component: build for wasm32-wasip2 or run `wasm-tools component new`"
            .into();
    }
    if version != Some(&COMPONENT[..]) {
        let version = version.map_or_else(|| "none".into(), hex);
        return format!(
            "a WebAssembly binary of a format this airlock does not read (version bytes {version}): {BUILD_HINT}"
        );
    }
    let detail = first_line(message);
    if detail.contains("end-of-file") || detail.contains("unexpected end") || detail.contains("out of bounds") {
        format!("a truncated component ({} bytes; {detail}): copy or rebuild it whole", bytes.len())
    } else {
        format!("a damaged component ({detail}): rebuild it")
    }
}

fn not_linked(message: &str) -> String {
    let detail = first_line(message);
    format!("a component, but not an airlock tool ({detail}): {BUILD_HINT}")
}

/// The first line of `message`, bounded, without wasmtime's byte dumps.
pub fn first_line(message: &str) -> String {
    let line = message.lines().next().unwrap_or_default().trim();
    let line = line.split(" - expected=").next().unwrap_or(line);
    let mut out: String = line.chars().take(MAX_DETAIL).collect();
    if out.len() < line.len() {
        out.push('…');
    }
    out
}

/// The first bytes of a file, as text when they are printable, else in hex.
fn preview(bytes: &[u8]) -> String {
    let head = &bytes[..bytes.len().min(8)];
    if head.iter().all(|b| b.is_ascii_graphic() || *b == b' ') {
        format!("`{}`", String::from_utf8_lossy(head))
    } else {
        hex(head)
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
#[path = "diagnose_tests.rs"]
mod tests;
