//! The redirections each command writes through: its own, and those of the statements around it.

use super::super::*;

fn writes(line: &str) -> Vec<(String, Vec<String>)> {
    let parsed = parse(line).unwrap_or_else(|e| panic!("{line:?}: {e}"));
    parsed.commands.into_iter().map(|c| (c.text, c.writes)).collect()
}

fn w(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

#[test]
fn a_command_carries_the_redirections_that_write_for_it() {
    assert_eq!(writes("git status > victim"), [("git status".into(), w(&["> victim"]))]);
    assert_eq!(writes("> victim git status"), [("> victim git status".into(), w(&["> victim"]))]);
    assert_eq!(writes("git status >> a 2> b"), [("git status".into(), w(&[">> a", "2> b"]))]);
    assert_eq!(writes("ls &> out; pwd"), [("ls".into(), w(&["&> out"])), ("pwd".into(), w(&[]))]);
    assert_eq!(writes("ls >| a"), [("ls".into(), w(&[">| a"]))]);
    assert_eq!(
        writes("{ ls; git status; } > out"),
        [("ls".into(), w(&["> out"])), ("git status".into(), w(&["> out"]))]
    );
    assert_eq!(writes("while true; do ls; done > out")[1], ("ls".into(), w(&["> out"])));
    assert_eq!(writes("(cd x && ls) >> log")[1], ("ls".into(), w(&[">> log"])));
    // A script a shell runs writes where the shell writes.
    assert_eq!(writes("bash -c 'git status' > out")[1], ("git status".into(), w(&["> out"])));
    assert_eq!(writes("sudo git status > out")[1], ("git status".into(), w(&["> out"])));
}

#[test]
fn reads_descriptors_devices_and_substitutions_write_nothing() {
    assert_eq!(writes("ls 2>&1 >&2 < in"), [("ls".into(), w(&[]))]);
    assert_eq!(writes("ls > /dev/null 2> /dev/stderr"), [("ls".into(), w(&[]))]);
    assert_eq!(writes("cat <<< hi"), [("cat <<< hi".into(), w(&[]))]);
    assert_eq!(writes("ls > >(cat)")[0], ("ls".into(), w(&[])));
    // The command inside a substitution writes to it, not to the redirection around its command.
    assert_eq!(writes("echo $(ls) > out"), [("echo $(ls)".into(), w(&["> out"])), ("ls".into(), w(&[]))]);
}

#[test]
fn a_write_stops_a_prefix_from_covering_the_command() {
    let parsed = parse("git status > victim").unwrap_or_else(|e| panic!("{e}"));
    assert!(!parsed.commands[0].covered_by("git status"));
    assert!(!parsed.commands[0].covered_by("git"));
    assert_eq!(parsed.commands[0].beyond_its_name().as_deref(), Some("`> victim` writes a file"));
    assert!(
        parse("git status > /dev/null 2>&1").unwrap_or_else(|e| panic!("{e}")).commands[0].covered_by("git status")
    );
}
