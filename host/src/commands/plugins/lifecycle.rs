//! `airlock plugins check FILE`, `install PATH|URL [--sha256 HEX]` and `remove NAME`.
//!
//! `check` loads a component exactly as a session would — compiled, instantiated with no
//! capabilities, described, its names and schemas validated — without installing it, and
//! says what it requests. `install` does the same to the bytes it is given (a file or an
//! `https://` URL, whose digest must match `--sha256` when given) before anything lands in
//! a plugin folder: the file is written under a temporary name, checked, then moved into
//! place as `<plugin name>.wasm`, and its source and sha-256 are recorded in the folder's
//! `plugins.lock` ([`crate::registry::lock`]). `remove` deletes the file, its lock entry and
//! its grant, so a later plugin of the same name never inherits what this one was granted.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::{Context, find, show, write_request_hint};
use crate::commands::CommandError;
use crate::files;
use crate::registry::lock::{self, Entry, Lock};
use crate::registry::{MAX_PLUGIN_BYTES, Origin, Registry, is_reserved};
use crate::sanitize::line;

/// Before the grant command, after `check` and `install`.
const REQUEST_LEAD: &str = "it gets nothing it requests until you run";
/// How long a download may take.
const DOWNLOAD_TIMEOUT: Duration = Duration::from_secs(300);

/// The plugin folder `install` and `remove` work on.
fn folder(context: &Context<'_>, in_workspace: bool) -> PathBuf {
    if in_workspace {
        context.policy.roots().workspace.join(".airlock").join("plugins")
    } else {
        context.paths.plugins.clone()
    }
}

pub(super) async fn check(context: &Context<'_>, file: &Path, out: &mut impl Write) -> Result<(), CommandError> {
    let size = std::fs::metadata(file).map_or(0, |m| m.len());
    announce(file, usize::try_from(size).unwrap_or(usize::MAX));
    let started = Instant::now();
    let plugin = Registry::inspect(context.runtime, file)
        .await
        .map_err(|p| CommandError::Unloadable(format!("{}: {}", p.path, p.reason)))?;
    let elapsed = started.elapsed();
    let version = plugin
        .component(context.runtime)
        .await
        .map(|c| c.contract_version())
        .map_err(|e| CommandError::Unloadable(format!("{}: {e}", file.display())))?;
    writeln!(out, "{}: a valid airlock plugin", line(&file.display().to_string()))?;
    writeln!(out, "  contract   airlock:tool@{version}")?;
    writeln!(out, "  plugin     {} {}", line(&plugin.info.name), line(&plugin.info.version))?;
    writeln!(out, "  size       {size} bytes, sha-256 {}", plugin.source.content_hash)?;
    writeln!(out, "  loaded in  {} ms (compiled, instantiated with no capabilities, described)", elapsed.as_millis())?;
    writeln!(
        out,
        "  checked    names, kinds and parameter schemas of its {} tool{}",
        plugin.info.tools.len(),
        if plugin.info.tools.len() == 1 { "" } else { "s" }
    )?;
    if is_reserved(&plugin.info.name) {
        writeln!(out, "  warning    its name `{}` is a built-in's: airlock will not load it", line(&plugin.info.name))?;
    }
    for tool in &plugin.info.tools {
        if let Some(owner) = context.registry.get(&tool.name) {
            writeln!(
                out,
                "  warning    tool `{}` is already offered by {}: installed beside it, this one is skipped",
                line(&tool.name),
                line(&owner.plugin.label())
            )?;
        }
    }
    show::write_tools(&plugin.info, true, out)?;
    write_request_hint(&plugin, REQUEST_LEAD, out)?;
    Ok(())
}

/// Says on stderr that a large component is being loaded: its first compile takes seconds
/// (a Python or JavaScript component: 6–20 s), and silence would look like a hang.
fn announce(file: &Path, size: usize) {
    if size >= 1 << 20 {
        let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let _ = writeln!(
            std::io::stderr(),
            "loading {} ({:.1} MB): the first time, compiling it takes a few seconds…",
            line(&name),
            size as f64 / 1e6
        );
    }
}

/// Refuses a workspace plugin folder reached through a link (`.airlock` or `.airlock/plugins`
/// of a cloned repository pointing elsewhere, at the user's own plugin folder, say): sessions
/// never load plugins through one, and nothing is written through one.
fn refuse_links(workspace: &Path, dir: &Path) -> Result<(), CommandError> {
    for path in [workspace.join(".airlock"), dir.to_path_buf()] {
        if std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(CommandError::Unloadable(format!(
                "{} is a symbolic link; the workspace's plugins are never read or written through one",
                path.display()
            )));
        }
    }
    Ok(())
}

/// The normalised hex digest given with `--sha256`.
fn expected_digest(text: &str) -> Result<String, CommandError> {
    let digest = text.trim().to_ascii_lowercase();
    let digest = digest.strip_prefix("sha256:").unwrap_or(&digest).to_string();
    if digest.len() != 64 || !digest.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(CommandError::Usage(format!("--sha256 takes the 64 hex digits of a sha-256, not {text:?}")));
    }
    Ok(digest)
}

/// Whether `source` names a URL rather than a file.
fn is_url(source: &str) -> bool {
    source.starts_with("https://") || source.starts_with("http://")
}

/// The bytes at `url`: `https`, or `http` to this machine only; at most
/// [`MAX_PLUGIN_BYTES`].
async fn download(url: &str) -> Result<Vec<u8>, CommandError> {
    let parsed = reqwest::Url::parse(url).map_err(|e| CommandError::Usage(format!("{url}: not a URL: {e}")))?;
    let loopback = match parsed.host_str() {
        Some("localhost") => true,
        Some(host) => host.trim_matches(['[', ']']).parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback()),
        None => false,
    };
    if parsed.scheme() != "https" && !loopback {
        return Err(CommandError::Usage(format!(
            "{url}: plain http is accepted only from this machine (localhost); use https"
        )));
    }
    let failed = |e: String| CommandError::Unloadable(format!("{url}: {e}"));
    // reqwest's own message hides its cause ("error sending request"): say the whole chain.
    let chain = |e: reqwest::Error| {
        let mut text = e.to_string();
        let mut source = std::error::Error::source(&e);
        while let Some(cause) = source {
            text.push_str(&format!(": {cause}"));
            source = cause.source();
        }
        text
    };
    let client = reqwest::Client::builder()
        .timeout(DOWNLOAD_TIMEOUT)
        .user_agent(concat!("airlock/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| failed(e.to_string()))?;
    let mut response = client.get(parsed).send().await.map_err(|e| failed(chain(e)))?;
    if !response.status().is_success() {
        return Err(failed(format!("the server answered {}", response.status())));
    }
    let mut bytes = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| failed(chain(e)))? {
        if (bytes.len() + chunk.len()) as u64 > MAX_PLUGIN_BYTES {
            return Err(failed(format!("larger than {} MiB, the most a plugin may have", MAX_PLUGIN_BYTES >> 20)));
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes)
}

pub(super) async fn install(
    context: &Context<'_>,
    source: &str,
    sha256: Option<&str>,
    in_workspace: bool,
    out: &mut impl Write,
) -> Result<(), CommandError> {
    let expected = sha256.map(expected_digest).transpose()?;
    let (bytes, recorded_source) = if is_url(source) {
        (download(source).await?, source.to_string())
    } else {
        let path = Path::new(source);
        let bytes = files::read_user_file(path, MAX_PLUGIN_BYTES)
            .map_err(|e| CommandError::Unloadable(format!("{source}: cannot read: {e}")))?;
        (bytes, files::canonical_lenient(path).display().to_string())
    };
    let digest = files::content_hash(&bytes);
    if let Some(expected) = &expected
        && *expected != digest
    {
        return Err(CommandError::Unloadable(format!(
            "{source}: its sha-256 is {digest}, not the {expected} given with --sha256; nothing was installed"
        )));
    }
    let dir = folder(context, in_workspace);
    if in_workspace {
        refuse_links(&context.policy.roots().workspace, &dir)?;
    }
    std::fs::create_dir_all(&dir)
        .map_err(|e| CommandError::Unloadable(format!("cannot create {}: {e}", dir.display())))?;
    // Written and checked under a name no session loads (not `*.wasm`), then moved into place.
    let mut staged = tempfile::Builder::new()
        .prefix(".install-")
        .suffix(".tmp")
        .tempfile_in(&dir)
        .map_err(|e| CommandError::Unloadable(format!("cannot write in {}: {e}", dir.display())))?;
    staged
        .write_all(&bytes)
        .and_then(|()| staged.as_file().sync_all())
        .map_err(|e| CommandError::Unloadable(format!("cannot write in {}: {e}", dir.display())))?;
    announce(Path::new(source.rsplit('/').next().unwrap_or(source)), bytes.len());
    let checked = Registry::inspect(context.runtime, staged.path())
        .await
        .map_err(|p| CommandError::Unloadable(format!("{source}: {}; nothing was installed", p.reason)))?;
    let name = checked.info.name.clone();
    if is_reserved(&name) {
        return Err(CommandError::Unloadable(format!(
            "{source}: its plugin name `{name}` is a built-in's; nothing was installed (rename the plugin)"
        )));
    }
    let file_name = format!("{name}.wasm");
    let target = dir.join(&file_name);
    let origin = if in_workspace { Origin::Workspace } else { Origin::User };
    // Another file of this folder, or of the other folder, already loads under this name.
    if let Some(other) = context
        .registry
        .plugins()
        .into_iter()
        .find(|p| p.info.name == name && !(p.source.origin == origin && p.source.path == target))
        && other.source.origin != Origin::Builtin
    {
        return Err(CommandError::Unloadable(format!(
            "{source}: a plugin named `{name}` is already installed as {}; remove it first \
             (`airlock plugins remove {name}`); nothing was installed",
            other.source.display()
        )));
    }
    // The file of that name holds another plugin (dropped in by hand): never overwritten.
    let present = context.registry.plugins().into_iter().find(|p| p.source.path == target);
    if let Some(other) = present.filter(|p| p.info.name != name) {
        return Err(CommandError::Unloadable(format!(
            "{source}: {} holds another plugin, `{}`; remove or rename it first; nothing was installed",
            target.display(),
            other.info.name
        )));
    }
    let replaced = present.map(|p| p.info.version.clone());
    let mut lock = Lock::read(&dir, in_workspace).map_err(CommandError::Unloadable)?;
    staged.persist(&target).map_err(|e| {
        CommandError::Unloadable(format!("cannot move the plugin to {}: {}", target.display(), e.error))
    })?;
    let installed_at = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    lock.plugins.insert(
        file_name,
        Entry {
            name: name.clone(),
            version: checked.info.version.clone(),
            source: recorded_source.clone(),
            sha256: digest.clone(),
            installed_at,
        },
    );
    lock.write(&dir).map_err(|e| {
        CommandError::Unloadable(format!("installed, but cannot record it in {}: {e}", lock::path_in(&dir).display()))
    })?;

    let plugin = std::sync::Arc::new(
        Registry::inspect_from(context.runtime, &target, origin)
            .await
            .map_err(|p| CommandError::Unloadable(format!("{}: {}", p.path, p.reason)))?,
    );
    match replaced {
        Some(old) => writeln!(
            out,
            "installed {} {} (replacing {}) as {}",
            line(&name),
            line(&plugin.info.version),
            line(&old),
            line(&target.display().to_string())
        )?,
        None => writeln!(
            out,
            "installed {} {} as {}",
            line(&name),
            line(&plugin.info.version),
            line(&target.display().to_string())
        )?,
    }
    writeln!(out, "  from    {}", line(&recorded_source))?;
    writeln!(out, "  sha-256 {digest} (recorded in {})", line(&lock::path_in(&dir).display().to_string()))?;
    show::write_tools(&plugin.info, false, out)?;
    show::write_gets(context, &plugin, out)?;
    if context.policy.grant(&plugin).grant.is_empty() {
        write_request_hint(&plugin, REQUEST_LEAD, out)?;
    }
    Ok(())
}

pub(super) fn remove(
    context: &Context<'_>,
    name: &str,
    keep_grant: bool,
    out: &mut impl Write,
) -> Result<(), CommandError> {
    if context.registry.find_plugin(name).is_err()
        && let Some(removed) = remove_unloaded(context, name, out)?
    {
        return Ok(removed);
    }
    let plugin = find(context, name)?;
    let in_workspace = match plugin.source.origin {
        Origin::Builtin => {
            return Err(CommandError::Usage(format!(
                "{} is built in and cannot be removed; `airlock plugins revoke {} --all` takes back what it is granted",
                plugin.info.name, plugin.info.name
            )));
        }
        Origin::User => false,
        Origin::Workspace => true,
    };
    let dir = folder(context, in_workspace);
    let file = plugin.source.path.clone();
    let mut lock = Lock::read(&dir, in_workspace).map_err(CommandError::Unloadable)?;
    std::fs::remove_file(&file)
        .map_err(|e| CommandError::Unloadable(format!("cannot remove {}: {e}", file.display())))?;
    let file_name = plugin.source.file_name();
    if lock.plugins.remove(&file_name).is_some() {
        lock.write(&dir).map_err(|e| {
            CommandError::Unloadable(format!("removed, but cannot update {}: {e}", lock::path_in(&dir).display()))
        })?;
    }
    writeln!(
        out,
        "removed {} {} ({})",
        line(&plugin.info.name),
        line(&plugin.info.version),
        line(&file.display().to_string())
    )?;
    if !keep_grant && context.policy.table_of(plugin).is_some() {
        // A later plugin of the same name must not inherit this one's grant.
        super::change::revoke_all(context, &plugin.info.name)?;
    }
    Ok(())
}

/// Removes an installed file that did not load (its digest no longer matches, it traps…),
/// found by its lock entry's plugin name or file name; `None` when no entry names it.
fn remove_unloaded(context: &Context<'_>, name: &str, out: &mut impl Write) -> Result<Option<()>, CommandError> {
    let wanted = name.trim_end_matches(".wasm");
    for in_workspace in [false, true] {
        let dir = folder(context, in_workspace);
        let Ok(mut lock) = Lock::read(&dir, in_workspace) else { continue };
        // A workspace's lock comes from its repository: only a plain `*.wasm` name in the
        // folder itself may be removed, never a path that climbs out of it.
        let plain = |file: &str| file.ends_with(".wasm") && !file.starts_with('.') && !file.contains(['/', '\\', '\0']);
        let Some(file_name) = lock
            .plugins
            .iter()
            .find(|(file, entry)| plain(file) && (entry.name == wanted || file.trim_end_matches(".wasm") == wanted))
            .map(|(file, _)| file.clone())
        else {
            continue;
        };
        if in_workspace {
            refuse_links(&context.policy.roots().workspace, &dir)?;
        }
        let file = dir.join(&file_name);
        match std::fs::remove_file(&file) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(CommandError::Unloadable(format!("cannot remove {}: {e}", file.display())));
            }
            _ => {}
        }
        let entry = lock.plugins.remove(&file_name);
        lock.write(&dir).map_err(|e| {
            CommandError::Unloadable(format!("removed, but cannot update {}: {e}", lock::path_in(&dir).display()))
        })?;
        let (plugin, version) = entry.map(|e| (e.name, e.version)).unwrap_or_default();
        writeln!(
            out,
            "removed {} {} ({}, which did not load)",
            line(&plugin),
            line(&version),
            line(&file.display().to_string())
        )?;
        if !in_workspace {
            // A later plugin of the same name must not inherit this one's grant.
            let path = context.paths.policy_file();
            let mut editor = crate::policy::edit::Editor::open(&path)?;
            editor.remove_grant(&plugin);
            editor.save(crate::policy::rules::RuleSource::User)?;
        }
        return Ok(Some(()));
    }
    Ok(None)
}

#[cfg(test)]
#[path = "lifecycle_tests.rs"]
mod tests;
