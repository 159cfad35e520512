//! The git configuration a line's git commands read, and the settings that switch its programs
//! off; what airlock cannot read whole makes the line uncertain.

use std::path::{Path, PathBuf};

use super::super::*;

fn workspace() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let canonical = dir.path().canonicalize().unwrap_or_else(|e| panic!("{e}"));
    (dir, canonical)
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap_or(path)).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

fn inspect(line: &str, dir: &Path) -> repo::GitSettings {
    repo::inspect(&parse(line).unwrap_or_else(|e| panic!("{line}: {e}")), dir)
}

/// The command-scope settings of a neutralising environment.
fn settings(git: &repo::GitSettings) -> Vec<(String, String)> {
    let env: std::collections::HashMap<String, String> = git.neutralising_env().into_iter().collect();
    let count: usize = env["GIT_CONFIG_COUNT"].parse().unwrap_or(0);
    (0..count)
        .map(|i| (env[&format!("GIT_CONFIG_KEY_{i}")].clone(), env[&format!("GIT_CONFIG_VALUE_{i}")].clone()))
        .collect()
}

fn has(git: &repo::GitSettings, key: &str, value: &str) -> bool {
    settings(git).contains(&(key.to_string(), value.to_string()))
}

const EVIL: &str = "[core]\n\tfsmonitor = touch fsmonitor\n\tpager = touch pager\n\
    [diff]\n\texternal = touch external\n[diff \"Evil\"]\n\ttextconv = touch textconv\n\tcommand = touch command\n\
    [filter \"f\"]\n\tclean = touch clean\n\tprocess = touch process\n[merge.m]\n\tdriver = touch merge\n\
    [alias]\n\tst = !touch alias\n[credential]\n\thelper = !touch helper\n[user]\n\tname = me\n";

#[test]
fn every_program_the_repository_names_is_listed_and_switched_off() {
    let (_dir, ws) = workspace();
    write(&ws.join(".git/config"), EVIL);
    write(&ws.join(".git/hooks/pre-commit"), "#!/bin/sh\ntouch hook\n");
    write(&ws.join(".git/hooks/pre-push.sample"), "");
    std::fs::create_dir_all(ws.join("src/deep")).unwrap_or_else(|e| panic!("{e}"));
    let git = inspect("git status", &ws.join("src/deep"));
    assert_eq!(git.unknown, None);
    for program in
        ["core.fsmonitor = touch fsmonitor", "diff.Evil.textconv = touch textconv", "alias.st = !touch alias"]
    {
        assert!(git.programs.iter().any(|p| p == program), "{program}: {:?}", git.programs);
    }
    assert!(git.programs.iter().any(|p| p.starts_with("hook pre-commit")), "{:?}", git.programs);
    assert!(!git.programs.iter().any(|p| p.contains("pre-push")), "{:?}", git.programs);
    for (key, value) in [
        ("core.fsmonitor", "false"),
        ("core.hooksPath", "/dev/null"),
        ("protocol.ext.allow", "never"),
        ("core.pager", "cat"),
        ("diff.external", ""),
        ("diff.Evil.textconv", "cat"),
        ("diff.Evil.command", ""),
        ("filter.f.clean", "cat"),
        ("filter.f.process", ""),
        ("filter.f.required", "false"),
        ("merge.m.driver", ""),
        ("alias.st", ""),
        ("alias.status", ""),
        ("credential.helper", ""),
    ] {
        assert!(has(&git, key, value), "{key}={value}: {:?}", settings(&git));
    }
    assert!(!settings(&git).iter().any(|(k, _)| k.starts_with("user.")));
    // The user's own configuration (their name, for `git commit`) stays in force.
    assert!(!git.neutralising_env().iter().any(|(name, _)| name == "GIT_CONFIG_GLOBAL"));
}

#[test]
fn a_line_without_git_reads_nothing_but_still_switches_off_what_every_git_reads() {
    let (_dir, ws) = workspace();
    write(&ws.join(".git/config"), EVIL);
    let git = inspect("make test", &ws);
    assert!(git.programs.is_empty() && git.unknown.is_none());
    assert!(has(&git, "core.fsmonitor", "false") && has(&git, "core.hooksPath", "/dev/null"));
}

#[test]
fn worktrees_bare_repositories_submodules_and_other_folders_are_read_too() {
    let (_dir, ws) = workspace();
    // A worktree: `.git` is a file pointing at its git folder, whose commondir holds the config.
    write(&ws.join("main/.git/config"), "[diff \"a\"]\n\ttextconv = x\n");
    write(&ws.join("main/.git/worktrees/w/commondir"), "../..\n");
    write(&ws.join("wt/.git"), &format!("gitdir: {}\n", ws.join("main/.git/worktrees/w").display()));
    assert!(has(&inspect("git diff", &ws.join("wt")), "diff.a.textconv", "cat"));
    // A bare repository is its own git folder.
    write(&ws.join("bare.git/HEAD"), "ref: refs/heads/main\n");
    write(&ws.join("bare.git/config"), "[alias]\n\tx = !id\n");
    std::fs::create_dir_all(ws.join("bare.git/objects")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::create_dir_all(ws.join("bare.git/refs")).unwrap_or_else(|e| panic!("{e}"));
    assert!(inspect("git x", &ws.join("bare.git")).programs.iter().any(|p| p.contains("alias.x")));
    // A submodule's git folder.
    write(&ws.join("main/.git/modules/sub/config"), "[filter \"s\"]\n\tsmudge = x\n");
    assert!(has(&inspect("git status", &ws.join("main")), "filter.s.smudge", "cat"));
    // Folders the line goes to: `cd`, `pushd`, `git -C`, `--git-dir`.
    std::fs::create_dir_all(ws.join("plain")).unwrap_or_else(|e| panic!("{e}"));
    for line in [
        "cd ../main && git status",
        "pushd ../main; git status",
        "git -C ../main status",
        "git --git-dir=../main/.git log",
    ] {
        assert!(has(&inspect(line, &ws.join("plain")), "diff.a.textconv", "cat"), "{line}");
    }
}

#[test]
fn what_airlock_cannot_read_whole_makes_the_line_uncertain() {
    let (_dir, ws) = workspace();
    write(&ws.join(".git/config"), "[core]\n\tbare = false\n");
    for (line, says) in [
        ("cd \"$D\" && git status", "known only when it runs"),
        ("git -C $D status", "known only when it runs"),
        ("env -i git status", "takes away the variables"),
        ("env -u GIT_CONFIG_COUNT git status", "takes away the variables"),
        ("export -n GIT_CONFIG_COUNT; git status", "takes away the variables"),
        ("exec -c git status", "takes away the variables"),
        ("printf '[diff \"x\"]\\ntextconv=id' >> .git/config; git diff", "git's own files"),
        ("cp evil.cfg .git/config && git diff", "git's own files"),
        ("echo '* diff=x' > .gitattributes; git diff", "git's own files"),
    ] {
        let why = inspect(line, &ws).unknown.unwrap_or_else(|| panic!("{line}: not uncertain"));
        assert!(why.contains(says), "{line}: {why}");
    }
    for (config, says) in [
        ("[include]\n\tpath = ../x.cfg\n", "include"),
        ("[includeIf \"gitdir:/\"]\n\tpath = ../x.cfg\n", "includeIf"),
        ("[core]\n\thooksPath = ./h\n", "hooksPath"),
        ("[protocol \"file\"]\n\tallow = always\n", "allow"),
        ("[core\n\tpager = x\n", "cannot read"),
        ("pager = x\n", "cannot read"),
        ("[core]\n\tpager x\n", "cannot read"),
    ] {
        write(&ws.join(".git/config"), config);
        let why = inspect("git status", &ws).unknown.unwrap_or_else(|| panic!("{config:?}: not uncertain"));
        assert!(why.contains(says), "{config:?}: {why}");
    }
    // A configuration file that is a link is not followed.
    std::fs::remove_file(ws.join(".git/config")).unwrap_or_else(|e| panic!("{e}"));
    write(&ws.join("elsewhere.cfg"), "[core]\n\tpager = x\n");
    std::os::unix::fs::symlink(ws.join("elsewhere.cfg"), ws.join(".git/config")).unwrap_or_else(|e| panic!("{e}"));
    assert!(inspect("git status", &ws).unknown.is_some_and(|w| w.contains("link")));
}

#[test]
fn values_continue_and_quote_as_git_reads_them() {
    let (_dir, ws) = workspace();
    write(
        &ws.join(".git/config"),
        "# comment\n[core] pager = \"less\\\n -R\" ; trailing\n[Diff \"q\\\"x\"]\n\tTextConv = a\n[core]\n\tfsmonitor = true\n",
    );
    let git = inspect("git diff", &ws);
    assert_eq!(git.unknown, None, "{:?}", git.programs);
    assert!(git.programs.contains(&"core.pager = less -R".to_string()), "{:?}", git.programs);
    assert!(has(&git, "Diff.q\"x.TextConv", "cat"), "{:?}", settings(&git));
    // A boolean fsmonitor names no program.
    assert!(!git.programs.iter().any(|p| p.starts_with("core.fsmonitor")), "{:?}", git.programs);
}
