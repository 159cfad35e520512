use std::path::PathBuf;

use super::*;

fn workspace() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let canonical = dir.path().canonicalize().unwrap_or_else(|e| panic!("{e}"));
    (dir, canonical)
}

fn granted(prefixes: &[&str]) -> Gate {
    Gate { prefixes: prefixes.iter().map(|p| p.to_string()).collect(), ..Gate::default() }
}

fn approved(line: &str, folder: &Path, asked: bool) -> Gate {
    let approved = ApprovedLine { line: line.into(), folder: folder.to_path_buf(), asked };
    Gate { approved: Some(approved), ..granted(&["*"]) }
}

fn denied(result: Result<Pass, Refusal>) -> String {
    match result {
        Err(Refusal::Denied(message)) => message,
        other => panic!("not denied: {other:?}"),
    }
}

fn uncertain(result: Result<Pass, Refusal>) -> String {
    match result {
        Err(Refusal::Uncertain(message)) => message,
        other => panic!("not refused as uncertain: {other:?}"),
    }
}

fn passes(result: Result<Pass, Refusal>) -> Pass {
    result.unwrap_or_else(|refusal| panic!("refused: {refusal:?}"))
}

#[test]
fn a_granted_prefix_covers_only_commands_written_out_whole() {
    let (_dir, ws) = workspace();
    let mut gate = granted(&["echo", "git status"]);
    let writable = [ws.clone()];
    passes(gate.check("echo hi", &ws, &writable, false));
    passes(gate.check("git status --short | echo", &ws, &writable, false));
    for line in [
        "echo hi; touch x",
        "echo $(touch x)",
        "echo `touch x`",
        "FOO=1 echo hi",
        "git statusx",
        "git -C . status",
        "git push",
        "sh -c 'echo hi'",
        "echo <(touch x)",
    ] {
        denied(gate.check(line, &ws, &writable, false));
    }
    // A program known only at run time: nobody can be asked under a prefix grant.
    uncertain(gate.check("$CMD hi", &ws, &writable, false));
}

#[test]
fn a_granted_prefix_does_not_cover_what_writes_or_runs_beyond_its_name() {
    let (_dir, ws) = workspace();
    let writable = [ws.clone()];
    let mut gate = granted(&["git status", "git log", "git diff", "find", "sed -n", "rg", "sort", "awk", "echo"]);
    for line in
        ["git status", "git log -p -1", "find . -name x", "sed -n 1,5p f", "rg -n x", "sort f", "awk '{print $1}' f"]
    {
        passes(gate.check(line, &ws, &writable, false));
    }
    for (line, says) in [
        ("git status > victim", "writes a file"),
        ("git status >> victim", "writes a file"),
        ("{ git status; } > victim", "writes a file"),
        ("echo hi &> victim", "writes a file"),
        ("> victim git status", "writes a file"),
        ("git log --output=victim", "writes a file"),
        ("git log --out victim", "writes a file"),
        ("git diff --ext-diff", "runs a diff program"),
        ("git -c core.pager=cat status", "can name a program"),
        ("find . -delete", "deletes files"),
        ("find . -fprint victim", "writes a file"),
        ("find . -fls victim", "writes a file"),
        ("sed -n 'e touch victim' f", "runs a command"),
        ("sed -n '1w victim' f", "writes a file"),
        ("sed -n 's/a/b/w victim' f", "writes a file"),
        ("sed -n 's/x/touch victim/e' f", "runs a command"),
        ("sed -n -i 1p f", "edits files in place"),
        ("rg --pre ./evil x", "runs another program"),
        ("rg -z x", "runs another program"),
        ("sort -o victim f", "writes a file"),
        ("sort -uo victim f", "writes a file"),
        ("awk 'BEGIN{system(\"touch victim\")}'", "may run commands"),
        ("awk '{print > \"victim\"}' f", "may run commands"),
    ] {
        let message = denied(gate.check(line, &ws, &writable, false));
        assert!(message.contains(says), "{line}: {message}");
    }
}

#[test]
fn an_approval_runs_its_line_in_its_folder_once() {
    let (_dir, ws) = workspace();
    let sub = ws.join("sub");
    std::fs::create_dir(&sub).unwrap_or_else(|e| panic!("{e}"));
    let writable = [ws.clone()];
    let mut gate = approved("make test", &ws, true);
    denied(gate.check("make test", &sub, &writable, false));
    denied(gate.check("make test && rm -rf /", &ws, &writable, false));
    passes(gate.check("make test", &ws, &writable, false));
    let again = denied(gate.check("make test", &ws, &writable, false));
    assert!(again.contains("approved"), "{again}");
}

#[test]
fn an_approved_line_gets_no_standard_input_the_person_never_saw() {
    let (_dir, ws) = workspace();
    let writable = [ws.clone()];
    let mut gate = approved("cat", &ws, true);
    let message = denied(gate.check("cat", &ws, &writable, true));
    assert!(message.contains("standard input"), "{message}");
    // The approval is not spent by the refused start.
    passes(gate.check("cat", &ws, &writable, false));
    // A prefix grant is not an approval of a line: input is the plugin's own business there.
    passes(granted(&["cat"]).check("cat", &ws, &writable, true));
}

#[test]
fn deny_rules_win_over_approvals_and_see_through_paths_and_wrappers() {
    let (_dir, ws) = workspace();
    let writable = [ws.clone()];
    for line in [
        "rm -rf x",
        "/bin/rm x",
        "ls && rm x",
        "echo $(rm x)",
        "taskset 1 rm x",
        "taskset -c 0 rm x",
        "prlimit --nofile=100 rm x",
        "prlimit -n100 rm x",
        "chrt -o 0 rm x",
        "chrt --idle 0 rm x",
        "setarch x86_64 rm x",
        "setarch x86_64 -R rm x",
        "linux64 rm x",
        "linux32 --addr-no-randomize rm x",
        "i386 rm x",
        "setpriv --reset-env rm x",
        "script -qc 'rm x' /dev/null",
        "script --command='rm x'",
        "unshare -r rm x",
        "nsenter -t 1 -m rm x",
        "chroot / rm x",
        "runcon -t x_t rm x",
        "stdbuf -o0 rm x",
        "numactl --all rm x",
        "cgexec -g cpu:/ rm x",
        "firejail --quiet --private=x rm x",
        "systemd-run --user --wait rm x",
        "bwrap --bind / / --dev /dev rm x",
        "pkexec --user root rm x",
        "doas rm x",
        "catchsegv rm x",
        "choom -n 0 rm x",
        "uclampset -m 0 rm x",
        "capsh --caps= -- -c 'rm x'",
        "sg users -c 'rm x'",
        "fakeroot -- rm x",
        "strace -f -o /dev/null rm x",
        "valgrind --tool=none rm x",
        "git -c core.pager='rm x' log",
        "git -c alias.x='!rm x' x",
        "git rebase --exec 'rm x' HEAD~1",
        "git rebase -x'rm x' HEAD~1",
        "git submodule foreach rm x",
        "git bisect run rm x",
        "git config core.fsmonitor 'rm x'",
    ] {
        let mut gate = Gate { denied: vec!["rm".into()], ..approved(line, &ws, true) };
        let message = denied(gate.check(line, &ws, &writable, false));
        assert!(message.contains("denies `rm`"), "{line}: {message}");
    }
    // Without deny rules, an approved line a person saw runs, even one airlock cannot name.
    passes(approved("$(printf ls) x", &ws, true).check("$(printf ls) x", &ws, &writable, false));
}

#[test]
fn a_line_no_person_was_asked_about_must_be_one_airlock_can_name_whole() {
    let (_dir, ws) = workspace();
    let writable = [ws.clone()];
    for line in [
        "printf -v 'a[$(rm x)]' 1",
        "declare 'a[$(rm x)]=1'",
        "typeset 'a[$(rm x)]=1'",
        "export 'a[$(rm x)]=1'",
        "let 'a[$(rm x)]=1'",
        "read 'a[$(rm x)]' <<< 1",
        "unset 'a[$(rm x)]'",
        "x='a[$(rm x)]'; [ -v \"$x\" ]",
        "[ -v \"a[i]\" ]",
        "[[ -v 'a[i]' ]]",
        "test -v 'a[$(rm x)]'",
        "x='a[$(rm x)]'; echo $((x))",
        "read x <<< 'a[$(rm x)]'; echo $((x + 1))",
        "echo $[x]",
        "(( x ))",
        "[[ $x -eq 1 ]]",
        "ref='a[$(rm x)]'; echo ${!ref}",
        "x='$(rm x)'; echo ${x@P}",
        "echo ${a[i]}",
        "echo ${s:i:1}",
        "PS4='$(rm x)'; set -x; true",
        "for PS4 in '$(rm x)'; do set -x; true; done",
        ": ${PS4:='$(rm x)'}",
        "mapfile -C 'rm x' -c 1 a <<< 1",
        "readarray -C 'rm x' a <<< 1",
        "hash -p /bin/rm ls; ls x",
        "enable -f ./evil.so evil",
        "complete -C 'rm x' ls",
        "source ./script.sh",
        ". ./script.sh",
        "eval \"$CMD\"",
        "bash -c \"$CMD\"",
        "trap \"$CMD\" EXIT",
        "declare -n r=x",
        "declare -i n=x",
        "BASH_ENV=./evil bash -c true",
        "env BASH_ENV=./evil bash -c true",
        "GIT_CONFIG_PARAMETERS=\"'core.pager=rm'\" git log",
        "LD_PRELOAD=./evil.so ls",
        "alias ls='rm x'",
        "parallel rm ::: x",
        "$CMD x",
    ] {
        uncertain(approved(line, &ws, false).check(line, &ws, &writable, false));
        uncertain(granted(&["printf", "declare", "echo", "ls", "true", "bash"]).check(line, &ws, &writable, false));
        // A person who saw the question about this very line may still run it.
        passes(approved(line, &ws, true).check(line, &ws, &writable, false));
    }
}

#[test]
fn git_runs_with_the_repositorys_programs_switched_off_unless_a_person_was_asked() {
    let (_dir, ws) = workspace();
    let writable = [ws.clone()];
    std::fs::create_dir_all(ws.join(".git")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(
        ws.join(".git/config"),
        "[core]\n\tfsmonitor = touch fsmonitor-ran\n[diff \"evil\"]\n\ttextconv = touch textconv-ran\n[alias]\n\tst = !touch alias-ran\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let pass = passes(granted(&["git status"]).check("git status", &ws, &writable, false));
    let env: std::collections::HashMap<String, String> = pass.host_env.into_iter().collect();
    let settings: Vec<(String, String)> = (0..env["GIT_CONFIG_COUNT"].parse::<usize>().unwrap_or(0))
        .map(|i| (env[&format!("GIT_CONFIG_KEY_{i}")].clone(), env[&format!("GIT_CONFIG_VALUE_{i}")].clone()))
        .collect();
    for (key, value) in [
        ("core.fsmonitor", "false"),
        ("core.hooksPath", "/dev/null"),
        ("diff.evil.textconv", "cat"),
        ("alias.st", ""),
        ("alias.status", ""),
    ] {
        assert!(settings.contains(&(key.to_string(), value.to_string())), "{key}: {settings:?}");
    }
    assert!(!env.contains_key("GIT_CONFIG_GLOBAL"), "the user's own configuration stays: {env:?}");
    // The person who allowed this very line was shown what git runs here: it runs as it is.
    let pass = passes(approved("git status", &ws, true).check("git status", &ws, &writable, false));
    assert!(pass.host_env.is_empty(), "{:?}", pass.host_env);
    // A configuration that includes another file cannot be read whole: nobody unasked runs it.
    std::fs::write(ws.join(".git/config"), "[include]\n\tpath = ../evil.cfg\n").unwrap_or_else(|e| panic!("{e}"));
    let message = uncertain(granted(&["git status"]).check("git status", &ws, &writable, false));
    assert!(message.contains("include"), "{message}");
    for line in ["cd \"$D\" && git status", "env -i git status", "unset GIT_CONFIG_COUNT; git status"] {
        uncertain(approved(line, &ws, false).check(line, &ws, &writable, false));
    }
}

/// Found by the `shell_line` fuzz target: the question approved `b=~x` (it starts no
/// program) and the gate then refused it as "a program known only when it runs".
#[test]
fn an_assignment_on_its_own_passes_deny_rules_as_the_question_lets_it() {
    let (_dir, ws) = workspace();
    let writable = [ws.clone()];
    for line in ["b=~prh!Acin", "x=1; echo $x", "A=$(date) B=2"] {
        let mut gate = Gate { denied: vec!["rm".into()], ..approved(line, &ws, false) };
        assert!(gate.check(line, &ws, &writable, false).is_ok(), "{line}");
    }
    // A program known only when the line runs may be the denied one: nobody unasked runs it.
    for line in ["x=1; $x", "A=1 $(echo rm) x"] {
        let mut gate = Gate { denied: vec!["rm".into()], ..approved(line, &ws, false) };
        uncertain(gate.check(line, &ws, &writable, false));
    }
    let line = "x=$(rm y)";
    let mut gate = Gate { denied: vec!["rm".into()], ..approved(line, &ws, false) };
    denied(gate.check(line, &ws, &writable, false));
}

#[test]
fn redirections_may_write_only_inside_the_writable_folders() {
    let (_dir, ws) = workspace();
    let outside = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    std::os::unix::fs::symlink(outside.path(), ws.join("out")).unwrap_or_else(|e| panic!("{e}"));
    let writable = [ws.clone()];
    for line in ["echo hi > notes.txt", "echo hi >> sub/new.txt", "echo hi > /dev/null 2>&1", "cat < /etc/hostname"] {
        passes(approved(line, &ws, true).check(line, &ws, &writable, false));
    }
    for line in [
        "echo hi > ../escaped",
        "echo hi > /tmp/escaped",
        "echo hi > out/through-link",
        "echo hi &> /etc/x",
        "echo hi > $TARGET",
        "echo hi > ~/x",
        "echo $(echo hi > /tmp/x)",
    ] {
        let message = denied(approved(line, &ws, true).check(line, &ws, &writable, false));
        assert!(message.contains("writes"), "{line}: {message}");
    }
    // Nothing is writable: every file redirection is refused.
    denied(approved("echo hi > notes.txt", &ws, true).check("echo hi > notes.txt", &ws, &[], false));
}

#[test]
fn a_line_that_cannot_be_read_is_refused() {
    let (_dir, ws) = workspace();
    let mut gate = granted(&["echo"]);
    for line in ["echo $(", "echo 'open", "echo hi &&"] {
        let result = gate.check(line, &ws, std::slice::from_ref(&ws), false);
        assert!(matches!(result, Err(Refusal::Unreadable(_))), "{line}");
    }
}

/// Found by the `gate_grammar` fuzz target on the code before the gate's third round: `\touch`
/// after a line break inside `eval`s three deep started past a rule denying `touch`.
#[test]
fn a_command_after_a_line_break_evals_deep_never_passes_a_rule_denying_it() {
    let (_dir, ws) = workspace();
    let writable = [ws.clone()];
    let found = include_str!("gate_tests/touch_three_evals_deep.sh");
    // As found, and without the `git $HOME` that alone makes the line uncertain.
    let plain = found.replace("git $HOME $HOME", "git status");
    let shorter = [
        "eval 'ls\n\\touch x'",
        "eval 'eval '\\''ls | c\n\\touch x'\\'''",
        "eval 'for v in a; do ls\n\\touch x; done'",
        "bash -c 'ls\n\\touch x'",
    ];
    for line in [found, plain.as_str()].into_iter().chain(shorter) {
        let mut gate = Gate { denied: vec!["touch".into()], ..approved(line, &ws, false) };
        let refusal = gate.check(line, &ws, &writable, false);
        assert!(refusal.is_err(), "{line}: {refusal:?}");
    }
}
