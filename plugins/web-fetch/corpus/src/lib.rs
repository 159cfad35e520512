//! web_fetch's page reading, compiled natively from the guest's own files (the guest builds
//! for wasm32-wasip2 only), so that the root workspace's tests judge it on the real saved
//! pages of `pages/` and `legacy/` (see `README.md`), and its unit tests run in CI.
#![deny(clippy::print_stdout, clippy::print_stderr)]

#[path = "../../src/page/mod.rs"]
pub mod page;
#[path = "../../src/url.rs"]
pub mod url;

use std::path::{Path, PathBuf};

/// The address the corpus pages are converted as if fetched from.
pub const BASE: &str = "https://example.com/articles/page.html";

/// A page as the guest reads it, fetched from [`BASE`] with the `Content-Type` header
/// `content_type`: decoded, then converted; its title and its Markdown.
pub fn read(body: &[u8], content_type: &str) -> Option<(Option<String>, String)> {
    let base = ::url::Url::parse(BASE).ok()?;
    let text = page::charset::decode(body, content_type, true).text;
    let converted = page::to_markdown(&text, &base);
    Some((converted.title, converted.markdown))
}

/// The corpus folder.
pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}
