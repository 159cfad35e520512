//! `http-and-process`: the Rust kit's example of reaching outside the sandbox, each through
//! what the user grants.
//!
//! - `http_get` GETs a URL through `wasi:http` ([`airlock_plugin_sdk::http`]). It requests
//!   `http://127.0.0.1:*` (any port on this machine's loopback address), so the kit's tests
//!   can play the web with a local server; a real tool requests its API's host instead
//!   (`Capabilities::none().network("https://api.github.com")`).
//! - `run_echo` runs `echo` through `airlock:host/process` ([`airlock_plugin_sdk::process`]),
//!   asking the user first with an `exec` confirmation. It requests the command prefix `echo`
//!   and read access to the workspace, where the program runs.
//!
//! Without the grant, neither reaches anything: the host's refusal comes back to the model
//! as a `permission-denied` error saying what was refused.

use airlock_plugin_sdk::ExecConfirmation;
use airlock_plugin_sdk::http;
use airlock_plugin_sdk::prelude::*;
use airlock_plugin_sdk::process::Spawn;

/// Bytes of a body the model is shown.
const MAX_BODY: usize = 64 << 10;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetArgs {
    /// The http:// or https:// URL to GET.
    pub url: String,
}

pub struct HttpGet;
impl Tool for HttpGet {
    type Args = GetArgs;
    const NAME: &'static str = "http_get";
    const DISPLAY_NAME: &'static str = "HttpGet";
    const DESCRIPTION: &'static str = "GETs a URL and returns the status line and the body (at most 64 KiB).";
    const KIND: Kind = Kind::Fetch;
    fn capabilities() -> Capabilities {
        Capabilities::none().network("http://127.0.0.1:*")
    }
    fn describe_call(args: &GetArgs) -> String {
        format!("GET {}", args.url)
    }
    fn execute(args: GetArgs) -> Result<ToolOutput, ToolError> {
        let response = http::Request::get(args.url.as_str()).max_body(MAX_BODY).send()?;
        let cut = if response.truncated { "\n[body cut at 64 KiB]" } else { "" };
        Ok(ToolOutput::text(format!("HTTP {}\n\n{}{cut}", response.status, response.text())))
    }
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EchoArgs {
    /// The words `echo` prints.
    pub words: Vec<String>,
}

/// The command line a call runs, as the user is shown it.
pub fn echo_line(args: &EchoArgs) -> String {
    std::iter::once("echo").chain(args.words.iter().map(String::as_str)).collect::<Vec<_>>().join(" ")
}

pub struct RunEcho;
impl Tool for RunEcho {
    type Args = EchoArgs;
    const NAME: &'static str = "run_echo";
    const DISPLAY_NAME: &'static str = "RunEcho";
    const DESCRIPTION: &'static str = "Runs `echo` with the given words and returns what it printed.";
    const KIND: Kind = Kind::Execute;
    fn capabilities() -> Capabilities {
        Capabilities::none().read(".").process("echo")
    }
    fn describe_call(args: &EchoArgs) -> String {
        format!("Run {}", echo_line(args))
    }
    fn confirm(args: &EchoArgs) -> Result<Option<Confirmation>, ToolError> {
        Ok(Some(Confirmation::Exec(ExecConfirmation {
            command: echo_line(args),
            root_command: "echo".into(),
            directory: workspace_root().display().to_string(),
            risk: Risk::Low,
        })))
    }
    fn execute(args: EchoArgs) -> Result<ToolOutput, ToolError> {
        // An argv, not a shell line: the words are never read as shell syntax.
        let output = Spawn::argv(std::iter::once("echo".to_string()).chain(args.words)).output()?;
        if !output.success() {
            return Err(ToolError::Execution(format!("echo failed ({:?}): {}", output.status, output.stderr_text())));
        }
        Ok(ToolOutput::text(output.stdout_text()))
    }
}

export_tools!(HttpGet, RunEcho);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_confirmation_shows_the_command_line() {
        let args = EchoArgs { words: vec!["hello".into(), "world".into()] };
        assert_eq!(echo_line(&args), "echo hello world");
        assert_eq!(RunEcho::describe_call(&args), "Run echo hello world");
    }

    #[test]
    fn outside_a_component_no_request_is_sent() {
        let error = HttpGet::execute(GetArgs { url: "http://127.0.0.1:9/".into() }).err();
        assert!(matches!(error, Some(ToolError::Execution(m)) if m.contains("wasi:http")));
    }
}
