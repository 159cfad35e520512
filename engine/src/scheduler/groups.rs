//! Which approved calls of a batch run at the same time. Calls run in the model's order, in
//! consecutive groups; a call joins the group before it only when it and every member are
//! parallel-safe *and* no two mutating calls of the group may touch the same file. The
//! second condition is the host's own, whatever a plugin claims: a mutating call's reach is
//! the folder trees it can write (an edit: the folder of its confirmed file, canonical —
//! so `./x`, `sub/../x` and a link to `x` are one file), and a mutating call that writes
//! through its grant (anywhere the grant allows) or edits a file with other hard links (a
//! name in another folder) shares a group with no other mutating call.
//! Read-only calls reach nothing and run next to anything.

use std::path::PathBuf;

/// What a call may write while it executes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Reach {
    /// Nothing: a read-only kind, whose instance gets no writable folder.
    ReadOnly,
    /// At most these folder trees (canonical paths).
    Trees(Vec<PathBuf>),
    /// Anything its grant allows, or a hard-linked file: never treated as disjoint from
    /// another write.
    Unknown,
}

impl Reach {
    /// Whether two calls of these reaches can never write the same file.
    fn disjoint(&self, other: &Reach) -> bool {
        match (self, other) {
            (Self::ReadOnly, _) | (_, Self::ReadOnly) => true,
            (Self::Unknown, _) | (_, Self::Unknown) => false,
            (Self::Trees(mine), Self::Trees(theirs)) => {
                mine.iter().all(|a| theirs.iter().all(|b| !a.starts_with(b) && !b.starts_with(a)))
            }
        }
    }
}

/// Splits `calls` (each with whether it is parallel-safe, and its reach) into consecutive
/// groups that may run at the same time, keeping their order.
pub(super) fn groups<T>(calls: impl IntoIterator<Item = (T, bool, Reach)>) -> Vec<Vec<T>> {
    let mut groups: Vec<Vec<(T, bool, Reach)>> = Vec::new();
    for (item, parallel, reach) in calls {
        match groups.last_mut() {
            Some(group) if parallel && group.iter().all(|(_, safe, other)| *safe && other.disjoint(&reach)) => {
                group.push((item, parallel, reach))
            }
            _ => groups.push(vec![(item, parallel, reach)]),
        }
    }
    groups.into_iter().map(|group| group.into_iter().map(|(item, _, _)| item).collect()).collect()
}

#[cfg(test)]
#[path = "groups_tests.rs"]
mod tests;
