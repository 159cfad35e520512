//! What [`crate::export_tools!`] expands to calls into: one table entry per tool and the
//! dispatch from the host's `(tool name, JSON args)` to the typed [`Tool`] methods. Not a
//! public API.

use std::fmt::Write as _;

pub use crate::bindings::exports::airlock::tool::tool::Guest;
pub use wit_bindgen;

use crate::schema::parameters_schema;
use crate::{Confirmation, PluginInfo, Tool, ToolError, ToolInfo, ToolOutput};

/// The type-erased entrypoints of one tool.
pub struct Entry {
    name: &'static str,
    info: fn() -> ToolInfo,
    validate: fn(&str) -> Result<(), ToolError>,
    describe_call: fn(&str) -> String,
    confirm: fn(&str) -> Result<Option<Confirmation>, ToolError>,
    modify_args: fn(&str, String) -> Result<String, ToolError>,
    execute: fn(&str) -> Result<ToolOutput, ToolError>,
}

impl Entry {
    /// The entry for tool `T`.
    pub const fn of<T: Tool>() -> Entry {
        Entry {
            name: T::NAME,
            info: info::<T>,
            validate: validate_one::<T>,
            describe_call: describe_call_one::<T>,
            confirm: confirm_one::<T>,
            modify_args: modify_args_one::<T>,
            execute: execute_one::<T>,
        }
    }
}

pub fn describe(name: &str, version: &str, tools: &[Entry]) -> PluginInfo {
    PluginInfo {
        // Cargo allows upper-case package names; the contract does not.
        name: name.to_ascii_lowercase(),
        version: version.to_string(),
        tools: tools.iter().map(|entry| (entry.info)()).collect(),
    }
}

pub fn validate(tools: &[Entry], tool: &str, args: &str) -> Result<(), ToolError> {
    (find(tools, tool)?.validate)(args)
}

pub fn describe_call(tools: &[Entry], tool: &str, args: &str) -> String {
    match find(tools, tool) {
        Ok(entry) => (entry.describe_call)(args),
        Err(_) => tool.to_string(),
    }
}

pub fn confirm(tools: &[Entry], tool: &str, args: &str) -> Result<Option<Confirmation>, ToolError> {
    (find(tools, tool)?.confirm)(args)
}

pub fn modify_args(tools: &[Entry], tool: &str, args: &str, proposed: String) -> Result<String, ToolError> {
    (find(tools, tool)?.modify_args)(args, proposed)
}

pub fn execute(tools: &[Entry], tool: &str, args: &str) -> Result<ToolOutput, ToolError> {
    (find(tools, tool)?.execute)(args)
}

fn find<'a>(tools: &'a [Entry], tool: &str) -> Result<&'a Entry, ToolError> {
    tools.iter().find(|entry| entry.name == tool).ok_or_else(|| {
        let known: Vec<&str> = tools.iter().map(|entry| entry.name).collect();
        ToolError::InvalidParams(format!("this plugin has no tool named '{tool}'; its tools are: {}", known.join(", ")))
    })
}

fn info<T: Tool>() -> ToolInfo {
    ToolInfo {
        name: T::NAME.to_string(),
        display_name: T::DISPLAY_NAME.to_string(),
        description: T::DESCRIPTION.to_string(),
        parameters: parameters_schema::<T::Args>().to_string(),
        kind: T::KIND,
        streams_output: T::STREAMS_OUTPUT,
        parallel_safe: T::PARALLEL_SAFE,
        capabilities: T::capabilities(),
    }
}

/// Parses the model's JSON arguments. Failures name the offending field.
fn parse<T: Tool>(args: &str) -> Result<T::Args, ToolError> {
    let text = if args.trim().is_empty() { "{}" } else { args };
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let mut message = format!("invalid arguments for {}: ", T::NAME);
    let parsed: Result<T::Args, _> = serde_path_to_error::deserialize(&mut deserializer);
    match parsed {
        // Trailing text after the object is an error too.
        Ok(value) => match deserializer.end() {
            Ok(()) => return Ok(value),
            Err(inner) => {
                let _ = write!(message, "the arguments are not valid JSON ({inner})");
            }
        },
        Err(error) => {
            let path = error.path().to_string();
            let inner = error.into_inner();
            if inner.is_syntax() || inner.is_eof() {
                let _ = write!(message, "the arguments are not valid JSON ({inner})");
            } else if path == "." {
                let _ = write!(message, "{}", without_position(&inner));
            } else {
                let _ = write!(message, "field `{path}`: {}", without_position(&inner));
            }
        }
    }
    message.push_str(". Call the tool again with arguments that match its schema.");
    Err(ToolError::InvalidParams(message))
}

/// serde_json's message without " at line 1 column 17", which means nothing to a model.
fn without_position(error: &serde_json::Error) -> String {
    let text = error.to_string();
    match text.rfind(" at line ") {
        Some(index) => text[..index].to_string(),
        None => text,
    }
}

fn validate_one<T: Tool>(args: &str) -> Result<(), ToolError> {
    T::validate(&parse::<T>(args)?)
}

fn describe_call_one<T: Tool>(args: &str) -> String {
    match parse::<T>(args) {
        Ok(args) => T::describe_call(&args),
        Err(_) => T::DISPLAY_NAME.to_string(),
    }
}

fn confirm_one<T: Tool>(args: &str) -> Result<Option<Confirmation>, ToolError> {
    let args = parse::<T>(args)?;
    T::validate(&args)?;
    T::confirm(&args)
}

fn modify_args_one<T: Tool>(args: &str, proposed: String) -> Result<String, ToolError> {
    let args = parse::<T>(args)?;
    T::modify_args(args, proposed).map(|value| value.to_string())
}

fn execute_one<T: Tool>(args: &str) -> Result<ToolOutput, ToolError> {
    let args = parse::<T>(args)?;
    T::validate(&args)?;
    T::execute(args)
}

#[cfg(test)]
mod tests {
    use schemars::JsonSchema;
    use serde::Deserialize;

    use super::*;
    use crate::Kind;

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Args {
        file_path: String,
        start_line: Option<u64>,
    }

    struct Probe;
    impl Tool for Probe {
        type Args = Args;
        const NAME: &'static str = "probe";
        const DISPLAY_NAME: &'static str = "Probe";
        const DESCRIPTION: &'static str = "Probes.";
        const KIND: Kind = Kind::Think;
        fn execute(_args: Args) -> Result<ToolOutput, ToolError> {
            Ok(ToolOutput::text("ok"))
        }
    }

    static TOOLS: &[Entry] = &[Entry::of::<Probe>()];

    fn invalid_message(args: &str) -> String {
        match validate(TOOLS, "probe", args) {
            Err(ToolError::InvalidParams(message)) => message,
            other => format!("unexpected {other:?}"),
        }
    }

    #[test]
    fn missing_fields_are_named() {
        let message = invalid_message("{}");
        assert!(message.contains("missing field `file_path`"), "{message}");
        assert!(!message.contains("line 1"), "{message}");
    }

    #[test]
    fn wrong_types_name_the_field() {
        let message = invalid_message(r#"{"file_path": "a", "start_line": "x"}"#);
        assert!(message.contains("field `start_line`"), "{message}");
    }

    #[test]
    fn bad_json_is_invalid_params() {
        assert!(invalid_message("{not json").contains("not valid JSON"));
        assert!(invalid_message(r#"{"file_path": "a"} trailing"#).contains("not valid JSON"));
    }

    #[test]
    fn good_arguments_pass() {
        assert!(validate(TOOLS, "probe", r#"{"file_path": "a"}"#).is_ok());
    }

    #[test]
    fn unknown_tools_are_invalid_params() {
        assert!(matches!(
            execute(TOOLS, "nope", "{}"),
            Err(ToolError::InvalidParams(m)) if m.contains("no tool named 'nope'")
        ));
        assert_eq!(describe_call(TOOLS, "nope", "{}"), "nope");
        assert_eq!(describe_call(TOOLS, "probe", "garbage"), "Probe");
    }

    #[test]
    fn tools_without_a_proposal_refuse_modify_args() {
        assert!(matches!(
            modify_args(TOOLS, "probe", r#"{"file_path": "a"}"#, String::new()),
            Err(ToolError::InvalidParams(m)) if m.contains("no editable proposal")
        ));
    }
}
