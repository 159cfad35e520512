//! The `airlock` binary: parses the command line and hands it to [`airlock::cli::run`].

use clap::Parser;

fn main() -> std::process::ExitCode {
    // First, before clap and before any thread: the sandbox helper must be single-threaded.
    if let Some(code) = airlock_sandbox::run_helper_if_asked() {
        return code;
    }
    let cli = airlock::cli::Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "airlock: cannot start the async runtime: {error}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let code = runtime.block_on(airlock::cli::run(cli));
    // Do not wait for blocked reads of stdin or lingering tasks.
    runtime.shutdown_background();
    std::process::ExitCode::from(code)
}
