//! Native code sealed before wasmtime sees it. A compile-cache entry is copied, a chunk at a
//! time, into an anonymous memory file (`memfd_create`) while a keyed hash runs over the very
//! bytes copied; the memory file is then sealed against every write, shrink and grow, and
//! wasmtime maps it instead of copying it: no 20–35 MB copy into executable memory, and the
//! components' memory images are mapped copy-on-write from it too.
//!
//! Invariants:
//! - what wasmtime maps is byte for byte what was hashed: the memory file is this process's
//!   own (close-on-exec, never shared), only the copy loop writes it, and it is sealed
//!   (`F_SEAL_WRITE`, `F_SEAL_SHRINK`, `F_SEAL_GROW`, `F_SEAL_SEAL`) before the caller compares
//!   the tag, so from then on no `write`, `truncate` or shared writable mapping can change it,
//!   and the seals cannot be lifted;
//! - a writer that changes the cache file while it is copied breaks the tag (the entry is
//!   discarded); one that changes it afterwards changes only the file, never the code that
//!   runs. This is why the file itself is never mapped: a private mapping of a file still
//!   shows another process's writes on every page not yet copied;
//! - components have no "deserialise this open file" in wasmtime 48, so wasmtime opens the
//!   memory file by its `/proc/self/fd` name, and only after that name is seen to reach the
//!   same file (device and inode). Where it does not (no `/proc`), the sealed bytes are
//!   deserialised from memory: slower, as safe.

use std::fs::File;
use std::io::{self, Read, Seek, Write};
use std::os::fd::AsRawFd;
use std::path::PathBuf;

use rustix::fs::{MemfdFlags, SealFlags};
use wasmtime::Engine;
use wasmtime::component::Component;

/// Bytes copied at a time: small enough to be hashed and written while still in the CPU's
/// cache, large enough that the hash uses its widest vector code.
const CHUNK: usize = 256 << 10;

/// A component's native code in a sealed memory file.
pub(super) struct SealedCode {
    memory: File,
}

/// Why an entry could not be copied.
#[derive(Debug, thiserror::Error)]
pub(super) enum CopyError {
    #[error("it holds more than {limit} bytes")]
    TooLarge { limit: u64 },
    #[error("{0}")]
    Io(#[from] io::Error),
}

impl SealedCode {
    /// Copies the rest of `source` (at most `limit` bytes) into a new sealed memory file,
    /// giving `hasher` each chunk as it is copied and, last, the number of bytes copied.
    pub(super) fn copy(source: &mut File, limit: u64, hasher: &mut blake3::Hasher) -> Result<Self, CopyError> {
        let memory = rustix::fs::memfd_create("airlock-native-code", MemfdFlags::CLOEXEC | MemfdFlags::ALLOW_SEALING)
            .map_err(io::Error::from)?;
        let mut memory = File::from(memory);
        let mut chunk = vec![0u8; CHUNK];
        let mut copied: u64 = 0;
        loop {
            let read = match source.read(&mut chunk) {
                Ok(0) => break,
                Ok(read) => read,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                Err(error) => return Err(error.into()),
            };
            copied += read as u64;
            if copied > limit {
                return Err(CopyError::TooLarge { limit });
            }
            let bytes = &chunk[..read];
            hasher.update(bytes);
            memory.write_all(bytes)?;
        }
        hasher.update(&copied.to_le_bytes());
        rustix::fs::fcntl_add_seals(&memory, SealFlags::WRITE | SealFlags::SHRINK | SealFlags::GROW | SealFlags::SEAL)
            .map_err(io::Error::from)?;
        Ok(Self { memory })
    }

    /// The component whose native code this is. wasmtime checks the header (version,
    /// target, CPU features, settings) and refuses code made for another engine.
    pub(super) fn deserialize(&self, engine: &Engine) -> wasmtime::Result<Component> {
        match self.path() {
            // SAFETY: the file at `path` is this sealed memory file (checked by `path`):
            // its bytes carry a valid tag, so an airlock process holding the cache's secret
            // wrote them with `serialize` for this engine fingerprint and content hash, and
            // the seals keep them exactly so for as long as any mapping of them lives.
            #[allow(unsafe_code)]
            Some(path) => unsafe { Component::deserialize_file(engine, path) },
            None => {
                let mut memory = &self.memory;
                memory.rewind()?;
                let mut bytes = Vec::new();
                memory.read_to_end(&mut bytes)?;
                // SAFETY: the same sealed bytes, read back into memory that is ours alone.
                #[allow(unsafe_code)]
                unsafe {
                    Component::deserialize(engine, &bytes)
                }
            }
        }
    }

    /// The memory file's `/proc/self/fd` name, when that name reaches this very file.
    fn path(&self) -> Option<PathBuf> {
        let path = PathBuf::from(format!("/proc/self/fd/{}", self.memory.as_raw_fd()));
        let named = rustix::fs::stat(&path).ok()?;
        let own = rustix::fs::fstat(&self.memory).ok()?;
        (named.st_dev == own.st_dev && named.st_ino == own.st_ino).then_some(path)
    }

    /// The seals on the memory file (for tests).
    #[cfg(test)]
    pub(super) fn seals(&self) -> SealFlags {
        rustix::fs::fcntl_get_seals(&self.memory).unwrap_or(SealFlags::empty())
    }
}

#[cfg(test)]
#[path = "sealed_tests.rs"]
mod tests;
