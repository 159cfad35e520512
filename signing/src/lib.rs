//! Signatures of airlock plugins, verified offline.
//!
//! Three kinds, all checked against a [`Trust`] (what a plugin folder's policy trusts):
//! - a cosign signature made with a key over a file's bytes (`cosign sign-blob --key`):
//!   [`verify_blob`];
//! - a cosign simple-signing payload naming an OCI manifest digest, as cosign stores beside
//!   an image (`sha256-….sig`): [`verify_cosign_payload`];
//! - a Sigstore bundle (`cosign sign-blob --bundle`, v0.3 JSON) holding either a Fulcio
//!   certificate or a key hint: [`verify_bundle`].
//!
//! Nothing here reaches the network: a bundle carries its certificate and transparency-log
//! entry, and the trusted root (Fulcio CAs, Rekor keys) is a file the policy names, or the
//! Sigstore public-good root this crate ships. Keys are parsed and signatures checked by the
//! `sigstore` crate (`crypto`); certificate chains by `rustls-webpki`, as `sigstore` itself does.
//!
//! Invariant: a function returns [`Verified`] only when a signature made by a key or identity
//! in the [`Trust`] verifies over exactly the digest asked about.

mod bundle;
mod key;
mod root;

use sha2::{Digest, Sha256};

pub use bundle::verify_bundle;
pub use key::{
    PublicKey, cosign_payload, generate_key_pem, private_key_fingerprint, sign_blob, sign_payload, verify_blob,
    verify_cosign_payload,
};
pub use root::TrustedRoot;

/// A public key the policy trusts, with the name it is shown by.
#[derive(Debug, Clone)]
pub struct NamedKey {
    /// Where it came from: the path in the policy, or "inline key N".
    pub name: String,
    pub key: PublicKey,
}

/// A keyless signer the policy trusts: the certificate's OIDC issuer and subject (an email
/// or a workflow URI), both compared exactly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    pub issuer: String,
    pub subject: String,
}

/// What a plugin folder trusts.
#[derive(Debug, Clone, Default)]
pub struct Trust {
    pub keys: Vec<NamedKey>,
    pub identities: Vec<Identity>,
    /// The trusted root bundles are checked against; `None`: Sigstore's public-good root.
    pub root: Option<TrustedRoot>,
}

/// A signature that verified: who made it and what was checked, in sentences for
/// `plugins show`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    pub signer: String,
    pub verified: String,
}

/// Why a signature was refused; each names what failed.
#[derive(Debug, thiserror::Error)]
pub enum SignError {
    #[error("no signature")]
    Missing,
    #[error("the policy trusts no keys{0}: a key signature cannot be checked")]
    NoKeys(&'static str),
    #[error("signed by a key the policy does not trust (fingerprint {0})")]
    UntrustedKey(String),
    #[error(
        "the signature does not verify over this file's sha-256 {digest} with any key the policy trusts \
         ({keys}): it was made by another key or over other bytes"
    )]
    NoTrustedKeyVerifies { digest: String, keys: String },
    #[error("the signature is for sha-256 {signed}, not this file's {actual}")]
    OtherDigest { signed: String, actual: String },
    #[error("certificate identity {subject} from {issuer} is not one the policy trusts")]
    UntrustedIdentity { issuer: String, subject: String },
    #[error("bad signature: {0}")]
    Bad(String),
    #[error("bad bundle: {0}")]
    BadBundle(String),
    #[error("the certificate does not chain to a certificate authority of the trusted root: {0}")]
    Chain(String),
    #[error("bad key: {0}")]
    Key(String),
    #[error("bad trusted root: {0}")]
    Root(String),
}

/// The `sha256:…` fingerprint of a DER-encoded public key (SubjectPublicKeyInfo), as shown to
/// users and recorded in `plugins.lock`.
pub fn fingerprint(spki_der: &[u8]) -> String {
    format!("sha256:{}", hex(&Sha256::digest(spki_der)))
}

/// The hex sha-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `digest` as 64 lower-case hex digits, without a `sha256:` prefix.
fn normalise_digest(digest: &str) -> String {
    let digest = digest.trim().to_ascii_lowercase();
    digest.strip_prefix("sha256:").unwrap_or(&digest).to_string()
}

#[cfg(any(test, feature = "test-ca"))]
pub mod test_ca;
