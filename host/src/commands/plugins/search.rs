//! `airlock plugins search WORDS`: searches the configured plugin index (a static JSON index
//! at an https URL, a git repository, or a local mirror: [`super::index`]) and prints beside
//! each result what it requests, in the words `plugins inspect` uses, so a person sees what a
//! plugin wants before installing it.
//!
//! The index is set by `[plugins] index` of the user's or the system's `config.toml` (a
//! workspace's may not: a repository must not choose where its user discovers code), or by
//! `--index`. There is no built-in index. Runs before any plugin is loaded (cli.rs).
//! Everything printed from the index is sanitised; `--json` prints the matching entries as
//! the index wrote them.

use std::io::Write;

use super::index::{self, Index, Listed, Where};
use super::index_git;
use crate::commands::CommandError;
use airlock_engine::contract::Access;
use airlock_engine::paths::Paths;
use airlock_engine::sanitize::{line, shell_word};

/// `airlock plugins search`.
#[derive(Debug, clap::Args)]
pub struct SearchArgs {
    /// Words every result must contain (in its name or description); none lists the whole index.
    pub words: Vec<String>,
    /// The index to search instead of `[plugins] index` of config.toml: an https:// URL of an
    /// index.json, a git repository (git+https://…, https://….git) or a local mirror.
    #[arg(long, value_name = "URL")]
    pub index: Option<String>,
    /// Fetch a git index again even when the copy is less than an hour old.
    #[arg(long)]
    pub refresh: bool,
    /// Print the matching entries as JSON (as the index wrote them).
    #[arg(long)]
    pub json: bool,
}

/// What to say when no index is set.
const NO_INDEX: &str = "no plugin index is set: add\n  [plugins]\n  index = \"https://…/index.json\"\n\
to your config.toml ($AIRLOCK_HOME/config.toml), or give --index URL (a workspace's config.toml may not set it)";

/// Searches the index `--index` or `configured` (`[plugins] index`) names.
pub async fn run(
    paths: &Paths,
    configured: Option<&str>,
    args: &SearchArgs,
    out: &mut impl Write,
) -> Result<(), CommandError> {
    let Some(setting) = args.index.as_deref().or(configured) else {
        return Err(CommandError::Config(NO_INDEX.into()));
    };
    let place = Where::parse(setting)?;
    let (bytes, origin, warning) = match &place {
        Where::Web(url) => (index::download(url).await?, url.to_string(), None),
        Where::File(path) => (Where::read_file(path)?, path.display().to_string(), None),
        Where::Git(url) => {
            let (bytes, warning) = index_git::read(&paths.cache, url, args.refresh).await?;
            (bytes, url.clone(), warning)
        }
    };
    let index = index::parse(&bytes, &origin)?;
    {
        let mut err = std::io::stderr().lock();
        for warning in warning.iter().chain(&index.warnings) {
            writeln!(err, "warning: {}", line(warning))?;
        }
    }
    let found = matching(&index, &args.words);
    if args.json {
        let plugins: Vec<&serde_json::Value> = found.iter().map(|l| &l.raw).collect();
        crate::commands::json::write_pretty(out, &serde_json::json!({ "plugins": plugins }))?;
        return Ok(());
    }
    if found.is_empty() {
        let words = args.words.join(" ");
        writeln!(out, "no plugin of the index matches {}", line(&format!("{words:?}")))?;
        return Ok(());
    }
    for (at, listed) in found.iter().enumerate() {
        if at > 0 {
            writeln!(out)?;
        }
        write_result(listed, out)?;
    }
    Ok(())
}

/// The entries whose name or description holds every word (case-insensitive), by name.
fn matching<'a>(index: &'a Index, words: &[String]) -> Vec<&'a Listed> {
    let words: Vec<String> = words.iter().map(|w| w.to_lowercase()).collect();
    let mut found: Vec<&Listed> = index
        .listed
        .iter()
        .filter(|l| {
            let text = format!("{} {}", l.entry.name, l.entry.description).to_lowercase();
            words.iter().all(|w| text.contains(w.as_str()))
        })
        .collect();
    found.sort_by(|a, b| a.entry.name.cmp(&b.entry.name).then_with(|| a.entry.version.cmp(&b.entry.version)));
    found
}

/// One result: name, version and description; the command that installs it pinned to its
/// digest; who the index says signed it; what it requests.
fn write_result(listed: &Listed, out: &mut impl Write) -> std::io::Result<()> {
    let entry = &listed.entry;
    writeln!(out, "{} {} — {}", line(&entry.name), line(&entry.version), line(&entry.description))?;
    // Checked when the index was read; its characters need no quoting.
    let reference = index::install_reference(entry).unwrap_or_default();
    writeln!(out, "  install: airlock plugins install {}", line(&reference))?;
    match &entry.signer {
        Some(signer) => writeln!(out, "  signer (as the index says; checked on install): {}", line(signer))?,
        None => writeln!(out, "  signer: unsigned")?,
    }
    writeln!(out, "  requests: {}", describe_requests(&listed.requests))
}

/// What an entry requests, as `plugins inspect` says it (`read PATH`, `write PATH`, `net
/// RULE`, `env NAME`, `process \`PREFIX\``), or `nothing`.
fn describe_requests(requests: &index::Requests) -> String {
    let mut parts: Vec<String> = requests
        .files
        .iter()
        .map(|f| {
            let access = if f.access == Access::ReadWrite { "write" } else { "read" };
            format!("{access} {}", shell_word(&line(&f.path)))
        })
        .collect();
    parts.extend(requests.network.iter().map(|n| format!("net {}", line(n))));
    parts.extend(requests.env.iter().map(|e| format!("env {}", line(e))));
    parts.extend(requests.processes.iter().map(|p| format!("process `{}`", line(p))));
    if parts.is_empty() { "nothing".into() } else { parts.join(", ") }
}
