//! airlock's OCI registry client: WebAssembly components pulled from and pushed to OCI
//! registries in the CNCF Wasm OCI artifact layout (the one `wkg`, Wassette and Spin use), and
//! cosign signature artifacts beside them.
//!
//! Built on `oci-client`. What it guarantees on a pull ([`Client::pull`]): the manifest is
//! fetched first and checked (an OCI image manifest, config
//! `application/vnd.wasm.config.v0+json`, exactly one `application/wasm` layer); its digest is
//! computed from its bytes and must equal a digest the reference pins; the layer's declared
//! size is checked against the cap before the blob is requested; the blob is read with a
//! running cap (a registry sending more than the manifest declares is cut off); its sha-256
//! must equal the layer digest. Nothing is returned otherwise, so a caller writes nothing.
//! Plain `http` only to a registry on this machine; every request has a deadline; credentials
//! are anonymous or the docker config's basic auth ([`auth`]).

mod auth;
mod cosign;
mod layout;
mod pull;
mod push;
mod reference;

use std::future::Future;
use std::time::Duration;

use oci_client::client::{ClientConfig, ClientProtocol};
use oci_client::secrets::RegistryAuth;

pub use cosign::{CosignSignature, MAX_SIGNATURES, SIMPLE_SIGNING_MEDIA_TYPE, signature_tag, simple_signing_payload};
pub use layout::{MANIFEST_MEDIA_TYPE, WASM_CONFIG_MEDIA_TYPE, WASM_LAYER_MEDIA_TYPE};
pub use pull::{Pulled, Resolved};
pub use push::Published;
pub use reference::{Reference, SCHEME, is_sha256_digest};

/// How long a connection may take to open.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long the registry may stay silent within one answer.
const READ_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a request for a manifest, a tag or a small blob may take in all.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);
/// The most a manifest may be (the OCI distribution spec's recommended limit): a larger one
/// is refused. `oci-client` reads a manifest's body whole, so this bounds what is hashed and
/// parsed, not what one answer may buffer (that stays bounded only by [`REQUEST_TIMEOUT`]).
pub const MAX_MANIFEST_BYTES: u64 = 4 << 20;
/// How long a component's blob may take to download or upload in all.
const BLOB_TIMEOUT: Duration = Duration::from_secs(300);

/// Why an OCI operation failed. Every message names the reference.
#[derive(Debug, thiserror::Error)]
pub enum OciError {
    #[error("{reference}: not an OCI reference: {why}")]
    BadReference { reference: String, why: String },
    #[error("{reference}: not found in the registry ({detail})")]
    NotFound { reference: String, detail: String },
    #[error("{reference}: {message}")]
    Registry { reference: String, message: String },
    #[error("{reference}: no answer within {} s ({what})", .limit.as_secs())]
    Timeout { reference: String, what: &'static str, limit: Duration },
    #[error("{reference}: not a WebAssembly component artifact: {why}")]
    NotWasm { reference: String, why: String },
    #[error(
        "{reference}: its component is {size} bytes, more than the {max} a plugin may have; refused before downloading it"
    )]
    TooLarge { reference: String, size: u64, max: u64 },
    #[error("{reference}: its manifest is {size} bytes, more than the {max} a manifest may have; refused")]
    ManifestTooLarge { reference: String, size: u64, max: u64 },
    #[error("{reference}: the registry sent {sent} bytes for a component its manifest declares as {declared}")]
    SizeMismatch { reference: String, declared: u64, sent: u64 },
    #[error(
        "{reference}: the component's bytes do not match its digest: the manifest names {expected}, the bytes are {actual}"
    )]
    DigestMismatch { reference: String, expected: String, actual: String },
    #[error("{reference}: the registry's manifest has digest {actual}, not the {expected} the reference pins")]
    ManifestDigestMismatch { reference: String, expected: String, actual: String },
}

/// A client for the registry of one reference.
pub struct Client {
    inner: oci_client::Client,
    auth: RegistryAuth,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client").finish_non_exhaustive()
    }
}

impl Client {
    /// A client for `reference`'s registry: https, or plain http when the registry is on
    /// this machine; the docker config's credentials for it, if any.
    pub fn new(reference: &Reference) -> Result<Client, OciError> {
        let protocol = if reference.is_loopback() {
            ClientProtocol::HttpsExcept(vec![reference.registry().to_string()])
        } else {
            ClientProtocol::Https
        };
        let config = ClientConfig {
            protocol,
            connect_timeout: Some(CONNECT_TIMEOUT),
            read_timeout: Some(READ_TIMEOUT),
            user_agent: concat!("airlock/", env!("CARGO_PKG_VERSION")),
            // A wasm artifact is never an index to choose a platform from.
            platform_resolver: None,
            ..ClientConfig::default()
        };
        let inner = oci_client::Client::try_from(config)
            .map_err(|e| OciError::Registry { reference: reference.to_string(), message: chain(&e) })?;
        Ok(Client { inner, auth: auth::for_registry(reference.registry()) })
    }

    /// `reference`'s manifest, as the registry sent it, refused when it is over
    /// [`MAX_MANIFEST_BYTES`].
    async fn manifest_raw(&self, reference: &Reference, accepted: &[&str]) -> Result<Vec<u8>, OciError> {
        let (bytes, _) = self
            .inner
            .pull_manifest_raw(&reference.to_client(), &self.auth, accepted)
            .await
            .map_err(|e| registry_error(reference, e))?;
        check_manifest_size(reference, bytes.len())?;
        Ok(bytes.to_vec())
    }

    /// `future`, or [`OciError::Timeout`] after `limit`.
    async fn timed<T>(
        reference: &Reference,
        what: &'static str,
        limit: Duration,
        future: impl Future<Output = Result<T, OciError>>,
    ) -> Result<T, OciError> {
        tokio::time::timeout(limit, future)
            .await
            .unwrap_or_else(|_| Err(OciError::Timeout { reference: reference.to_string(), what, limit }))
    }
}

/// Refuses a manifest of `len` bytes over [`MAX_MANIFEST_BYTES`].
fn check_manifest_size(reference: &Reference, len: usize) -> Result<(), OciError> {
    let size = u64::try_from(len).unwrap_or(u64::MAX);
    if size > MAX_MANIFEST_BYTES {
        return Err(OciError::ManifestTooLarge { reference: reference.to_string(), size, max: MAX_MANIFEST_BYTES });
    }
    Ok(())
}

/// `error` and its causes, in one line (reqwest's own message hides its cause).
fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    text
}

/// An `oci-client` failure for `reference`: not found, or the registry's message.
fn registry_error(reference: &Reference, error: oci_client::errors::OciDistributionError) -> OciError {
    use oci_client::errors::{OciDistributionError as E, OciErrorCode};
    let not_found = match &error {
        E::ImageManifestNotFoundError(_) => true,
        E::RegistryError { envelope, .. } => envelope.errors.iter().any(|e| {
            matches!(
                e.code,
                OciErrorCode::ManifestUnknown
                    | OciErrorCode::NameUnknown
                    | OciErrorCode::NotFound
                    | OciErrorCode::BlobUnknown
            )
        }),
        E::ServerError { code: 404, .. } => true,
        _ => false,
    };
    if not_found {
        OciError::NotFound { reference: reference.to_string(), detail: chain(&error) }
    } else {
        OciError::Registry { reference: reference.to_string(), message: chain(&error) }
    }
}

/// `sha256:HEX` of `bytes`.
pub fn sha256_digest(bytes: &[u8]) -> String {
    use sha2::Digest;
    format!("sha256:{:x}", sha2::Sha256::digest(bytes))
}
