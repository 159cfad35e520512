//! `airlock plugins check FILE`, `install PATH|URL [--sha256 HEX]` and `remove NAME`.
//!
//! `check` loads a component exactly as a session would — compiled, instantiated with no
//! capabilities, described, its names and schemas validated — without installing it, and
//! says what it requests. `install` does the same to the bytes it is given (a file or an
//! `https://` URL, whose digest must match `--sha256` when given) before anything lands in
//! a plugin folder: the file is written under a temporary name, checked, then moved into
//! place as `<plugin name>.wasm`, and its source and sha-256 are recorded in the folder's
//! `plugins.lock` ([`airlock_engine::registry::lock`]). `remove` deletes the file, its lock entry and
//! its grant, so a later plugin of the same name never inherits what this one was granted.

use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use super::{Context, InstallArgs, diff, fetch, find, show, signed, write_request_hint};
use crate::commands::CommandError;
use airlock_engine::capability::kinds;
use airlock_engine::paths::{WORKSPACE_DIR, open_workspace_dir};
use airlock_engine::registry::lock::{self, Entry, Lock, SignatureRecord, Witnessed, WorkspaceRecords};
use airlock_engine::registry::{Origin, Plugin, Registry, is_reserved};
use airlock_engine::sanitize::line;
use airlock_files::{self as files, DirHandle, FileError, Replace, Staged};

/// Before the grant command, after `check` and `install`.
const REQUEST_LEAD: &str = "it gets nothing it requests until you run";

/// A plugin folder `install` and `remove` work on: its path (for messages, and to compare
/// with the paths plugins were loaded from) and a handle on it, through which every read
/// and write of the command goes.
pub(super) struct Folder {
    pub path: PathBuf,
    pub dir: DirHandle,
}

/// The plugin folder `install` and `remove` work on, opened; with `create`, made when
/// missing (`None`: missing). The workspace's is opened one folder at a time from `/`
/// without following any link: a `.airlock` or `.airlock/plugins` that is a link (to the
/// user's own plugin folder, say) is refused, and one swapped in while the command runs
/// changes nothing, since the handle names the folder that was opened. The user's own
/// folder is opened by its path.
pub(super) fn folder(context: &Context<'_>, in_workspace: bool, create: bool) -> Result<Option<Folder>, CommandError> {
    if !in_workspace {
        let path = context.paths.plugins.clone();
        if create {
            std::fs::create_dir_all(&path)
                .map_err(|e| CommandError::Unloadable(format!("cannot create {}: {e}", path.display())))?;
        }
        return match files::open_user_dir(&path) {
            Ok(dir) => Ok(Some(Folder { path, dir })),
            Err(FileError::NotFound) => Ok(None),
            Err(e) => Err(CommandError::Unloadable(format!("{}: {e}", path.display()))),
        };
    }
    let workspace = &context.policy.roots().workspace;
    let path = workspace.join(WORKSPACE_DIR).join("plugins");
    match open_workspace_dir(workspace, "plugins", create) {
        Ok(dir) => Ok(Some(Folder { path, dir })),
        Err(FileError::NotFound) => Ok(None),
        Err(FileError::Link) => Err(CommandError::Unloadable(format!(
            "{} (or {}) is a symbolic link; the workspace's plugins are never read or written through one",
            path.display(),
            workspace.join(WORKSPACE_DIR).display()
        ))),
        Err(e) => Err(CommandError::Unloadable(format!("{}: {e}", path.display()))),
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
    let verdict = if impossible_requests(&plugin).is_ok() {
        "a valid airlock plugin"
    } else {
        "loads, but requests what its tools can never be given (below)"
    };
    writeln!(out, "{}: {verdict}", line(&file.display().to_string()))?;
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
    show::write_tools(&plugin, true, out)?;
    write_request_hint(&plugin, REQUEST_LEAD, out)?;
    impossible_requests(&plugin).map_err(|why| CommandError::Unloadable(format!("{}: {why}", file.display())))
}

/// Refuses a plugin that requests what its tools' kinds can never be given (a `fetch` tool
/// asking to write): its description contradicts itself, so `check` and `install` refuse it
/// alike, naming each such request and what to do ([`kinds::impossible`]).
fn impossible_requests(plugin: &Plugin) -> Result<(), String> {
    let found: Vec<String> = plugin.info.tools.iter().flat_map(kinds::impossible).map(|i| i.to_string()).collect();
    if found.is_empty() {
        return Ok(());
    }
    Err(format!("it requests what its tools can never be given:\n  {}", found.join("\n  ")))
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

/// The normalised hex digest given with `--sha256`.
fn expected_digest(text: &str) -> Result<String, CommandError> {
    let digest = text.trim().to_ascii_lowercase();
    let digest = digest.strip_prefix("sha256:").unwrap_or(&digest).to_string();
    if digest.len() != 64 || !digest.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(CommandError::Usage(format!("--sha256 takes the 64 hex digits of a sha-256, not {text:?}")));
    }
    Ok(digest)
}

pub(super) async fn install(
    context: &Context<'_>,
    args: &InstallArgs,
    out: &mut impl Write,
) -> Result<(), CommandError> {
    let expected = args.sha256.as_deref().map(expected_digest).transpose()?;
    let fetched = fetch::fetch(context, &args.source, args.in_workspace).await?;
    install_fetched(context, args, expected, fetched, out).await
}

/// `install` from the fetched bytes on: the digest and signature checks, the staged check,
/// the capability diff, the commit and the lock entry (`plugins update` fetches first, to
/// compare digests, then comes here).
pub(super) async fn install_fetched(
    context: &Context<'_>,
    args: &InstallArgs,
    expected: Option<String>,
    fetched: fetch::Fetched,
    out: &mut impl Write,
) -> Result<(), CommandError> {
    let source = args.source.as_str();
    let in_workspace = args.in_workspace;
    let digest = files::content_hash(&fetched.bytes);
    if let Some(expected) = &expected
        && *expected != digest
    {
        return Err(CommandError::Unloadable(format!(
            "{source}: its sha-256 is {digest}, not the {expected} given with --sha256; nothing was installed"
        )));
    }
    let signature =
        signed::check(context, in_workspace, &fetched, args.signature.as_deref(), args.bundle.as_deref()).await?;
    let (bytes, recorded_source) = (&fetched.bytes, &fetched.recorded_source);
    let folder = folder(context, in_workspace, true)?
        .ok_or_else(|| CommandError::Unloadable("the plugin folder vanished while it was made".into()))?;
    let cannot_write =
        |e: std::io::Error| CommandError::Unloadable(format!("cannot write in {}: {e}", folder.path.display()));
    // Written whole into the folder under no name a session loads (an anonymous file where
    // the file system has one), checked from there, then named in place.
    let mut staged = Staged::write(&folder.dir, OsStr::new("install"), bytes).map_err(cannot_write)?;
    announce(Path::new(source.rsplit('/').next().unwrap_or(source)), bytes.len());
    // Read back through the staged file itself (its links are the host's own).
    let mut plugin = Registry::inspect(context.runtime, &staged.reading_path())
        .await
        .map_err(|p| CommandError::Unloadable(format!("{source}: {}; nothing was installed", p.reason)))?;
    if plugin.source.content_hash != digest {
        return Err(CommandError::Unloadable(format!(
            "{source}: the file changed while it was checked; nothing was installed"
        )));
    }
    let name = plugin.info.name.clone();
    if is_reserved(&name) {
        return Err(CommandError::Unloadable(format!(
            "{source}: its plugin name `{name}` is a built-in's; nothing was installed (rename the plugin)"
        )));
    }
    impossible_requests(&plugin)
        .map_err(|why| CommandError::Unloadable(format!("{source}: {why}; nothing was installed")))?;
    let file_name = format!("{name}.wasm");
    let target = folder.path.join(&file_name);
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
    if let Some(old) = present {
        diff::before_replace(context, old, &plugin, out)?;
    }
    let lock_path = lock::path_in(&folder.path);
    let mut lock = Lock::read_in(&folder.dir, &folder.path).map_err(CommandError::Unloadable)?;
    if present.is_some() {
        let before = lock.plugins.get(&file_name).and_then(|e| e.signature.as_ref());
        warn_signer_change(&name, before, signature.as_ref(), out)?;
    }
    staged
        .commit(OsStr::new(&file_name), Replace::Always)
        .map_err(|e| CommandError::Unloadable(format!("cannot move the plugin to {}: {e}", target.display())))?;
    drop(staged);
    let installed_at = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    if in_workspace {
        // The workspace's lock is the repository's: the signature counts only from the
        // user's own record of it.
        let mut records = WorkspaceRecords::read(&context.paths.home).map_err(CommandError::Unloadable)?;
        let witnessed = signature.clone().map(|signature| Witnessed { sha256: digest.clone(), signature });
        if records.set(&folder.path, &file_name, witnessed) {
            records.write(&context.paths.home).map_err(|e| {
                CommandError::Unloadable(format!(
                    "installed, but cannot record its signature in {}: {e}",
                    context.paths.home.join(lock::WORKSPACE_RECORDS).display()
                ))
            })?;
        }
    }
    lock.plugins.insert(
        file_name,
        Entry {
            name: name.clone(),
            version: plugin.info.version.clone(),
            source: recorded_source.clone(),
            sha256: digest.clone(),
            installed_at,
            oci: fetched.oci.clone(),
            signature,
        },
    );
    lock.write_in(&folder.dir).map_err(|e| {
        CommandError::Unloadable(format!("installed, but cannot record it in {}: {e}", lock_path.display()))
    })?;
    plugin.source.origin = origin;
    plugin.source.path = target.clone();
    let plugin = std::sync::Arc::new(plugin);
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
    let asked = reqwest::Url::parse(source).map(|url| url.to_string());
    if fetch::is_url(source) && asked.is_ok_and(|asked| asked != *recorded_source) {
        writeln!(out, "  from    {} (redirected from {})", line(recorded_source), line(source))?;
    } else {
        writeln!(out, "  from    {}", line(recorded_source))?;
    }
    writeln!(out, "  sha-256 {digest} (recorded in {})", line(&lock_path.display().to_string()))?;
    show::write_tools(&plugin, false, out)?;
    // Prints what each tool gets, under the grant's record as it now is.
    diff::after_install(context, present.map(|p| &**p), &plugin, args.approve, out)?;
    if context.policy.grant(&plugin).grant.is_empty() {
        write_request_hint(&plugin, REQUEST_LEAD, out)?;
    }
    Ok(())
}

/// Warns, loudly, when the version replaced was signed and this one is not, or by another
/// signer: nothing requires a signature here, so it installs, but the person should know.
fn warn_signer_change(
    name: &str,
    before: Option<&SignatureRecord>,
    now: Option<&SignatureRecord>,
    out: &mut impl Write,
) -> std::io::Result<()> {
    let Some(before) = before else { return Ok(()) };
    match now {
        None => writeln!(
            out,
            "WARNING: {} was signed by {}; this version has no signature that verifies, so it installs unsigned \
             (the signer is gone)",
            line(name),
            line(&before.signer)
        ),
        Some(now) if now.signer != before.signer => writeln!(
            out,
            "WARNING: the signer of {} changed: it was signed by {}, this version by {}",
            line(name),
            line(&before.signer),
            line(&now.signer)
        ),
        Some(_) => Ok(()),
    }
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
    let file = plugin.source.path.clone();
    let folder = folder(context, in_workspace, false)?
        .ok_or_else(|| CommandError::Unloadable(format!("cannot remove {}: its folder is gone", file.display())))?;
    let lock_path = lock::path_in(&folder.path);
    let mut lock = Lock::read_in(&folder.dir, &folder.path).map_err(CommandError::Unloadable)?;
    let file_name = plugin.source.file_name();
    folder
        .dir
        .remove_file(OsStr::new(&file_name))
        .map_err(|e| CommandError::Unloadable(format!("cannot remove {}: {e}", file.display())))?;
    if lock.plugins.remove(&file_name).is_some() {
        lock.write_in(&folder.dir).map_err(|e| {
            CommandError::Unloadable(format!("removed, but cannot update {}: {e}", lock_path.display()))
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
        let Ok(Some(folder)) = folder(context, in_workspace, false) else { continue };
        let Ok(mut lock) = Lock::read_in(&folder.dir, &folder.path) else { continue };
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
        let file = folder.path.join(&file_name);
        match folder.dir.remove_file(OsStr::new(&file_name)) {
            Err(e) if !matches!(e, FileError::NotFound) => {
                return Err(CommandError::Unloadable(format!("cannot remove {}: {e}", file.display())));
            }
            _ => {}
        }
        let entry = lock.plugins.remove(&file_name);
        lock.write_in(&folder.dir).map_err(|e| {
            CommandError::Unloadable(format!(
                "removed, but cannot update {}: {e}",
                lock::path_in(&folder.path).display()
            ))
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
            let mut editor = airlock_engine::policy::edit::Editor::open(&path)?;
            editor.remove_grant(&plugin)?;
            editor.save(airlock_engine::policy::rules::RuleSource::User)?;
        }
        return Ok(Some(()));
    }
    Ok(None)
}

#[cfg(test)]
#[path = "lifecycle_tests.rs"]
mod tests;
