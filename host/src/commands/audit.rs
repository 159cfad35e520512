//! `airlock audit verify [SESSION]` and `airlock audit show [SESSION] [--json]`: a recorded
//! session's audit trail ([`airlock_engine::audit`]), checked or printed. SESSION is what
//! `--resume` takes (`latest`, an id or the start of one); the default is the workspace's
//! latest session. Everything printed from a trail went through
//! [`airlock_engine::sanitize`]: its text was written by plugins and the model.

use std::io::Write;
use std::path::{Path, PathBuf};

use airlock_engine::audit::{self, Approval};
use airlock_engine::sanitize::line;
use airlock_engine::session;
use clap::Subcommand;

use super::CommandError;

#[derive(Debug, Subcommand)]
pub enum AuditCommand {
    /// Check a session's audit trail: each record chained to the one before it, and to the
    /// head kept in the session file. Exits 1 naming the first broken record.
    Verify {
        /// `latest` (default: the workspace's latest session), an id or the start of one.
        session: Option<String>,
    },
    /// Print a session's audit trail: one line per record (time, tool, who approved it,
    /// outcome, cost; grants summarised).
    Show {
        /// `latest` (default: the workspace's latest session), an id or the start of one.
        session: Option<String>,
        /// Print the records as a JSON array, as written.
        #[arg(long)]
        json: bool,
    },
}

/// Runs `command`; `Ok(false)` when `verify` found the chain broken.
pub fn run(home: &Path, workspace: &Path, command: &AuditCommand, out: &mut impl Write) -> Result<bool, CommandError> {
    let (which, verify) = match command {
        AuditCommand::Verify { session } => (session, true),
        AuditCommand::Show { session, .. } => (session, false),
    };
    let path = session_file(home, workspace, which.as_deref())?;
    if verify {
        return check(&path, out);
    }
    let json = matches!(command, AuditCommand::Show { json: true, .. });
    show(&path, json, out)
}

fn session_file(home: &Path, workspace: &Path, which: Option<&str>) -> Result<PathBuf, CommandError> {
    let dir = session::dir(home);
    session::find(&dir, which.unwrap_or("latest"), &workspace.display().to_string())
        .map_err(|e| CommandError::Usage(e.to_string()))
}

fn check(session: &Path, out: &mut impl Write) -> Result<bool, CommandError> {
    let trail = audit::trail_path(session);
    match audit::verify::verify(session) {
        Err(error) => {
            Err(CommandError::Usage(format!("{error} (was the session recorded with [audit] enabled = false?)")))
        }
        Ok(Err(broken)) => {
            writeln!(out, "{}: broken at {}", line(&trail.display().to_string()), line(&broken.to_string()))?;
            Ok(false)
        }
        Ok(Ok(whole)) => {
            let records = if whole.records == 1 { "1 record".to_owned() } else { format!("{} records", whole.records) };
            writeln!(out, "{records}, chain whole, head matches the session file")?;
            if whole.after_head > 0 {
                writeln!(
                    out,
                    "{} record(s) after the last head (seq {}): written after it (a crash, or a session still running)",
                    whole.after_head, whole.head.seq
                )?;
            }
            if whole.partial_tail {
                writeln!(out, "the last line is a record a crash cut short; it was left out")?;
            }
            Ok(true)
        }
    }
}

fn show(session: &Path, json: bool, out: &mut impl Write) -> Result<bool, CommandError> {
    let trail = audit::trail_path(session);
    let bytes =
        std::fs::read(&trail).map_err(|e| CommandError::Usage(format!("cannot read {}: {e}", trail.display())))?;
    let records: Vec<serde_json::Value> = bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap_or_else(|_| serde_json::json!({"type": "unreadable"})))
        .collect();
    if json {
        serde_json::to_writer_pretty(&mut *out, &records).map_err(std::io::Error::other)?;
        writeln!(out)?;
        return Ok(true);
    }
    for record in &records {
        writeln!(out, "{}", line(&describe(record)))?;
    }
    Ok(true)
}

/// One record on one line.
fn describe(record: &serde_json::Value) -> String {
    let text = |key: &str| record.get(key).and_then(|v| v.as_str()).unwrap_or_default().to_owned();
    let number = |key: &str| record.get(key).and_then(serde_json::Value::as_u64).unwrap_or_default();
    let at = record.get("at").and_then(serde_json::Value::as_u64).map_or_else(String::new, |ms| {
        session::Stamp::from(std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms)).iso()
    });
    let seq = record.get("seq").and_then(serde_json::Value::as_u64).map_or("?".to_owned(), |s| s.to_string());
    let head = format!("{seq:>4} {at} {:<5}", text("type"));
    match text("type").as_str() {
        "start" => {
            let plugins = record.get("plugins").and_then(|p| p.as_array()).map_or(0, Vec::len);
            let resumed =
                if record.get("resumed").and_then(serde_json::Value::as_bool) == Some(true) { ", resumed" } else { "" };
            format!("{head} {} ({}){resumed}, {plugins} plugins", text("workspace"), text("trust"))
        }
        "call" => {
            let approval: Approval =
                record.get("approval").and_then(|a| serde_json::from_value(a.clone()).ok()).unwrap_or_default();
            let digest = text("digest");
            let plugin = match digest.get(..12) {
                Some(short) => format!("{} {short}", text("plugin")),
                None => text("plugin"),
            };
            let outcome = match record.get("error").and_then(|e| e.as_str()) {
                Some(error) => format!("{} ({error})", text("status")),
                None => text("status"),
            };
            let cost = record.get("cost").cloned().unwrap_or_default();
            let cost_of = |key: &str| cost.get(key).and_then(serde_json::Value::as_u64).unwrap_or_default();
            format!(
                "{head} {} [{plugin}] by {} → {outcome}; {} ms, {} KiB, read {} B, wrote {} B, {} requests; grant: {}",
                text("tool"),
                approval.describe(),
                cost_of("wall_ms"),
                cost_of("peak_memory_bytes") / 1024,
                cost_of("bytes_read"),
                cost_of("bytes_written"),
                cost_of("network_requests"),
                grant_summary(record.get("grant")),
            )
        }
        "grant" => format!("{head} {} for {}: {}", text("what"), text("subject"), text("detail")),
        "mode" => format!("{head} approval mode {}", text("mode")),
        "rewind" => {
            let target = record.get("target").cloned().unwrap_or_default();
            let target = match target.get("kind").and_then(|k| k.as_str()) {
                Some("prompt") => format!(
                    "to before prompt {}",
                    target.get("prompt").and_then(serde_json::Value::as_u64).unwrap_or_default()
                ),
                Some("call") => format!("call {}", target.get("call_id").and_then(|c| c.as_str()).unwrap_or_default()),
                Some("undo") => "undo of the last rewind".to_owned(),
                _ => "?".to_owned(),
            };
            let count = |key: &str| record.get(key).and_then(|v| v.as_array()).map_or(0, Vec::len);
            format!(
                "{head} {target} ({}) by {}: {} files restored, {} kept",
                text("what"),
                text("by"),
                count("restored"),
                count("kept")
            )
        }
        "end" => head,
        other => format!("{head} a record this version does not know ({other}, seq {})", number("seq")),
    }
}

/// A grant on one line: its lists, or `nothing`.
fn grant_summary(grant: Option<&serde_json::Value>) -> String {
    let Some(grant) = grant else { return "?".into() };
    let list = |key: &str| -> Vec<String> {
        grant
            .get(key)
            .and_then(|v| v.as_array())
            .map_or_else(Vec::new, |items| items.iter().filter_map(|i| i.as_str()).map(str::to_owned).collect())
    };
    let mut parts = Vec::new();
    for (key, label) in [("files", "files"), ("network", "net"), ("env", "env"), ("processes", "runs")] {
        let items = list(key);
        if !items.is_empty() {
            parts.push(format!("{label} {}", items.join(", ")));
        }
    }
    if parts.is_empty() { "nothing".into() } else { parts.join("; ") }
}
