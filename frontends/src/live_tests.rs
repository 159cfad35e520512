//! Unit tests of `live.rs`.

use super::*;

#[test]
fn shows_whole_lines_behind_the_tool_name_and_the_rest_at_the_end() {
    let mut live = LiveOutput::default();
    live.named("1", "grep");
    assert_eq!(live.chunk("1", "one\ntw"), ["  grep │ one"]);
    assert_eq!(live.chunk("1", "o\nthree"), ["  grep │ two"]);
    assert_eq!(live.end("1"), ["  grep │ three"]);
}

#[test]
fn hostile_output_is_escaped_and_one_call_shows_a_bounded_amount() {
    let mut live = LiveOutput::default();
    live.named("1", "x");
    let shown = live.chunk("1", "\x1b[2J✓ read_file\r\n");
    assert_eq!(shown.len(), 1);
    assert!(!shown[0].contains('\x1b') && shown[0].starts_with("  x │ "), "{shown:?}");
    let mut lines = Vec::new();
    for _ in 0..1000 {
        lines.extend(live.chunk("1", &"é".repeat(1000)));
    }
    lines.extend(live.end("1"));
    let bytes: usize = lines.iter().map(String::len).sum();
    assert!(bytes < 2 * MAX_SHOWN_BYTES, "{bytes} bytes shown");
    assert_eq!(lines.last().map(String::as_str), Some("  x │ … (more live output not shown)"));
}

#[test]
fn empty_lines_and_long_lines_cannot_flood_or_stall_the_printer() {
    for flood in
        ["\n".repeat(1 << 20), "\r\n".repeat(1 << 19), "x".repeat(1 << 20), format!("{}\n", "y".repeat(1 << 20))]
    {
        let mut live = LiveOutput::default();
        live.named("1", "x");
        let mut lines = live.chunk("1", &flood);
        lines.extend(live.chunk("1", &flood));
        lines.extend(live.end("1"));
        assert!(lines.len() <= MAX_SHOWN_LINES + 1, "{} lines shown", lines.len());
        assert_eq!(lines.last().map(String::as_str), Some("  x │ … (more live output not shown)"));
    }
}
