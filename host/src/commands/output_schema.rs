//! `--output-schema FILE` on the command line: only a headless run takes it, and its file
//! must be a usable schema before anything else starts (both are exit 2, and no model is
//! asked). The schema itself is the front end's ([`airlock_frontends::output_schema`]).

use std::path::Path;

use airlock_frontends::output_schema::OutputSchema;

/// The schema of `--output-schema PATH` for a run that opens the UI when `interactive`;
/// `Err` is the usage error to print.
pub fn load(path: &Path, interactive: bool) -> Result<OutputSchema, String> {
    if interactive {
        return Err("--output-schema is for headless runs: give the prompt with -p \"...\" or on standard input".into());
    }
    OutputSchema::load(path).map_err(|e| e.to_string())
}
