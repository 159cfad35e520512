//! `airlock config show [--json]`: every effective setting with the file and line it came
//! from (or `default`, a flag, a profile), the locked keys, and which layers were read or
//! skipped and why. It needs no model. Values come from files anyone may write, so they
//! are shown through [`airlock_engine::sanitize`]; header values are never printed (they
//! may carry a token), and a key's own value never lies in a config file (`key_variable`
//! and `*_env` name a variable), so nothing secret is printed.

use std::io::{self, Write};

use airlock_engine::config::{CHECKPOINT_DEFAULTS, LayerState, Row, Settings, Source};
use airlock_engine::sanitize::line;
use clap::Subcommand;
use serde_json::json;

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Print each effective key, its value and where it came from.
    Show {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

/// Keys shown with their built-in default when no layer sets them.
const DEFAULTS: [(&str, &str); 4] =
    [("approval_mode", "\"default\""), ("loop_detection", "true"), ("max_turns", "100"), ("provider", "\"gemini\"")];

pub fn run(settings: &Settings, command: &ConfigCommand, out: &mut impl Write) -> io::Result<()> {
    let ConfigCommand::Show { json } = command;
    if *json { write_json(settings, out) } else { write_text(settings, out) }
}

/// What is shown of a row's value.
fn shown(row: &Row) -> String {
    if row.key.split('.').any(|part| part == "headers") {
        return "(hidden)".into();
    }
    line(&row.value.to_string())
}

fn source_text(source: &Source) -> String {
    match source {
        Source::Default => "default".into(),
        Source::Flag(flag) => format!("flag {flag}"),
        Source::File { path, line } => format!("{}:{line}", path.display()),
        Source::Profile { name, path, line } => format!("profile {name} in {}:{line}", path.display()),
    }
}

/// The default rows for keys no layer set.
fn defaults(settings: &Settings) -> impl Iterator<Item = (&'static str, &'static str)> + '_ {
    DEFAULTS.into_iter().chain(CHECKPOINT_DEFAULTS).filter(|(key, _)| !settings.rows.iter().any(|r| r.key == *key))
}

fn write_text(settings: &Settings, out: &mut impl Write) -> io::Result<()> {
    writeln!(out, "layers:")?;
    for layer in &settings.layers {
        let state = match &layer.state {
            LayerState::Read => "read".to_string(),
            LayerState::Missing => "missing".to_string(),
            LayerState::Skipped(why) => format!("skipped: {why}"),
        };
        writeln!(out, "  {:<9} {}  {}", layer.name, line(&layer.path.display().to_string()), state)?;
    }
    if let Some(profile) = &settings.profile {
        writeln!(out, "profile: {}", line(profile))?;
    }
    writeln!(out, "settings:")?;
    let mut rows: Vec<(String, String, String)> = settings
        .rows
        .iter()
        .map(|row| {
            let lock = if row.locked { " (locked)" } else { "" };
            (row.key.clone(), shown(row), format!("{}{lock}", line(&source_text(&row.source))))
        })
        .collect();
    rows.extend(defaults(settings).map(|(key, value)| (key.to_string(), value.to_string(), "default".to_string())));
    rows.sort();
    for (key, value, source) in rows {
        writeln!(out, "  {} = {value}  # {source}", line(&key))?;
    }
    if !settings.locked.is_empty() {
        writeln!(out, "locked: {}", line(&settings.locked.join(", ")))?;
    }
    for warning in &settings.warnings {
        writeln!(out, "refused: {}", line(warning))?;
    }
    Ok(())
}

fn write_json(settings: &Settings, out: &mut impl Write) -> io::Result<()> {
    let layers: Vec<_> = settings
        .layers
        .iter()
        .map(|layer| {
            let (state, reason) = match &layer.state {
                LayerState::Read => ("read", None),
                LayerState::Missing => ("missing", None),
                LayerState::Skipped(why) => ("skipped", Some(why)),
            };
            json!({ "name": layer.name, "path": layer.path, "state": state, "reason": reason })
        })
        .collect();
    let mut rows: Vec<_> = settings
        .rows
        .iter()
        .map(|row| {
            let value = if shown(row) == "(hidden)" { json!("(hidden)") } else { json!(row.value) };
            let mut entry = json!({ "key": row.key, "value": value, "locked": row.locked });
            match &row.source {
                Source::Default => entry["source"] = json!("default"),
                Source::Flag(flag) => {
                    entry["source"] = json!("flag");
                    entry["flag"] = json!(flag);
                }
                Source::File { path, line } => {
                    entry["source"] = json!("file");
                    entry["file"] = json!(path);
                    entry["line"] = json!(line);
                }
                Source::Profile { name, path, line } => {
                    entry["source"] = json!("profile");
                    entry["profile"] = json!(name);
                    entry["file"] = json!(path);
                    entry["line"] = json!(line);
                }
            }
            entry
        })
        .collect();
    for (key, value) in defaults(settings) {
        let value: serde_json::Value = serde_json::from_str(value).unwrap_or(json!(value));
        rows.push(json!({ "key": key, "value": value, "source": "default", "locked": settings.is_locked(key) }));
    }
    rows.sort_by(|a, b| a["key"].as_str().cmp(&b["key"].as_str()));
    let document = json!({
        "layers": layers,
        "profile": settings.profile,
        "settings": rows,
        "locked": settings.locked,
        "warnings": settings.warnings,
    });
    serde_json::to_writer_pretty(&mut *out, &document)?;
    writeln!(out)
}
