//! Where the bytes of a plugin being installed come from: a file, an `https://` URL (plain
//! `http` only from this machine), or an OCI registry (`oci://HOST/REPO:TAG`,
//! `oci://HOST/REPO@sha256:DIGEST`); each is read whole, capped at the most a plugin may have,
//! before anything is written.

use std::path::Path;
use std::time::Duration;

use super::Context;
use crate::commands::CommandError;
use airlock_engine::registry::MAX_PLUGIN_BYTES;
use airlock_engine::registry::lock::OciPin;
use airlock_files as files;

/// How long a download may take.
const DOWNLOAD_TIMEOUT: Duration = Duration::from_secs(300);

/// A plugin's bytes and where they came from.
#[derive(Debug)]
pub(super) struct Fetched {
    pub bytes: Vec<u8>,
    /// What `plugins.lock` records as its source: the file's path, the URL it was fetched
    /// from (after redirects), or the OCI reference as given.
    pub recorded_source: String,
    /// For an OCI artifact: the reference and the digests it resolved to.
    pub oci: Option<OciPin>,
}

/// The bytes `source` names, for the plugin folder of `in_workspace` (whose lock may pin it).
pub(super) async fn fetch(_context: &Context<'_>, source: &str, _in_workspace: bool) -> Result<Fetched, CommandError> {
    if is_url(source) {
        let (bytes, recorded_source) = download(source).await?;
        return Ok(Fetched { bytes, recorded_source, oci: None });
    }
    let path = Path::new(source);
    let bytes = files::read_user_file(path, MAX_PLUGIN_BYTES)
        .map_err(|e| CommandError::Unloadable(format!("{source}: cannot read: {e}")))?;
    Ok(Fetched { bytes, recorded_source: files::canonical_lenient(path).display().to_string(), oci: None })
}

/// Whether `source` names a URL rather than a file.
pub(super) fn is_url(source: &str) -> bool {
    source.starts_with("https://") || source.starts_with("http://")
}

/// Most redirects one download follows.
const MAX_REDIRECTS: usize = 10;

/// Whether a download may come from `url`: `https`, or plain `http` from this machine only.
pub(super) fn fetchable(url: &reqwest::Url) -> bool {
    let loopback = match url.host_str() {
        Some(host) if host.eq_ignore_ascii_case("localhost") => true,
        Some(host) => host.trim_matches(['[', ']']).parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback()),
        None => false,
    };
    url.scheme() == "https" || (url.scheme() == "http" && loopback)
}

/// The bytes at `url` (at most [`MAX_PLUGIN_BYTES`]) and the URL they were fetched from:
/// the request and every redirect it follows must be `https`, or `http` to this machine
/// only, so a local or https address cannot hand the download to a plain-http host.
async fn download(url: &str) -> Result<(Vec<u8>, String), CommandError> {
    let parsed = reqwest::Url::parse(url).map_err(|e| CommandError::Usage(format!("{url}: not a URL: {e}")))?;
    if !fetchable(&parsed) {
        return Err(CommandError::Usage(format!(
            "{url}: plain http is accepted only from this machine (localhost); use https"
        )));
    }
    // Checked before each hop is requested: a refused hop sends nothing to its host.
    let redirects = reqwest::redirect::Policy::custom(|attempt| {
        if attempt.previous().len() > MAX_REDIRECTS {
            attempt.error(format!("more than {MAX_REDIRECTS} redirects"))
        } else if fetchable(attempt.url()) {
            attempt.follow()
        } else {
            let to = attempt.url().to_string();
            attempt.error(format!(
                "it redirects to {to}: plain http is accepted only from this machine (localhost); nothing was installed"
            ))
        }
    });
    let failed = |e: String| CommandError::Unloadable(format!("{url}: {e}"));
    // reqwest's own message hides its cause ("error sending request"): say the whole chain.
    let chain = |e: reqwest::Error| {
        let mut text = e.to_string();
        let mut source = std::error::Error::source(&e);
        while let Some(cause) = source {
            text.push_str(&format!(": {cause}"));
            source = cause.source();
        }
        text
    };
    let client = reqwest::Client::builder()
        .redirect(redirects)
        .timeout(DOWNLOAD_TIMEOUT)
        .user_agent(concat!("airlock/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| failed(e.to_string()))?;
    let mut response = client.get(parsed).send().await.map_err(|e| failed(chain(e)))?;
    let fetched = response.url().clone();
    // The policy above checked every hop; the last one is checked again before any byte
    // of it is used.
    if !fetchable(&fetched) {
        return Err(failed(format!("it was fetched from {fetched}, which is not https or this machine")));
    }
    if !response.status().is_success() {
        return Err(failed(format!("the server answered {}", response.status())));
    }
    let mut bytes = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| failed(chain(e)))? {
        if (bytes.len() + chunk.len()) as u64 > MAX_PLUGIN_BYTES {
            return Err(failed(format!("larger than {} MiB, the most a plugin may have", MAX_PLUGIN_BYTES >> 20)));
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok((bytes, fetched.to_string()))
}
