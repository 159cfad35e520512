//! `airlock mcp serve`: starts engine sessions without a model and hands them to the MCP
//! front end (`airlock_frontends::mcp`), over stdio or, with `--http`, on a loopback
//! address. The workspace is the current folder (or `--workspace`), as for `airlock -p`.
//!
//! Invariants: in stdio mode nothing but the protocol reaches stdout (this command writes
//! its lines to stderr); `--http` binds loopback addresses only; the bearer token comes
//! from `AIRLOCK_MCP_TOKEN` or is fresh, random and printed once on stderr.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use airlock_engine::capability::search::SearchEndpoint;
use airlock_engine::engine::{self, Tools};
use airlock_engine::paths::Paths;
use airlock_engine::policy::ApprovalMode;
use airlock_frontends::ExitCode;
use airlock_frontends::mcp::{self, http};

/// The variable a fixed bearer token is read from.
pub const TOKEN_VARIABLE: &str = "AIRLOCK_MCP_TOKEN";

/// `airlock mcp serve`.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Serve streamable HTTP at http://ADDR/mcp instead of stdio: a loopback address
    /// (127.0.0.1:PORT, [::1]:PORT, localhost:PORT); PORT 0 picks a free port.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<String>,
    /// Which calls run without asking the client's user: plan, default, auto-edit, yolo.
    #[arg(long, value_name = "MODE", value_parser = parse_mode, default_value = "default")]
    pub approval_mode: ApprovalMode,
}

/// `auto-edit` as airlock spells it, or `auto_edit`.
fn parse_mode(text: &str) -> Result<ApprovalMode, String> {
    <ApprovalMode as clap::ValueEnum>::from_str(&text.replace('_', "-"), true)
        .map_err(|_| format!("`{text}` is not an approval mode: use plan, default, auto-edit or yolo"))
}

/// What a session of the server needs.
pub struct Context {
    pub paths: Paths,
    pub workspace: PathBuf,
    pub cwd: Option<PathBuf>,
    pub search: Option<SearchEndpoint>,
    pub limits: airlock_engine::capability::CallLimits,
    pub commands: airlock_sandbox::folders::Settings,
    /// OpenTelemetry export, when on: every session is observed.
    pub telemetry: Option<Arc<airlock_telemetry::Telemetry>>,
}

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("{0}")]
    Usage(String),
    #[error("{0}")]
    Start(String),
}

/// Runs the server until the client closes stdin, or (HTTP) until Ctrl-C or SIGTERM.
pub async fn run(context: Context, tools: Tools, args: ServeArgs) -> Result<ExitCode, ServeError> {
    let options = mcp::Options { mode: airlock_door::edge::wire_mode(args.approval_mode) };
    let telemetry = context.telemetry.clone();
    let code = serve(context, tools, args, options).await;
    crate::telemetry::finish(telemetry).await;
    code
}

/// Serves on stdio or HTTP until the end.
async fn serve(context: Context, tools: Tools, args: ServeArgs, options: mcp::Options) -> Result<ExitCode, ServeError> {
    let Some(address) = args.http else {
        let (session, outputs) = start(&context, tools)?;
        return Ok(mcp::serve_stdio(session, outputs, options).await);
    };
    let address = loopback_address(&address)?;
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .map_err(|e| ServeError::Start(format!("cannot listen on {address}: {e}")))?;
    let bound = listener.local_addr().map_err(|e| ServeError::Start(format!("cannot listen on {address}: {e}")))?;
    let (token, fresh) = match std::env::var(TOKEN_VARIABLE) {
        Ok(token) if !token.trim().is_empty() => (token.trim().to_owned(), false),
        _ => (mcp::random_token(), true),
    };
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "airlock mcp serve: http://{bound}/mcp");
    if fresh {
        let _ = writeln!(stderr, "airlock mcp serve: token {token}");
    }
    drop(stderr);
    let (runtime, mode) = (tools.runtime.clone(), args.approval_mode);
    let context = Arc::new(context);
    // Each MCP session loads the tools anew: its own policy, so its own "always" answers.
    let start_session: http::Start = Arc::new(move || {
        let context = context.clone();
        let runtime = runtime.clone();
        let loaded = tokio::task::block_in_place(|| {
            tokio::runtime::Handle::current().block_on(Tools::load_with(
                runtime,
                &context.paths,
                &context.workspace,
                mode,
                context.search.clone(),
            ))
        })
        .map_err(|e| e.to_string())?;
        start(&context, loaded).map_err(|e| e.to_string())
    });
    Ok(http::serve(listener, token, start_session, options).await)
}

/// `ADDR` when it is a loopback address with a port.
fn loopback_address(text: &str) -> Result<SocketAddr, ServeError> {
    let refused = || {
        ServeError::Usage(format!(
            "--http {text}: airlock mcp serve listens on loopback only: give 127.0.0.1:PORT, [::1]:PORT or localhost:PORT"
        ))
    };
    let (host, port) = text.trim().rsplit_once(':').ok_or_else(refused)?;
    let port: u16 = port.parse().map_err(|_| refused())?;
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let ip = if host.eq_ignore_ascii_case("localhost") {
        std::net::IpAddr::from([127, 0, 0, 1])
    } else {
        host.parse().map_err(|_| refused())?
    };
    if !ip.is_loopback() {
        return Err(refused());
    }
    Ok(SocketAddr::new(ip, port))
}

/// A session without a model over `tools`.
fn start(
    context: &Context,
    tools: Tools,
) -> Result<(airlock_door::Session, tokio::sync::mpsc::UnboundedReceiver<airlock_door::Output>), ServeError> {
    let settings = engine::Settings {
        paths: context.paths.clone(),
        workspace: context.workspace.clone(),
        cwd: context.cwd.clone(),
        provider: None,
        max_turns: 1,
        loop_detection: false,
        limits: context.limits,
        resume: None,
        commands: context.commands.clone(),
        output_schema: None,
        media: airlock_engine::media::MediaLimits::default(),
        // No model reads a system prompt here.
        prompts: engine::PromptSettings::default(),
        // The calls of an MCP client are not a session's: no hook runs for them here.
        hooks: Default::default(),
        // No conversation is recorded, so there is no session for a trail to belong to.
        audit: false,
        checkpoints: Default::default(),
    };
    let (session, outputs) = engine::Session::start(settings, tools).map_err(|e| ServeError::Start(e.to_string()))?;
    Ok(crate::telemetry::observe(context.telemetry.as_deref(), session, outputs))
}

#[cfg(test)]
#[path = "mcp_serve_tests.rs"]
mod tests;
