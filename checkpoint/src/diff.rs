//! What differs between two checkpoints, and by how many lines.
//!
//! Trees are compared top down and a subtree whose hash is the same on both sides is skipped
//! without being read, so comparing two checkpoints of a large, mostly unchanged tree reads
//! only the trees on the paths of what changed.
//!
//! Invariant: a path that either checkpoint left out, or that the second does not cover, is
//! never reported as a change (neither checkpoint can say what was there).

use std::path::{Path, PathBuf};
use std::time::Duration;

use similar::{ChangeTag, TextDiff};

use crate::record::{Loaded, Node};
use crate::store::Inner;
use crate::{Change, CheckpointError, Entry, EntryKind, LineCounts};

/// Files larger than this on either side count as binary for line counts.
const MAX_TEXT_BYTES: u64 = 1 << 20;

/// How long a line diff may take before it settles for a coarser answer.
const DIFF_TIMEOUT: Duration = Duration::from_millis(500);

pub(crate) fn changes(inner: &Inner, from: &Loaded, to: &Loaded) -> Result<Vec<Change>, CheckpointError> {
    let mut out = Vec::new();
    for root in &from.roots {
        if let Some(node) = inner.node_at(to, &root.path)? {
            compare(inner, &root.path, &root.node, &node, &mut out)?;
            continue;
        }
        // `to` covers only parts of this root (its roots lie inside it).
        for part in to.roots.iter().filter(|r| r.path.starts_with(&root.path)) {
            if let Some(before) = inner.node_at(from, &part.path)? {
                compare(inner, &part.path, &before, &part.node, &mut out)?;
            }
        }
    }
    let left_out: Vec<&Path> =
        from.checkpoint.left_out.iter().chain(&to.checkpoint.left_out).map(|l| l.path.as_path()).collect();
    out.retain(|change| !left_out.iter().any(|l| change.path.starts_with(l)));
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out.dedup_by(|a, b| a.path == b.path);
    Ok(out)
}

/// Appends the files that differ between `before` and `after` at `path`.
fn compare(
    inner: &Inner,
    path: &Path,
    before: &Node,
    after: &Node,
    out: &mut Vec<Change>,
) -> Result<(), CheckpointError> {
    if before == after {
        return Ok(());
    }
    match (before, after) {
        (Node::LeftOut, _) | (_, Node::LeftOut) => {}
        (Node::Tree(a), Node::Tree(b)) => {
            let (a, b) = (inner.tree(a)?, inner.tree(b)?);
            let (mut i, mut j) = (0, 0);
            while i < a.entries.len() || j < b.entries.len() {
                let order = match (a.entries.get(i), b.entries.get(j)) {
                    (Some(x), Some(y)) => x.name.as_encoded_bytes().cmp(y.name.as_encoded_bytes()),
                    (Some(_), None) => std::cmp::Ordering::Less,
                    _ => std::cmp::Ordering::Greater,
                };
                let (name, left, right) = match order {
                    std::cmp::Ordering::Less => {
                        i += 1;
                        (&a.entries[i - 1].name, child(&a.entries[i - 1]), Node::Absent)
                    }
                    std::cmp::Ordering::Greater => {
                        j += 1;
                        (&b.entries[j - 1].name, Node::Absent, child(&b.entries[j - 1]))
                    }
                    std::cmp::Ordering::Equal => {
                        i += 1;
                        j += 1;
                        (&a.entries[i - 1].name, child(&a.entries[i - 1]), child(&b.entries[j - 1]))
                    }
                };
                compare(inner, &path.join(name), &left, &right, out)?;
            }
        }
        (Node::Tree(_), other) | (other, Node::Tree(_)) => {
            let before_is_tree = matches!(before, Node::Tree(_));
            let tree = if before_is_tree { before } else { after };
            let mut files = Vec::new();
            all_files(inner, path, tree, &mut files)?;
            for (file, entry) in files {
                out.push(if before_is_tree {
                    Change { path: file, before: Some(entry), after: None }
                } else {
                    Change { path: file, before: None, after: Some(entry) }
                });
            }
            if let Node::Entry(entry) = other {
                out.push(if before_is_tree {
                    Change { path: path.to_path_buf(), before: None, after: Some(entry.clone()) }
                } else {
                    Change { path: path.to_path_buf(), before: Some(entry.clone()), after: None }
                });
            }
        }
        (a, b) => out.push(Change { path: path.to_path_buf(), before: entry_of(a), after: entry_of(b) }),
    }
    Ok(())
}

fn child(entry: &crate::tree::TreeEntry) -> Node {
    match entry.entry() {
        Some(file) => Node::Entry(file),
        None => Node::Tree(entry.hash),
    }
}

fn entry_of(node: &Node) -> Option<Entry> {
    match node {
        Node::Entry(entry) => Some(entry.clone()),
        _ => None,
    }
}

/// Every file under `node` (at `path`).
fn all_files(inner: &Inner, path: &Path, node: &Node, out: &mut Vec<(PathBuf, Entry)>) -> Result<(), CheckpointError> {
    match node {
        Node::Entry(entry) => out.push((path.to_path_buf(), entry.clone())),
        Node::Tree(hash) => {
            for entry in &inner.tree(hash)?.entries {
                all_files(inner, &path.join(&entry.name), &child(entry), out)?;
            }
        }
        Node::Absent | Node::LeftOut => {}
    }
    Ok(())
}

/// Lines added and removed by `change`.
pub(crate) fn line_counts(inner: &Inner, change: &Change) -> Result<LineCounts, CheckpointError> {
    let side = |entry: &Option<Entry>| -> Result<Option<String>, CheckpointError> {
        let Some(entry) = entry else { return Ok(Some(String::new())) };
        if entry.kind != EntryKind::File || entry.size > MAX_TEXT_BYTES {
            return Ok(None);
        }
        let bytes = crate::read_entry(inner, entry)?;
        Ok(String::from_utf8(bytes).ok().filter(|text| !text.contains('\0')))
    };
    let (Some(before), Some(after)) = (side(&change.before)?, side(&change.after)?) else {
        return Ok(LineCounts { added: 0, removed: 0, binary: true });
    };
    let diff = TextDiff::configure().timeout(DIFF_TIMEOUT).diff_lines(&before, &after);
    let mut counts = LineCounts::default();
    for change in diff.iter_all_changes() {
        match change.tag() {
            ChangeTag::Insert => counts.added += 1,
            ChangeTag::Delete => counts.removed += 1,
            ChangeTag::Equal => {}
        }
    }
    Ok(counts)
}
