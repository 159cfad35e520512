//! Folders and files as the walk reads them. On wasm32-wasip2, straight through
//! `wasi:filesystem`: a folder is an open descriptor whose listing gives each entry's type
//! (no per-entry inode lookup, which wasi-libc's `readdir` makes), a subfolder or a file is
//! opened by one name relative to it, and a file is read with `descriptor.read` in large
//! blocks up to the size one `stat` gave (open, stat, one read per block, drop). Natively (the
//! tools' own tests) the same operations go through `std::fs`.

/// What a folder entry is, as its listing says (a link is not followed).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    File,
    Dir,
    Link,
    Other,
}

#[cfg(target_arch = "wasm32")]
pub use wasi::{Dir, Reader};

#[cfg(not(target_arch = "wasm32"))]
pub use native::{Dir, Reader};

#[cfg(target_arch = "wasm32")]
mod wasi {
    use std::io::{self, Read};
    use std::path::{Component, Path};
    use std::time::{Duration, SystemTime};

    use wasip2::filesystem::preopens::get_directories;
    use wasip2::filesystem::types::{Descriptor, DescriptorFlags, DescriptorType, ErrorCode, OpenFlags, PathFlags};

    use super::Kind;

    fn error(code: ErrorCode) -> io::Error {
        io::Error::other(code.to_string())
    }

    /// An open folder.
    pub struct Dir(Descriptor);

    impl Dir {
        /// Opens the folder at `path` (absolute) through the preopen it lies in, the one with
        /// the longest path, as wasi-libc picks it.
        pub fn open_path(path: &Path) -> io::Result<Self> {
            let (preopen, rest) = get_directories()
                .into_iter()
                .filter_map(|(descriptor, root)| {
                    let rest = path.strip_prefix(&root).ok()?.to_path_buf();
                    Some((root.len(), descriptor, rest))
                })
                .max_by_key(|(len, _, _)| *len)
                .map(|(_, descriptor, rest)| (descriptor, rest))
                .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))?;
            if rest.components().all(|c| c == Component::CurDir) {
                return Ok(Self(preopen));
            }
            let rest = rest.to_str().ok_or_else(|| io::Error::from(io::ErrorKind::InvalidInput))?;
            preopen
                .open_at(PathFlags::SYMLINK_FOLLOW, rest, OpenFlags::DIRECTORY, DescriptorFlags::READ)
                .map(Self)
                .map_err(error)
        }

        /// Every entry but `.` and `..`, with its type; an entry whose name is not UTF-8
        /// (which the host cannot hand over) is left out.
        pub fn entries(&self) -> io::Result<Vec<(String, Kind)>> {
            let stream = self.0.read_directory().map_err(error)?;
            let mut entries = Vec::new();
            loop {
                match stream.read_directory_entry() {
                    Ok(Some(entry)) => entries.push((entry.name, kind(entry.type_))),
                    Ok(None) => return Ok(entries),
                    Err(ErrorCode::IllegalByteSequence) => {}
                    Err(code) => return Err(error(code)),
                }
            }
        }

        /// The subfolder `name` (one name, not a link).
        pub fn open_dir(&self, name: &str) -> io::Result<Self> {
            self.0
                .open_at(PathFlags::empty(), name, OpenFlags::DIRECTORY, DescriptorFlags::READ)
                .map(Self)
                .map_err(error)
        }

        /// The regular file `name`, for reading.
        pub fn open_file(&self, name: &str, limit: u64) -> io::Result<Reader> {
            let file =
                self.0.open_at(PathFlags::empty(), name, OpenFlags::empty(), DescriptorFlags::READ).map_err(error)?;
            Reader::new(file, limit)
        }

        /// When the entry `name` (a link itself) was last changed.
        pub fn modified(&self, name: &str) -> Option<SystemTime> {
            let stat = self.0.stat_at(PathFlags::empty(), name).ok()?;
            let time = stat.data_modification_timestamp?;
            SystemTime::UNIX_EPOCH.checked_add(Duration::new(time.seconds, time.nanoseconds))
        }
    }

    fn kind(kind: DescriptorType) -> Kind {
        match kind {
            DescriptorType::RegularFile => Kind::File,
            DescriptorType::Directory => Kind::Dir,
            DescriptorType::SymbolicLink => Kind::Link,
            _ => Kind::Other,
        }
    }

    /// A file read in blocks of the size the reader asks for, up to the size it had when
    /// opened (a file that shrinks ends early, one that grows is read as it was).
    pub struct Reader {
        file: Descriptor,
        offset: u64,
        size: u64,
    }

    impl Reader {
        fn new(file: Descriptor, limit: u64) -> io::Result<Self> {
            let size = file.stat().map_err(error)?.size;
            if size > limit {
                return Err(io::Error::new(io::ErrorKind::FileTooLarge, "over the size limit"));
            }
            Ok(Self { file, offset: 0, size })
        }

        /// Opens the file at `path` (absolute, links followed) through its preopen.
        pub fn open_path(path: &Path, limit: u64) -> io::Result<Self> {
            let parent = path.parent().ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))?;
            let name =
                path.file_name().and_then(|n| n.to_str()).ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))?;
            let dir = Dir::open_path(parent)?;
            let file = dir
                .0
                .open_at(PathFlags::SYMLINK_FOLLOW, name, OpenFlags::empty(), DescriptorFlags::READ)
                .map_err(error)?;
            Self::new(file, limit)
        }
    }

    impl Read for Reader {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let left = self.size.saturating_sub(self.offset);
            if left == 0 || buf.is_empty() {
                return Ok(0);
            }
            let want = left.min(u64::try_from(buf.len()).unwrap_or(u64::MAX));
            let (bytes, _) = self.file.read(want, self.offset).map_err(error)?;
            let n = bytes.len().min(buf.len());
            buf[..n].copy_from_slice(&bytes[..n]);
            if n == 0 {
                // The file shrank since it was opened: it ends here.
                self.size = self.offset;
            }
            self.offset += n as u64;
            Ok(n)
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use std::fs::{self, File};
    use std::io::{self, Read};
    use std::path::{Path, PathBuf};
    use std::time::SystemTime;

    use super::Kind;

    /// A folder, by its path.
    pub struct Dir(PathBuf);

    impl Dir {
        pub fn open_path(path: &Path) -> io::Result<Self> {
            Ok(Self(path.to_path_buf()))
        }

        pub fn entries(&self) -> io::Result<Vec<(String, Kind)>> {
            let mut entries = Vec::new();
            for entry in fs::read_dir(&self.0)? {
                let entry = entry?;
                let Ok(name) = entry.file_name().into_string() else { continue };
                let kind = entry.file_type()?;
                let kind = if kind.is_file() {
                    Kind::File
                } else if kind.is_dir() {
                    Kind::Dir
                } else if kind.is_symlink() {
                    Kind::Link
                } else {
                    Kind::Other
                };
                entries.push((name, kind));
            }
            Ok(entries)
        }

        pub fn open_dir(&self, name: &str) -> io::Result<Self> {
            Ok(Self(self.0.join(name)))
        }

        pub fn open_file(&self, name: &str, limit: u64) -> io::Result<Reader> {
            Reader::open_path(&self.0.join(name), limit)
        }

        pub fn modified(&self, name: &str) -> Option<SystemTime> {
            fs::symlink_metadata(self.0.join(name)).and_then(|m| m.modified()).ok()
        }
    }

    /// A file read through `std::fs`.
    pub struct Reader(File);

    impl Reader {
        pub fn open_path(path: &Path, limit: u64) -> io::Result<Self> {
            let file = File::open(path)?;
            if file.metadata()?.len() > limit {
                return Err(io::Error::new(io::ErrorKind::FileTooLarge, "over the size limit"));
            }
            Ok(Self(file))
        }
    }

    impl Read for Reader {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.0.read(buf)
        }
    }
}
