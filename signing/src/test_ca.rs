//! A Sigstore stand-in for tests: a Fulcio-like certificate authority issuing ten-minute
//! code-signing certificates with the OIDC identity extensions, a Rekor-like log key signing
//! inclusion promises, the trusted root naming both, and the bundles `cosign sign-blob
//! --bundle` would write with them. Only built for tests (`test-ca` feature).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use rcgen::{
    BasicConstraints, CertificateParams, CustomExtension, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose, SanType,
};
use serde_json::json;
use x509_cert::der::Encode;

use crate::{generate_key_pem, hex, sha256_hex, sign_blob};

/// A certificate authority and a log.
pub struct TestSigstore {
    ca: Issuer<'static, KeyPair>,
    ca_der: Vec<u8>,
    log_private: String,
    log_spki: Vec<u8>,
}

impl Default for TestSigstore {
    fn default() -> Self {
        Self::new()
    }
}

impl TestSigstore {
    pub fn new() -> Self {
        let ca_key = KeyPair::generate().unwrap();
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.distinguished_name.push(rcgen::DnType::CommonName, "test-fulcio");
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let ca_der = params.self_signed(&ca_key).unwrap().der().to_vec();
        let (log_private, log_public) = generate_key_pem().unwrap();
        let (_, log_spki) = x509_cert::der::pem::decode_vec(log_public.as_bytes()).unwrap();
        Self { ca: Issuer::new(params, ca_key), ca_der, log_private, log_spki }
    }

    /// The trusted root naming this authority and log, as `trusted_root.json`.
    pub fn trusted_root_json(&self) -> String {
        json!({
            "mediaType": "application/vnd.dev.sigstore.trustedroot+json;version=0.1",
            "tlogs": [{
                "baseUrl": "https://rekor.invalid",
                "hashAlgorithm": "SHA2_256",
                "publicKey": { "rawBytes": STANDARD.encode(&self.log_spki), "keyDetails": "PKIX_ECDSA_P256_SHA_256" },
                "logId": { "keyId": STANDARD.encode(self.log_id()) },
            }],
            "certificateAuthorities": [{
                "subject": { "organization": "test", "commonName": "test-fulcio" },
                "uri": "https://fulcio.invalid",
                "certChain": { "certificates": [{ "rawBytes": STANDARD.encode(&self.ca_der) }] },
            }],
            "ctlogs": [],
        })
        .to_string()
    }

    fn log_id(&self) -> Vec<u8> {
        let digest = sha256_hex(&self.log_spki);
        (0..digest.len()).step_by(2).map(|i| u8::from_str_radix(&digest[i..i + 2], 16).unwrap()).collect()
    }

    /// A keyless bundle of `bytes` by `subject` (an email, or a URI when it has `://`) from
    /// `issuer`, with its certificate and log entry.
    pub fn bundle(&self, bytes: &[u8], issuer: &str, subject: &str) -> String {
        let leaf_key = KeyPair::generate().unwrap();
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.subject_alt_names = vec![if subject.contains("://") {
            SanType::URI(subject.try_into().unwrap())
        } else {
            SanType::Rfc822Name(subject.try_into().unwrap())
        }];
        params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::CodeSigning];
        let issuer_der = x509_cert::der::asn1::Utf8StringRef::new(issuer).unwrap().to_der().unwrap();
        params.custom_extensions =
            vec![CustomExtension::from_oid_content(&[1, 3, 6, 1, 4, 1, 57264, 1, 8], issuer_der)];
        let now = time::OffsetDateTime::now_utc();
        params.not_before = now - time::Duration::minutes(1);
        params.not_after = now + time::Duration::minutes(9);
        let cert = params.signed_by(&leaf_key, &self.ca).unwrap();
        let signature = sign_blob(bytes, &leaf_key.serialize_pem(), b"").unwrap();
        let digest = sha256_hex(bytes);
        let body = json!({
            "apiVersion": "0.0.1",
            "kind": "hashedrekord",
            "spec": {
                "data": { "hash": { "algorithm": "sha256", "value": digest } },
                "signature": { "content": signature, "publicKey": { "content": STANDARD.encode(cert.pem()) } },
            },
        });
        let body = STANDARD.encode(body.to_string());
        let integrated = now.unix_timestamp();
        let promise =
            json!({ "body": body, "integratedTime": integrated, "logID": hex(&self.log_id()), "logIndex": 7 });
        let set = sign_blob(promise.to_string().as_bytes(), &self.log_private, b"").unwrap();
        let digest_bytes: Vec<u8> =
            (0..64).step_by(2).map(|i| u8::from_str_radix(&digest[i..i + 2], 16).unwrap()).collect();
        json!({
            "mediaType": "application/vnd.dev.sigstore.bundle.v0.3+json",
            "verificationMaterial": {
                "certificate": { "rawBytes": STANDARD.encode(cert.der()) },
                "tlogEntries": [{
                    "logIndex": "7",
                    "logId": { "keyId": STANDARD.encode(self.log_id()) },
                    "kindVersion": { "kind": "hashedrekord", "version": "0.0.1" },
                    "integratedTime": integrated.to_string(),
                    "inclusionPromise": { "signedEntryTimestamp": set },
                    "canonicalizedBody": body,
                }],
            },
            "messageSignature": {
                "messageDigest": { "algorithm": "SHA2_256", "digest": STANDARD.encode(digest_bytes) },
                "signature": signature,
            },
        })
        .to_string()
    }
}

/// A bundle of `bytes` made with the private key `key_pem` (`cosign sign-blob --key --bundle`
/// without a log upload).
pub fn key_bundle(bytes: &[u8], key_pem: &str) -> String {
    let signature = sign_blob(bytes, key_pem, b"").unwrap();
    let digest = sha256_hex(bytes);
    let digest_bytes: Vec<u8> =
        (0..64).step_by(2).map(|i| u8::from_str_radix(&digest[i..i + 2], 16).unwrap()).collect();
    json!({
        "mediaType": "application/vnd.dev.sigstore.bundle.v0.3+json",
        "verificationMaterial": { "publicKey": { "hint": "test" }, "tlogEntries": [] },
        "messageSignature": {
            "messageDigest": { "algorithm": "SHA2_256", "digest": STANDARD.encode(digest_bytes) },
            "signature": signature,
        },
    })
    .to_string()
}
