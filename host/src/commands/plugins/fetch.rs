//! Where the bytes of a plugin being installed come from: a file, an `https://` URL (plain
//! `http` only from this machine), or an OCI registry (`oci://HOST/REPO:TAG`,
//! `oci://HOST/REPO@sha256:DIGEST`); each is read whole, capped at the most a plugin may have,
//! before anything is written.
//!
//! An OCI tag is checked against the folder's `plugins.lock` before the component is
//! downloaded: when an entry was installed from the same tag and the tag now names another
//! manifest, `install` is refused naming both digests (the tag moved: someone pushed over it);
//! `update` ([`fetch_for_update`]) takes the new one, since moving is the point.

use std::path::Path;
use std::time::Duration;

use super::Context;
use super::lifecycle;
use crate::commands::CommandError;
use airlock_engine::registry::lock::{Lock, OciPin};
use airlock_engine::registry::{MAX_PLUGIN_BYTES, Origin, Plugin};
use airlock_engine::sanitize::line;
use airlock_files as files;
use airlock_oci::Reference;

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

/// The bytes `source` names, for the plugin folder of `in_workspace` (whose lock may pin it):
/// an OCI tag that moved since a plugin was installed from it is refused.
pub(super) async fn fetch(context: &Context<'_>, source: &str, in_workspace: bool) -> Result<Fetched, CommandError> {
    fetch_with(context, source, in_workspace, false).await
}

/// As [`fetch`], for `airlock plugins update`: an OCI tag that moved is taken (the capability
/// diff that follows shows what the new version asks for).
pub(super) async fn fetch_for_update(
    context: &Context<'_>,
    source: &str,
    in_workspace: bool,
) -> Result<Fetched, CommandError> {
    fetch_with(context, source, in_workspace, true).await
}

async fn fetch_with(
    context: &Context<'_>,
    source: &str,
    in_workspace: bool,
    moving: bool,
) -> Result<Fetched, CommandError> {
    if source.starts_with(airlock_oci::SCHEME) {
        return pull(context, source, in_workspace, moving).await;
    }
    if is_url(source) {
        let (bytes, recorded_source) = download(source).await?;
        return Ok(Fetched { bytes, recorded_source, oci: None });
    }
    let path = Path::new(source);
    let bytes = files::read_user_file(path, MAX_PLUGIN_BYTES)
        .map_err(|e| CommandError::Unloadable(format!("{source}: cannot read: {e}")))?;
    Ok(Fetched { bytes, recorded_source: files::canonical_lenient(path).display().to_string(), oci: None })
}

/// The component at the OCI reference `source`: its manifest resolved and checked, a moved
/// tag refused unless `moving`, then its one layer downloaded and checked.
async fn pull(context: &Context<'_>, source: &str, in_workspace: bool, moving: bool) -> Result<Fetched, CommandError> {
    let reference = Reference::parse(source).map_err(|e| CommandError::Usage(e.to_string()))?;
    let failed = |e: airlock_oci::OciError| CommandError::Unloadable(format!("{e}; nothing was installed"));
    let client = airlock_oci::Client::new(&reference).map_err(failed)?;
    let resolved = client.resolve(&reference).await.map_err(failed)?;
    let pinned = pin_text(&reference);
    if !moving && reference.digest().is_none() {
        let lock = match lifecycle::folder(context, in_workspace, false)? {
            Some(folder) => Lock::read_in(&folder.dir, &folder.path).map_err(CommandError::Unloadable)?,
            None => Lock::default(),
        };
        let moved = lock.plugins.values().find(|entry| {
            entry
                .oci
                .as_ref()
                .is_some_and(|oci| oci.reference == pinned && oci.manifest_digest != resolved.manifest_digest)
        });
        if let Some(entry) = moved {
            let old = entry.oci.as_ref().map_or("", |oci| oci.manifest_digest.as_str());
            return Err(CommandError::Unloadable(format!(
                "{source}: the tag moved: {} was installed from it at manifest {old}, and it now names {}; \
                 nothing was installed. To take the new version, run `airlock plugins update {}` \
                 (it shows what the new version requests first), or install {}@{old} to keep the old one",
                line(&entry.name),
                resolved.manifest_digest,
                line(&entry.name),
                reference.with_tag(reference.tag().unwrap_or_default()),
            )));
        }
    }
    let bytes = client.pull_component(&reference, &resolved, MAX_PLUGIN_BYTES).await.map_err(failed)?;
    Ok(Fetched {
        bytes,
        recorded_source: source.to_string(),
        oci: Some(OciPin { reference: pinned, manifest_digest: resolved.manifest_digest }),
    })
}

/// The OCI reference and manifest digest `plugins.lock` records for the installed `plugin`.
pub(super) fn oci_pin(context: &Context<'_>, plugin: &Plugin) -> Option<OciPin> {
    let lock = match plugin.source.origin {
        Origin::User => Lock::read(plugin.source.path.parent()?).ok()?,
        Origin::Workspace => {
            let folder = lifecycle::folder(context, true, false).ok()??;
            Lock::read_in(&folder.dir, &folder.path).ok()?
        }
        Origin::Builtin => return None,
    };
    let file_name = plugin.source.path.file_name()?.to_str()?;
    lock.entry(file_name)?.oci.clone()
}

/// The line `plugins show` and `list` print for an OCI pin.
pub(super) fn describe_pin(pin: &OciPin) -> String {
    format!("{}{} (manifest {})", airlock_oci::SCHEME, line(&pin.reference), line(&pin.manifest_digest))
}

/// How `plugins.lock` names an OCI reference: without `oci://`.
fn pin_text(reference: &Reference) -> String {
    let text = reference.to_string();
    text.strip_prefix(airlock_oci::SCHEME).unwrap_or(&text).to_string()
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
    let failed = |e: String| CommandError::Unloadable(format!("{url}: {e}"));
    let limit = Limit { timeout: DOWNLOAD_TIMEOUT, max_bytes: MAX_PLUGIN_BYTES, what: "a plugin" };
    let (bytes, fetched) =
        get_capped(&parsed, &limit, "; nothing was installed", " (localhost)").await.map_err(failed)?;
    Ok((bytes, fetched.to_string()))
}

/// What one capped download may take.
pub(super) struct Limit {
    pub timeout: Duration,
    pub max_bytes: u64,
    /// What the bytes are, for the message when there are too many ("a plugin").
    pub what: &'static str,
}

/// The bytes at `url`, at most `limit.max_bytes` within `limit.timeout`, and the URL they
/// were fetched from. The request and every redirect it follows must be `https`, or `http`
/// to this machine only (checked before each hop is requested: a refused hop sends nothing
/// to its host), so a local or https address cannot hand the download to a plain-http host.
/// `refused_tail` ends the message of a refused redirect, `http_note` follows "this machine".
pub(super) async fn get_capped(
    url: &reqwest::Url,
    limit: &Limit,
    refused_tail: &'static str,
    http_note: &'static str,
) -> Result<(Vec<u8>, reqwest::Url), String> {
    let redirects = reqwest::redirect::Policy::custom(move |attempt| {
        if attempt.previous().len() > MAX_REDIRECTS {
            attempt.error(format!("more than {MAX_REDIRECTS} redirects"))
        } else if fetchable(attempt.url()) {
            attempt.follow()
        } else {
            let to = attempt.url().to_string();
            attempt.error(format!(
                "it redirects to {to}: plain http is accepted only from this machine{http_note}{refused_tail}"
            ))
        }
    });
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
        .timeout(limit.timeout)
        .user_agent(concat!("airlock/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| e.to_string())?;
    let mut response = client.get(url.clone()).send().await.map_err(chain)?;
    let fetched = response.url().clone();
    // The policy above checked every hop; the last one is checked again before any byte
    // of it is used.
    if !fetchable(&fetched) {
        return Err(format!("it was fetched from {fetched}, which is not https or this machine"));
    }
    if !response.status().is_success() {
        return Err(format!("the server answered {}", response.status()));
    }
    let mut bytes = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(chain)? {
        if (bytes.len() + chunk.len()) as u64 > limit.max_bytes {
            return Err(format!("larger than {} MiB, the most {} may have", limit.max_bytes >> 20, limit.what));
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok((bytes, fetched))
}
