//! Signatures of plugins being installed: a cosign signature made with a key, or a Sigstore
//! bundle, checked against the trusted keys and identities the plugin folder's policy names;
//! under `require_signed`, a plugin without a valid one is refused before anything is written.
//!
//! A signature given on the command line is always verified, `require_signed` or not: a bad
//! one is refused (the user asked for it to be checked). What verified goes into the lock
//! entry ([`SignatureRecord`]), which `plugins show` prints and the load-time check of a
//! folder that requires signatures reads.

use std::path::Path;

use super::Context;
use super::fetch::Fetched;
use crate::commands::CommandError;
use airlock_engine::registry::lock::SignatureRecord;
use airlock_engine::sanitize::line;
use airlock_files as files;
use airlock_signing::{SignError, Verified};

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
        (None, None) => None,
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

/// The text of a signature or bundle file.
fn read(path: &Path) -> Result<String, CommandError> {
    let bytes = files::read_user_file(path, MAX_SIGNATURE_BYTES)
        .map_err(|e| CommandError::Unloadable(format!("{}: cannot read: {e}", path.display())))?;
    String::from_utf8(bytes).map_err(|_| CommandError::Unloadable(format!("{}: not a text file", path.display())))
}
