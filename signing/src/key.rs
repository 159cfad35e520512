//! Signatures made with a key: cosign's `sign-blob --key` over a file's bytes, and cosign's
//! simple-signing payload over an OCI manifest digest; and making both, for `plugins publish
//! --key` and the tests.
//!
//! A signature verifies only with a key of the [`Trust`]: the signer is named by that key's
//! policy name and fingerprint. Keys are ECDSA P-256 (cosign's default); the `sigstore`
//! crate also reads P-384, P-521, Ed25519 and RSA public keys, which verify the same way.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::json;
use sigstore::crypto::signing_key::SigStoreKeyPair;
use sigstore::crypto::{CosignVerificationKey, Signature, SigningScheme};
use x509_cert::der::{DecodePem, Encode};
use x509_cert::spki::SubjectPublicKeyInfoOwned;

use crate::{NamedKey, SignError, Trust, Verified, fingerprint, normalise_digest, sha256_hex};

/// A public key read from PEM, with its fingerprint.
#[derive(Debug, Clone)]
pub struct PublicKey {
    key: CosignVerificationKey,
    fingerprint: String,
}

impl PublicKey {
    /// A `PUBLIC KEY` PEM block, as `cosign generate-key-pair` writes `cosign.pub`.
    pub fn from_pem(pem: &str) -> Result<Self, SignError> {
        let spki = SubjectPublicKeyInfoOwned::from_pem(pem.trim().as_bytes())
            .map_err(|e| SignError::Key(format!("not a PEM public key: {e}")))?;
        Self::from_spki(&spki)
    }

    pub(crate) fn from_spki(spki: &SubjectPublicKeyInfoOwned) -> Result<Self, SignError> {
        let der = spki.to_der().map_err(|e| SignError::Key(e.to_string()))?;
        let key = CosignVerificationKey::try_from(spki).map_err(|e| SignError::Key(e.to_string()))?;
        Ok(Self { key, fingerprint: fingerprint(&der) })
    }

    /// `sha256:…` of the DER public key.
    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    /// Whether `signature` (DER, as cosign makes it) is this key's over `message`.
    pub(crate) fn verifies(&self, signature: &[u8], message: &[u8]) -> bool {
        self.key.verify_signature(Signature::Raw(signature), message).is_ok()
    }
}

/// The base64 signature text of a `.sig` file or annotation, decoded (cosign writes it with
/// or without a trailing newline).
pub(crate) fn decode_signature(signature_b64: &str) -> Result<Vec<u8>, SignError> {
    let text: String = signature_b64.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    if text.is_empty() {
        return Err(SignError::Missing);
    }
    STANDARD.decode(text).map_err(|e| SignError::Bad(format!("the signature is not base64: {e}")))
}

/// The key of `trust` whose signature `signature` is over `message`.
pub(crate) fn trusted_signer<'t>(trust: &'t Trust, signature: &[u8], message: &[u8]) -> Option<&'t NamedKey> {
    trust.keys.iter().find(|named| named.key.verifies(signature, message))
}

pub(crate) fn key_list(trust: &Trust) -> String {
    trust.keys.iter().map(|k| format!("{} {}", k.name, k.key.fingerprint)).collect::<Vec<_>>().join(", ")
}

pub(crate) fn signer_of(key: &NamedKey) -> String {
    format!("key {} ({})", key.name, key.key.fingerprint)
}

/// Verifies a cosign blob signature (base64 ECDSA over the file's bytes) of `bytes` with the
/// keys of `trust`.
pub fn verify_blob(bytes: &[u8], signature_b64: &str, trust: &Trust) -> Result<Verified, SignError> {
    let signature = decode_signature(signature_b64)?;
    if trust.keys.is_empty() {
        return Err(SignError::NoKeys(""));
    }
    let digest = sha256_hex(bytes);
    let key = trusted_signer(trust, &signature, bytes)
        .ok_or_else(|| SignError::NoTrustedKeyVerifies { digest: digest.clone(), keys: key_list(trust) })?;
    Ok(Verified {
        signer: signer_of(key),
        verified: format!("cosign signature by key {} over the file's bytes, sha-256 {digest}", key.key.fingerprint),
    })
}

/// Verifies a cosign simple-signing `payload` and its signature with the keys of `trust`, and
/// that the payload names `manifest_digest` (`sha256:…`) as `critical.image.docker-manifest-digest`.
pub fn verify_cosign_payload(
    payload: &[u8],
    signature_b64: &str,
    manifest_digest: &str,
    trust: &Trust,
) -> Result<Verified, SignError> {
    let signature = decode_signature(signature_b64)?;
    if trust.keys.is_empty() {
        return Err(SignError::NoKeys(""));
    }
    let key = trusted_signer(trust, &signature, payload).ok_or_else(|| SignError::NoTrustedKeyVerifies {
        digest: format!("{} (the signed payload's)", sha256_hex(payload)),
        keys: key_list(trust),
    })?;
    let value: serde_json::Value =
        serde_json::from_slice(payload).map_err(|e| SignError::Bad(format!("the signed payload is not JSON: {e}")))?;
    let signed = value
        .pointer("/critical/image/docker-manifest-digest")
        .and_then(|v| v.as_str())
        .ok_or_else(|| SignError::Bad("the signed payload names no critical.image.docker-manifest-digest".into()))?;
    let (signed, actual) = (normalise_digest(signed), normalise_digest(manifest_digest));
    if signed != actual {
        return Err(SignError::OtherDigest {
            signed: format!("{signed} (a manifest)"),
            actual: format!("manifest's {actual}"),
        });
    }
    Ok(Verified {
        signer: signer_of(key),
        verified: format!(
            "cosign signature by key {} over a payload naming manifest sha256:{actual}, whose layer is the component",
            key.key.fingerprint
        ),
    })
}

/// The simple-signing payload cosign signs for the manifest `manifest_digest` of `reference`
/// (`HOST/REPO`).
pub fn cosign_payload(reference: &str, manifest_digest: &str) -> Vec<u8> {
    let payload = json!({
        "critical": {
            "identity": { "docker-reference": reference },
            "image": { "docker-manifest-digest": manifest_digest },
            "type": "cosign container image signature",
        },
        "optional": null,
    });
    payload.to_string().into_bytes()
}

/// Reads a private key: PKCS#8 PEM, or cosign's `ENCRYPTED SIGSTORE PRIVATE KEY` with
/// `password` (`COSIGN_PASSWORD`).
fn key_pair(key_pem: &str, password: &[u8]) -> Result<SigStoreKeyPair, SignError> {
    if key_pem.contains("ENCRYPTED") {
        SigStoreKeyPair::from_encrypted_pem(key_pem.as_bytes(), password)
    } else {
        SigStoreKeyPair::from_pem(key_pem.as_bytes())
    }
    .map_err(|e| SignError::Key(format!("cannot read the private key: {e}")))
}

fn signer(key_pem: &str, password: &[u8]) -> Result<sigstore::crypto::SigStoreSigner, SignError> {
    key_pair(key_pem, password)?
        .to_sigstore_signer(&SigningScheme::ECDSA_P256_SHA256_ASN1)
        .map_err(|e| SignError::Key(format!("airlock signs with ECDSA P-256 keys: {e}")))
}

/// A cosign blob signature (base64) of `bytes` with the private key `key_pem`.
pub fn sign_blob(bytes: &[u8], key_pem: &str, password: &[u8]) -> Result<String, SignError> {
    let signature = signer(key_pem, password)?.sign(bytes).map_err(|e| SignError::Key(e.to_string()))?;
    Ok(STANDARD.encode(signature))
}

/// The fingerprint (`sha256:…` of the public key) of the private key `key_pem`, as a policy
/// trusting its public half names it; reading it also checks the key and `password` before
/// anything is published.
pub fn private_key_fingerprint(key_pem: &str, password: &[u8]) -> Result<String, SignError> {
    let public = key_pair(key_pem, password)?.public_key_to_pem().map_err(|e| SignError::Key(e.to_string()))?;
    Ok(PublicKey::from_pem(&public)?.fingerprint)
}

/// A cosign signature (base64) of a simple-signing payload, made as [`sign_blob`] does.
pub fn sign_payload(payload: &[u8], key_pem: &str, password: &[u8]) -> Result<String, SignError> {
    sign_blob(payload, key_pem, password)
}

/// A new ECDSA P-256 key pair as PEM: (private PKCS#8, public).
pub fn generate_key_pem() -> Result<(String, String), SignError> {
    let fail = |e: sigstore::errors::SigstoreError| SignError::Key(e.to_string());
    let pair =
        SigningScheme::ECDSA_P256_SHA256_ASN1.create_signer().and_then(|s| s.to_sigstore_keypair()).map_err(fail)?;
    let private = pair.private_key_to_pem().map_err(fail)?.to_string();
    let public = pair.public_key_to_pem().map_err(fail)?;
    Ok((private, public))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trust_of(public: &str) -> Trust {
        let key = PublicKey::from_pem(public).unwrap();
        Trust { keys: vec![NamedKey { name: "acme.pub".into(), key }], ..Trust::default() }
    }

    #[test]
    fn a_blob_signed_with_a_trusted_key_verifies_and_names_it() {
        let (private, public) = generate_key_pem().unwrap();
        let trust = trust_of(&public);
        let signature = sign_blob(b"component bytes", &private, b"").unwrap();
        let verified = verify_blob(b"component bytes", &signature, &trust).unwrap();
        assert!(verified.signer.starts_with("key acme.pub (sha256:"), "{verified:?}");
        assert!(verified.verified.contains(&sha256_hex(b"component bytes")), "{verified:?}");
    }

    #[test]
    fn a_private_keys_fingerprint_is_its_public_halfs_and_an_encrypted_key_needs_its_password() {
        let (private, public) = generate_key_pem().unwrap();
        let expected = PublicKey::from_pem(&public).unwrap().fingerprint().to_string();
        assert_eq!(private_key_fingerprint(&private, b"").unwrap(), expected);
        let encrypted = key_pair(&private, b"").unwrap().private_key_to_encrypted_pem(b"hunter2").unwrap();
        assert!(encrypted.contains("ENCRYPTED SIGSTORE PRIVATE KEY"), "{}", encrypted.as_str());
        assert_eq!(private_key_fingerprint(&encrypted, b"hunter2").unwrap(), expected);
        assert!(matches!(private_key_fingerprint(&encrypted, b"wrong"), Err(SignError::Key(_))));
        let signature = sign_payload(b"payload", &encrypted, b"hunter2").unwrap();
        assert!(verify_blob(b"payload", &signature, &trust_of(&public)).is_ok());
    }

    #[test]
    fn other_bytes_another_key_and_garbage_are_refused() {
        let (private, public) = generate_key_pem().unwrap();
        let (other_private, _) = generate_key_pem().unwrap();
        let trust = trust_of(&public);
        let signature = sign_blob(b"version 1", &private, b"").unwrap();
        let error = verify_blob(b"version 2", &signature, &trust).unwrap_err().to_string();
        assert!(error.contains("does not verify") && error.contains(&sha256_hex(b"version 2")), "{error}");
        let stranger = sign_blob(b"version 2", &other_private, b"").unwrap();
        assert!(matches!(verify_blob(b"version 2", &stranger, &trust), Err(SignError::NoTrustedKeyVerifies { .. })));
        assert!(matches!(verify_blob(b"x", "%%%", &trust), Err(SignError::Bad(_))));
        assert!(matches!(verify_blob(b"x", "  \n", &trust), Err(SignError::Missing)));
        assert!(matches!(verify_blob(b"x", &signature, &Trust::default()), Err(SignError::NoKeys(_))));
    }

    #[test]
    fn a_payload_verifies_only_for_the_manifest_it_names() {
        let (private, public) = generate_key_pem().unwrap();
        let trust = trust_of(&public);
        let digest = format!("sha256:{}", "a".repeat(64));
        let payload = cosign_payload("127.0.0.1:5000/tools/echo", &digest);
        let signature = sign_payload(&payload, &private, b"").unwrap();
        let verified = verify_cosign_payload(&payload, &signature, &digest, &trust).unwrap();
        assert!(verified.verified.contains(&"a".repeat(64)), "{verified:?}");
        let other = format!("sha256:{}", "b".repeat(64));
        let error = verify_cosign_payload(&payload, &signature, &other, &trust).unwrap_err().to_string();
        assert!(error.contains(&"a".repeat(64)) && error.contains(&"b".repeat(64)), "{error}");
        let mut tampered = payload.clone();
        tampered[10] ^= 1;
        assert!(verify_cosign_payload(&tampered, &signature, &digest, &trust).is_err());
    }

    #[test]
    fn a_bad_pem_is_a_key_error() {
        assert!(matches!(
            PublicKey::from_pem("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----"),
            Err(SignError::Key(_))
        ));
        assert!(matches!(PublicKey::from_pem("not pem"), Err(SignError::Key(_))));
    }
}
