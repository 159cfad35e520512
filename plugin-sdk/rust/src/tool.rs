//! The [`Tool`] trait: what a plugin author implements for each tool.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use crate::{Capabilities, Confirmation, Kind, ToolError, ToolOutput};

/// One tool. Implement it on a unit struct and export it with [`crate::export_tools!`].
///
/// Every entrypoint receives typed arguments: the SDK parses the model's JSON into
/// [`Tool::Args`] first and answers `invalid-params` itself when that fails. Before
/// `confirm` and `execute` it also runs [`Tool::validate`], so those two only ever see
/// arguments that passed it.
pub trait Tool {
    /// The arguments, as a serde struct. Its JSON Schema (doc comments become
    /// descriptions) is what the model is shown; `Option` fields are optional.
    type Args: DeserializeOwned + JsonSchema;

    /// The name the model calls: `^[a-z][a-z0-9_]{0,62}$`.
    const NAME: &'static str;
    /// A short human name for the UI ("ReadFile").
    const DISPLAY_NAME: &'static str;
    /// What the tool does, what it returns and its limits, written for the model.
    const DESCRIPTION: &'static str;
    /// What kind of tool this is; decides the host's default approvals.
    const KIND: Kind;
    /// Whether several calls may run at the same time. Tools that change files say false.
    const PARALLEL_SAFE: bool = true;
    /// Whether the tool sends live output with [`crate::output::emit`].
    const STREAMS_OUTPUT: bool = false;

    /// The capabilities the tool requests. Default: nothing at all.
    fn capabilities() -> Capabilities {
        Capabilities::none()
    }

    /// Checks the arguments beyond what the schema says (a range that ends before it
    /// starts, ...). Runs before any approval is asked. Default: accept.
    fn validate(_args: &Self::Args) -> Result<(), ToolError> {
        Ok(())
    }

    /// One human line for this call ("Read src/main.rs"). Default: the display name.
    fn describe_call(_args: &Self::Args) -> String {
        Self::DISPLAY_NAME.to_string()
    }

    /// What the user must approve first, or `None`. Must not change anything.
    fn confirm(_args: &Self::Args) -> Result<Option<Confirmation>, ToolError> {
        Ok(None)
    }

    /// Rebuilds the arguments after the user edited the proposed content of this call's
    /// edit confirmation, so that executing them makes the file exactly `proposed`.
    fn modify_args(_args: Self::Args, _proposed: String) -> Result<serde_json::Value, ToolError> {
        Err(ToolError::InvalidParams("this tool has no editable proposal".to_string()))
    }

    /// Runs the call.
    fn execute(args: Self::Args) -> Result<ToolOutput, ToolError>;
}
