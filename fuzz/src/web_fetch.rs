//! web_fetch's page reading (the charset prescan, the decoding, the HTML to Markdown
//! converter) and URL checks, on a page and a `Location` a hostile server chose. They run inside the guest, under its memory cap and deadline; a
//! crash or a blow-up there still fails the fetch the user asked for.
//!
//! Checks: the Markdown stays within [`GROWTH`] times the page (plus the base URL once per
//! byte of `<a>` it takes to make a link); a URL that parses prints as text that parses
//! back to it, and so does a redirect target resolved against it.

use crate::page::charset::decode;
use crate::page::to_markdown;
use crate::url::Url;

/// How much larger than the page its Markdown may be.
pub const GROWTH: usize = 8;

/// The page's own address.
const BASE: &str = "https://example.com/docs/page.html";

pub fn html(data: &[u8]) {
    // Decoded as the guest decodes a page served without a charset: its `<meta>` decides.
    let page = decode(data, "text/html", true).text;
    let base = match url::Url::parse(BASE) {
        Ok(base) => base,
        Err(e) => panic!("the base URL does not parse: {e}"),
    };
    let converted = to_markdown(&page, &base);
    // A link is written with the page's address, or with its `<base href>`, which may be as
    // long as the converter takes one.
    let lower = page.to_ascii_lowercase();
    let base_len = if lower.contains("<base") { crate::page::html::MAX_BASE } else { BASE.len() };
    let bound = GROWTH * page.len() + lower.matches("<a").count() * (base_len + 8) + 64;
    assert!(
        converted.markdown.len() <= bound,
        "{} bytes of page became {} bytes of Markdown",
        page.len(),
        converted.markdown.len()
    );
    if let Some(title) = &converted.title {
        assert!(title.len() <= page.len(), "the title is longer than the page");
    }
}

pub fn url(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let (first, reference) = text.split_once('\n').unwrap_or((&text, ""));
    let Ok(url) = Url::parse(first) else { return };
    assert_eq!(Url::parse(&url.to_string()).as_ref(), Ok(&url), "{first:?} does not print back as itself");
    let _ = url.clone().raw_github();
    if let Ok(joined) = url.join(reference) {
        assert_eq!(
            Url::parse(&joined.to_string()).as_ref(),
            Ok(&joined),
            "{reference:?} resolved against {url} does not print back as itself"
        );
    }
}

#[cfg(test)]
#[path = "web_fetch_tests.rs"]
mod tests;
