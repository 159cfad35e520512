//! `web_fetch`: one web page as readable text. The page is fetched through `wasi:http`
//! (the host checks every request, redirects included, against the grant, and reaches
//! public addresses only unless a grant names a private one), HTML is turned into Markdown
//! here in the guest after decoding the page in the encoding it is in, and the size and
//! time are capped.

mod http;
mod page;
mod url;

use airlock_plugin_sdk::prelude::*;
use airlock_plugin_sdk::{Confirmation, InfoConfirmation};

use crate::url::Url;

/// Redirects followed before giving up.
const MAX_REDIRECTS: usize = 5;
/// At most this many bytes of a response are read; the rest is left on the wire.
const MAX_BODY: usize = 2 << 20;
/// At most this many characters of text go back to the model.
const MAX_TEXT: usize = 100_000;

#[derive(Deserialize, JsonSchema)]
struct Args {
    /// The page to fetch: an absolute `http://` or `https://` URL. GitHub `blob` links are
    /// fetched from raw.githubusercontent.com.
    url: String,
    /// What you want from the page, in a sentence. Shown to the user when they approve the
    /// fetch; the page's text comes back for you to answer it.
    prompt: Option<String>,
}

struct WebFetch;

impl Tool for WebFetch {
    type Args = Args;
    const NAME: &'static str = "web_fetch";
    const DISPLAY_NAME: &'static str = "WebFetch";
    const DESCRIPTION: &'static str = "Fetches one web page by URL and returns its content as \
        Markdown text: HTML is converted (headings, lists, links, code; scripts and styles \
        dropped), plain text, Markdown and JSON come back as they are. Redirects are followed \
        (up to 5). At most 2 MiB of the page is read and 100,000 characters returned; the \
        result says when it was cut. Only public internet addresses can be reached unless the \
        user granted a private one. Give `prompt` to say what you are looking for.";
    const KIND: Kind = Kind::Fetch;

    fn capabilities() -> Capabilities {
        // Every host, at public addresses only: the host refuses loopback, private,
        // link-local and metadata addresses after resolving the name.
        Capabilities::none().network("https://*:*").network("http://*:*")
    }

    fn validate(args: &Args) -> Result<(), ToolError> {
        Url::parse(&args.url).map(|_| ()).map_err(ToolError::InvalidParams)
    }

    fn describe_call(args: &Args) -> String {
        format!("Fetch {}", shorten(&args.url, 100))
    }

    fn confirm(args: &Args) -> Result<Option<Confirmation>, ToolError> {
        let url = Url::parse(&args.url).map_err(ToolError::InvalidParams)?.raw_github();
        let prompt = match &args.prompt {
            Some(prompt) if !prompt.trim().is_empty() => format!("Fetch {url} — {}", prompt.trim()),
            _ => format!("Fetch {url}"),
        };
        Ok(Some(Confirmation::Info(InfoConfirmation { prompt, urls: vec![url.to_string()] })))
    }

    fn execute(args: Args) -> Result<ToolOutput, ToolError> {
        let mut url = Url::parse(&args.url).map_err(ToolError::InvalidParams)?.raw_github();
        let mut redirects = 0;
        let page = loop {
            match http::get(&url, MAX_BODY).map_err(|e| ToolError::Execution(format!("{url}: {e}")))? {
                http::Outcome::Redirect(location) => {
                    if redirects == MAX_REDIRECTS {
                        return Err(ToolError::Execution(format!("{}: more than {MAX_REDIRECTS} redirects", args.url)));
                    }
                    redirects += 1;
                    url = url.join(&location).map_err(|e| {
                        ToolError::Execution(format!("{url} redirects to `{}`: {e}", shorten(&location, 200)))
                    })?;
                }
                http::Outcome::Page(page) => break page,
            }
        };
        if !(200..300).contains(&page.status) {
            let text = String::from_utf8_lossy(&page.body);
            let excerpt = shorten(text.trim(), 300);
            return Err(ToolError::Execution(format!("{url} answered HTTP {}: {excerpt}", page.status)));
        }
        render(&url, redirects, &page)
    }
}

/// The result for the model: where the page came from, its title, its text.
fn render(url: &Url, redirects: usize, page: &http::Page) -> Result<ToolOutput, ToolError> {
    let media = page.content_type.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
    let is_html = media == "text/html" || media == "application/xhtml+xml";
    let is_text = media.starts_with("text/")
        || media.ends_with("+json")
        || media.ends_with("+xml")
        || matches!(media.as_str(), "application/json" | "application/xml" | "application/javascript" | "");
    let sniffed_html = media.is_empty() && {
        let start = page.body.trim_ascii_start();
        let head = &start[..start.len().min(15)];
        head.to_ascii_lowercase().starts_with(b"<!doctype html") || head.to_ascii_lowercase().starts_with(b"<html")
    };
    if !is_text || (media.is_empty() && page.body.contains(&0)) {
        return Ok(ToolOutput::text(format!(
            "{url} is `{media}` ({} bytes), not text: its content is not shown.",
            page.body.len()
        )));
    }
    let html = is_html || sniffed_html;
    let decoded = page::charset::decode(&page.body, &page.content_type, html);
    let (title, body) = if html {
        let converted = page::to_markdown(&decoded.text, url.as_url());
        (converted.title, converted.markdown)
    } else {
        (None, decoded.text.into_owned())
    };
    let mut text = String::new();
    text.push_str(&format!("URL: {url}"));
    if redirects > 0 {
        text.push_str(&format!(" (after {redirects} redirect{})", if redirects == 1 { "" } else { "s" }));
    }
    text.push('\n');
    if let Some(title) = &title {
        text.push_str(&format!("Title: {title}\n"));
    }
    if decoded.encoding != encoding_rs::UTF_8 {
        text.push_str(&format!("Encoding: {} (said by {})\n", decoded.encoding.name(), decoded.source.describe()));
    }
    let mut notes = Vec::new();
    if page.truncated {
        notes.push(format!("only the first {} of the page were read", size(MAX_BODY)));
    }
    let mut body = body;
    if body.chars().count() > MAX_TEXT {
        let cut = body.char_indices().nth(MAX_TEXT).map_or(body.len(), |(at, _)| at);
        body.truncate(cut);
        notes.push(format!("the text was cut at {MAX_TEXT} characters"));
    }
    if !notes.is_empty() {
        text.push_str(&format!("Note: {}.\n", notes.join("; ")));
    }
    text.push('\n');
    text.push_str(body.trim());
    let summary = format!(
        "Fetched {url}: {} read, {} of text{}",
        size(page.body.len()),
        size(body.len()),
        if notes.is_empty() { String::new() } else { " (cut)".into() }
    );
    Ok(ToolOutput::text(text).with_markdown(summary))
}

fn size(bytes: usize) -> String {
    match bytes {
        b if b >= 1 << 20 => format!("{:.1} MiB", b as f64 / f64::from(1 << 20)),
        b if b >= 1 << 10 => format!("{:.1} KiB", b as f64 / f64::from(1 << 10)),
        b => format!("{b} B"),
    }
}

/// `text` cut to `max` characters, with an ellipsis when cut.
fn shorten(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

export_tools!(WebFetch);
