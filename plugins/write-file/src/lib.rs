//! `write_file`: creates or overwrites one file of the workspace with the given content,
//! after the user approved the diff. Writes are atomic; missing parent folders are created.

use std::path::Path;

use airlock_plugin_sdk::display_path;
use airlock_plugin_sdk::folders::resolve_in_folders;
use airlock_plugin_sdk::fs::{read_optional, write_atomic};
use airlock_plugin_sdk::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct Args {
    /// The file to write: a path relative to the workspace root (`src/lib.rs`) or an
    /// absolute path inside the workspace or a folder the user added to the session for
    /// writing. Missing parent directories are created.
    file_path: String,
    /// The complete content the file will have.
    content: String,
}

struct WriteFile;

impl Tool for WriteFile {
    type Args = Args;
    const NAME: &'static str = "write_file";
    const DISPLAY_NAME: &'static str = "WriteFile";
    const DESCRIPTION: &'static str = "Writes content to a file of the workspace, replacing \
        the whole file if it exists and creating it (and missing parent directories) if not. \
        The user approves the change first and may edit it. Give the complete content: nothing \
        of the old file is kept. To change part of an existing file, prefer replace.";
    const KIND: Kind = Kind::Edit;
    const PARALLEL_SAFE: bool = false;

    fn capabilities() -> Capabilities {
        Capabilities::none().read_write(".")
    }

    fn validate(args: &Args) -> Result<(), ToolError> {
        let path = resolve_in_folders(&args.file_path)?;
        if path.is_dir() {
            return Err(ToolError::InvalidParams(format!(
                "'{}' is a directory; give the path of a file",
                display_path(&path)
            )));
        }
        Ok(())
    }

    fn describe_call(args: &Args) -> String {
        match resolve_in_folders(&args.file_path) {
            Ok(path) => format!("Write to {}", display_path(&path)),
            Err(_) => format!("Write to {}", args.file_path),
        }
    }

    fn confirm(args: &Args) -> Result<Option<Confirmation>, ToolError> {
        let path = resolve_in_folders(&args.file_path)?;
        let original = current_content(&path)?;
        Ok(Some(edit_confirmation(&path, original.as_deref(), &args.content)))
    }

    fn modify_args(args: Args, proposed: String) -> Result<serde_json::Value, ToolError> {
        Ok(json!({ "file_path": args.file_path, "content": proposed }))
    }

    fn execute(args: Args) -> Result<ToolOutput, ToolError> {
        let path = resolve_in_folders(&args.file_path)?;
        let original = current_content(&path)?;
        write_atomic(&path, args.content.as_bytes())?;
        let text = match original {
            None => format!("Successfully created and wrote to new file: {}", path.display()),
            Some(_) => format!("Successfully overwrote file: {}", path.display()),
        };
        Ok(ToolOutput::text(text).with_diff(&path, original.unwrap_or_default(), args.content))
    }
}

/// The file's current content (lossy for non-UTF-8 files), or `None` when it is new.
fn current_content(path: &Path) -> Result<Option<String>, ToolError> {
    Ok(read_optional(path)?.map(|bytes| String::from_utf8_lossy(&bytes).into_owned()))
}

export_tools!(WriteFile);
