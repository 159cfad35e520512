//! `web_search`: searches the web through the search API the user configured
//! (`[tools.web_search]` in `config.toml`: Brave, Tavily or a SearXNG instance) and returns
//! titles, URLs and snippets the model can cite. The host gives the component exactly that
//! API's origin to reach and three variables — `AIRLOCK_WEB_SEARCH_PROVIDER`, `…_URL` and
//! `…_KEY` (the key read from the variable the user named) — and nothing else.

use airlock_plugin_sdk::prelude::*;
use serde_json::Value;
use wasip2::http::outgoing_handler;
use wasip2::http::types::{ErrorCode, Fields, Method, OutgoingBody, OutgoingRequest, RequestOptions, Scheme};
use wasip2::io::streams::StreamError;

/// Results asked for when the model gives no count.
const DEFAULT_RESULTS: u32 = 8;
/// Most results asked for.
const MAX_RESULTS: u32 = 20;
/// At most this many bytes of the API's answer are read.
const MAX_BODY: usize = 1 << 20;
/// Longest snippet kept, in characters.
const MAX_SNIPPET: usize = 400;
const SECOND: u64 = 1_000_000_000;

#[derive(Deserialize, JsonSchema)]
struct Args {
    /// What to search for.
    query: String,
    /// How many results to return (1 to 20). Defaults to 8.
    #[schemars(range(min = 1, max = 20))]
    max_results: Option<u32>,
}

struct WebSearch;

impl Tool for WebSearch {
    type Args = Args;
    const NAME: &'static str = "web_search";
    const DISPLAY_NAME: &'static str = "WebSearch";
    const DESCRIPTION: &'static str = "Searches the web and returns the top results, each with \
        its title, URL and a snippet. Cite the URLs you use in your answer. Use web_fetch to \
        read a result in full.";
    const KIND: Kind = Kind::Search;

    fn capabilities() -> Capabilities {
        // The host narrows these to the configured API's origin (a public address unless
        // the configuration names a private one) and sets the three variables.
        Capabilities::none()
            .network("https://*:*")
            .network("http://*:*")
            .env("AIRLOCK_WEB_SEARCH_PROVIDER")
            .env("AIRLOCK_WEB_SEARCH_URL")
            .env("AIRLOCK_WEB_SEARCH_KEY")
    }

    fn validate(args: &Args) -> Result<(), ToolError> {
        if args.query.trim().is_empty() {
            return Err(ToolError::InvalidParams("the query is empty".into()));
        }
        if args.query.chars().count() > 400 {
            return Err(ToolError::InvalidParams("the query is longer than 400 characters".into()));
        }
        Ok(())
    }

    fn describe_call(args: &Args) -> String {
        let shown: String = args.query.chars().take(80).collect();
        format!("Search the web for \"{shown}\"")
    }

    fn execute(args: Args) -> Result<ToolOutput, ToolError> {
        let setting = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let (Some(provider), Some(url)) = (setting("AIRLOCK_WEB_SEARCH_PROVIDER"), setting("AIRLOCK_WEB_SEARCH_URL"))
        else {
            return Err(ToolError::Execution(
                "web search is not configured: add [tools.web_search] to airlock's config.toml (provider = \
                 \"brave\", \"tavily\" or \"searxng\", url, key_env)"
                    .into(),
            ));
        };
        let key = setting("AIRLOCK_WEB_SEARCH_KEY");
        let count = args.max_results.unwrap_or(DEFAULT_RESULTS).clamp(1, MAX_RESULTS);
        let query = args.query.trim();
        let need_key = || {
            key.clone().ok_or_else(|| {
                ToolError::Execution(format!(
                    "the {provider} API key is not set: set the variable named by key_env in [tools.web_search]"
                ))
            })
        };
        let results = match provider.as_str() {
            "brave" => {
                let target = format!("{url}?q={}&count={count}", encode(query));
                let body = send("GET", &target, &[("x-subscription-token", &need_key()?)], None)?;
                pick(&body, &["web", "results"], "description")
            }
            "tavily" => {
                let request = serde_json::json!({ "query": query, "max_results": count });
                let auth = format!("Bearer {}", need_key()?);
                let body = send("POST", &url, &[("authorization", &auth)], Some(request.to_string()))?;
                pick(&body, &["results"], "content")
            }
            "searxng" => {
                let base = url.trim_end_matches('/');
                let base = if base.ends_with("/search") { base.to_string() } else { format!("{base}/search") };
                let target = format!("{base}?q={}&format=json", encode(query));
                let body = send("GET", &target, &[], None)?;
                pick(&body, &["results"], "content")
            }
            other => return Err(ToolError::Execution(format!("unknown search provider `{other}`"))),
        };
        let results: Vec<Hit> = results.into_iter().take(count as usize).collect();
        if results.is_empty() {
            return Ok(ToolOutput::text(format!("No results for \"{query}\".")));
        }
        let mut text = format!("Results for \"{query}\" ({provider}):\n");
        for (i, hit) in results.iter().enumerate() {
            text.push_str(&format!("\n[{}] {}\n    {}\n", i + 1, hit.title, hit.url));
            if !hit.snippet.is_empty() {
                text.push_str(&format!("    {}\n", hit.snippet));
            }
        }
        text.push_str("\nCite a result by its URL.");
        let summary = format!("{} results for \"{query}\"", results.len());
        Ok(ToolOutput::text(text).with_markdown(summary))
    }
}

struct Hit {
    title: String,
    url: String,
    snippet: String,
}

/// The results at `path` of the API's JSON answer, each with `title`, `url` and the
/// snippet field; results without a URL are dropped.
fn pick(body: &Value, path: &[&str], snippet: &str) -> Vec<Hit> {
    let mut list = body;
    for key in path {
        list = &list[*key];
    }
    let clean = |v: &Value, max: usize| {
        let text = strip_tags(v.as_str().unwrap_or_default());
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        match text.char_indices().nth(max) {
            Some((at, _)) => format!("{}…", &text[..at]),
            None => text,
        }
    };
    list.as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| {
            let url = r["url"].as_str().filter(|u| u.starts_with("http://") || u.starts_with("https://"))?;
            Some(Hit { title: clean(&r["title"], 200), url: clean(&Value::from(url), 2000), snippet: clean(&r[snippet], MAX_SNIPPET) })
        })
        .collect()
}

/// Brave marks matches with `<strong>`: the text without tags.
fn strip_tags(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_tag = false;
    for c in text.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.replace("&amp;", "&").replace("&quot;", "\"").replace("&#39;", "'").replace("&lt;", "<").replace("&gt;", ">")
}

/// Percent-encodes a query parameter.
fn encode(text: &str) -> String {
    let mut out = String::new();
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => out.push(char::from(byte)),
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

/// Sends one request and returns the JSON answer; errors are for the model.
fn send(method: &str, url: &str, headers: &[(&str, &str)], body: Option<String>) -> Result<Value, ToolError> {
    let fail = |what: String| ToolError::Execution(format!("the search API ({}): {what}", origin(url)));
    let (scheme, rest) = url.split_once("://").ok_or_else(|| fail("the URL is not absolute".into()))?;
    let (authority, path) = match rest.find('/') {
        Some(at) => (&rest[..at], &rest[at..]),
        None => match rest.find('?') {
            Some(at) => (&rest[..at], &rest[at..]),
            None => (rest, "/"),
        },
    };
    let fields = Fields::new();
    let mut all: Vec<(&str, &str)> = vec![("accept", "application/json"), ("user-agent", "airlock-web-search/0.1")];
    if body.is_some() {
        all.push(("content-type", "application/json"));
    }
    all.extend_from_slice(headers);
    for (name, value) in all {
        fields.append(name, value.as_bytes()).map_err(|e| fail(format!("header {name}: {e:?}")))?;
    }
    let request = OutgoingRequest::new(fields);
    let method = if method == "POST" { Method::Post } else { Method::Get };
    request.set_method(&method).map_err(|()| fail("the method was refused".into()))?;
    let scheme = if scheme == "https" { Scheme::Https } else { Scheme::Http };
    request.set_scheme(Some(&scheme)).map_err(|()| fail("the scheme was refused".into()))?;
    request.set_authority(Some(authority)).map_err(|()| fail("the host was refused".into()))?;
    request.set_path_with_query(Some(path)).map_err(|()| fail("the path was refused".into()))?;
    let outgoing = request.body().map_err(|()| fail("the request body was taken".into()))?;
    if let Some(body) = &body {
        let stream = outgoing.write().map_err(|()| fail("the request body stream was taken".into()))?;
        stream.blocking_write_and_flush(body.as_bytes()).map_err(|e| fail(format!("sending the query: {e:?}")))?;
    }
    let options = RequestOptions::new();
    let _ = options.set_connect_timeout(Some(10 * SECOND));
    let _ = options.set_first_byte_timeout(Some(20 * SECOND));
    let _ = options.set_between_bytes_timeout(Some(20 * SECOND));
    let pending = outgoing_handler::handle(request, Some(options)).map_err(|code| fail(explain(&code)))?;
    OutgoingBody::finish(outgoing, None).map_err(|code| fail(explain(&code)))?;
    pending.subscribe().block();
    let response = match pending.get() {
        Some(Ok(Ok(response))) => response,
        Some(Ok(Err(code))) => return Err(fail(explain(&code))),
        Some(Err(())) | None => return Err(fail("the response was lost".into())),
    };
    let status = response.status();
    let incoming = response.consume().map_err(|()| fail("the body was taken".into()))?;
    let mut bytes = Vec::new();
    {
        let stream = incoming.stream().map_err(|()| fail("the body stream was taken".into()))?;
        while bytes.len() < MAX_BODY {
            match stream.blocking_read(64 << 10) {
                Ok(chunk) => bytes.extend_from_slice(&chunk),
                Err(StreamError::Closed) => break,
                Err(StreamError::LastOperationFailed(e)) => return Err(fail(format!("reading the answer: {}", e.to_debug_string()))),
            }
        }
    }
    drop(incoming);
    if !(200..300).contains(&status) {
        let text = String::from_utf8_lossy(&bytes);
        let excerpt: String = text.trim().chars().take(200).collect();
        let hint = if status == 401 || status == 403 { " (is the API key right?)" } else { "" };
        return Err(fail(format!("HTTP {status}{hint}: {excerpt}")));
    }
    serde_json::from_slice(&bytes).map_err(|e| fail(format!("the answer is not JSON: {e}")))
}

/// `scheme://host[:port]` of a URL, for messages (never the query, which may hold a key).
fn origin(url: &str) -> String {
    match url.split_once("://") {
        Some((scheme, rest)) => format!("{scheme}://{}", rest.split(['/', '?']).next().unwrap_or_default()),
        None => "?".into(),
    }
}

fn explain(code: &ErrorCode) -> String {
    match code {
        ErrorCode::HttpRequestDenied => "the request was denied: it is not the configured search API".into(),
        ErrorCode::DestinationIpProhibited => {
            "its host is at an address that is not public; configure the URL with the address itself (an IP or localhost)".into()
        }
        ErrorCode::DnsError(_) | ErrorCode::DestinationNotFound => "the host name could not be resolved".into(),
        ErrorCode::ConnectionRefused => "the connection was refused".into(),
        ErrorCode::ConnectionTimeout | ErrorCode::ConnectionReadTimeout | ErrorCode::HttpResponseTimeout => {
            "the API took too long to answer".into()
        }
        other => format!("{other:?}"),
    }
}

export_tools!(WebSearch);
