//! Directory listings a guest reads, without a `stat` per entry. wasmtime-wasi's own
//! `descriptor.read-directory` collects the whole directory up front and asks the kernel for
//! each entry's metadata, although `getdents64` already said its type: on a tree of 50,000
//! files that is 50,000 `statx` calls for nothing (BENCHMARKS.md, search). The linker's
//! `read-directory`, `directory-entry-stream.read-directory-entry` and the stream resource
//! itself are shadowed here by a stream that reads the directory in `getdents64` batches as
//! the guest asks and takes each entry's type from `d_type`.
//!
//! Invariants, the same confinement as wasmtime-wasi's: the directory read is the one behind
//! a descriptor the guest holds (a preopen or a directory opened beneath one), reopened as
//! `.` relative to it, so nothing outside it is reached; `.` and `..` never come back, and the
//! kernel never gives a name holding `/`; an entry's type is the entry's own (a symbolic link
//! is reported as one, never followed), and where the file system gives no type
//! (`DT_UNKNOWN`) it comes from a `statx` of that single name relative to the directory,
//! without following links. Memory stays bounded whatever the directory's size: the stream
//! holds one `getdents64` buffer (rustix caps it), never the whole listing. A name that is not
//! UTF-8 is an `illegal-byte-sequence` error for that entry, as upstream.

use std::ffi::CStr;
use std::os::fd::AsFd;

use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use wasmtime::StoreContextMut;
use wasmtime::component::{Linker, Resource, ResourceType};
use wasmtime_wasi::filesystem::WasiFilesystemView;
use wasmtime_wasi::p2::bindings::filesystem::types::{Descriptor, DescriptorType, DirectoryEntry, ErrorCode};

use super::state::CallState;

/// The interface whose functions are shadowed (as in [`super::metered`]).
const TYPES: &str = "wasi:filesystem/types@0.2.12";

/// One open listing: the directory reopened for reading, and rustix's bounded buffer.
pub struct EntryStream {
    dir: rustix::fs::Dir,
}

impl EntryStream {
    /// Opens a listing of `dir` (an open directory): `.` reopened relative to it for
    /// reading, so the listing has its own position whatever `dir` was opened for.
    pub fn open(dir: &impl AsFd) -> Result<Self, ErrorCode> {
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let fd = rustix::fs::openat(dir, c".", flags, Mode::empty()).map_err(errno_code)?;
        Ok(Self { dir: rustix::fs::Dir::new(fd).map_err(errno_code)? })
    }

    /// The next entry, `None` at the end.
    pub fn next_entry(&mut self) -> Result<Option<DirectoryEntry>, ErrorCode> {
        loop {
            let entry = match self.dir.read() {
                None => return Ok(None),
                Some(entry) => entry.map_err(errno_code)?,
            };
            let name = entry.file_name();
            if matches!(name.to_bytes(), b"." | b"..") {
                continue;
            }
            let type_ = match entry.file_type() {
                FileType::Unknown => self.type_of(name)?,
                known => descriptor_type(known),
            };
            let name = name.to_str().map_err(|_| ErrorCode::IllegalByteSequence)?.to_string();
            return Ok(Some(DirectoryEntry { type_, name }));
        }
    }

    /// The type of the entry `name` (one name, no `/`) of this directory, from a `statx`
    /// that does not follow a link.
    fn type_of(&self, name: &CStr) -> Result<DescriptorType, ErrorCode> {
        let fd = self.dir.fd().map_err(errno_code)?;
        let stat = rustix::fs::statat(fd, name, AtFlags::SYMLINK_NOFOLLOW).map_err(errno_code)?;
        Ok(descriptor_type(FileType::from_raw_mode(stat.st_mode)))
    }
}

/// The WASI type of a kernel file type.
fn descriptor_type(kind: FileType) -> DescriptorType {
    match kind {
        FileType::RegularFile => DescriptorType::RegularFile,
        FileType::Directory => DescriptorType::Directory,
        FileType::Symlink => DescriptorType::SymbolicLink,
        FileType::Fifo => DescriptorType::Fifo,
        FileType::Socket => DescriptorType::Socket,
        FileType::CharacterDevice => DescriptorType::CharacterDevice,
        FileType::BlockDevice => DescriptorType::BlockDevice,
        FileType::Unknown => DescriptorType::Unknown,
    }
}

/// The WASI error code of an OS error, as wasmtime-wasi maps it.
fn errno_code(errno: rustix::io::Errno) -> ErrorCode {
    ErrorCode::from(&std::io::Error::from(errno))
}

/// Replaces the directory listing of `linker` with [`EntryStream`]s.
pub fn add_to_linker(linker: &mut Linker<CallState>) -> wasmtime::Result<()> {
    linker.allow_shadowing(true);
    let mut types = linker.instance(TYPES)?;
    types.resource(
        "directory-entry-stream",
        ResourceType::host::<EntryStream>(),
        |mut store: StoreContextMut<'_, CallState>, rep| {
            store.data_mut().filesystem().table.delete(Resource::<EntryStream>::new_own(rep))?;
            Ok(())
        },
    )?;
    types.func_wrap(
        "[method]descriptor.read-directory",
        |mut store: StoreContextMut<'_, CallState>, (fd,): (Resource<Descriptor>,)| {
            let view = store.data_mut().filesystem();
            // The store allows blocking its thread (`allow_blocking_current_thread`), as
            // wasmtime-wasi's own file calls do for it.
            let opened = match view.table.get(&fd)? {
                Descriptor::Dir(dir) => EntryStream::open(&*dir.dir),
                Descriptor::File(_) => Err(ErrorCode::NotDirectory),
            };
            Ok((match opened {
                Ok(stream) => Ok(view.table.push(stream)?),
                Err(code) => Err(code),
            },))
        },
    )?;
    types.func_wrap(
        "[method]directory-entry-stream.read-directory-entry",
        |mut store: StoreContextMut<'_, CallState>, (stream,): (Resource<EntryStream>,)| {
            let view = store.data_mut().filesystem();
            Ok((view.table.get_mut(&stream)?.next_entry(),))
        },
    )?;
    Ok(())
}

#[cfg(test)]
#[path = "readdir_tests.rs"]
mod tests;
