//! `airlock plugins publish FILE oci://HOST/REPO:TAG`: pushes a checked component to an OCI
//! registry in the CNCF WebAssembly artifact layout (the one `wkg`, Wassette and Spin use).

use std::io::Write;
use std::path::PathBuf;

use crate::commands::CommandError;

/// `airlock plugins publish`.
#[derive(Debug, clap::Args)]
pub struct PublishArgs {
    /// The component file (`.wasm`).
    pub file: PathBuf,
    /// Where to push it: `oci://HOST/REPO:TAG`.
    pub reference: String,
}

pub async fn run(_args: &PublishArgs, _out: &mut impl Write) -> Result<(), CommandError> {
    Err(CommandError::Usage("plugins publish is not built yet".into()))
}
