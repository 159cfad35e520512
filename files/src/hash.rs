//! Content hashes: the hex sha-256 that names a component in the compile cache, pins a
//! plugin in a policy file and ties a trusted folder to its policy file. One function for
//! bytes in memory, one for an open file read as a bounded stream; both give the same text.

use std::fs::File;
use std::io::{self, Read};

use sha2::{Digest, Sha256};

use super::FileError;

/// The hex sha-256 of some bytes.
pub fn content_hash(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// The hex sha-256 of `file`, read as a stream: refused when its size says it holds more
/// than `limit` bytes, and cut (refused) at `limit` bytes whatever the size said.
pub fn sha256_bounded(file: &File, stat: &rustix::fs::Stat, limit: u64) -> Result<String, FileError> {
    let size = u64::try_from(stat.st_size).unwrap_or(0);
    if size > limit {
        return Err(FileError::TooLarge { size, limit });
    }
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 256 * 1024];
    let mut total: u64 = 0;
    let mut reader = file.take(limit + 1);
    loop {
        let read = match reader.read(&mut buffer) {
            Ok(0) => break,
            Ok(read) => read,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(FileError::Io(e)),
        };
        total += read as u64;
        if total > limit {
            return Err(FileError::TooLarge { size: total, limit });
        }
        hasher.update(&buffer[..read]);
    }
    Ok(hex::encode(hasher.finalize()))
}
