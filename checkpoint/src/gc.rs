//! Listing, space used and collection. A collection drops the records retention lets go
//! (older than `max_age`, then the oldest while the store is over `max_bytes`; never one in
//! `keep`), then removes every object no remaining record reaches (marked from the records
//! through their trees).
//!
//! Invariants:
//! - Records go before objects, so a kill mid-collection leaves records whose objects are all
//!   there, and objects no record names (removed by the next collection).
//! - The stat index names objects, so a collection that removes any removes the index too.
//! - A record that cannot be read (damaged, of a newer version, or a read that failed) is
//!   never collected on a guess, nor are its objects: the collection stops before removing
//!   anything, with an error naming the record.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;
use std::time::SystemTime;

use crate::objects::{Hash, parse_hash};
use crate::record::{Loaded, Node};
use crate::store::{Inner, store_error};
use crate::tree::Kind;
use crate::{Checkpoint, CheckpointError, CheckpointId, GcReport, Retention};

/// Every record, oldest first. A record that cannot be read (damaged, of a newer version, or
/// a read that failed) is skipped with a warning, or with `strict` stops the answer with
/// its error (which names it).
pub(crate) fn records(inner: &Inner, strict: bool) -> Result<Vec<Arc<Loaded>>, CheckpointError> {
    let refs = inner.dir.join("refs");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&refs).map_err(|e| store_error(&refs, e))? {
        let entry = entry.map_err(|e| store_error(&refs, e))?;
        let Some(name) = entry.file_name().to_str().map(str::to_owned) else { continue };
        match inner.load(&CheckpointId(name)) {
            Ok(loaded) => out.push(loaded),
            // Not a record's name, or removed since it was listed.
            Err(CheckpointError::Unknown(_)) => {}
            Err(e) if strict => return Err(e),
            Err(e) => tracing::warn!("{e}"),
        }
    }
    out.sort_by(|a, b| a.checkpoint.created.cmp(&b.checkpoint.created).then(a.checkpoint.id.cmp(&b.checkpoint.id)));
    Ok(out)
}

pub(crate) fn list(inner: &Inner) -> Result<Vec<Checkpoint>, CheckpointError> {
    Ok(records(inner, false)?.into_iter().map(|l| l.checkpoint.clone()).collect())
}

/// The size of every object, by hash.
fn object_sizes(inner: &Inner) -> HashMap<Hash, u64> {
    let mut sizes = HashMap::new();
    let Ok(folders) = std::fs::read_dir(inner.objects.dir()) else { return sizes };
    for folder in folders.flatten() {
        let prefix = folder.file_name();
        let Ok(files) = std::fs::read_dir(folder.path()) else { continue };
        for file in files.flatten() {
            let name = format!("{}{}", prefix.to_string_lossy(), file.file_name().to_string_lossy());
            if let (Some(hash), Ok(meta)) = (parse_hash(&name), file.metadata()) {
                sizes.insert(hash, meta.len());
            }
        }
    }
    sizes
}

fn file_size(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}

pub(crate) fn usage(inner: &Inner) -> Result<u64, CheckpointError> {
    let objects: u64 = object_sizes(inner).values().sum();
    let refs = inner.dir.join("refs");
    let records: u64 = std::fs::read_dir(&refs)
        .map_err(|e| store_error(&refs, e))?
        .flatten()
        .filter_map(|e| e.metadata().ok())
        .map(|m| m.len())
        .sum();
    Ok(objects + records + file_size(&inner.dir.join("index")))
}

/// Adds every object `loaded` reaches to `marks`.
fn mark(inner: &Inner, loaded: &Loaded, marks: &mut HashSet<Hash>) -> Result<(), CheckpointError> {
    for root in &loaded.roots {
        match &root.node {
            Node::Tree(hash) => mark_tree(inner, hash, marks)?,
            Node::Entry(entry) => {
                marks.extend(parse_hash(&entry.hash));
            }
            Node::Absent | Node::LeftOut => {}
        }
    }
    Ok(())
}

fn mark_tree(inner: &Inner, hash: &Hash, marks: &mut HashSet<Hash>) -> Result<(), CheckpointError> {
    if !marks.insert(*hash) {
        return Ok(());
    }
    for entry in &inner.tree(hash)?.entries {
        match entry.kind {
            Kind::Dir => mark_tree(inner, &entry.hash, marks)?,
            Kind::File | Kind::Symlink => {
                marks.insert(entry.hash);
            }
        }
    }
    Ok(())
}

/// Bytes the records `kept` use with the objects they reach.
fn kept_bytes(inner: &Inner, kept: &[&Loaded], sizes: &HashMap<Hash, u64>) -> Result<u64, CheckpointError> {
    let mut marks = HashSet::new();
    for loaded in kept {
        mark(inner, loaded, &mut marks)?;
    }
    let objects: u64 = marks.iter().filter_map(|h| sizes.get(h)).sum();
    Ok(objects + kept.iter().map(|l| l.bytes).sum::<u64>())
}

pub(crate) fn gc(inner: &Inner, retention: &Retention, keep: &[CheckpointId]) -> Result<GcReport, CheckpointError> {
    let _lock = inner.lock()?;
    let before = usage(inner)?;
    // A record this store cannot read may still name objects (a newer airlock's, or one a
    // failed read hid): collecting without it would remove what it needs.
    let all = records(inner, true)?;
    let now = SystemTime::now();
    let kept_always = |l: &Loaded| keep.contains(&l.checkpoint.id);
    let young = |l: &Loaded| now.duration_since(l.checkpoint.created).map_or(true, |age| age <= retention.max_age);
    let mut candidates: Vec<&Loaded> = all.iter().map(|l| &**l).filter(|l| young(l) || kept_always(l)).collect();
    let sizes = object_sizes(inner);
    // Dropping the oldest first: the kept set is `keep` plus the newest `n` others, and its
    // size only shrinks as `n` does, so the largest `n` that fits is found by bisection.
    let (pinned, others): (Vec<&Loaded>, Vec<&Loaded>) = candidates.drain(..).partition(|l| kept_always(l));
    let fits = |n: usize| -> Result<bool, CheckpointError> {
        let kept: Vec<&Loaded> = pinned.iter().copied().chain(others[others.len() - n..].iter().copied()).collect();
        Ok(kept_bytes(inner, &kept, &sizes)? <= retention.max_bytes)
    };
    let newest = if fits(others.len())? {
        others.len()
    } else {
        let (mut low, mut high) = (0, others.len());
        while low + 1 < high {
            let middle = (low + high) / 2;
            if fits(middle)? { low = middle } else { high = middle }
        }
        low
    };
    let kept: Vec<&Loaded> = pinned.iter().copied().chain(others[others.len() - newest..].iter().copied()).collect();
    let kept_ids: HashSet<&CheckpointId> = kept.iter().map(|l| &l.checkpoint.id).collect();
    let mut report = GcReport::default();
    for loaded in all.iter().filter(|l| !kept_ids.contains(&l.checkpoint.id)) {
        inner.records.lock().unwrap_or_else(std::sync::PoisonError::into_inner).remove(&loaded.checkpoint.id);
        let path = inner.dir.join("refs").join(&loaded.checkpoint.id.0);
        std::fs::remove_file(&path).map_err(|e| store_error(&path, e))?;
        report.checkpoints_removed += 1;
    }
    let mut marks = HashSet::new();
    for loaded in &kept {
        mark(inner, loaded, &mut marks)?;
    }
    let mut removed_any = false;
    for hash in sizes.keys().filter(|h| !marks.contains(*h)) {
        let path = inner.objects.path(hash);
        std::fs::remove_file(&path).map_err(|e| store_error(&path, e))?;
        removed_any = true;
    }
    if removed_any {
        let index = inner.dir.join("index");
        let _ = std::fs::remove_file(&index);
        let mut memory = inner.memory();
        memory.index = None;
        memory.known.clear();
    }
    let after = usage(inner)?;
    report.bytes_freed = before.saturating_sub(after);
    report.bytes_kept = after;
    Ok(report)
}
