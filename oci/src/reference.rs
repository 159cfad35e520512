//! `oci://HOST[:PORT]/REPO[:TAG][@sha256:HEX]`: the reference a user types, parsed and checked.
//!
//! The registry host is always named (no default registry: `oci://alpine` is refused rather
//! than read as Docker Hub's), and a reference names a tag, a digest, or both (no `latest` is
//! guessed: a plugin's source must say which version it is). A digest is `sha256:` and 64
//! lower-case hex digits. Plain `http` is used only for a registry on this machine
//! ([`Reference::is_loopback`]).

use std::fmt;
use std::net::IpAddr;

use crate::OciError;

/// The scheme every reference starts with.
pub const SCHEME: &str = "oci://";

/// A checked OCI reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    /// `HOST` or `HOST:PORT`.
    registry: String,
    repository: String,
    tag: Option<String>,
    /// `sha256:HEX`.
    digest: Option<String>,
}

impl Reference {
    /// Parses `oci://HOST[:PORT]/REPO[:TAG][@sha256:HEX]`.
    pub fn parse(text: &str) -> Result<Reference, OciError> {
        let bad = |why: &str| OciError::BadReference { reference: text.to_string(), why: why.to_string() };
        let rest = text
            .strip_prefix(SCHEME)
            .ok_or_else(|| bad("it must start with oci:// (oci://HOST/REPO:TAG or oci://HOST/REPO@sha256:DIGEST)"))?;
        let (registry, path) =
            rest.split_once('/').ok_or_else(|| bad("it names no repository (oci://HOST/REPO:TAG)"))?;
        if !is_registry_host(registry) {
            return Err(bad(
                "it must start with the registry's host (a name with a dot, HOST:PORT or localhost), e.g. oci://ghcr.io/OWNER/REPO:TAG",
            ));
        }
        let (path, digest) = match path.split_once('@') {
            Some((path, digest)) => {
                if !is_sha256_digest(digest) {
                    return Err(bad("its digest must be sha256: and 64 lower-case hex digits"));
                }
                (path, Some(digest.to_string()))
            }
            None => (path, None),
        };
        // A tag follows the last `:` of the last path segment (`:` elsewhere is a port).
        let (repository, tag) = match path.rsplit_once(':') {
            Some((repository, tag)) if !tag.contains('/') => (repository, Some(tag.to_string())),
            _ => (path, None),
        };
        if tag.is_none() && digest.is_none() {
            return Err(bad("it names no tag or digest (add :TAG or @sha256:DIGEST; no `latest` is assumed)"));
        }
        if let Some(tag) = &tag
            && !is_tag(tag)
        {
            return Err(bad("its tag must be 1 to 128 letters, digits, `_`, `.` or `-`, not starting with `.` or `-`"));
        }
        if !is_repository(repository) {
            return Err(bad("its repository must be lower-case path segments of letters, digits and . _ - separators"));
        }
        Ok(Reference { registry: registry.to_string(), repository: repository.to_string(), tag, digest })
    }

    /// `HOST` or `HOST:PORT`.
    pub fn registry(&self) -> &str {
        &self.registry
    }

    pub fn repository(&self) -> &str {
        &self.repository
    }

    pub fn tag(&self) -> Option<&str> {
        self.tag.as_deref()
    }

    /// The pinned manifest digest, `sha256:HEX`.
    pub fn digest(&self) -> Option<&str> {
        self.digest.as_deref()
    }

    /// The same repository and tag pinned to `digest`.
    pub fn with_digest(&self, digest: &str) -> Reference {
        Reference { digest: Some(digest.to_string()), ..self.clone() }
    }

    /// The same repository under another tag, without a digest.
    pub fn with_tag(&self, tag: &str) -> Reference {
        Reference { tag: Some(tag.to_string()), digest: None, ..self.clone() }
    }

    /// Whether the registry is on this machine: `localhost`, a loopback address.
    pub fn is_loopback(&self) -> bool {
        let host = match self.registry.rsplit_once(':') {
            // `[::1]:5000`, `127.0.0.1:5000`, `localhost:5000`; a bare `[::1]` has no port.
            Some((host, port)) if port.bytes().all(|b| b.is_ascii_digit()) && !self.registry.ends_with(']') => host,
            _ => self.registry.as_str(),
        };
        let host = host.trim_start_matches('[').trim_end_matches(']');
        host.eq_ignore_ascii_case("localhost") || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
    }

    /// The reference in `oci-client`'s terms.
    pub(crate) fn to_client(&self) -> oci_client::Reference {
        match (&self.tag, &self.digest) {
            (Some(tag), Some(digest)) => oci_client::Reference::with_tag_and_digest(
                self.registry.clone(),
                self.repository.clone(),
                tag.clone(),
                digest.clone(),
            ),
            (_, Some(digest)) => {
                oci_client::Reference::with_digest(self.registry.clone(), self.repository.clone(), digest.clone())
            }
            (tag, None) => oci_client::Reference::with_tag(
                self.registry.clone(),
                self.repository.clone(),
                tag.clone().unwrap_or_default(),
            ),
        }
    }
}

impl fmt::Display for Reference {
    /// `oci://HOST/REPO[:TAG][@DIGEST]`, as parsed.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{SCHEME}{}/{}", self.registry, self.repository)?;
        if let Some(tag) = &self.tag {
            write!(f, ":{tag}")?;
        }
        if let Some(digest) = &self.digest {
            write!(f, "@{digest}")?;
        }
        Ok(())
    }
}

/// Whether `text` is `sha256:` and 64 lower-case hex digits.
pub fn is_sha256_digest(text: &str) -> bool {
    text.strip_prefix("sha256:")
        .is_some_and(|hex| hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)))
}

/// A registry host as the distribution spec tells one from a repository's first segment.
fn is_registry_host(host: &str) -> bool {
    let valid = !host.is_empty()
        && host.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b':' | b'[' | b']'));
    valid && (host.contains('.') || host.contains(':') || host.eq_ignore_ascii_case("localhost"))
}

/// The distribution spec's tag grammar: `[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}`.
fn is_tag(tag: &str) -> bool {
    let mut bytes = tag.bytes();
    tag.len() <= 128
        && bytes.next().is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

/// The distribution spec's repository grammar: segments of `[a-z0-9]+` joined by `.`, `_`,
/// `__` or `-`s, separated by `/`.
fn is_repository(repository: &str) -> bool {
    !repository.is_empty()
        && repository.len() <= 255
        && repository.split('/').all(|segment| {
            let bytes = segment.as_bytes();
            !bytes.is_empty()
                && bytes.first().is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
                && bytes.last().is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
                && bytes.iter().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'.' | b'_' | b'-'))
                && !segment.contains("..")
                && !segment.contains("___")
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEX: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    #[test]
    fn parses_tags_digests_and_ports() {
        let r = Reference::parse("oci://ghcr.io/acme/tools/word-count:1.2.0").unwrap();
        assert_eq!(
            (r.registry(), r.repository(), r.tag(), r.digest()),
            ("ghcr.io", "acme/tools/word-count", Some("1.2.0"), None)
        );
        assert!(!r.is_loopback());
        let pinned = format!("oci://127.0.0.1:5000/wc@sha256:{HEX}");
        let r = Reference::parse(&pinned).unwrap();
        assert_eq!((r.registry(), r.repository(), r.tag()), ("127.0.0.1:5000", "wc", None));
        assert_eq!(r.digest(), Some(format!("sha256:{HEX}").as_str()));
        assert!(r.is_loopback());
        assert_eq!(r.to_string(), pinned);
        let both = Reference::parse(&format!("oci://localhost:5000/a/b:v1@sha256:{HEX}")).unwrap();
        assert_eq!(both.tag(), Some("v1"));
        assert!(both.is_loopback());
        assert!(Reference::parse("oci://[::1]:5000/wc:v1").unwrap().is_loopback());
        assert!(!Reference::parse("oci://registry.example:5000/wc:v1").unwrap().is_loopback());
    }

    #[test]
    fn refuses_bad_references_saying_why() {
        for (text, why) in [
            ("ghcr.io/acme/wc:1", "must start with oci://"),
            ("oci://ghcr.io", "names no repository"),
            ("oci://alpine/wc:1", "registry's host"),
            ("oci://ghcr.io/acme/wc", "no tag or digest"),
            ("oci://ghcr.io/acme/wc@sha256:abc", "64 lower-case hex"),
            ("oci://ghcr.io/acme/wc@md5:0123", "64 lower-case hex"),
            ("oci://ghcr.io/Acme/wc:1", "lower-case path segments"),
            ("oci://ghcr.io/acme//wc:1", "lower-case path segments"),
            ("oci://ghcr.io/acme/wc:-x", "its tag"),
            ("oci://ghcr.io/acme/wc:", "its tag"),
        ] {
            let error = Reference::parse(text).unwrap_err().to_string();
            assert!(error.contains(why), "{text}: {error}");
        }
    }
}
