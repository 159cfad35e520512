//! Publishing a component: its config (what `wkg` writes: architecture `wasm`, os `wasip2`,
//! the layer digests, when it was created), the component as the one layer, then the
//! manifest under the reference's tag. The manifest's digest is computed from the bytes pushed.

use crate::layout::{
    Descriptor, MANIFEST_MEDIA_TYPE, Manifest, WASM_CONFIG_MEDIA_TYPE, WASM_LAYER_MEDIA_TYPE, WasmConfig,
};
use crate::{BLOB_TIMEOUT, Client, OciError, REQUEST_TIMEOUT, Reference, registry_error, sha256_digest};

/// What a publish pushed.
#[derive(Debug, Clone)]
pub struct Published {
    /// The reference pinned to what was pushed: `oci://HOST/REPO:TAG@sha256:…`.
    pub reference: Reference,
    /// `sha256:…` of the manifest.
    pub manifest_digest: String,
    /// `sha256:…` of the component.
    pub layer_digest: String,
}

impl Client {
    /// Pushes `component` to `reference` (which names a tag and no digest).
    pub async fn publish(&self, reference: &Reference, component: &[u8]) -> Result<Published, OciError> {
        if reference.tag().is_none() || reference.digest().is_some() {
            return Err(OciError::BadReference {
                reference: reference.to_string(),
                why: "publishing needs a tag and no digest (oci://HOST/REPO:TAG): the digest is the registry's answer"
                    .into(),
            });
        }
        let layer = Descriptor::of(WASM_LAYER_MEDIA_TYPE, component);
        let config = WasmConfig {
            created: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            architecture: "wasm",
            os: "wasip2",
            layer_digests: vec![layer.digest.clone()],
        };
        let config_bytes = serde_json::to_vec(&config)
            .map_err(|e| OciError::Registry { reference: reference.to_string(), message: e.to_string() })?;
        let config = Descriptor::of(WASM_CONFIG_MEDIA_TYPE, &config_bytes);
        let manifest = Manifest {
            schema_version: 2,
            media_type: Some(MANIFEST_MEDIA_TYPE.to_string()),
            config: config.clone(),
            layers: vec![layer.clone()],
            annotations: None,
        };
        let manifest_bytes = serde_json::to_vec(&manifest)
            .map_err(|e| OciError::Registry { reference: reference.to_string(), message: e.to_string() })?;
        self.push_blob(reference, component.to_vec(), &layer.digest, BLOB_TIMEOUT).await?;
        self.push_blob(reference, config_bytes, &config.digest, REQUEST_TIMEOUT).await?;
        let manifest_digest = self.push_manifest(reference, manifest_bytes).await?;
        Ok(Published {
            reference: reference.with_digest(&manifest_digest),
            manifest_digest,
            layer_digest: layer.digest,
        })
    }

    /// Uploads `bytes` (whose digest is `digest`) to `reference`'s repository, unless the
    /// registry already holds it.
    pub(crate) async fn push_blob(
        &self,
        reference: &Reference,
        bytes: Vec<u8>,
        digest: &str,
        limit: std::time::Duration,
    ) -> Result<(), OciError> {
        let target = reference.to_client();
        Self::timed(reference, "uploading a blob", limit, async {
            self.inner.store_auth_if_needed(target.resolve_registry(), &self.auth).await;
            if self.inner.blob_exists(&target, digest).await.map_err(|e| registry_error(reference, e))? {
                return Ok(());
            }
            self.inner.push_blob(&target, bytes, digest).await.map_err(|e| registry_error(reference, e))?;
            Ok(())
        })
        .await
    }

    /// Puts `bytes` (an OCI image manifest) under `reference`'s tag; returns its digest.
    pub(crate) async fn push_manifest(&self, reference: &Reference, bytes: Vec<u8>) -> Result<String, OciError> {
        let digest = sha256_digest(&bytes);
        let target = reference.to_client();
        Self::timed(reference, "uploading the manifest", REQUEST_TIMEOUT, async {
            self.inner.store_auth_if_needed(target.resolve_registry(), &self.auth).await;
            let content_type = http::HeaderValue::from_static(MANIFEST_MEDIA_TYPE);
            self.inner
                .push_manifest_raw(&target, bytes, content_type)
                .await
                .map_err(|e| registry_error(reference, e))?;
            Ok(digest)
        })
        .await
    }
}
