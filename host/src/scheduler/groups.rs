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
mod tests {
    use super::*;

    fn trees(paths: &[&str]) -> Reach {
        Reach::Trees(paths.iter().map(PathBuf::from).collect())
    }

    #[test]
    fn mutating_calls_that_may_touch_one_file_never_share_a_group() {
        let calls = vec![
            ("read a", true, Reach::ReadOnly),
            ("edit /w", true, trees(&["/w"])),
            ("read b", true, Reach::ReadOnly),
            // Same folder, or one inside the other: the trees overlap.
            ("edit /w again", true, trees(&["/w"])),
            ("edit /w/sub", true, trees(&["/w/sub"])),
            // Disjoint trees run together.
            ("edit /v", true, trees(&["/v"])),
            ("edit /w/subway", true, trees(&["/w/subway"])),
            // A write through a grant is alone among writes, not among reads.
            ("grant write", true, Reach::Unknown),
            ("read c", true, Reach::ReadOnly),
            ("edit /u", true, trees(&["/u"])),
            // Nothing writable at all is disjoint from everything but unknown reaches.
            ("edit nothing", true, trees(&[])),
            ("not parallel-safe", false, Reach::ReadOnly),
            ("read d", true, Reach::ReadOnly),
        ];
        assert_eq!(
            groups(calls),
            vec![
                vec!["read a", "edit /w", "read b"],
                vec!["edit /w again"],
                vec!["edit /w/sub", "edit /v", "edit /w/subway"],
                vec!["grant write", "read c"],
                vec!["edit /u", "edit nothing"],
                vec!["not parallel-safe"],
                vec!["read d"],
            ]
        );
    }
}
