//! The CNCF WebAssembly OCI artifact layout, as `wkg`, Wassette and Spin push it: an OCI image
//! manifest whose config is `application/vnd.wasm.config.v0+json` and whose one layer is the
//! component (`application/wasm`). The manifest is checked here before any blob is requested.

use serde::{Deserialize, Serialize};

/// An OCI image manifest.
pub const MANIFEST_MEDIA_TYPE: &str = "application/vnd.oci.image.manifest.v1+json";
/// The config of a Wasm artifact.
pub const WASM_CONFIG_MEDIA_TYPE: &str = "application/vnd.wasm.config.v0+json";
/// The one layer of a Wasm artifact: the component's bytes.
pub const WASM_LAYER_MEDIA_TYPE: &str = "application/wasm";

/// The manifest types a registry may answer with; asked for all, so that an index or a
/// Docker image gets a clear "not a Wasm artifact" rather than the registry's "unknown".
pub(crate) const ACCEPTED_MANIFESTS: &[&str] = &[
    MANIFEST_MEDIA_TYPE,
    "application/vnd.oci.image.index.v1+json",
    "application/vnd.docker.distribution.manifest.v2+json",
    "application/vnd.docker.distribution.manifest.list.v2+json",
];

/// An OCI image manifest (the fields used).
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Manifest {
    pub schema_version: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
    pub config: Descriptor,
    pub layers: Vec<Descriptor>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<std::collections::BTreeMap<String, String>>,
}

/// A content descriptor.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Descriptor {
    pub media_type: String,
    pub digest: String,
    pub size: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<std::collections::BTreeMap<String, String>>,
}

impl Descriptor {
    pub fn of(media_type: &str, bytes: &[u8]) -> Descriptor {
        Descriptor {
            media_type: media_type.to_string(),
            digest: crate::sha256_digest(bytes),
            size: bytes.len() as u64,
            annotations: None,
        }
    }

    pub fn to_client(&self) -> oci_client::manifest::OciDescriptor {
        oci_client::manifest::OciDescriptor {
            media_type: self.media_type.clone(),
            digest: self.digest.clone(),
            size: i64::try_from(self.size).unwrap_or(i64::MAX),
            ..Default::default()
        }
    }
}

/// The config `wkg` writes for a component.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct WasmConfig {
    pub created: String,
    pub architecture: &'static str,
    pub os: &'static str,
    pub layer_digests: Vec<String>,
}

/// The component layer of `bytes` (a manifest's), or why it is not a Wasm artifact.
pub(crate) fn component_layer(bytes: &[u8]) -> Result<Descriptor, String> {
    let value: serde_json::Value =
        serde_json::from_slice(bytes).map_err(|e| format!("its manifest is not JSON: {e}"))?;
    let media_type = value.get("mediaType").and_then(|m| m.as_str()).unwrap_or(MANIFEST_MEDIA_TYPE);
    if media_type != MANIFEST_MEDIA_TYPE {
        return Err(format!("its manifest is {media_type}, not an OCI image manifest ({MANIFEST_MEDIA_TYPE})"));
    }
    let manifest: Manifest =
        serde_json::from_value(value).map_err(|e| format!("its manifest is not a valid OCI image manifest: {e}"))?;
    if manifest.schema_version != 2 {
        return Err(format!("its manifest has schemaVersion {}, not 2", manifest.schema_version));
    }
    if manifest.config.media_type != WASM_CONFIG_MEDIA_TYPE {
        return Err(format!(
            "its config is {}, not {WASM_CONFIG_MEDIA_TYPE} (is it a container image?)",
            manifest.config.media_type
        ));
    }
    let types: Vec<&str> = manifest.layers.iter().map(|l| l.media_type.as_str()).collect();
    match manifest.layers.as_slice() {
        [layer] if layer.media_type == WASM_LAYER_MEDIA_TYPE => {
            if !crate::is_sha256_digest(&layer.digest) {
                return Err(format!("its layer's digest {:?} is not a sha256 digest", layer.digest));
            }
            Ok(layer.clone())
        }
        _ => Err(format!("it must have exactly one {WASM_LAYER_MEDIA_TYPE} layer, it has [{}]", types.join(", "))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(config: &str, layers: &[&str]) -> Vec<u8> {
        let hex = "ab".repeat(32);
        let layers: Vec<_> = layers
            .iter()
            .map(|t| serde_json::json!({"mediaType": t, "digest": format!("sha256:{hex}"), "size": 10}))
            .collect();
        serde_json::to_vec(&serde_json::json!({
            "schemaVersion": 2, "mediaType": MANIFEST_MEDIA_TYPE,
            "config": {"mediaType": config, "digest": format!("sha256:{hex}"), "size": 2},
            "layers": layers,
        }))
        .unwrap()
    }

    #[test]
    fn accepts_one_wasm_layer_only() {
        assert_eq!(component_layer(&manifest(WASM_CONFIG_MEDIA_TYPE, &[WASM_LAYER_MEDIA_TYPE])).unwrap().size, 10);
        let two = component_layer(&manifest(WASM_CONFIG_MEDIA_TYPE, &[WASM_LAYER_MEDIA_TYPE, WASM_LAYER_MEDIA_TYPE]));
        assert!(two.unwrap_err().contains("exactly one application/wasm layer"));
        let image = component_layer(&manifest(
            "application/vnd.oci.image.config.v1+json",
            &["application/vnd.oci.image.layer.v1.tar+gzip"],
        ));
        assert!(image.unwrap_err().contains("container image"));
        let index = br#"{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[]}"#;
        assert!(component_layer(index).unwrap_err().contains("not an OCI image manifest"));
    }
}
