//! `[signatures]` of a policy file: whether the plugin folder it governs requires signed
//! plugins, and which keys and keyless identities it trusts.
//!
//! ```toml
//! [signatures]
//! require_signed = true
//! keys = ["keys/acme.pub"]           # PEM public keys: paths (from the policy file's folder) or inline PEM
//! identities = [{ issuer = "https://token.actions.githubusercontent.com", subject = "https://github.com/acme/tools/.github/workflows/release.yml@refs/heads/main" }]
//! trusted_root = "sigstore/trusted_root.json"   # optional; Sigstore's public-good root otherwise
//! ```
//!
//! The user's file governs `$AIRLOCK_HOME/plugins/`; a trusted workspace's governs
//! `.airlock/plugins/` ([`super::Policy::signatures`]). Every key and root is read and parsed
//! when the policy is: an unreadable file or a bad PEM is an error at its line, never a key
//! silently missing.

use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

use super::PolicyError;
use airlock_signing::{Identity, NamedKey, PublicKey, Trust, TrustedRoot};

/// Largest key or trusted-root file read.
const MAX_KEY_BYTES: u64 = 1 << 20;

/// One file's `[signatures]`.
#[derive(Debug, Clone, Default)]
pub struct Signatures {
    pub require_signed: bool,
    pub trust: Trust,
    /// `path:line` of the table, for messages.
    pub origin: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawSignatures {
    #[serde(default)]
    require_signed: bool,
    #[serde(default)]
    keys: Vec<Spanned<String>>,
    #[serde(default)]
    identities: Vec<Spanned<RawIdentity>>,
    trusted_root: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawIdentity {
    issuer: String,
    subject: String,
}

/// Parses the `[signatures]` table of the policy file `path`, which starts at `line`;
/// `invalid` turns an offset in the file's text into an error at its line. A workspace's
/// file (`workspace`) may name keys only inline, so that trusting it pins them, and may not
/// set `trusted_root`: the user's root stays the one every identity is checked against.
pub(super) fn parse(
    raw: RawSignatures,
    path: &Path,
    line: usize,
    workspace: bool,
    invalid: &dyn Fn(usize, String) -> PolicyError,
) -> Result<Signatures, PolicyError> {
    let folder = path.parent().unwrap_or(Path::new("."));
    let mut trust = Trust::default();
    for (index, entry) in raw.keys.iter().enumerate() {
        let at = entry.span().start;
        let text = entry.get_ref().trim();
        let (name, pem) = if text.starts_with("-----BEGIN") {
            (format!("inline key {}", index + 1), text.to_string())
        } else if workspace {
            return Err(invalid(
                at,
                format!(
                    "keys[{index}]: a workspace policy names keys only inline (the PEM in this file, which \
                     `airlock trust` pins), not as a file"
                ),
            ));
        } else {
            let file = folder.join(text);
            let bytes = airlock_files::read_user_file(&file, MAX_KEY_BYTES)
                .map_err(|e| invalid(at, format!("cannot read the key {}: {e}", file.display())))?;
            let pem =
                String::from_utf8(bytes).map_err(|_| invalid(at, format!("{}: not a PEM file", file.display())))?;
            (text.to_string(), pem)
        };
        let key = PublicKey::from_pem(&pem).map_err(|e| invalid(at, format!("keys[{index}] ({name}): {e}")))?;
        trust.keys.push(NamedKey { name, key });
    }
    for identity in &raw.identities {
        let RawIdentity { issuer, subject } = identity.get_ref();
        if issuer.trim().is_empty() || subject.trim().is_empty() {
            return Err(invalid(identity.span().start, "an identity needs an issuer and a subject".into()));
        }
        trust.identities.push(Identity { issuer: issuer.clone(), subject: subject.clone() });
    }
    if let Some(root) = &raw.trusted_root {
        let at = root.span().start;
        if workspace {
            return Err(invalid(
                at,
                "trusted_root: a workspace policy cannot set the Sigstore root (the user's stays the one \
                 identities are checked against)"
                    .into(),
            ));
        }
        let file = folder.join(root.get_ref());
        let bytes = airlock_files::read_user_file(&file, MAX_KEY_BYTES)
            .map_err(|e| invalid(at, format!("cannot read the trusted root {}: {e}", file.display())))?;
        let text = String::from_utf8(bytes).map_err(|_| invalid(at, format!("{}: not UTF-8", file.display())))?;
        trust.root = Some(TrustedRoot::from_json(&text).map_err(|e| invalid(at, format!("{}: {e}", file.display())))?);
    }
    if raw.require_signed && trust.keys.is_empty() && trust.identities.is_empty() {
        return Err(PolicyError::Invalid {
            path: path.to_path_buf(),
            line,
            message:
                "[signatures] require_signed = true needs `keys` or `identities` to trust, or nothing could install"
                    .into(),
        });
    }
    Ok(Signatures { require_signed: raw.require_signed, trust, origin: format!("{}:{line}", path.display()) })
}

/// What a plugin folder requires: the user's `[signatures]` for the user's folder; for a
/// workspace's, the user's and (when the workspace is trusted) the workspace's together —
/// signatures are required if either requires them, and a key or identity either trusts is
/// trusted. An untrusted workspace's file says nothing, and no workspace can turn off what
/// the user's requires.
pub(super) fn combine(user: Option<&Signatures>, workspace: Option<&Signatures>) -> Signatures {
    let mut combined = user.cloned().unwrap_or_default();
    if let Some(workspace) = workspace {
        combined.require_signed |= workspace.require_signed;
        combined.trust.keys.extend(workspace.trust.keys.iter().cloned());
        combined.trust.identities.extend(workspace.trust.identities.iter().cloned());
        combined.origin = match user {
            Some(user) => format!("{} and {}", user.origin, workspace.origin),
            None => workspace.origin.clone(),
        };
    }
    combined
}

#[cfg(test)]
#[path = "signatures_tests.rs"]
mod tests;
