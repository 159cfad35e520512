//! A plugin index kept in a git repository: its `index.json`, fetched with the system `git`
//! into `$AIRLOCK_HOME/cache/index/<hash of the URL>/` and fetched again when the copy is
//! older than an hour (or with `--refresh`).
//!
//! The repository is someone else's, so git runs so that nothing of it can act here: the copy
//! is a bare repository holding the fetched commit only (`git init --bare`, then `git fetch
//! --depth 1 URL HEAD`) and `index.json` is read as a blob (`git cat-file`), so no file of
//! the repository is ever checked out — no hooks, attributes, filters or links of its own
//! reach the disk or run. Git reads no configuration but ours (`GIT_CONFIG_NOSYSTEM`,
//! `GIT_CONFIG_GLOBAL=/dev/null`, hooks off), never prompts (`GIT_TERMINAL_PROMPT=0`), and
//! speaks only the protocol of the index's URL (`GIT_ALLOW_PROTOCOL`: `https`, or `file` for
//! a local mirror), with a deadline.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::index::{FETCH_TIMEOUT, MAX_INDEX_BYTES};
use crate::commands::CommandError;

/// How long a fetched index is used before it is fetched again.
const FRESH_FOR: Duration = Duration::from_secs(3600);

/// The file of the repository that is the index.
const INDEX_FILE: &str = "index.json";

/// The bytes of `index.json` of the git repository at `url`, from the copy under `cache`
/// (fetched first when missing, older than [`FRESH_FOR`], or `refresh`); the warning to
/// print when a refresh failed and the older copy was used.
pub(super) async fn read(cache: &Path, url: &str, refresh: bool) -> Result<(Vec<u8>, Option<String>), CommandError> {
    let failed = |why: String| CommandError::Config(format!("the plugin index {url}: {why}"));
    let dir = copy_dir(cache, url);
    if !dir.join("HEAD").is_file() {
        std::fs::create_dir_all(&dir).map_err(|e| failed(format!("cannot make {}: {e}", dir.display())))?;
        git(url, &dir, &["init", "--bare", "--quiet"]).await.map_err(failed)?;
    }
    let fetched = dir.join("FETCH_HEAD");
    let age = std::fs::metadata(&fetched)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| SystemTime::now().duration_since(t).ok());
    let mut warning = None;
    if refresh || age.is_none_or(|age| age > FRESH_FOR) {
        let fetch = git(url, &dir, &["fetch", "--depth", "1", "--no-tags", "--quiet", "--", url, "HEAD"]).await;
        match fetch {
            Ok(_) => {}
            // An older copy still answers a search; a refresh asked for must succeed.
            Err(why) if !refresh && age.is_some() => {
                warning = Some(format!(
                    "the plugin index {url} could not be fetched again ({why}); using the copy fetched before"
                ))
            }
            Err(why) => return Err(failed(why)),
        }
    }
    let spec = format!("FETCH_HEAD:{INDEX_FILE}");
    let size = git(url, &dir, &["cat-file", "-s", &spec])
        .await
        .map_err(|why| failed(format!("no {INDEX_FILE} at the root of its default branch ({why})")))?;
    let size: u64 = String::from_utf8_lossy(&size).trim().parse().unwrap_or(u64::MAX);
    if size > MAX_INDEX_BYTES {
        return Err(failed(format!(
            "{INDEX_FILE} is larger than {} MiB, the most an index may have",
            MAX_INDEX_BYTES >> 20
        )));
    }
    let bytes = git(url, &dir, &["cat-file", "blob", &spec]).await.map_err(failed)?;
    Ok((bytes, warning))
}

/// Runs `git ARGS` on the bare copy `dir` for the index at `url`; its stdout, or why it failed.
async fn git(url: &str, dir: &Path, args: &[&str]) -> Result<Vec<u8>, String> {
    let protocol = if url.starts_with("file:") { "file" } else { "https" };
    let mut command = tokio::process::Command::new("git");
    command
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into()))
        .env("GIT_DIR", dir)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_ALLOW_PROTOCOL", protocol)
        .env("LC_ALL", "C");
    // A proxy and certificate settings are the network's, not the repository's.
    for name in ["HTTPS_PROXY", "https_proxy", "NO_PROXY", "no_proxy", "SSL_CERT_FILE", "SSL_CERT_DIR"] {
        if let Some(value) = std::env::var_os(name) {
            command.env(name, value);
        }
    }
    command
        .args(["-c", "core.hooksPath=/dev/null", "-c", "credential.helper=", "-c", "protocol.allow=never"])
        .args(["-c", &format!("protocol.{protocol}.allow=always")])
        .args(args)
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    let output = match tokio::time::timeout(FETCH_TIMEOUT, command.output()).await {
        Ok(Ok(output)) => output,
        Ok(Err(e)) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err("git is not installed (a git index needs the `git` program)".into());
        }
        Ok(Err(e)) => return Err(format!("cannot run git: {e}")),
        Err(_) => return Err(format!("git took longer than {} s", FETCH_TIMEOUT.as_secs())),
    };
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let said = stderr.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("no message");
        return Err(format!("`git {}` failed: {said}", args.first().copied().unwrap_or_default()));
    }
    Ok(output.stdout)
}

/// Where the copy of the index at `url` is kept: one folder per URL.
fn copy_dir(cache: &Path, url: &str) -> PathBuf {
    cache.join("index").join(&airlock_files::content_hash(url.as_bytes())[..16])
}
