//! The plugin index `plugins search` reads: where it is ([`Where`], from `[plugins] index` of
//! the user's or system `config.toml`, or `--index`), getting its bytes, and reading them
//! into entries ([`parse`]).
//!
//! An index is a JSON document `{ "plugins": [ { "name", "description", "version",
//! "reference", "digest", "requests", "signer" } ] }` (README "Finding plugins"). It is
//! untrusted text: every field is checked here and sanitised where it is printed. An entry
//! whose own fields are malformed makes the whole index an error naming the entry (the index
//! is broken, not one plugin); an entry whose requests are missing or malformed is skipped
//! with a warning — it is never shown as requesting nothing. Its `requests` refuse unknown
//! keys for the same reason: a kind of request this airlock does not know must not vanish.
//!
//! Where an index may be: `https://` (plain `http` only on this machine, as for plugin
//! downloads, [`super::fetch::fetchable`]); a git repository over https (`git+https://…`, or
//! an `https://` URL ending `.git`, [`super::index_git`]); a local mirror — an absolute path
//! or `file://` URL of an `index.json`, or `git+file://…` / a local path ending `.git` of a
//! git repository.

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::fetch::{Limit, fetchable, get_capped};
use crate::commands::CommandError;
use airlock_engine::capability::net::NetRule;
use airlock_engine::contract::FileRequest;
use airlock_engine::policy::file::is_env_name;
use airlock_files as files;

/// The largest index read (a few thousand entries fit in far less).
pub(super) const MAX_INDEX_BYTES: u64 = 8 << 20;

/// How long fetching an index may take.
pub(super) const FETCH_TIMEOUT: Duration = Duration::from_secs(60);

/// Where an index is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Where {
    /// A JSON document at an `https://` (or loopback `http://`) URL.
    Web(reqwest::Url),
    /// A git repository holding `index.json` at its root: an `https://` or `file://` URL.
    Git(String),
    /// A JSON document on this machine.
    File(PathBuf),
}

impl Where {
    /// Reads an index setting; a setting of any other form is refused, saying the forms.
    pub(super) fn parse(text: &str) -> Result<Where, CommandError> {
        let text = text.trim();
        let refused = |why: &str| {
            CommandError::Usage(format!(
                "{text}: {why}; an index is an https:// URL of an index.json, a git repository \
                 (git+https://…, https://….git), or a local mirror (an absolute path, file://…, git+file://…)"
            ))
        };
        if let Some(rest) = text.strip_prefix("git+") {
            let url = reqwest::Url::parse(rest).map_err(|e| refused(&format!("not a URL ({e})")))?;
            return match url.scheme() {
                "https" | "file" => Ok(Where::Git(url.to_string())),
                _ => Err(refused("a git index is fetched over https, or from file:// for a local mirror")),
            };
        }
        if text.starts_with("https://") || text.starts_with("http://") {
            let url = reqwest::Url::parse(text).map_err(|e| refused(&format!("not a URL ({e})")))?;
            if url.path().ends_with(".git") {
                if url.scheme() != "https" {
                    return Err(refused("a git index is fetched over https"));
                }
                return Ok(Where::Git(url.to_string()));
            }
            if !fetchable(&url) {
                return Err(refused("plain http is accepted only from this machine (localhost); use https"));
            }
            return Ok(Where::Web(url));
        }
        let path = if text.starts_with("file://") {
            let url = reqwest::Url::parse(text).map_err(|e| refused(&format!("not a URL ({e})")))?;
            url.to_file_path().map_err(|()| refused("not a local file URL"))?
        } else if text.starts_with('/') {
            PathBuf::from(text)
        } else {
            return Err(refused("not an index address"));
        };
        if path.extension().is_some_and(|e| e == "git") || path.is_dir() {
            let url = reqwest::Url::from_file_path(&path).map_err(|()| refused("not an absolute path"))?;
            return Ok(Where::Git(url.to_string()));
        }
        Ok(Where::File(path))
    }

    /// The bytes of the JSON document on this machine.
    pub(super) fn read_file(path: &std::path::Path) -> Result<Vec<u8>, CommandError> {
        files::read_user_file(path, MAX_INDEX_BYTES)
            .map_err(|e| CommandError::Config(format!("the plugin index {}: cannot read: {e}", path.display())))
    }
}

/// One plugin of an index, checked.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Entry {
    pub name: String,
    pub description: String,
    pub version: String,
    /// `oci://HOST/REPO:TAG` (or `…@sha256:…`).
    pub reference: String,
    /// The OCI manifest digest the reference resolved to when it was indexed: `sha256:HEX`.
    pub digest: String,
    /// Who the index says signed it; `plugins install` checks signatures, not this.
    #[serde(default)]
    pub signer: Option<String>,
}

/// What an entry says its plugin requests (the union over its tools), in the request
/// syntax plugins declare.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Requests {
    #[serde(default)]
    pub files: Vec<FileRequest>,
    #[serde(default)]
    pub network: Vec<String>,
    #[serde(default)]
    pub env: Vec<String>,
    #[serde(default)]
    pub processes: Vec<String>,
}

/// An entry with its requests, and the entry as the index wrote it (for `--json`).
#[derive(Debug)]
pub(super) struct Listed {
    pub entry: Entry,
    pub requests: Requests,
    pub raw: Value,
}

/// An index read: its usable entries, and a warning for each skipped one.
#[derive(Debug, Default)]
pub(super) struct Index {
    pub listed: Vec<Listed>,
    pub warnings: Vec<String>,
}

/// Reads an index document; `origin` names it in errors.
pub(super) fn parse(bytes: &[u8], origin: &str) -> Result<Index, CommandError> {
    let broken = |why: String| CommandError::Config(format!("the plugin index {origin}: {why}"));
    let document: Value = serde_json::from_slice(bytes).map_err(|e| broken(format!("not JSON: {e}")))?;
    let Some(plugins) = document.get("plugins").and_then(Value::as_array) else {
        return Err(broken("it has no \"plugins\" list".into()));
    };
    let mut index = Index::default();
    for (at, raw) in plugins.iter().enumerate() {
        let label = match raw.get("name").and_then(Value::as_str) {
            Some(name) => format!("entry {} ({name:?})", at + 1),
            None => format!("entry {}", at + 1),
        };
        let entry: Entry = serde_json::from_value(raw.clone()).map_err(|e| broken(format!("{label}: {e}")))?;
        check_entry(&entry).map_err(|why| broken(format!("{label}: {why}")))?;
        let requests = match raw.get("requests") {
            None => Err("it does not say what it requests".to_string()),
            Some(value) => serde_json::from_value::<Requests>(value.clone())
                .map_err(|e| e.to_string())
                .and_then(|r| check_requests(&r).map(|()| r)),
        };
        match requests {
            Ok(requests) => index.listed.push(Listed { entry, requests, raw: raw.clone() }),
            Err(why) => index.warnings.push(format!("the plugin index {origin}: {label} skipped: {why}")),
        }
    }
    Ok(index)
}

/// Whether `text` is `sha256:` and 64 lowercase hex digits.
fn is_digest(text: &str) -> bool {
    text.strip_prefix("sha256:")
        .is_some_and(|hex| hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)))
}

/// The characters an OCI reference may hold (RFC 3986 host, port and path, `:` and `@`):
/// also what keeps the printed install line a single, unquoted shell word.
fn is_reference_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '/' | ':' | '@' | '[' | ']')
}

fn check_entry(entry: &Entry) -> Result<(), String> {
    if entry.name.trim().is_empty() {
        return Err("its name is empty".into());
    }
    if !is_digest(&entry.digest) {
        return Err(format!("digest {:?} is not sha256: and 64 hex digits", entry.digest));
    }
    install_reference(entry).map(|_| ())
}

/// What `plugins install` is given for `entry`: its repository pinned to its digest,
/// `oci://HOST/REPO@sha256:…`.
pub(super) fn install_reference(entry: &Entry) -> Result<String, String> {
    let Some(rest) = entry.reference.strip_prefix("oci://") else {
        return Err(format!("reference {:?} is not oci://HOST/REPO:TAG", entry.reference));
    };
    if rest.is_empty() || !rest.chars().all(is_reference_char) {
        return Err(format!("reference {:?} is not oci://HOST/REPO:TAG", entry.reference));
    }
    let (repository, pinned) = match rest.split_once('@') {
        Some((repository, digest)) => (repository, Some(digest)),
        None => (rest, None),
    };
    if let Some(pinned) = pinned
        && pinned != entry.digest
    {
        return Err(format!("reference {:?} names another digest than {}", entry.reference, entry.digest));
    }
    // A tag follows the last `:` of the last path segment (a `:` before it is a port).
    let repository = match repository.rsplit_once('/') {
        Some((head, last)) => match last.split_once(':') {
            Some((name, _tag)) => format!("{head}/{name}"),
            None => repository.to_string(),
        },
        None => return Err(format!("reference {:?} names no repository", entry.reference)),
    };
    Ok(format!("oci://{repository}@{}", entry.digest))
}

fn check_requests(requests: &Requests) -> Result<(), String> {
    for file in &requests.files {
        if file.path.trim().is_empty() || file.path.chars().any(airlock_engine::sanitize::is_hidden) {
            return Err(format!("file request {:?} is not a path", file.path));
        }
    }
    for rule in &requests.network {
        NetRule::parse(rule).map_err(|e| format!("network request {rule:?}: {e}"))?;
    }
    if let Some(name) = requests.env.iter().find(|name| !is_env_name(name)) {
        return Err(format!("{name:?} is not an environment variable name"));
    }
    if requests.processes.iter().any(|p| p.trim().is_empty()) {
        return Err("a process request is empty".into());
    }
    Ok(())
}

/// The bytes at `url`, at most [`MAX_INDEX_BYTES`]: as plugin downloads, the request and
/// every redirect it follows must be `https`, or `http` to this machine only.
pub(super) async fn download(url: &reqwest::Url) -> Result<Vec<u8>, CommandError> {
    let failed = |why: String| CommandError::Config(format!("the plugin index {url}: {why}"));
    let limit = Limit { timeout: FETCH_TIMEOUT, max_bytes: MAX_INDEX_BYTES, what: "an index" };
    get_capped(url, &limit, "", "").await.map(|(bytes, _)| bytes).map_err(failed)
}

#[cfg(test)]
#[path = "index_tests.rs"]
mod tests;
