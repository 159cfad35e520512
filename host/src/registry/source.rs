//! Where plugin components come from, and their content hashes. Built-ins are embedded in
//! the binary with hashes computed at build time. For a plugin file, the hash is cached by
//! the file's path, size, inode and modification time, so an unchanged file is not read at
//! start-up; a changed file gets a new hash and so a new compile.

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::LoadProblem;
use crate::runtime::{RuntimeError, cache};

mod builtin {
    include!(concat!(env!("OUT_DIR"), "/builtins.rs"));
}

/// The three places plugins come from, in precedence order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    Builtin,
    User,
    Workspace,
}

/// One component to load.
#[derive(Debug, Clone)]
pub struct PluginSource {
    pub origin: Origin,
    /// The file, or the built-in's name.
    pub path: PathBuf,
    pub content_hash: String,
    embedded: Option<&'static [u8]>,
}

impl PluginSource {
    pub fn display(&self) -> String {
        match self.origin {
            Origin::Builtin => format!("built-in {}", self.path.display()),
            _ => self.path.display().to_string(),
        }
    }

    /// The component's bytes.
    pub fn bytes(&self) -> Result<Vec<u8>, RuntimeError> {
        match self.embedded {
            Some(bytes) => Ok(bytes.to_vec()),
            None => {
                fs::read(&self.path).map_err(|e| RuntimeError::Read { path: self.path.clone(), reason: e.to_string() })
            }
        }
    }
}

/// The built-in components.
pub fn builtins() -> Vec<PluginSource> {
    builtin::BUILTIN_COMPONENTS
        .iter()
        .map(|(name, hash, bytes)| PluginSource {
            origin: Origin::Builtin,
            path: PathBuf::from(name),
            content_hash: (*hash).to_string(),
            embedded: Some(bytes),
        })
        .collect()
}

/// Every `*.wasm` file directly in `dir`, by file name. A missing folder holds nothing.
pub fn scan(dir: &Path, origin: Origin, cache_dir: &Path) -> Result<Vec<PluginSource>, LoadProblem> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(LoadProblem { path: dir.display().to_string(), reason: format!("cannot list: {e}") }),
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "wasm") && p.is_file())
        .collect();
    paths.sort();
    Ok(paths
        .into_iter()
        .filter_map(|path| match PluginSource::file(path.clone(), origin, cache_dir) {
            Ok(source) => Some(source),
            Err(e) => {
                tracing::warn!("cannot read plugin {}: {e}", path.display());
                None
            }
        })
        .collect())
}

impl PluginSource {
    /// A component file.
    pub fn file(path: PathBuf, origin: Origin, cache_dir: &Path) -> std::io::Result<Self> {
        let content_hash = file_hash(&path, cache_dir)?;
        Ok(Self { origin, path, content_hash, embedded: None })
    }
}

/// What identifies an unchanged file without reading it.
#[derive(Debug, PartialEq, Eq, Serialize, Deserialize)]
struct FileStamp {
    len: u64,
    modified_ns: u128,
    inode: u64,
    content_hash: String,
}

fn file_hash(path: &Path, cache_dir: &Path) -> std::io::Result<String> {
    let meta = fs::metadata(path)?;
    let modified_ns =
        meta.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).map_or(0, |d| d.as_nanos());
    #[cfg(unix)]
    let inode = std::os::unix::fs::MetadataExt::ino(&meta);
    #[cfg(not(unix))]
    let inode = 0;
    let canonical = fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let stamp_path =
        cache_dir.join("files").join(format!("{}.json", cache::content_hash(canonical.to_string_lossy().as_bytes())));
    if let Ok(bytes) = fs::read(&stamp_path)
        && let Ok(stamp) = serde_json::from_slice::<FileStamp>(&bytes)
        && stamp.len == meta.len()
        && stamp.modified_ns == modified_ns
        && stamp.inode == inode
    {
        return Ok(stamp.content_hash);
    }
    let content_hash = cache::content_hash(&fs::read(path)?);
    let stamp = FileStamp { len: meta.len(), modified_ns, inode, content_hash: content_hash.clone() };
    if let Ok(json) = serde_json::to_vec(&stamp) {
        let _ = cache::write_atomically(&stamp_path, &json);
    }
    Ok(content_hash)
}
