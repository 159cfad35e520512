//! Pulling a component: the manifest first ([`Client::resolve`]: fetched, its digest computed
//! from its bytes, its layout checked), then the one layer ([`Client::pull`]): refused before
//! it is requested when its declared size is over the cap, read with a running cap, its
//! sha-256 checked. The bytes are returned only when every check passed.

use futures_util::StreamExt;
use sha2::{Digest, Sha256};

use crate::layout::{self, Descriptor};
use crate::{BLOB_TIMEOUT, Client, OciError, REQUEST_TIMEOUT, Reference, registry_error, sha256_digest};

/// What a reference resolved to: its manifest's digest and the component layer it names.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// `sha256:…` of the manifest's bytes.
    pub manifest_digest: String,
    /// `sha256:…` of the component (the layer digest).
    pub layer_digest: String,
    /// The component's size as the manifest declares it.
    pub layer_size: u64,
    layer: Descriptor,
}

/// A component pulled and checked.
#[derive(Debug)]
pub struct Pulled {
    pub resolved: Resolved,
    pub bytes: Vec<u8>,
}

impl Client {
    /// Fetches `reference`'s manifest and checks it: its digest (computed from its bytes)
    /// equals a digest the reference pins, and it is a Wasm component artifact.
    pub async fn resolve(&self, reference: &Reference) -> Result<Resolved, OciError> {
        Self::timed(reference, "fetching the manifest", REQUEST_TIMEOUT, async {
            let bytes = self.manifest_raw(reference, layout::ACCEPTED_MANIFESTS).await?;
            let manifest_digest = sha256_digest(&bytes);
            if let Some(pinned) = reference.digest()
                && pinned != manifest_digest
            {
                return Err(OciError::ManifestDigestMismatch {
                    reference: reference.to_string(),
                    expected: pinned.to_string(),
                    actual: manifest_digest,
                });
            }
            let layer = layout::component_layer(&bytes)
                .map_err(|why| OciError::NotWasm { reference: reference.to_string(), why })?;
            Ok(Resolved { manifest_digest, layer_digest: layer.digest.clone(), layer_size: layer.size, layer })
        })
        .await
    }

    /// Resolves `reference` and downloads its component, at most `max_bytes` of it.
    pub async fn pull(&self, reference: &Reference, max_bytes: u64) -> Result<Pulled, OciError> {
        let resolved = self.resolve(reference).await?;
        let bytes = self.pull_component(reference, &resolved, max_bytes).await?;
        Ok(Pulled { resolved, bytes })
    }

    /// Downloads the component `resolved` names (from the manifest `resolve` checked), at
    /// most `max_bytes`: refused before the request when the declared size is over, cut off
    /// when the registry sends more than declared, refused when its sha-256 is not the layer's.
    pub async fn pull_component(
        &self,
        reference: &Reference,
        resolved: &Resolved,
        max_bytes: u64,
    ) -> Result<Vec<u8>, OciError> {
        let declared = resolved.layer_size;
        if declared > max_bytes {
            return Err(OciError::TooLarge { reference: reference.to_string(), size: declared, max: max_bytes });
        }
        let pinned = reference.with_digest(&resolved.manifest_digest);
        Self::timed(reference, "downloading the component", BLOB_TIMEOUT, async {
            self.inner.store_auth_if_needed(pinned.registry(), &self.auth).await;
            self.read_blob(&pinned, &resolved.layer, reference).await
        })
        .await
    }

    /// The bytes of the blob `layer` describes, exactly `layer.size` of them, checked against
    /// `layer.digest`.
    pub(crate) async fn read_blob(
        &self,
        from: &Reference,
        layer: &Descriptor,
        named: &Reference,
    ) -> Result<Vec<u8>, OciError> {
        let declared = layer.size;
        let too_many = |sent: u64| OciError::SizeMismatch { reference: named.to_string(), declared, sent };
        let mut stream = self
            .inner
            .pull_blob_stream(&from.to_client(), &layer.to_client())
            .await
            .map_err(|e| registry_error(named, e))?;
        if let Some(length) = stream.content_length
            && length > declared
        {
            return Err(too_many(length));
        }
        // The declared size is at most the cap here; the buffer grows with what arrives.
        let mut bytes = Vec::with_capacity(usize::try_from(declared.min(16 << 20)).unwrap_or(0));
        let mut hasher = Sha256::new();
        while let Some(chunk) = stream.next().await {
            let chunk = match chunk {
                Ok(chunk) => chunk,
                // `oci-client` checks the digest too and fails the last read on a mismatch:
                // said in our words when the bytes are all there.
                Err(e) if bytes.len() as u64 == declared => {
                    let actual = format!("sha256:{:x}", hasher.clone().finalize());
                    if actual != layer.digest {
                        return Err(OciError::DigestMismatch {
                            reference: named.to_string(),
                            expected: layer.digest.clone(),
                            actual,
                        });
                    }
                    return Err(OciError::Registry { reference: named.to_string(), message: crate::chain(&e) });
                }
                Err(e) => return Err(OciError::Registry { reference: named.to_string(), message: crate::chain(&e) }),
            };
            let sent = (bytes.len() + chunk.len()) as u64;
            if sent > declared {
                return Err(too_many(sent));
            }
            hasher.update(&chunk);
            bytes.extend_from_slice(&chunk);
        }
        if bytes.len() as u64 != declared {
            return Err(too_many(bytes.len() as u64));
        }
        let actual = format!("sha256:{:x}", hasher.finalize());
        if actual != layer.digest {
            return Err(OciError::DigestMismatch {
                reference: named.to_string(),
                expected: layer.digest.clone(),
                actual,
            });
        }
        Ok(bytes)
    }
}

#[cfg(test)]
mod tests {
    use std::io::{BufRead, BufReader, Write};
    use std::net::TcpListener;

    use super::*;
    use crate::MAX_MANIFEST_BYTES;

    /// A registry on 127.0.0.1 that answers every request with a manifest of `len` bytes
    /// (a JSON object padded with spaces).
    fn serve_manifest_of(len: usize) -> String {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let mut reader = BufReader::new(stream);
                let mut line = String::new();
                while reader.read_line(&mut line).is_ok_and(|n| n > 0) && line != "\r\n" {
                    line.clear();
                }
                let mut body = vec![b' '; len];
                body[0] = b'{';
                body[len - 1] = b'}';
                let head = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: {}\r\nContent-Length: {len}\r\nConnection: close\r\n\r\n",
                    layout::MANIFEST_MEDIA_TYPE
                );
                let mut stream = reader.into_inner();
                let _ = stream.write_all(head.as_bytes()).and_then(|()| stream.write_all(&body));
            }
        });
        format!("oci://{addr}/tools/big:v1")
    }

    #[tokio::test]
    async fn a_manifest_over_the_cap_is_refused_naming_the_cap() {
        let len = usize::try_from(MAX_MANIFEST_BYTES).unwrap() + 1;
        let reference = Reference::parse(&serve_manifest_of(len)).unwrap();
        let client = Client::new(&reference).unwrap();
        let error = client.resolve(&reference).await.unwrap_err();
        assert!(matches!(error, OciError::ManifestTooLarge { .. }), "{error}");
        assert!(error.to_string().contains(&MAX_MANIFEST_BYTES.to_string()), "{error}");
    }

    #[tokio::test]
    async fn a_manifest_at_the_cap_is_read() {
        let len = usize::try_from(MAX_MANIFEST_BYTES).unwrap();
        let reference = Reference::parse(&serve_manifest_of(len)).unwrap();
        let client = Client::new(&reference).unwrap();
        let error = client.resolve(&reference).await.unwrap_err();
        // Read, then found not to be a component (an empty object has no layers).
        assert!(matches!(error, OciError::NotWasm { .. }), "{error}");
    }
}
