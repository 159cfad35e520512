//! Unit tests of `diagnose.rs`.

use super::*;

fn compile(bytes: &[u8], message: &str) -> String {
    load_failure(Some(bytes), &RuntimeError::Compile(message.into()))
}

#[test]
fn each_kind_of_file_gets_one_line_and_what_to_do() {
    let dump = "magic header not detected: bad magic number - expected=[\n    0x0,\n    0x61,\n]";
    for (bytes, needle) in [
        (&b""[..], "an empty file"),
        (b"#!/bin/sh\necho hi\n", "not a WebAssembly file (it starts with `#!/bin/s`)"),
        (b"\x7fELF\x02\x01\x01\x00", "not a WebAssembly file (it starts with 7f 45 4c 46"),
        (b"(module (func))", "WebAssembly text"),
        (b"\0asm\x01\0\0\0", "a WebAssembly module, not a component: build for wasm32-wasip2"),
        (b"\0asm\x02\0\0\0", "version bytes 02 00 00 00"),
        (b"\0asm\x0d\0\x01\0\x01", "a damaged component"),
    ] {
        let reason = compile(bytes, dump);
        assert!(reason.contains(needle), "{bytes:?}: {reason}");
        assert!(!reason.contains('\n') && !reason.contains("0x61"), "{reason}");
    }
    let truncated = compile(b"\0asm\x0d\0\x01\0\x01\x05", "unexpected end-of-file (at offset 0x9)\nmore");
    assert!(truncated.starts_with("a truncated component (10 bytes"), "{truncated}");
    let link = load_failure(None, &RuntimeError::Link("no export `x`\n  caused by: y".into()));
    assert!(link.starts_with("a component, but not an airlock tool (no export `x`)"), "{link}");
}
