//! A Sigstore trusted root (`trusted_root.json`, the protobuf-specs JSON form): the Fulcio
//! certificate authorities bundles' certificates must chain to, and the Rekor transparency
//! log keys their inclusion promises must be signed with. Sigstore's public-good root ships
//! with this crate ([`TrustedRoot::public_good`]); a policy may name another file.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde::Deserialize;
use x509_cert::der::Decode;
use x509_cert::spki::SubjectPublicKeyInfoOwned;

use crate::{PublicKey, SignError};

/// The public-good root as the `sigstore` crate ships it (`trust_root/prod/trusted_root.json`).
const PUBLIC_GOOD: &str = include_str!("public_good_root.json");

/// A trusted root: certificate authorities and transparency logs.
#[derive(Debug, Clone)]
pub struct TrustedRoot {
    /// Each authority's chain, DER, leaf-most first; the last one is the anchor.
    pub(crate) authorities: Vec<Vec<Vec<u8>>>,
    /// Rekor logs: their log id (sha-256 of the key) and key.
    pub(crate) logs: Vec<Log>,
}

#[derive(Debug, Clone)]
pub(crate) struct Log {
    pub(crate) id: Vec<u8>,
    pub(crate) key: PublicKey,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RootFile {
    #[serde(default)]
    tlogs: Vec<TlogFile>,
    #[serde(default)]
    certificate_authorities: Vec<AuthorityFile>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TlogFile {
    public_key: RawBytes,
    log_id: LogId,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct LogId {
    key_id: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct AuthorityFile {
    cert_chain: Chain,
}

#[derive(Deserialize)]
struct Chain {
    certificates: Vec<RawBytes>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawBytes {
    raw_bytes: String,
}

fn decode(text: &str, what: &str) -> Result<Vec<u8>, SignError> {
    STANDARD.decode(text.trim()).map_err(|e| SignError::Root(format!("{what} is not base64: {e}")))
}

impl TrustedRoot {
    /// Parses a `trusted_root.json`.
    pub fn from_json(text: &str) -> Result<Self, SignError> {
        let file: RootFile = serde_json::from_str(text).map_err(|e| SignError::Root(e.to_string()))?;
        let mut authorities = Vec::new();
        for authority in &file.certificate_authorities {
            let chain = authority
                .cert_chain
                .certificates
                .iter()
                .map(|c| decode(&c.raw_bytes, "a certificate"))
                .collect::<Result<Vec<_>, _>>()?;
            if !chain.is_empty() {
                authorities.push(chain);
            }
        }
        let mut logs = Vec::new();
        for tlog in &file.tlogs {
            let der = decode(&tlog.public_key.raw_bytes, "a log key")?;
            let spki = SubjectPublicKeyInfoOwned::from_der(&der)
                .map_err(|e| SignError::Root(format!("a log key is not a public key: {e}")))?;
            logs.push(Log { id: decode(&tlog.log_id.key_id, "a log id")?, key: PublicKey::from_spki(&spki)? });
        }
        if authorities.is_empty() {
            return Err(SignError::Root("it names no certificate authority".into()));
        }
        Ok(Self { authorities, logs })
    }

    /// Sigstore's public-good root (Fulcio at fulcio.sigstore.dev, Rekor at rekor.sigstore.dev),
    /// as shipped with the `sigstore` crate this was built with.
    pub fn public_good() -> Result<Self, SignError> {
        Self::from_json(PUBLIC_GOOD)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_public_good_root_parses() {
        let root = TrustedRoot::public_good().unwrap();
        assert!(!root.authorities.is_empty() && !root.logs.is_empty());
    }

    #[test]
    fn a_root_without_authorities_is_refused() {
        assert!(TrustedRoot::from_json(r#"{"tlogs": []}"#).is_err());
        assert!(TrustedRoot::from_json("not json").is_err());
    }
}
