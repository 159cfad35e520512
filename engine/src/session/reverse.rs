//! Reading a file's lines from its end, so a resume or a listing touches the tail it needs
//! and not the whole file. Blocks grow with the line being assembled, so a very long line
//! costs time linear in its length.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};

const BLOCK: usize = 64 * 1024;

/// The lines of a file, last first, without their `\n`. Empty lines are skipped.
pub(super) struct ReverseLines {
    file: File,
    /// Where the bytes in `buffer` start in the file.
    position: u64,
    /// Bytes from `position` up to the start of the last line returned.
    buffer: Vec<u8>,
}

impl ReverseLines {
    pub(super) fn new(mut file: File) -> io::Result<Self> {
        let position = file.seek(SeekFrom::End(0))?;
        Ok(Self { file, position, buffer: Vec::new() })
    }

    /// The previous line, or `None` at the start of the file.
    pub(super) fn next_line(&mut self) -> io::Result<Option<Vec<u8>>> {
        loop {
            if let Some(newline) = self.buffer.iter().rposition(|&b| b == b'\n') {
                let line = self.buffer.split_off(newline + 1);
                self.buffer.truncate(newline);
                if line.is_empty() {
                    continue;
                }
                return Ok(Some(line));
            }
            if self.position == 0 {
                if self.buffer.is_empty() {
                    return Ok(None);
                }
                return Ok(Some(std::mem::take(&mut self.buffer)));
            }
            let size = BLOCK.max(self.buffer.len()).min(usize::try_from(self.position).unwrap_or(usize::MAX));
            self.position -= size as u64;
            let mut block = vec![0; size + self.buffer.len()];
            self.file.seek(SeekFrom::Start(self.position))?;
            self.file.read_exact(&mut block[..size])?;
            block[size..].copy_from_slice(&self.buffer);
            self.buffer = block;
        }
    }
}

#[cfg(test)]
#[path = "reverse_tests.rs"]
mod tests;
