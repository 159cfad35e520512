//! Hooks end to end: the real binary, the scripted mock model, and real hooks (command hooks:
//! scripts the tests write into the workspace, run under the command sandbox). One module per
//! stream's part: [`dispatch`] (how replies combine with the policy), [`visible`] (what front
//! ends and `airlock hooks list` show), [`command`] (command hooks run through the built
//! binary's sandbox) and [`command_session`] (command hooks in real sessions: Claude Code's
//! protocol, on_error, workspace hooks under trust), [`component`] (component hooks: the
//! `airlock:hook` fixtures in real sessions).

mod command;
mod command_session;
mod component;
mod dispatch;
mod visible;

use airlock_tests::Session;

/// Sets one user-level command hook `name` at `events`, running the shell script `script`
/// (written into the workspace as `NAME.sh`).
pub(crate) fn command_hook(s: &Session, name: &str, events: &str, script: &str) {
    s.write(&format!("{name}.sh"), script);
    s.write_config(&format!(
        "[[hooks.command]]\nname = \"{name}\"\nevents = [{events}]\ncommand = \"sh {name}.sh\"\ntimeout_secs = 20\n"
    ));
}

/// A script that prints `json` and exits 0.
pub(crate) fn replying(json: &serde_json::Value) -> String {
    format!("cat >/dev/null\nprintf '%s' '{json}'\n")
}
