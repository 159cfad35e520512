//! Findings in web_fetch's converter (its own tests are in `plugins/web-fetch/src/page/`,
//! run by the corpus crate): each input once crashed or blew up the conversion.

use super::*;

/// A tag whose attribute has no name (`="…"`) followed by a character of several bytes: the
/// converter stepped one byte into the character and panicked, so a page could make every
/// fetch of it fail.
#[test]
fn an_attribute_without_a_name_before_a_multibyte_character_converts() {
    let base = url::Url::parse(BASE).unwrap_or_else(|e| panic!("{e}"));
    for page in ["<h=\"x\"é>text</h>", "<p ='a'→b>text", "<a =\"\"\u{1F600}href=x>link</a>"] {
        let converted = to_markdown(page, &base);
        assert!(
            converted.markdown.contains("text") || converted.markdown.contains("link"),
            "{page}: {}",
            converted.markdown
        );
    }
}

/// A table opened inside a link, whose text starts with a character of several bytes: the
/// link's text was written again trimmed when it closed, so the place where the table
/// started fell inside that character, and taking back the (seemingly empty) table there
/// panicked (found by `web_fetch_html` on the converter of issue 25).
#[test]
fn a_table_inside_a_link_before_a_multibyte_character_converts() {
    for page in ["<a href=\0><table>\u{fffd}", "<a href=x><table>€", "<b><a href=x> <table></a>€</table></b>"] {
        html(page.as_bytes());
    }
    let base = url::Url::parse(BASE).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(to_markdown("<a href=x><table>€", &base).markdown, "[€](https://example.com/docs/x)");
}
