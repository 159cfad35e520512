//! Workspaces made to measure the checkpoint store on (issue 29): a seeded, reproducible
//! tree of source-like text files in nested folders, a `.gitignore`d `target/`, and files
//! whose content carries its own checksum, so a test can tell a whole file from a torn one.
//!
//! Everything is derived from a seed ([`Rng`]), so a failing run can be replayed with the
//! seed it printed.

use std::path::{Path, PathBuf};

/// A small, fast, seeded generator (SplitMix64): reproducible trees and kill points. Not for
/// anything that needs unpredictability.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `low..high` (`high > low`).
    pub fn range(&mut self, low: u64, high: u64) -> u64 {
        low + self.next_u64() % (high - low)
    }

    /// A size between `low` and `high`, log-uniform: many small files, some large, as in a
    /// source tree.
    pub fn log_size(&mut self, low: u64, high: u64) -> u64 {
        let unit = (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        let (a, b) = ((low as f64).ln(), (high as f64).ln());
        (a + unit * (b - a)).exp() as u64
    }
}

/// A seed from `AIRLOCK_TEST_SEED`, or one from the clock (printed by the caller, so a
/// failure can be replayed).
pub fn seed_from_env() -> u64 {
    std::env::var("AIRLOCK_TEST_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(29)
    })
}

/// The shape of a generated workspace.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    /// Files outside `target/`.
    pub files: usize,
    /// Folders holding them (leaves; their parents come on top).
    pub folders: usize,
    /// Files under the ignored `target/`.
    pub ignored: usize,
    /// Sizes, log-uniform between these.
    pub min_bytes: u64,
    pub max_bytes: u64,
}

impl Shape {
    /// The bench's tree: 20,000 files in 1,000 folders, 200 B–20 KB, and 3,000 files under
    /// `target/`.
    pub const BENCH: Shape = Shape { files: 20_000, folders: 1_000, ignored: 3_000, min_bytes: 200, max_bytes: 20_000 };
}

/// A generated workspace: where it is and its files (relative paths, outside `target/`).
#[derive(Debug)]
pub struct Tree {
    pub root: PathBuf,
    pub files: Vec<PathBuf>,
}

/// Source-like text of about `bytes` bytes: lines of identifiers and numbers, as compressible
/// as code is.
pub fn text(rng: &mut Rng, bytes: u64) -> Vec<u8> {
    const WORDS: [&str; 16] = [
        "let", "fn", "self", "value", "return", "match", "Some", "None", "path", "index", "config", "error", "store",
        "entry", "=>", "struct",
    ];
    let mut out = Vec::with_capacity(bytes as usize + 64);
    while (out.len() as u64) < bytes {
        let indent = (rng.range(0, 4) * 4) as usize;
        out.extend(std::iter::repeat_n(b' ', indent));
        for _ in 0..rng.range(3, 9) {
            out.extend_from_slice(WORDS[rng.range(0, 16) as usize].as_bytes());
            out.push(b' ');
        }
        out.extend_from_slice(format!("{};\n", rng.range(0, 100_000)).as_bytes());
    }
    out.truncate(bytes as usize);
    out
}

/// Writes a tree of `shape` under `root` (which must exist): `.gitignore` naming `target/`,
/// leaf folders three levels deep (`d00/d00/d00`), files spread over them.
pub fn generate(root: &Path, shape: Shape, seed: u64) -> std::io::Result<Tree> {
    let mut rng = Rng::new(seed);
    std::fs::write(root.join(".gitignore"), "/target/\n")?;
    let fan = (shape.folders as f64).cbrt().ceil() as usize;
    let leaves: Vec<PathBuf> = (0..shape.folders)
        .map(|i| PathBuf::from(format!("d{:02}/d{:02}/d{:02}", i / (fan * fan), (i / fan) % fan, i % fan)))
        .collect();
    for leaf in &leaves {
        std::fs::create_dir_all(root.join(leaf))?;
    }
    let mut files = Vec::with_capacity(shape.files);
    for i in 0..shape.files {
        let relative = leaves[i % leaves.len()].join(format!("f{i:05}.rs"));
        let size = rng.log_size(shape.min_bytes, shape.max_bytes);
        std::fs::write(root.join(&relative), text(&mut rng, size))?;
        files.push(relative);
    }
    for i in 0..shape.ignored {
        let folder = root.join(format!("target/debug/deps/g{:02}", i % 50));
        std::fs::create_dir_all(&folder)?;
        let size = rng.log_size(shape.min_bytes, shape.max_bytes);
        std::fs::write(folder.join(format!("o{i:05}.o")), text(&mut rng, size))?;
    }
    Ok(Tree { root: root.to_path_buf(), files })
}

/// A file that says whether it is whole: a header line `v<version> <FNV-1a checksum>
/// <length>` then a body. [`check`] parses it back.
pub fn checked(version: u32, body: &[u8]) -> Vec<u8> {
    let mut out = format!("v{version} {:016x} {}\n", fnv(body), body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

/// The version a [`checked`] file holds, or why it is not whole.
pub fn check(content: &[u8]) -> Result<u32, String> {
    let newline = content.iter().position(|&b| b == b'\n').ok_or("no header line")?;
    let header = std::str::from_utf8(&content[..newline]).map_err(|_| "header not UTF-8")?;
    let mut parts = header.split(' ');
    let version = parts.next().and_then(|v| v.strip_prefix('v')).and_then(|v| v.parse().ok()).ok_or("no version")?;
    let sum = parts.next().and_then(|s| u64::from_str_radix(s, 16).ok()).ok_or("no checksum")?;
    let length: usize = parts.next().and_then(|l| l.parse().ok()).ok_or("no length")?;
    let body = &content[newline + 1..];
    if body.len() != length {
        return Err(format!("body of {} bytes, header says {length}", body.len()));
    }
    if fnv(body) != sum {
        return Err("checksum differs".into());
    }
    Ok(version)
}

/// FNV-1a, 64 bits: enough to tell a torn or mixed body from a whole one.
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// Bytes on disk under `path` (allocated blocks, as `du` counts them; a sparse file counts
/// what it allocated).
pub fn disk_usage(path: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    let Ok(meta) = std::fs::symlink_metadata(path) else { return 0 };
    let own = meta.blocks() * 512;
    if !meta.is_dir() {
        return own;
    }
    own + std::fs::read_dir(path).into_iter().flatten().flatten().map(|e| disk_usage(&e.path())).sum::<u64>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checked_file_tells_whole_from_torn() {
        let file = checked(2, b"hello world");
        assert_eq!(check(&file), Ok(2));
        assert!(check(&file[..file.len() - 1]).is_err(), "a truncation");
        let mut mixed = file.clone();
        let last = mixed.len() - 1;
        mixed[last] = b'x';
        assert!(check(&mixed).is_err(), "a mix");
        assert!(check(b"").is_err());
    }

    #[test]
    fn a_tree_is_what_its_seed_says() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let shape = Shape { files: 50, folders: 8, ignored: 5, min_bytes: 10, max_bytes: 100 };
        let ta = generate(a.path(), shape, 7).unwrap();
        generate(b.path(), shape, 7).unwrap();
        assert_eq!(ta.files.len(), 50);
        for file in &ta.files {
            assert_eq!(std::fs::read(a.path().join(file)).unwrap(), std::fs::read(b.path().join(file)).unwrap());
        }
        assert_eq!(std::fs::read_dir(a.path().join("target/debug/deps")).unwrap().count(), 5);
    }
}
