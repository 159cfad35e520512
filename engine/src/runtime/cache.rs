//! The on-disk compile cache: each component is compiled once and its native code kept as
//! `components/<sha256>-<engine>.code`, where `<engine>` fingerprints the wasmtime version
//! and every engine setting that changes generated code. Loading a cached component is a
//! copy into a sealed memory file under a keyed hash, then a mapping of it (about 1 ms for a
//! Rust guest, 25–35 ms for the 37 MB of a Python or JavaScript guest, most of it the kernel
//! allocating the copy's pages: BENCHMARKS.md) instead of a compile (80 ms for Rust, ~4 s
//! for Python or JS guests). Descriptions and file stamps (registry) live here too.
//!
//! Invariants:
//! - the cache is trusted as code and as identity, so nothing in it is believed unless it
//!   carries a valid tag, keyed by a random secret made on first use (mode 0600; the binary
//!   keeps it in `$AIRLOCK_HOME/cache.key`, outside the cache folder, so a cache folder a
//!   repository filled cannot bring its own key), over the entry's kind, its subject (the
//!   content hash it describes, or the file it stamps), the engine fingerprint and the bytes.
//!   Native code is tagged with keyed BLAKE3 (a key derived from the secret), which checks
//!   30 MB in a few milliseconds; descriptions and stamps, small, with HMAC-SHA256. An entry
//!   copied from another component, edited or bit-flipped is discarded with a warning and
//!   rebuilt, never deserialised;
//! - native code is checked on the bytes wasmtime then maps, never on the file: it is copied
//!   into a sealed memory file while it is hashed ([`sealed`](super::sealed)), so a cache file
//!   changed during or after the check never runs;
//! - files are written atomically (temp file + rename), so concurrent airlock processes and
//!   a crash mid-write never leave a half-written entry.

use std::fmt;
use std::fs;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use hmac::{Hmac, Mac};
use sha2::Sha256;
use wasmtime::Engine;
use wasmtime::component::Component;

use super::RuntimeError;
use super::sealed::{CopyError, SealedCode};
use airlock_files::{self as files, content_hash, write_atomically};

/// Length of the tag in front of every entry.
const TAG_LEN: usize = 32;
/// What the native-code key is derived from the cache's secret for (BLAKE3's `derive_key`
/// context: a key of its own, never the HMAC's).
const CODE_KEY_CONTEXT: &str = "airlock 2026-11-28 compile cache: tags on native code";
/// Largest entry read back, by kind.
const COMPONENT_LIMIT: u64 = 2 << 30;
const DESCRIPTION_LIMIT: u64 = 32 << 20;
const STAMP_LIMIT: u64 = 64 << 10;

/// What a cache entry holds; part of its tag, so one kind can never pass for another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// Serialised native code of a component (subject: its content hash).
    Component,
    /// A component's self-description, or why it failed (subject: its content hash).
    Description,
    /// A plugin file's stat stamp and content hash (subject: the file's path).
    FileStamp,
}

impl EntryKind {
    fn tag(self) -> &'static [u8] {
        match self {
            Self::Component => b"component",
            Self::Description => b"description",
            Self::FileStamp => b"file-stamp",
        }
    }

    fn limit(self) -> u64 {
        match self {
            Self::Component => COMPONENT_LIMIT,
            Self::Description => DESCRIPTION_LIMIT,
            Self::FileStamp => STAMP_LIMIT,
        }
    }
}

/// The compile cache rooted at one directory.
#[derive(Clone)]
pub struct CompileCache {
    dir: PathBuf,
    engine_key: String,
    secret: Arc<[u8; 32]>,
    /// The keyed-BLAKE3 key of native code, derived from `secret`.
    code_key: Arc<[u8; 32]>,
}

/// Never prints the secret.
impl fmt::Debug for CompileCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CompileCache").field("dir", &self.dir).field("engine_key", &self.engine_key).finish()
    }
}

/// Where a loaded component came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheOutcome {
    /// Native code was found in the cache.
    Hit,
    /// The component was compiled (and the result stored).
    Compiled,
    /// A built-in's native code, compiled when airlock was built, was used.
    Precompiled,
}

impl CompileCache {
    /// The cache in `dir`, its entries tagged with the secret kept in `key_file` (made on
    /// first use). The key belongs outside `dir` — in `$AIRLOCK_HOME` — so that a cache folder
    /// a repository could fill (one inside a workspace) cannot bring a key of its own.
    pub fn new(dir: PathBuf, key_file: &Path, engine: &Engine) -> Self {
        let mut hasher = DefaultHasher::new();
        engine.precompile_compatibility_hash().hash(&mut hasher);
        let engine_key = format!("{:016x}", hasher.finish());
        let secret = load_or_create_secret(key_file);
        let code_key = Arc::new(blake3::derive_key(CODE_KEY_CONTEXT, &secret));
        Self { dir, engine_key, secret: Arc::new(secret), code_key }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn component_path(&self, content_hash: &str) -> PathBuf {
        // `.code`, not the `.cwasm` of HMAC-tagged entries: those are left alone, not
        // reported as tampered.
        self.dir.join("components").join(format!("{content_hash}-{}.code", self.engine_key))
    }

    /// The cached description file of a component.
    pub fn description_path(&self, content_hash: &str) -> PathBuf {
        self.dir.join("descriptions").join(format!("{content_hash}.entry"))
    }

    /// The cached stamp of a plugin file.
    pub fn stamp_path(&self, file: &Path) -> PathBuf {
        use std::os::unix::ffi::OsStrExt;
        self.dir.join("files").join(format!("{}.entry", content_hash(file.as_os_str().as_bytes())))
    }

    /// The tag of an entry: keyed BLAKE3 for native code, HMAC-SHA256 for the rest. `None`
    /// only if HMAC refused the key, which it never does (any length is a key).
    fn tag(&self, kind: EntryKind, subject: &[u8], body: &[u8]) -> Option<[u8; TAG_LEN]> {
        if kind == EntryKind::Component {
            let mut hasher = self.code_hasher(subject);
            hasher.update(body);
            hasher.update(&(body.len() as u64).to_le_bytes());
            return Some(*hasher.finalize().as_bytes());
        }
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(self.secret.as_slice()).ok()?;
        // Length-prefixed fields: no two (kind, subject, engine, body) share an input.
        for field in [kind.tag(), subject, self.engine_key.as_bytes(), body] {
            mac.update(&(field.len() as u64).to_le_bytes());
            mac.update(field);
        }
        Some(mac.finalize().into_bytes().into())
    }

    /// Native code's hasher, fed its kind, subject and engine (length-prefixed); the code
    /// follows, then its length, so no two inputs share a hash input.
    fn code_hasher(&self, subject: &[u8]) -> blake3::Hasher {
        let mut hasher = blake3::Hasher::new_keyed(&self.code_key);
        for field in [EntryKind::Component.tag(), subject, self.engine_key.as_bytes()] {
            hasher.update(&(field.len() as u64).to_le_bytes());
            hasher.update(field);
        }
        hasher
    }

    /// Whether `stored` is the tag `computed`, compared in constant time.
    fn tags_match(stored: &[u8], computed: [u8; TAG_LEN]) -> bool {
        <[u8; TAG_LEN]>::try_from(stored).is_ok_and(|stored| blake3::Hash::from(stored) == blake3::Hash::from(computed))
    }

    /// Discards the entry at `path` with a warning saying `why`.
    fn discard(path: &Path, why: &str) {
        tracing::warn!("discarding cache entry {}: {why}", path.display());
        let _ = fs::remove_file(path);
    }

    /// The body of the entry at `path`, when it exists and its tag is valid for `kind` and
    /// `subject`. A bad entry is removed (and logged), so it is rebuilt.
    pub fn read_entry(&self, kind: EntryKind, subject: &[u8], path: &Path) -> Option<Vec<u8>> {
        let mut bytes = match files::read_user_file(path, kind.limit() + TAG_LEN as u64) {
            Ok(bytes) => bytes,
            Err(files::FileError::NotFound) => return None,
            Err(error) => {
                tracing::warn!("discarding unreadable cache entry {}: {error}", path.display());
                let _ = fs::remove_file(path);
                return None;
            }
        };
        if bytes.len() < TAG_LEN {
            tracing::warn!("discarding truncated cache entry {}", path.display());
            let _ = fs::remove_file(path);
            return None;
        }
        let body = bytes.split_off(TAG_LEN);
        if !self.tag(kind, subject, &body).is_some_and(|tag| Self::tags_match(&bytes, tag)) {
            tracing::warn!(
                "discarding cache entry {}: its tag does not match (tampered, corrupt or from another entry)",
                path.display()
            );
            let _ = fs::remove_file(path);
            return None;
        }
        Some(body)
    }

    /// Stores `body` at `path`, tagged for `kind` and `subject`.
    pub fn write_entry(&self, kind: EntryKind, subject: &[u8], path: &Path, body: &[u8]) -> std::io::Result<()> {
        let tag = self.tag(kind, subject, body).ok_or_else(|| std::io::Error::other("cannot key the tag"))?;
        let mut contents = Vec::with_capacity(TAG_LEN + body.len());
        contents.extend_from_slice(&tag);
        contents.extend_from_slice(body);
        write_atomically(path, &contents)
    }

    /// The native code at `path`, when it exists and its tag is valid for `subject`: copied
    /// into a sealed memory file as it is checked. A bad entry is removed (and logged), so it
    /// is rebuilt.
    fn read_code(&self, subject: &[u8], path: &Path) -> Option<SealedCode> {
        use std::io::Read;
        let mut file = match files::open_user_file(path) {
            Ok((file, _)) => file,
            Err(files::FileError::NotFound) => return None,
            Err(error) => {
                Self::discard(path, &format!("unreadable: {error}"));
                return None;
            }
        };
        let mut stored = [0u8; TAG_LEN];
        if file.read_exact(&mut stored).is_err() {
            Self::discard(path, "truncated");
            return None;
        }
        let mut hasher = self.code_hasher(subject);
        let code = match SealedCode::copy(&mut file, COMPONENT_LIMIT, &mut hasher) {
            Ok(code) => code,
            Err(error @ CopyError::TooLarge { .. }) => {
                Self::discard(path, &error.to_string());
                return None;
            }
            Err(CopyError::Io(error)) => {
                tracing::warn!("cannot read cache entry {}: {error}", path.display());
                return None;
            }
        };
        if !Self::tags_match(&stored, *hasher.finalize().as_bytes()) {
            Self::discard(path, "its tag does not match (tampered, corrupt or from another entry)");
            return None;
        }
        Some(code)
    }

    /// Loads the native code of a component, compiling and storing it when it is missing.
    /// `bytes` must return the component whose sha-256 is `content_hash`.
    pub fn load(
        &self,
        engine: &Engine,
        content_hash: &str,
        bytes: impl FnOnce() -> Result<Vec<u8>, RuntimeError>,
    ) -> Result<(Component, CacheOutcome), RuntimeError> {
        self.load_announcing(engine, content_hash, bytes, |_| {})
    }

    /// [`Self::load`], calling `compiling` with the component's bytes just before a compile.
    pub fn load_announcing(
        &self,
        engine: &Engine,
        content_hash: &str,
        bytes: impl FnOnce() -> Result<Vec<u8>, RuntimeError>,
        compiling: impl FnOnce(&[u8]),
    ) -> Result<(Component, CacheOutcome), RuntimeError> {
        let path = self.component_path(content_hash);
        if let Some(code) = self.read_code(content_hash.as_bytes(), &path) {
            match code.deserialize(engine) {
                Ok(component) => return Ok((component, CacheOutcome::Hit)),
                Err(error) => tracing::warn!("discarding unusable cache entry {}: {error}", path.display()),
            }
        }
        let bytes = bytes()?;
        compiling(&bytes);
        let component = Component::new(engine, &bytes).map_err(|e| RuntimeError::Compile(format!("{e:#}")))?;
        match component.serialize() {
            Ok(native) => {
                if let Err(error) = self.write_entry(EntryKind::Component, content_hash.as_bytes(), &path, &native) {
                    tracing::warn!("cannot store compiled component in {}: {error}", path.display());
                }
            }
            Err(error) => tracing::warn!("cannot serialize compiled component: {error}"),
        }
        Ok((component, CacheOutcome::Compiled))
    }
}

/// A built-in's native code as the build script made it (`engine/build.rs`), when it fits
/// `engine`; `None` (and why, in the log) when it does not — another CPU, another wasmtime —
/// and the component must be compiled.
pub fn precompiled(engine: &Engine, native: &'static [u8]) -> Option<Component> {
    // SAFETY: `native` is part of this binary (embedded by its build script from the
    // built-in's own bytes, with the settings of `code_config`), so it is exactly the code
    // the build produced and cannot change. wasmtime checks its header against `engine`
    // (version, target, CPU features, settings) and refuses a mismatch, which is then compiled.
    #[allow(unsafe_code)]
    match unsafe { Component::deserialize(engine, native) } {
        Ok(component) => Some(component),
        Err(error) => {
            tracing::info!("the built-in's precompiled code does not fit this engine ({error:#}); compiling it");
            None
        }
    }
}

/// The cache's secret: read from `path`, or made and stored there (mode 0600) on first use.
/// When it cannot be stored, a secret for this process alone: nothing cached before is
/// believed, and nothing is lost but speed.
fn load_or_create_secret(path: &Path) -> [u8; 32] {
    use rand::Rng;
    let path = path.to_path_buf();
    let read = |path: &Path| -> Option<[u8; 32]> { files::read_user_file(path, 32).ok()?.try_into().ok() };
    if let Some(secret) = read(&path) {
        return secret;
    }
    let mut secret = [0u8; 32];
    rand::rng().fill_bytes(&mut secret);
    let stored = files::write_once(&path, &secret, || read(&path).is_none());
    match (stored, read(&path)) {
        (_, Some(on_disk)) => on_disk,
        (Err(error), None) => {
            tracing::warn!("cannot store the cache key in {}: {error}; caching for this run only", path.display());
            secret
        }
        (Ok(()), None) => secret,
    }
}
