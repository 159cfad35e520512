//! Signatures of plugins being installed: a cosign signature made with a key, or a Sigstore
//! bundle, checked against the trusted keys and identities the plugin folder's policy names;
//! under `require_signed`, a plugin without a valid one is refused before anything is written.
//!
//! A signature given on the command line is always verified, `require_signed` or not: a bad
//! one is refused (the user asked for it to be checked). What verified goes into the lock
//! entry ([`SignatureRecord`]), which `plugins show` prints and the load-time check of a
//! folder that requires signatures reads.
//!
//! An OCI artifact installed without `--signature` or `--bundle` is checked against the cosign
//! signatures stored beside it in the registry (the `sha256-<manifest>.sig` tag): the first
//! whose simple-signing payload names the artifact's manifest and verifies with a trusted key
//! is taken. Under `require_signed`, none verifying is a refusal naming what failed for each.
//! Without it, a verifying one is recorded and the rest are ignored: the user asked for no
//! check, and a registry holding signatures nobody here trusts (or one that cannot be read) is
//! no reason to refuse what would install unsigned. Nothing is asked of the registry when the
//! policy trusts no keys and does not require signatures, since nothing could verify.

use std::path::Path;

use super::Context;
use super::fetch::Fetched;
use crate::commands::CommandError;
use airlock_engine::registry::lock::{OciPin, SignatureRecord};
use airlock_engine::sanitize::line;
use airlock_files as files;
use airlock_oci::Reference;
use airlock_signing::{SignError, Trust, Verified};

/// Largest signature or bundle file read.
const MAX_SIGNATURE_BYTES: u64 = 1 << 20;

/// What was verified of `fetched` for the plugin folder (`in_workspace`), from the signature
/// and bundle files named on the command line or fetched beside an OCI artifact; `None` when
/// it is unsigned and the folder does not require signatures. Refuses, naming what failed, a
/// signature that does not verify and an unsigned plugin under `require_signed`.
pub(super) async fn check(
    context: &Context<'_>,
    in_workspace: bool,
    fetched: &Fetched,
    signature: Option<&Path>,
    bundle: Option<&Path>,
) -> Result<Option<SignatureRecord>, CommandError> {
    let policy = context.policy.signatures(in_workspace);
    let source = line(&fetched.recorded_source);
    let refused = |what: String| CommandError::Unloadable(format!("{source}: {what}; nothing was installed"));
    let verified: Option<Result<Verified, SignError>> = match (signature, bundle) {
        (Some(_), Some(_)) => {
            return Err(CommandError::Usage("give --signature or --bundle, not both".into()));
        }
        (Some(path), None) => {
            let text = read(path)?;
            Some(airlock_signing::verify_blob(&fetched.bytes, &text, &policy.trust))
        }
        (None, Some(path)) => {
            let text = read(path)?;
            Some(airlock_signing::verify_bundle(&text, &fetched.bytes, &policy.trust))
        }
        (None, None) => match &fetched.oci {
            Some(pin) if policy.require_signed || !policy.trust.keys.is_empty() => {
                match registry_signature(&fetched.recorded_source, pin, &policy.trust).await {
                    Ok(verified) => Some(Ok(verified)),
                    Err(why) if policy.require_signed => return Err(refused(why)),
                    Err(_) => None,
                }
            }
            _ => None,
        },
    };
    match verified {
        Some(Ok(verified)) => Ok(Some(SignatureRecord { signer: verified.signer, verified: verified.verified })),
        Some(Err(error)) => Err(refused(format!("signature refused: {error}"))),
        None if policy.require_signed => Err(refused(format!(
            "no signature, and this plugin folder requires signed plugins (require_signed in {}): give the \
             cosign signature with --signature FILE or a Sigstore bundle with --bundle FILE",
            line(&policy.origin)
        ))),
        None => Ok(None),
    }
}

/// The first cosign signature stored beside the OCI artifact `source` (pinned at `pin`) that
/// verifies with `trust`, or why there is none: each signature's failure, in order.
async fn registry_signature(source: &str, pin: &OciPin, trust: &Trust) -> Result<Verified, String> {
    let reference = Reference::parse(source).map_err(|e| e.to_string())?;
    let manifest = &pin.manifest_digest;
    let signatures = async {
        let client = airlock_oci::Client::new(&reference)?;
        client.cosign_signatures(&reference, manifest).await
    }
    .await
    .map_err(|e| format!("cannot read its signatures from the registry: {e}"))?;
    if signatures.is_empty() {
        return Err(format!(
            "no signature: the registry holds no cosign signature for manifest {manifest} (tag {}); sign it \
             with `airlock plugins publish --key` or `cosign sign --key`",
            airlock_oci::signature_tag(manifest)
        ));
    }
    let mut failures = Vec::new();
    for (n, found) in signatures.iter().enumerate() {
        match airlock_signing::verify_cosign_payload(&found.payload, &found.signature, manifest, trust) {
            Ok(verified) => return Ok(verified),
            Err(error) if found.certificate.is_some() => failures.push(format!(
                "signature {}: a keyless signature (certificate), which is checked only from a Sigstore bundle \
                 given with --bundle ({error})",
                n + 1
            )),
            Err(error) => failures.push(format!("signature {}: {error}", n + 1)),
        }
    }
    Err(format!("no signature in the registry for manifest {manifest} verifies: {}", line(&failures.join("; "))))
}

/// The text of a signature or bundle file.
fn read(path: &Path) -> Result<String, CommandError> {
    let bytes = files::read_user_file(path, MAX_SIGNATURE_BYTES)
        .map_err(|e| CommandError::Unloadable(format!("{}: cannot read: {e}", path.display())))?;
    String::from_utf8(bytes).map_err(|_| CommandError::Unloadable(format!("{}: not a text file", path.display())))
}
