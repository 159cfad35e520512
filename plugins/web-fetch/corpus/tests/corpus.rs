//! web_fetch's page reading judged on the real saved pages of `pages/` (mozilla/readability's
//! test pages) and `legacy/` (some of them in legacy encodings): see `README.md`. The
//! reference for each page is computed by another parser (`judge`), never by the converter.

mod judge;

use judge::{Judgement, LEGACY, Reference, UTF8};
use web_fetch_corpus::{corpus_dir, read};

/// The least share of a page's visible words its Markdown must hold. Every page holds at
/// least 99.3 % (BENCHMARKS.md); what is not found is words glued to markup the converter
/// writes (`word**`), so a page losing a paragraph or a decoding gone wrong falls below.
const KEPT: f64 = 0.98;

/// Each page: its name, its reference, and the judgement of its Markdown.
fn judged() -> Vec<(String, Reference, Judgement)> {
    let dir = corpus_dir();
    let mut judged = Vec::new();
    let mut judge_one = |name: String, bytes: Vec<u8>, content_type: &str, source: &str| {
        let original = std::fs::read_to_string(dir.join("pages").join(format!("{source}.html")))
            .unwrap_or_else(|e| panic!("{source}: {e}"));
        let reference = judge::reference(&original);
        let (_, markdown) = read(&bytes, content_type).unwrap_or_else(|| panic!("{name}: the base does not parse"));
        let judgement = judge::judge(&reference, &markdown);
        judged.push((name, reference, judgement));
    };
    for name in judge::pages(&dir) {
        let bytes =
            std::fs::read(dir.join("pages").join(format!("{name}.html"))).unwrap_or_else(|e| panic!("{name}: {e}"));
        judge_one(name.clone(), bytes, UTF8, &name);
    }
    for (file, source, content_type) in LEGACY {
        let bytes = std::fs::read(dir.join("legacy").join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        judge_one(file.to_string(), bytes, content_type, source);
    }
    assert!(judged.len() >= 40, "the corpus has {} pages", judged.len());
    judged
}

#[test]
fn every_page_keeps_its_visible_text() {
    let low: Vec<String> = judged()
        .iter()
        .filter(|(_, _, j)| j.kept < KEPT)
        .map(|(name, _, j)| format!("{name}: {:.1} %", j.kept * 100.0))
        .collect();
    assert!(low.is_empty(), "pages keeping less than {:.0} % of their words: {low:?}", KEPT * 100.0);
}

#[test]
fn pages_in_legacy_encodings_decode_without_replacement_characters() {
    for (name, _, j) in judged() {
        assert_eq!(j.replacement, 0, "{name}: {} U+FFFD", j.replacement);
    }
}

#[test]
fn no_list_marker_is_left_without_text() {
    for (name, _, j) in judged() {
        assert_eq!(j.lone_markers, 0, "{name}: {} markers alone on their line", j.lone_markers);
    }
}

#[test]
fn no_script_or_style_text_shows() {
    let judged = judged();
    let lines: usize = judged.iter().map(|(_, r, _)| r.hidden_lines.len()).sum();
    assert!(lines > 500, "only {lines} script and style lines to look for");
    for (name, _, j) in judged {
        assert!(j.leaked.is_empty(), "{name}: {:?}", j.leaked);
    }
}

#[test]
fn no_character_reference_is_left_undecoded() {
    for (name, _, j) in judged() {
        assert_eq!(j.references_left, 0, "{name}: {} `&name;` left", j.references_left);
    }
}

#[test]
fn every_table_has_a_header_row() {
    let judged = judged();
    let tables: usize = judged.iter().map(|(_, _, j)| j.tables).sum();
    assert!(tables >= 30, "only {tables} tables in the corpus's Markdown");
    for (name, _, j) in judged {
        assert_eq!(j.tables_without_header, 0, "{name}: {} of {} tables", j.tables_without_header, j.tables);
    }
}
