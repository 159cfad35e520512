//! Sigstore bundles (`cosign sign-blob --bundle`, media types v0.1–v0.3), verified offline.
//!
//! What is checked, in order:
//! 1. what was signed: a message signature's digest (SHA2_256) must be the artifact's; a DSSE
//!    envelope's in-toto statement must name the artifact's sha-256 among its subjects;
//! 2. with a certificate (keyless): its transparency-log entry's inclusion promise (the
//!    signed entry timestamp) verifies with a Rekor key of the trusted root, and a
//!    `hashedrekord` entry's body names the same digest and signature; the certificate
//!    chains to a certificate authority of the trusted root, for code signing, at the
//!    entry's integrated time (Fulcio certificates live ten minutes); its identity (OIDC
//!    issuer extension and subject alternative name) is one the policy trusts;
//!    with a key hint instead: the signature verifies with a key the policy trusts;
//! 3. the signature verifies over the artifact's bytes (or the DSSE pre-authentication
//!    encoding) with the certificate's or trusted key.
//!
//! Not checked: Merkle inclusion proofs against a log checkpoint and signed certificate
//! timestamps from CT logs (the promise above is the log's own signed commitment, and the
//! CA chain is what a CT timestamp would vouch for).

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use const_oid::ObjectIdentifier;
use pki_types::{CertificateDer, UnixTime};
use serde::Deserialize;
use x509_cert::Certificate;
use x509_cert::der::Decode;
use x509_cert::ext::pkix::SubjectAltName;
use x509_cert::ext::pkix::name::GeneralName;

use crate::key::{decode_signature, key_list, signer_of, trusted_signer};
use crate::root::TrustedRoot;
use crate::{Identity, PublicKey, SignError, Trust, Verified, hex, sha256_hex};

/// Fulcio's OIDC issuer extension (a DER UTF8String), and its older raw-string form.
const ISSUER_V2: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.3.6.1.4.1.57264.1.8");
const ISSUER_V1: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.3.6.1.4.1.57264.1.1");
/// id-kp-codeSigning, DER content octets.
const CODE_SIGNING: &[u8] = &[0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x03];

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Bundle {
    media_type: String,
    verification_material: Material,
    message_signature: Option<MessageSignature>,
    dsse_envelope: Option<Envelope>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Material {
    certificate: Option<Raw>,
    x509_certificate_chain: Option<CertChain>,
    public_key: Option<KeyHint>,
    #[serde(default)]
    tlog_entries: Vec<TlogEntry>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Raw {
    raw_bytes: String,
}

#[derive(Deserialize)]
struct CertChain {
    certificates: Vec<Raw>,
}

#[derive(Deserialize)]
struct KeyHint {
    #[serde(default)]
    hint: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TlogEntry {
    log_index: String,
    log_id: LogId,
    integrated_time: String,
    inclusion_promise: Option<Promise>,
    canonicalized_body: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct LogId {
    key_id: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Promise {
    signed_entry_timestamp: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct MessageSignature {
    message_digest: Option<MessageDigest>,
    signature: String,
}

#[derive(Deserialize)]
struct MessageDigest {
    algorithm: String,
    digest: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Envelope {
    payload: String,
    payload_type: String,
    signatures: Vec<EnvelopeSignature>,
}

#[derive(Deserialize)]
struct EnvelopeSignature {
    sig: String,
}

fn b64(text: &str, what: &str) -> Result<Vec<u8>, SignError> {
    STANDARD.decode(text.trim()).map_err(|e| SignError::BadBundle(format!("{what} is not base64: {e}")))
}

/// What the signature covers: the bytes it is over, its base64 text, and a sentence.
struct Signed {
    message: Vec<u8>,
    signature: Vec<u8>,
    signature_b64: String,
    what: String,
}

/// Checks that the bundle's signature is for `digest` and returns what it is over.
fn signed_content(bundle: &Bundle, bytes: &[u8], digest: &str) -> Result<Signed, SignError> {
    match (&bundle.message_signature, &bundle.dsse_envelope) {
        (Some(message), None) => {
            if let Some(signed) = &message.message_digest {
                if signed.algorithm != "SHA2_256" {
                    return Err(SignError::BadBundle(format!("its digest is {}, not SHA2_256", signed.algorithm)));
                }
                let signed = hex(&b64(&signed.digest, "the message digest")?);
                if signed != digest {
                    return Err(SignError::OtherDigest { signed, actual: digest.to_string() });
                }
            }
            Ok(Signed {
                message: bytes.to_vec(),
                signature: decode_signature(&message.signature)?,
                signature_b64: message.signature.trim().to_string(),
                what: format!("a message signature over the file's bytes, sha-256 {digest}"),
            })
        }
        (None, Some(envelope)) => {
            let payload = b64(&envelope.payload, "the DSSE payload")?;
            let statement: serde_json::Value = serde_json::from_slice(&payload)
                .map_err(|e| SignError::BadBundle(format!("the DSSE payload is not JSON: {e}")))?;
            let subjects: Vec<String> = statement
                .get("subject")
                .and_then(|s| s.as_array())
                .map(|s| s.iter().filter_map(|s| s.pointer("/digest/sha256")?.as_str().map(str::to_string)).collect())
                .unwrap_or_default();
            if !subjects.iter().any(|s| s.eq_ignore_ascii_case(digest)) {
                return Err(SignError::OtherDigest {
                    signed: if subjects.is_empty() { "nothing".into() } else { subjects.join(", ") },
                    actual: digest.to_string(),
                });
            }
            let [signature] = envelope.signatures.as_slice() else {
                return Err(SignError::BadBundle("a DSSE envelope must hold exactly one signature".into()));
            };
            Ok(Signed {
                message: pae(&envelope.payload_type, &payload),
                signature: decode_signature(&signature.sig)?,
                signature_b64: signature.sig.trim().to_string(),
                what: format!("a DSSE in-toto statement naming sha-256 {digest}"),
            })
        }
        _ => Err(SignError::BadBundle("it holds neither a message signature nor a DSSE envelope".into())),
    }
}

/// DSSE's pre-authentication encoding, what an envelope's signature is over.
fn pae(payload_type: &str, payload: &[u8]) -> Vec<u8> {
    let mut out = format!("DSSEv1 {} {} {} ", payload_type.len(), payload_type, payload.len()).into_bytes();
    out.extend_from_slice(payload);
    out
}

/// Verifies the Sigstore bundle `bundle_json` of the artifact `bytes` against `trust`.
pub fn verify_bundle(bundle_json: &str, bytes: &[u8], trust: &Trust) -> Result<Verified, SignError> {
    let bundle: Bundle = serde_json::from_str(bundle_json).map_err(|e| SignError::BadBundle(e.to_string()))?;
    if !bundle.media_type.starts_with("application/vnd.dev.sigstore.bundle") {
        return Err(SignError::BadBundle(format!("media type {:?} is not a Sigstore bundle's", bundle.media_type)));
    }
    let digest = sha256_hex(bytes);
    let signed = signed_content(&bundle, bytes, &digest)?;
    let material = &bundle.verification_material;
    let certificate = match (&material.certificate, &material.x509_certificate_chain) {
        (Some(raw), _) => Some(b64(&raw.raw_bytes, "the certificate")?),
        (None, Some(chain)) => chain.certificates.first().map(|c| b64(&c.raw_bytes, "the certificate")).transpose()?,
        (None, None) => None,
    };
    let Some(certificate) = certificate else {
        if material.public_key.is_none() {
            return Err(SignError::BadBundle("it holds no certificate and no public key".into()));
        }
        if trust.keys.is_empty() {
            return Err(SignError::NoKeys(" (the bundle was made with a key)"));
        }
        let key = trusted_signer(trust, &signed.signature, &signed.message)
            .ok_or_else(|| SignError::NoTrustedKeyVerifies { digest: digest.clone(), keys: key_list(trust) })?;
        let hint = material.public_key.as_ref().map(|k| k.hint.as_str()).unwrap_or_default();
        return Ok(Verified {
            signer: signer_of(key),
            verified: format!("Sigstore bundle (key hint {hint:?}): {}, by key {}", signed.what, key.key.fingerprint()),
        });
    };
    let public_good;
    let root = match &trust.root {
        Some(root) => root,
        None => {
            public_good = TrustedRoot::public_good()?;
            &public_good
        }
    };
    let [entry] = material.tlog_entries.as_slice() else {
        return Err(SignError::BadBundle(format!(
            "it holds {} transparency-log entries, not one: the time the certificate was used cannot be established",
            material.tlog_entries.len()
        )));
    };
    let time = check_entry(entry, root, &signed, &certificate, &digest)?;
    check_chain(&certificate, root, time)?;
    let cert =
        Certificate::from_der(&certificate).map_err(|e| SignError::BadBundle(format!("its certificate: {e}")))?;
    let identity = identity(&cert)?;
    if !trust.identities.contains(&identity) {
        return Err(SignError::UntrustedIdentity { issuer: identity.issuer, subject: identity.subject });
    }
    let key = PublicKey::from_spki(&cert.tbs_certificate().subject_public_key_info().clone())?;
    if !key.verifies(&signed.signature, &signed.message) {
        return Err(SignError::Bad("the bundle's signature does not verify with its certificate's key".into()));
    }
    Ok(Verified {
        signer: format!("{} (issuer {})", identity.subject, identity.issuer),
        verified: format!(
            "Sigstore bundle: {}, by a certificate chaining to the trusted root, logged in Rekor at {} (signed entry timestamp verified)",
            signed.what, entry.integrated_time
        ),
    })
}

/// Verifies the entry's inclusion promise with a log key of `root`, and that its body (signed
/// by the promise) is a `hashedrekord` about this digest, signature and certificate; returns
/// its integrated time.
fn check_entry(
    entry: &TlogEntry,
    root: &TrustedRoot,
    signed: &Signed,
    certificate: &[u8],
    digest: &str,
) -> Result<UnixTime, SignError> {
    let log_id = b64(&entry.log_id.key_id, "the log id")?;
    let log = root.logs.iter().find(|l| l.id == log_id).ok_or_else(|| {
        SignError::BadBundle(format!("its log entry is from log {}, not one of the trusted root", hex(&log_id)))
    })?;
    let promise = entry
        .inclusion_promise
        .as_ref()
        .ok_or_else(|| SignError::BadBundle("its log entry has no inclusion promise".into()))?;
    let integrated: u64 = entry
        .integrated_time
        .parse()
        .map_err(|_| SignError::BadBundle("its integrated time is not a number".into()))?;
    let index: u64 =
        entry.log_index.parse().map_err(|_| SignError::BadBundle("its log index is not a number".into()))?;
    // Rekor signs the canonical JSON (sorted keys, no spaces) of these four fields.
    let timestamp = serde_json::json!({
        "body": entry.canonicalized_body.trim(),
        "integratedTime": integrated,
        "logID": hex(&log_id),
        "logIndex": index,
    });
    let set = b64(&promise.signed_entry_timestamp, "the signed entry timestamp")?;
    if !log.key.verifies(&set, timestamp.to_string().as_bytes()) {
        return Err(SignError::BadBundle(
            "its log entry's signed entry timestamp does not verify with the log's key".into(),
        ));
    }
    // The kind is read from the body the timestamp signs, never from the bundle's unsigned
    // `kindVersion`: an entry of another kind would skip the comparison below.
    let body: serde_json::Value = serde_json::from_slice(&b64(&entry.canonicalized_body, "the log entry")?)
        .map_err(|e| SignError::BadBundle(format!("its log entry is not JSON: {e}")))?;
    let kind = body.get("kind").and_then(|v| v.as_str()).unwrap_or_default();
    if kind != "hashedrekord" {
        return Err(SignError::BadBundle(format!(
            "its log entry is of kind `{}`; only `hashedrekord` entries (message signatures) are accepted, \
             DSSE bundles are not",
            kind.escape_default()
        )));
    }
    {
        let logged_digest = body.pointer("/spec/data/hash/value").and_then(|v| v.as_str()).unwrap_or_default();
        let logged_signature = body.pointer("/spec/signature/content").and_then(|v| v.as_str()).unwrap_or_default();
        let logged_cert =
            body.pointer("/spec/signature/publicKey/content").and_then(|v| v.as_str()).unwrap_or_default();
        if logged_digest != digest || logged_signature != signed.signature_b64 {
            return Err(SignError::BadBundle("its log entry is about another digest or signature".into()));
        }
        let pem = String::from_utf8(b64(logged_cert, "the logged certificate")?).unwrap_or_default();
        let logged = x509_cert::der::pem::decode_vec(pem.as_bytes()).map(|(_, der)| der).unwrap_or_default();
        if logged != certificate {
            return Err(SignError::BadBundle("its log entry names another certificate".into()));
        }
    }
    Ok(UnixTime::since_unix_epoch(std::time::Duration::from_secs(integrated)))
}

/// Verifies that `certificate` chains to an authority of `root` for code signing at `time`.
fn check_chain(certificate: &[u8], root: &TrustedRoot, time: UnixTime) -> Result<(), SignError> {
    let chain = |e: webpki::Error| SignError::Chain(format!("{e:?}"));
    let leaf = CertificateDer::from(certificate);
    let leaf = webpki::EndEntityCert::try_from(&leaf).map_err(chain)?;
    let mut anchors = Vec::new();
    let mut intermediates = Vec::new();
    for authority in &root.authorities {
        if let Some((anchor, rest)) = authority.split_last() {
            anchors.push(
                webpki::anchor_from_trusted_cert(&CertificateDer::from(anchor.as_slice())).map_err(chain)?.to_owned(),
            );
            intermediates.extend(rest.iter().map(|c| CertificateDer::from(c.clone())));
        }
    }
    leaf.verify_for_usage(
        webpki::ALL_VERIFICATION_ALGS,
        &anchors,
        &intermediates,
        time,
        webpki::KeyUsage::required(CODE_SIGNING),
        None,
        None,
    )
    .map(|_| ())
    .map_err(chain)
}

/// The certificate's identity: Fulcio's issuer extension and its subject alternative name
/// (an email or a URI).
fn identity(cert: &Certificate) -> Result<Identity, SignError> {
    let mut issuer = None;
    let mut subject = None;
    for extension in cert.tbs_certificate().extensions().into_iter().flatten() {
        let value = extension.extn_value.as_bytes();
        if extension.extn_id == ISSUER_V2 {
            let text = x509_cert::der::asn1::Utf8StringRef::from_der(value)
                .map_err(|e| SignError::BadBundle(format!("its issuer extension: {e}")))?;
            issuer = Some(text.as_str().to_string());
        } else if extension.extn_id == ISSUER_V1 && issuer.is_none() {
            issuer = Some(String::from_utf8_lossy(value).into_owned());
        } else if extension.extn_id == const_oid::db::rfc5280::ID_CE_SUBJECT_ALT_NAME {
            let names = SubjectAltName::from_der(value)
                .map_err(|e| SignError::BadBundle(format!("its subject alternative name: {e}")))?;
            subject = names.0.iter().find_map(|name| match name {
                GeneralName::Rfc822Name(email) => Some(email.to_string()),
                GeneralName::UniformResourceIdentifier(uri) => Some(uri.to_string()),
                _ => None,
            });
        }
    }
    match (issuer, subject) {
        (Some(issuer), Some(subject)) => Ok(Identity { issuer, subject }),
        _ => Err(SignError::BadBundle("its certificate names no OIDC issuer or no subject".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_ca::{TestSigstore, key_bundle};
    use crate::{NamedKey, generate_key_pem};

    const ISSUER: &str = "https://token.actions.githubusercontent.com";
    const SUBJECT: &str = "https://github.com/acme/tools/.github/workflows/release.yml@refs/heads/main";

    fn trust(sigstore: &TestSigstore) -> Trust {
        Trust {
            identities: vec![Identity { issuer: ISSUER.into(), subject: SUBJECT.into() }],
            root: Some(TrustedRoot::from_json(&sigstore.trusted_root_json()).unwrap()),
            ..Trust::default()
        }
    }

    #[test]
    fn a_keyless_bundle_from_a_trusted_identity_verifies() {
        let sigstore = TestSigstore::new();
        let bundle = sigstore.bundle(b"component", ISSUER, SUBJECT);
        let verified = verify_bundle(&bundle, b"component", &trust(&sigstore)).unwrap();
        assert!(verified.signer.starts_with(SUBJECT), "{verified:?}");
        assert!(verified.verified.contains(&sha256_hex(b"component")), "{verified:?}");
    }

    #[test]
    fn another_identity_another_file_another_root_and_tampering_are_refused() {
        let sigstore = TestSigstore::new();
        let bundle = sigstore.bundle(b"component", ISSUER, "mallory@example.com");
        let error = verify_bundle(&bundle, b"component", &trust(&sigstore)).unwrap_err();
        assert!(matches!(error, SignError::UntrustedIdentity { .. }), "{error}");
        assert!(error.to_string().contains("mallory@example.com"), "{error}");

        let bundle = sigstore.bundle(b"component", ISSUER, SUBJECT);
        let error = verify_bundle(&bundle, b"other", &trust(&sigstore)).unwrap_err();
        assert!(matches!(error, SignError::OtherDigest { .. }), "{error}");

        let stranger = TestSigstore::new();
        let error = verify_bundle(&bundle, b"component", &trust(&stranger)).unwrap_err();
        assert!(matches!(error, SignError::BadBundle(_)), "a log the root does not name: {error}");

        // The signature replaced by another over the same digest: the log entry no longer matches.
        let (private, _) = generate_key_pem().unwrap();
        let mut value: serde_json::Value = serde_json::from_str(&bundle).unwrap();
        value["messageSignature"]["signature"] = crate::sign_blob(b"component", &private, b"").unwrap().into();
        let error = verify_bundle(&value.to_string(), b"component", &trust(&sigstore)).unwrap_err();
        assert!(matches!(error, SignError::BadBundle(_)), "{error}");

        // The unsigned kindVersion relabelled: the signed body's kind still decides.
        let mut value: serde_json::Value = serde_json::from_str(&bundle).unwrap();
        value["verificationMaterial"]["tlogEntries"][0]["kindVersion"]["kind"] = "intoto".into();
        value["messageSignature"]["signature"] = crate::sign_blob(b"component", &private, b"").unwrap().into();
        let error = verify_bundle(&value.to_string(), b"component", &trust(&sigstore)).unwrap_err();
        assert!(error.to_string().contains("another digest or signature"), "{error}");

        // The integrated time moved: the promise no longer verifies.
        let mut value: serde_json::Value = serde_json::from_str(&bundle).unwrap();
        value["verificationMaterial"]["tlogEntries"][0]["integratedTime"] = "1".into();
        let error = verify_bundle(&value.to_string(), b"component", &trust(&sigstore)).unwrap_err();
        assert!(error.to_string().contains("signed entry timestamp"), "{error}");
    }

    #[test]
    fn a_certificate_from_another_authority_does_not_chain() {
        let sigstore = TestSigstore::new();
        let other = TestSigstore::new();
        let bundle = other.bundle(b"component", ISSUER, SUBJECT);
        // A root naming the first authority but the second's log.
        let mut root: serde_json::Value = serde_json::from_str(&sigstore.trusted_root_json()).unwrap();
        let other_root: serde_json::Value = serde_json::from_str(&other.trusted_root_json()).unwrap();
        root["tlogs"] = other_root["tlogs"].clone();
        let trust = Trust { root: Some(TrustedRoot::from_json(&root.to_string()).unwrap()), ..trust(&sigstore) };
        let error = verify_bundle(&bundle, b"component", &trust).unwrap_err();
        assert!(matches!(error, SignError::Chain(_)), "{error}");
    }

    #[test]
    fn a_key_bundle_verifies_with_a_trusted_key_only() {
        let (private, public) = generate_key_pem().unwrap();
        let bundle = key_bundle(b"component", &private);
        let key = NamedKey { name: "acme.pub".into(), key: PublicKey::from_pem(&public).unwrap() };
        let trust = Trust { keys: vec![key], ..Trust::default() };
        assert!(verify_bundle(&bundle, b"component", &trust).is_ok());
        let (_, stranger) = generate_key_pem().unwrap();
        let key = NamedKey { name: "other.pub".into(), key: PublicKey::from_pem(&stranger).unwrap() };
        let other = Trust { keys: vec![key], ..Trust::default() };
        assert!(matches!(verify_bundle(&bundle, b"component", &other), Err(SignError::NoTrustedKeyVerifies { .. })));
        assert!(matches!(verify_bundle("{}", b"component", &trust), Err(SignError::BadBundle(_))));
    }
}
