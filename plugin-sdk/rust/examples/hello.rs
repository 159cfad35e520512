use airlock_plugin_sdk::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct Args {
    /// Who to greet.
    name: String,
}

struct Hello;
impl Tool for Hello {
    type Args = Args;
    const NAME: &'static str = "hello";
    const DISPLAY_NAME: &'static str = "Hello";
    const DESCRIPTION: &'static str = "Greets someone.";
    const KIND: Kind = Kind::Think;
    fn execute(args: Args) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(format!("Hello, {}!", args.name)))
    }
}
export_tools!(Hello, AppendLine); // several tools in one component: export_tools!(A, B)

use airlock_plugin_sdk::display_path;
use airlock_plugin_sdk::fs::{read_text_optional, write_atomic};

#[derive(Deserialize, JsonSchema)]
struct AppendArgs {
    /// The file, relative to the workspace root.
    file_path: String,
    /// The line to add at the end.
    line: String,
}

/// The file after the call.
fn appended(original: Option<&str>, line: &str) -> String {
    let mut text = original.unwrap_or_default().to_owned();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(line);
    text.push('\n');
    text
}

struct AppendLine;
impl Tool for AppendLine {
    type Args = AppendArgs;
    const NAME: &'static str = "append_line";
    const DISPLAY_NAME: &'static str = "AppendLine";
    const DESCRIPTION: &'static str = "Appends one line to a file of the workspace.";
    const KIND: Kind = Kind::Edit;
    const PARALLEL_SAFE: bool = false;
    fn capabilities() -> Capabilities {
        Capabilities::none().read_write(".")
    }
    fn describe_call(args: &AppendArgs) -> String {
        format!("Append to {}", args.file_path)
    }
    fn confirm(args: &AppendArgs) -> Result<Option<Confirmation>, ToolError> {
        let path = resolve_in_workspace(&args.file_path)?;
        let original = read_text_optional(&path)?;
        let proposed = appended(original.as_deref(), &args.line);
        Ok(Some(edit_confirmation(&path, original.as_deref(), &proposed)))
    }
    fn execute(args: AppendArgs) -> Result<ToolOutput, ToolError> {
        let path = resolve_in_workspace(&args.file_path)?;
        let original = read_text_optional(&path)?;
        let proposed = appended(original.as_deref(), &args.line);
        write_atomic(&path, proposed.as_bytes())?;
        let text = format!("Appended a line to {}", display_path(&path));
        Ok(ToolOutput::text(text).with_diff(&path, original.unwrap_or_default(), proposed))
    }
}
