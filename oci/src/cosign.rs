//! Cosign signatures stored beside an artifact, in cosign's classic layout: the tag
//! `sha256-<manifest hex>.sig` of the same repository holds a manifest whose layers are
//! simple-signing payloads (`application/vnd.dev.cosign.simplesigning.v1+json`), each with its
//! signature in the annotation `dev.cosignproject.cosign/signature` (base64) and, for keyless
//! signatures, its certificate, chain and bundle in annotations beside it.
//!
//! This module stores and fetches them; it verifies nothing (the signing crate does). A
//! payload names the manifest digest it signs (`critical.image.docker-manifest-digest`), and
//! the manifest names the component's digest: a signature covers the component's bytes.

use serde_json::json;

use crate::layout::{Descriptor, MANIFEST_MEDIA_TYPE, Manifest};
use crate::{BLOB_TIMEOUT, Client, OciError, REQUEST_TIMEOUT, Reference, is_sha256_digest};

/// The media type of a cosign simple-signing payload layer.
pub const SIMPLE_SIGNING_MEDIA_TYPE: &str = "application/vnd.dev.cosign.simplesigning.v1+json";
const SIGNATURE_ANNOTATION: &str = "dev.cosignproject.cosign/signature";
const CERTIFICATE_ANNOTATION: &str = "dev.sigstore.cosign/certificate";
const CHAIN_ANNOTATION: &str = "dev.sigstore.cosign/chain";
const BUNDLE_ANNOTATION: &str = "dev.sigstore.cosign/bundle";
/// The config cosign's signature images carry.
const IMAGE_CONFIG_MEDIA_TYPE: &str = "application/vnd.oci.image.config.v1+json";
/// Most bytes of one payload read (cosign's are a few hundred).
const MAX_PAYLOAD_BYTES: u64 = 1 << 20;
/// The most layers (signatures) a `.sig` manifest may list: each is a request, so a registry
/// listing thousands would hold an install for hours. More is refused, on reading and on
/// adding one.
pub const MAX_SIGNATURES: usize = 16;

/// One signature found beside an artifact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CosignSignature {
    /// The simple-signing payload's bytes, as signed.
    pub payload: Vec<u8>,
    /// The base64 signature over `payload`.
    pub signature: String,
    /// A keyless signature's certificate (PEM).
    pub certificate: Option<String>,
    /// Its chain (PEM).
    pub chain: Option<String>,
    /// A Rekor bundle (JSON).
    pub bundle: Option<String>,
}

/// The tag cosign stores the signatures of `manifest_digest` under: `sha256-<hex>.sig`.
pub fn signature_tag(manifest_digest: &str) -> String {
    format!("{}.sig", manifest_digest.replacen(':', "-", 1))
}

/// The simple-signing payload cosign signs for `manifest_digest` of `reference`'s repository.
pub fn simple_signing_payload(reference: &Reference, manifest_digest: &str) -> Vec<u8> {
    let payload = json!({
        "critical": {
            "identity": { "docker-reference": format!("{}/{}", reference.registry(), reference.repository()) },
            "image": { "docker-manifest-digest": manifest_digest },
            "type": "cosign container image signature",
        },
        "optional": null,
    });
    payload.to_string().into_bytes()
}

impl Client {
    /// The cosign signatures stored for `manifest_digest` in `reference`'s repository; empty
    /// when there is no `.sig` tag.
    pub async fn cosign_signatures(
        &self,
        reference: &Reference,
        manifest_digest: &str,
    ) -> Result<Vec<CosignSignature>, OciError> {
        let Some(manifest) = self.signature_manifest(reference, manifest_digest).await? else {
            return Ok(Vec::new());
        };
        let tagged = reference.with_tag(&signature_tag(manifest_digest));
        let mut signatures = Vec::new();
        for layer in manifest.layers.iter().filter(|l| l.media_type == SIMPLE_SIGNING_MEDIA_TYPE) {
            let annotation = |key: &str| layer.annotations.as_ref().and_then(|a| a.get(key)).cloned();
            // A layer without a signature signs nothing.
            let Some(signature) = annotation(SIGNATURE_ANNOTATION) else { continue };
            if layer.size > MAX_PAYLOAD_BYTES {
                return Err(OciError::TooLarge {
                    reference: tagged.to_string(),
                    size: layer.size,
                    max: MAX_PAYLOAD_BYTES,
                });
            }
            let payload = Self::timed(&tagged, "fetching a signature", REQUEST_TIMEOUT, async {
                self.read_blob(&tagged, layer, &tagged).await
            })
            .await?;
            signatures.push(CosignSignature {
                payload,
                signature,
                certificate: annotation(CERTIFICATE_ANNOTATION),
                chain: annotation(CHAIN_ANNOTATION),
                bundle: annotation(BUNDLE_ANNOTATION),
            });
        }
        Ok(signatures)
    }

    /// Adds a signature (`signature_b64` over `payload`) for `manifest_digest` to the
    /// `.sig` tag of `reference`'s repository, keeping the signatures already there.
    pub async fn push_cosign_signature(
        &self,
        reference: &Reference,
        manifest_digest: &str,
        payload: &[u8],
        signature_b64: &str,
    ) -> Result<(), OciError> {
        let mut layer = Descriptor::of(SIMPLE_SIGNING_MEDIA_TYPE, payload);
        layer.annotations = Some([(SIGNATURE_ANNOTATION.to_string(), signature_b64.to_string())].into());
        let mut layers = match self.signature_manifest(reference, manifest_digest).await? {
            Some(existing) => existing.layers,
            None => Vec::new(),
        };
        let duplicate = |l: &Descriptor| l.digest == layer.digest && l.annotations == layer.annotations;
        if !layers.iter().any(duplicate) {
            layers.push(layer);
        }
        check_signature_count(&reference.with_tag(&signature_tag(manifest_digest)), layers.len())?;
        let diff_ids: Vec<&str> = layers.iter().map(|l| l.digest.as_str()).collect();
        let config_bytes = json!({
            "architecture": "", "os": "", "config": {},
            "created": "0001-01-01T00:00:00Z",
            "history": [{ "created": "0001-01-01T00:00:00Z" }],
            "rootfs": { "type": "layers", "diff_ids": diff_ids },
        })
        .to_string()
        .into_bytes();
        let config = Descriptor::of(IMAGE_CONFIG_MEDIA_TYPE, &config_bytes);
        let tagged = reference.with_tag(&signature_tag(manifest_digest));
        self.push_blob(&tagged, payload.to_vec(), &crate::sha256_digest(payload), BLOB_TIMEOUT).await?;
        self.push_blob(&tagged, config_bytes, &config.digest, REQUEST_TIMEOUT).await?;
        let manifest = Manifest {
            schema_version: 2,
            media_type: Some(MANIFEST_MEDIA_TYPE.to_string()),
            config,
            layers,
            annotations: None,
        };
        let bytes = serde_json::to_vec(&manifest)
            .map_err(|e| OciError::Registry { reference: tagged.to_string(), message: e.to_string() })?;
        self.push_manifest(&tagged, bytes).await?;
        Ok(())
    }

    /// The manifest under the `.sig` tag of `manifest_digest`, if there is one.
    async fn signature_manifest(
        &self,
        reference: &Reference,
        manifest_digest: &str,
    ) -> Result<Option<Manifest>, OciError> {
        if !is_sha256_digest(manifest_digest) {
            return Err(OciError::BadReference {
                reference: reference.to_string(),
                why: format!("{manifest_digest:?} is not a sha256 manifest digest"),
            });
        }
        let tagged = reference.with_tag(&signature_tag(manifest_digest));
        let accepted = [MANIFEST_MEDIA_TYPE, "application/vnd.docker.distribution.manifest.v2+json"];
        let fetched = Self::timed(&tagged, "fetching the signatures", REQUEST_TIMEOUT, async {
            self.manifest_raw(&tagged, &accepted).await
        })
        .await;
        let bytes = match fetched {
            Ok(bytes) => bytes,
            Err(OciError::NotFound { .. }) => return Ok(None),
            Err(e) => return Err(e),
        };
        let manifest: Manifest = serde_json::from_slice(&bytes).map_err(|e| OciError::Registry {
            reference: tagged.to_string(),
            message: format!("its signature manifest is not an image manifest: {e}"),
        })?;
        check_signature_count(&tagged, manifest.layers.len())?;
        Ok(Some(manifest))
    }
}

/// Refuses a `.sig` manifest of more than [`MAX_SIGNATURES`] layers.
fn check_signature_count(tagged: &Reference, layers: usize) -> Result<(), OciError> {
    if layers > MAX_SIGNATURES {
        return Err(OciError::Registry {
            reference: tagged.to_string(),
            message: format!(
                "its signature manifest lists {layers} layers, more than the {MAX_SIGNATURES} signatures airlock reads; refused"
            ),
        });
    }
    Ok(())
}
