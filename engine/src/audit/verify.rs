//! Checking a trail against its session file: every record's `seq` follows the one before,
//! every `prev` is the sha-256 of the line before it (the first: of the session's header
//! line), and every head the session file holds names a record of the trail with that hash.
//! The first thing that does not hold is named by its line and `seq`.
//!
//! A line the trail ends with that has no `\n` is a record a crash cut short: nothing
//! chains to it, so it is left out and said. Records after the session file's last head
//! were written after it (a crash between a record and its head, or a session still
//! running): they chain, but nothing outside the trail vouches for them yet.

use std::path::Path;

use super::record::{self, Chained};
use super::{AuditError, Head, header_line, trail_path};

/// A whole chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Whole {
    pub records: u64,
    /// The session file's last head.
    pub head: Head,
    /// Records written after that head.
    pub after_head: u64,
    /// A partial last line was left out.
    pub partial_tail: bool,
}

/// The first record where the chain breaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Broken {
    /// The trail's line (from 1); 0 when the break is in the session file's heads.
    pub line: usize,
    pub seq: Option<u64>,
    pub what: String,
}

impl std::fmt::Display for Broken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.line, self.seq) {
            (0, _) => write!(f, "{}", self.what),
            (line, Some(seq)) => write!(f, "record seq {seq} (line {line}): {}", self.what),
            (line, None) => write!(f, "line {line}: {}", self.what),
        }
    }
}

/// One line of the trail.
struct Link {
    line: usize,
    hash: String,
    chained: Option<Chained>,
    parse_error: String,
}

/// Walks the trail of the session file `session`.
pub fn verify(session: &Path) -> Result<Result<Whole, Broken>, AuditError> {
    let trail = trail_path(session);
    let header = header_line(session)?;
    let heads = match heads(session)? {
        Ok(heads) => heads,
        Err(broken) => return Ok(Err(broken)),
    };
    let bytes = match std::fs::read(&trail) {
        Ok(bytes) => bytes,
        // A session that wrote heads kept a trail: its absence is a removal, not a setting.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !heads.is_empty() => {
            let what = format!("the trail file was removed: the session file holds {} head(s) of it", heads.len());
            return Ok(Err(Broken { line: 0, seq: None, what }));
        }
        Err(e) => return Err(AuditError::Read { path: trail, reason: e.to_string() }),
    };
    Ok(walk(&header, &bytes, &heads))
}

/// The chain of `trail` (a trail's bytes) after `header` (the session's first line), with
/// the session file's `heads` in their order.
pub fn walk(header: &[u8], trail: &[u8], heads: &[Head]) -> Result<Whole, Broken> {
    let partial_tail = !trail.is_empty() && trail.last() != Some(&b'\n');
    let mut lines: Vec<&[u8]> = trail.split(|&b| b == b'\n').collect();
    // The piece after the last `\n`: empty, or a record a crash cut short.
    lines.pop();
    let links: Vec<Link> = lines
        .iter()
        .enumerate()
        .map(|(at, bytes)| {
            let (chained, parse_error) = match serde_json::from_slice::<Chained>(bytes) {
                Ok(chained) => (Some(chained), String::new()),
                Err(e) => (None, e.to_string()),
            };
            Link { line: at + 1, hash: record::digest(bytes), chained, parse_error }
        })
        .collect();
    let mut prev = record::digest(header);
    for (at, link) in links.iter().enumerate() {
        let expected = at as u64;
        let Some(chained) = &link.chained else {
            return Err(Broken {
                line: link.line,
                seq: None,
                what: format!("not a record ({}): its bytes were changed", link.parse_error),
            });
        };
        if chained.seq != expected {
            let later = links[at + 1..].iter().any(|l| l.chained.as_ref().is_some_and(|c| c.seq == expected));
            let what = if later || chained.seq < expected {
                format!("records out of order: seq {} stands where seq {expected} should", chained.seq)
            } else {
                format!("a gap: seq {expected} is missing before it (records were removed)")
            };
            return Err(Broken { line: link.line, seq: Some(chained.seq), what });
        }
        if chained.prev != prev {
            return Err(match at.checked_sub(1) {
                Some(before) => Broken {
                    line: links[before].line,
                    seq: Some(expected - 1),
                    what: format!(
                        "its bytes were changed: the next record (line {}) chains to another hash",
                        link.line
                    ),
                },
                None => Broken {
                    line: link.line,
                    seq: Some(0),
                    what: "it does not chain to this session file's header line (another session's trail, or \
                           its bytes were changed)"
                        .into(),
                },
            });
        }
        prev = link.hash.clone();
    }
    let Some(last) = links.last() else {
        return Err(Broken { line: 0, seq: None, what: "the trail holds no record".into() });
    };
    let Some(head) = heads.last() else {
        return Err(Broken {
            line: 0,
            seq: None,
            what: "the session file holds no head of the trail (it was removed, or the trail is not this session's)"
                .into(),
        });
    };
    let records = links.len() as u64;
    for head in heads {
        let Some(link) = usize::try_from(head.seq).ok().and_then(|at| links.get(at)) else {
            return Err(Broken {
                line: last.line,
                seq: Some(records - 1),
                what: format!(
                    "the tail was removed: the session file's head names seq {}, the trail ends at seq {}",
                    head.seq,
                    records - 1
                ),
            });
        };
        if link.hash != head.hash {
            return Err(Broken {
                line: link.line,
                seq: Some(head.seq),
                what: "its bytes were changed: it does not match the head in the session file".into(),
            });
        }
    }
    Ok(Whole { records, head: head.clone(), after_head: records - 1 - head.seq, partial_tail })
}

/// Every chain head of the session file, in its order; broken when a head line other than
/// a last line a crash cut short does not parse (a mangled head hides the tail it vouched
/// for).
pub fn heads(session: &Path) -> Result<Result<Vec<Head>, Broken>, AuditError> {
    let bytes =
        std::fs::read(session).map_err(|e| AuditError::Read { path: session.to_path_buf(), reason: e.to_string() })?;
    let lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    let mut heads = Vec::new();
    for (at, line) in lines.iter().enumerate().filter(|(_, line)| line.starts_with(br#"{"type":"audit""#)) {
        match serde_json::from_slice::<HeadLine>(line) {
            Ok(head) => heads.push(Head { seq: head.seq, hash: head.head }),
            // The piece after the last newline: a head a crash cut short.
            Err(_) if at + 1 == lines.len() => {}
            Err(e) => {
                let what = format!("line {} of the session file is a head that does not parse ({e})", at + 1);
                return Ok(Err(Broken { line: 0, seq: None, what }));
            }
        }
    }
    Ok(Ok(heads))
}

#[derive(serde::Deserialize)]
struct HeadLine {
    seq: u64,
    head: String,
}
