//! `airlock plugins publish FILE oci://HOST/REPO:TAG`: pushes a checked component to an OCI
//! registry in the CNCF WebAssembly artifact layout (the one `wkg`, Wassette and Spin use).
//!
//! The component is checked first as `plugins check` does (it loads and describes itself);
//! the bytes pushed are the bytes checked (their sha-256 is compared). What is printed is the
//! line an author pastes: the reference pinned to the manifest's digest.

use std::io::Write;
use std::path::PathBuf;

use super::Context;
use crate::commands::CommandError;
use airlock_engine::registry::{MAX_PLUGIN_BYTES, Registry};
use airlock_engine::sanitize::line;
use airlock_files as files;
use airlock_oci::Reference;

/// `airlock plugins publish`.
#[derive(Debug, clap::Args)]
pub struct PublishArgs {
    /// The component file (`.wasm`).
    pub file: PathBuf,
    /// Where to push it: `oci://HOST/REPO:TAG`.
    pub reference: String,
}

pub(super) async fn run(context: &Context<'_>, args: &PublishArgs, out: &mut impl Write) -> Result<(), CommandError> {
    let reference = Reference::parse(&args.reference).map_err(|e| CommandError::Usage(e.to_string()))?;
    if reference.tag().is_none() || reference.digest().is_some() {
        return Err(CommandError::Usage(format!(
            "{reference}: publish takes a tag and no digest (oci://HOST/REPO:TAG); the digest is what the registry answers"
        )));
    }
    let shown = args.file.display().to_string();
    let bytes = files::read_user_file(&args.file, MAX_PLUGIN_BYTES)
        .map_err(|e| CommandError::Unloadable(format!("{shown}: cannot read: {e}")))?;
    let digest = files::content_hash(&bytes);
    let plugin = Registry::inspect(context.runtime, &args.file)
        .await
        .map_err(|p| CommandError::Unloadable(format!("{}: {}; nothing was published", p.path, p.reason)))?;
    if plugin.source.content_hash != digest {
        return Err(CommandError::Unloadable(format!(
            "{shown}: the file changed while it was checked; nothing was published"
        )));
    }
    let client = airlock_oci::Client::new(&reference).map_err(|e| CommandError::Unloadable(e.to_string()))?;
    let published = client
        .publish(&reference, &bytes)
        .await
        .map_err(|e| CommandError::Unloadable(format!("{e}; the push did not complete")))?;
    writeln!(
        out,
        "published {} {} to {}",
        line(&plugin.info.name),
        line(&plugin.info.version),
        line(&reference.to_string())
    )?;
    writeln!(out, "  manifest {}", published.manifest_digest)?;
    writeln!(out, "  sha-256  {digest} (the component)")?;
    writeln!(out, "install it with: airlock plugins install {}", line(&published.reference.to_string()))?;
    Ok(())
}
