//! Grants and the names of plugins through the real binary: a grant only adds what it
//! names (a built-in keeps its default access), `plugins show` shows the effective grant
//! with its defaults marked, bad `policy.toml` values are errors with file and line, names
//! that match nothing are one-line warnings naming the closest match, a plugin answers to
//! its tool and file names, and bad command lines exit 2.
// Set-up helpers unwrap: a failed set-up step should fail the test loudly.
#![allow(clippy::unwrap_used)]

use airlock_tests::{Finished, MockModel, Session, Turn, Wire, call, fixtures, function_responses};
use serde_json::{Value, json};

use crate::{run_args, session, write_policy};

fn read_policy(s: &Session) -> String {
    std::fs::read_to_string(s.airlock_home().join("policy.toml")).unwrap_or_default()
}

/// Installs `component` in `$AIRLOCK_HOME/plugins/` under the file name `name`.
fn install_as(s: &Session, component: &str, name: &str) {
    let dir = s.airlock_home().join("plugins");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(component, dir.join(name)).unwrap();
}

/// One prompt in which the model calls `tool` with `args`; what the tool told the model.
fn call_once(s: &Session, tool: &str, args: Value) -> (Finished, String) {
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![call(tool, args)]));
    mock.push_turn(Turn::text("ok"));
    let done = s.airlock(&mock, &["-p", "go"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let sent = function_responses(&mock.requests()[1]);
    (done, sent[0].1.clone())
}

fn read_notes(s: &Session) -> String {
    call_once(s, "read_file", json!({"file_path": "notes.txt"})).1
}

/// The lines of `text` that mention `needle`.
fn lines_with<'a>(text: &'a str, needle: &str) -> Vec<&'a str> {
    text.lines().filter(|l| l.contains(needle)).collect()
}

#[test]
fn granting_a_built_in_only_adds_and_it_keeps_its_default_access() {
    let s = session();
    s.write("notes.txt", "the notes");
    let granted = run_args(&s, &["plugins", "grant", "read-file", "--memory-mb", "128"]);
    assert_eq!(granted.code, Some(0), "{}", granted.stderr);
    assert!(granted.stdout.contains("now granted: .:read (default), memory 128 MiB"), "{}", granted.stdout);
    assert_eq!(read_notes(&s), "the notes", "a memory grant took the built-in's workspace access away");

    let shown = run_args(&s, &["plugins", "show", "read-file"]);
    assert!(shown.stdout.contains(".:read (default), memory 128 MiB"), "{}", shown.stdout);
    let json: Value = serde_json::from_str(&run_args(&s, &["plugins", "show", "read-file", "--json"]).stdout).unwrap();
    assert_eq!(json["defaults"], json!(["files", "network", "env", "processes"]), "{json}");
    assert_eq!(json["granted"]["memory_mb"], 128);

    // Adding a folder starts from the default list: both are granted, written out (the shell
    // requests the home folder, so a folder of it takes effect).
    let notes = s.airlock_home().parent().unwrap().join("notes");
    std::fs::create_dir_all(&notes).unwrap();
    let more = run_args(&s, &["plugins", "grant", "run-shell-command", "--read", "~/notes"]);
    assert_eq!(more.code, Some(0), "{}", more.stderr);
    assert!(more.stdout.contains("now granted: .:read-write, ~/notes:read,"), "{}", more.stdout);
    assert_eq!(read_notes(&s), "the notes");

    // Revoking narrows; `--all` falls back to the default.
    assert_eq!(run_args(&s, &["plugins", "revoke", "read-file", "--read", "."]).code, Some(0));
    let narrowed = read_notes(&s);
    assert!(narrowed.starts_with("Error"), "{narrowed}");
    assert_eq!(run_args(&s, &["plugins", "revoke", "read-file", "--all"]).code, Some(0));
    assert_eq!(read_notes(&s), "the notes");

    // A table written by hand that sets no list keeps the default lists too.
    write_policy(&s, "[grants.read-file]\ntimeout_secs = 30\n");
    assert_eq!(read_notes(&s), "the notes");
}

#[test]
fn bad_values_in_policy_toml_are_errors_with_file_and_line() {
    let s = session();
    for (text, line, needle) in [
        ("[grants.read-file]\nfiles = [\".:rw\"]\n", 2, "write `.:read-write`"),
        ("[grants.read-file]\nfiles = [\"src:rwx\"]\n", 2, "write `src:read-write`"),
        ("[grants.read-file]\nfiles = [\"src:write\"]\n", 2, "write `src:read-write`"),
        ("[grants.read-file]\n\nfiles = [\"\"]\n", 3, "has no path"),
        ("[grants.read-file]\nfiles = [\"read-write:.\"]\n", 2, "the mode goes after the path"),
        ("[grants.read-file]\nfiles = \".\"\n", 2, "invalid type"),
        ("[grants.read-file]\nfilez = [\".\"]\n", 2, "unknown field `filez`"),
        ("[grants.read-file]\nmemory_mb = \"128\"\n", 2, "invalid type"),
        ("[grants.read-file]\nmemory_mb = -1\n", 2, "invalid value"),
        ("[grants.read-file]\nnetwork = [\"api.example.com\"]\n", 2, "https://api.example.com"),
        ("[grant.read-file]\nfiles = [\".\"]\n", 1, "unknown field `grant`"),
        ("[[rule]]\ntool = \"Write File\"\ndecision = \"deny\"\n", 2, "can name no tool"),
        ("[[rule]]\ntool = \"write_file\"\ndecision = \"maybe\"\n", 3, "maybe"),
        ("[[rule]]\ntool = \"write_file\"\npath = \"\"\ndecision = \"allow\"\n", 1, "`path` is empty"),
        ("[[rule]]\ntool = \"write_file\"\ndecision = \"allow\"\nprioity = 3\n", 4, "unknown field `prioity`"),
    ] {
        write_policy(&s, text);
        let mock = MockModel::start(Wire::OpenAi);
        let done = s.airlock(&mock, &["-p", "hi"]);
        assert_eq!(done.code, Some(52), "{text:?} was accepted: {}", done.stderr);
        assert!(done.stderr.contains(&format!("policy.toml:{line}:")), "{text:?}: {}", done.stderr);
        assert!(done.stderr.contains(needle), "{text:?}: {}", done.stderr);
        assert!(mock.requests().is_empty());
    }
}

#[test]
fn names_in_policy_toml_that_match_nothing_are_one_line_warnings_with_the_closest_name() {
    let s = session();
    s.write("notes.txt", "the notes");
    write_policy(
        &s,
        "[grants.read-fil]\nmemory_mb = 64\n\n[grants.weather]\nenv = [\"TOKEN\"]\n\n\
         [[rule]]\ntool = \"write_fiel\"\ndecision = \"deny\"\n",
    );
    let (done, sent) = call_once(&s, "read_file", json!({"file_path": "notes.txt"}));
    assert_eq!(sent, "the notes");
    let typo = lines_with(&done.stderr, "[grants.read-fil]");
    assert_eq!(typo.len(), 1, "{}", done.stderr);
    assert!(typo[0].contains("policy.toml:1:") && typo[0].contains("did you mean `read-file`?"), "{}", typo[0]);
    let unknown = lines_with(&done.stderr, "[grants.weather]");
    assert_eq!(unknown.len(), 1, "{}", done.stderr);
    assert!(unknown[0].contains("policy.toml:4:") && unknown[0].contains("no installed plugin"), "{}", unknown[0]);
    let rule = lines_with(&done.stderr, "write_fiel");
    assert_eq!(rule.len(), 1, "{}", done.stderr);
    assert!(rule[0].contains("policy.toml:7") && rule[0].contains("did you mean `write_file`?"), "{}", rule[0]);

    // The same warnings are in the JSON output's `warnings`, and before `plugins` commands.
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::text("ok"));
    let done = s.airlock(&mock, &["-p", "hi", "-o", "json"]);
    let output: Value = serde_json::from_str(&done.stdout).unwrap();
    let warnings: Vec<&str> = output["warnings"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    for needle in ["[grants.read-fil]", "[grants.weather]", "write_fiel"] {
        assert_eq!(warnings.iter().filter(|w| w.contains(needle)).count(), 1, "{needle}: {warnings:?}");
    }
    let listed = run_args(&s, &["plugins", "list"]);
    assert_eq!(lines_with(&listed.stderr, "did you mean `read-file`?").len(), 1, "{}", listed.stderr);
}

#[test]
fn a_plugin_answers_to_its_tool_and_file_names_and_says_whose_they_are() {
    let s = session();
    s.write("secret.txt", "the secret");
    install_as(&s, fixtures::FS_PROBE, "probe.wasm");
    for (name, says) in [
        ("read_path", "`read_path` is a tool of plugin `fs_probe`"),
        ("probe.wasm", "`probe.wasm` is the file of plugin `fs_probe`"),
        ("probe", "`probe` is the file of plugin `fs_probe`"),
        ("fs-probe", "`fs-probe` is plugin `fs_probe`"),
    ] {
        let shown = run_args(&s, &["plugins", "show", name]);
        assert_eq!(shown.code, Some(0), "{name}: {}", shown.stderr);
        assert!(shown.stderr.contains(says), "{name}: {}", shown.stderr);
        assert!(shown.stdout.starts_with("fs_probe "), "{name}: {}", shown.stdout);
    }
    let builtin = run_args(&s, &["plugins", "show", "read_file"]);
    assert!(builtin.stderr.contains("`read_file` is a tool of plugin `read-file`"), "{}", builtin.stderr);

    // A grant by a tool's name lands in the plugin's own table.
    let granted = run_args(&s, &["plugins", "grant", "read_path", "--read", "."]);
    assert_eq!(granted.code, Some(0), "{}", granted.stderr);
    assert!(read_policy(&s).contains("[grants.fs_probe]"), "{}", read_policy(&s));
    assert_eq!(call_once(&s, "read_path", json!({"path": "secret.txt"})).1, "the secret");

    // In policy.toml a tool's name binds nothing (what answers to it changes with the files
    // present): the table grants nothing and the warning names the table to write.
    write_policy(&s, "[grants.read_path]\nfiles = [\".:read\"]\n");
    let (done, sent) = call_once(&s, "read_path", json!({"path": "secret.txt"}));
    assert_ne!(sent, "the secret");
    let note = lines_with(&done.stderr, "[grants.read_path]");
    assert_eq!(note.len(), 1, "{}", done.stderr);
    assert!(note[0].contains("is a tool of plugin `fs_probe`") && note[0].contains("grants nothing"), "{}", note[0]);
    assert!(note[0].contains("write [grants.fs_probe]"), "{}", note[0]);
    // `plugins grant` by another name writes the plugin's own table.
    assert_eq!(run_args(&s, &["plugins", "grant", "probe", "--read", "."]).code, Some(0));
    assert!(read_policy(&s).contains("[grants.fs_probe]"), "{}", read_policy(&s));
    assert_eq!(call_once(&s, "read_path", json!({"path": "secret.txt"})).1, "the secret");
}

#[test]
fn a_plugin_own_name_that_is_also_another_plugins_name_for_it_is_pointed_out() {
    // The built-in `glob` owns the name; a user plugin in `glob.wasm` answers to it too.
    let s = session();
    install_as(&s, fixtures::FS_PROBE, "glob.wasm");
    let shown = run_args(&s, &["plugins", "show", "glob"]);
    assert_eq!(shown.code, Some(0), "{}", shown.stderr);
    assert!(shown.stdout.starts_with("glob "), "{}", shown.stdout);
    let note = lines_with(&shown.stderr, "note: `glob` is plugin glob");
    assert_eq!(note.len(), 1, "{}", shown.stderr);
    assert!(note[0].contains("the file of plugin `fs_probe`") && note[0].contains("`fs_probe`"), "{}", note[0]);
}

#[test]
fn a_name_of_two_plugins_is_refused_and_lists_them() {
    let s = session();
    s.install_plugin(fixtures::ECHO_TOOLS);
    // `echo` is a tool of echo_tools and the file of fs_probe.
    install_as(&s, fixtures::FS_PROBE, "echo.wasm");
    let shown = run_args(&s, &["plugins", "show", "echo"]);
    assert_eq!(shown.code, Some(2), "{}", shown.stderr);
    assert!(shown.stderr.contains("more than one plugin"), "{}", shown.stderr);
    assert!(shown.stderr.contains("`echo_tools`") && shown.stderr.contains("`fs_probe`"), "{}", shown.stderr);
    let granted = run_args(&s, &["plugins", "grant", "echo", "--read", "."]);
    assert_eq!(granted.code, Some(2), "{}", granted.stderr);
    assert!(read_policy(&s).is_empty(), "an ambiguous name was granted");

    write_policy(&s, "# mine\n[grants.echo]\nfiles = [\".:read\"]\n");
    let mock = MockModel::start(Wire::OpenAi);
    let done = s.airlock(&mock, &["-p", "hi"]);
    assert_eq!(done.code, Some(52), "{}", done.stderr);
    assert!(done.stderr.contains("policy.toml:2:") && done.stderr.contains("more than one plugin"), "{}", done.stderr);
}

#[test]
fn an_unknown_plugin_or_nothing_to_grant_is_a_bad_command_line() {
    let s = session();
    let unknown = run_args(&s, &["plugins", "show", "nope"]);
    assert_eq!(unknown.code, Some(2), "{}", unknown.stderr);
    assert!(unknown.stderr.contains("no plugin is named `nope`"), "{}", unknown.stderr);
    let typo = run_args(&s, &["plugins", "grant", "read-fil", "--read", "."]);
    assert_eq!(typo.code, Some(2), "{}", typo.stderr);
    assert!(typo.stderr.contains("did you mean `read-file`?"), "{}", typo.stderr);
    for verb in ["grant", "revoke"] {
        let empty = run_args(&s, &["plugins", verb, "read-file"]);
        assert_eq!(empty.code, Some(2), "{verb}: {}", empty.stderr);
        assert!(empty.stderr.contains("--read PATH") && empty.stderr.contains("--memory-mb N"), "{}", empty.stderr);
    }
    // A limit past what can be meant is a bad value, not a silent change of the policy.
    for (flag, value) in [("--memory-mb", "9223372036854775808"), ("--memory-mb", "4097"), ("--timeout-secs", "0")] {
        let done = run_args(&s, &["plugins", "grant", "read-file", flag, value]);
        assert_eq!(done.code, Some(2), "{flag} {value}: {}", done.stderr);
        assert!(done.stderr.contains(flag), "{flag} {value}: {}", done.stderr);
    }
    let bad_mode = run_args(&s, &["plugins", "grant", "read-file", "--net", "api.example.com"]);
    assert_eq!(bad_mode.code, Some(2), "{}", bad_mode.stderr);
    assert!(read_policy(&s).is_empty());
}

#[test]
fn inspect_ends_with_the_grant_command_the_plugin_needs() {
    let s = session();
    let probe = run_args(&s, &["plugins", "inspect", fixtures::FS_PROBE]);
    assert_eq!(probe.code, Some(0), "{}", probe.stderr);
    let last = probe.stdout.lines().last().unwrap();
    assert!(last.ends_with("airlock plugins grant fs_probe --read . --env GRANTED_VAR --env OPENAI_API_KEY"), "{last}");
    let hostile = run_args(&s, &["plugins", "inspect", fixtures::HOSTILE_TEXT]);
    let last = hostile.stdout.lines().last().unwrap();
    assert!(last.ends_with("airlock plugins grant hostile_text --read 'docs --write ~'"), "{last}");
    let echo = run_args(&s, &["plugins", "inspect", fixtures::ECHO_TOOLS]);
    assert!(echo.stdout.lines().last().unwrap().contains("needs no grant"), "{}", echo.stdout);
    assert!(!probe.stdout.contains('…') && !echo.stdout.contains('…'));
}

#[test]
fn an_untrusted_workspace_plugin_is_told_to_trust_the_folder_not_to_grant_again() {
    let s = session();
    s.write("secret.txt", "the secret");
    let dir = s.workspace.join(".airlock/plugins");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(fixtures::FS_PROBE, dir.join("fs_probe.wasm")).unwrap();
    s.write(".airlock/policy.toml", "[grants.fs_probe]\nfiles = [\".:read\"]\n");
    let (done, sent) = call_once(&s, "read_path", json!({"path": "secret.txt"}));
    assert!(sent.starts_with("Error"), "{sent}");
    let hint = lines_with(&done.stderr, "runs without");
    assert_eq!(hint.len(), 1, "{}", done.stderr);
    assert!(hint[0].contains("policy.toml grants it") && hint[0].contains("run `airlock trust`"), "{}", hint[0]);
    assert!(!hint[0].contains("airlock plugins grant"), "{}", hint[0]);

    // When the workspace's policy does not grant it either, both steps are named.
    s.write(".airlock/policy.toml", "# nothing yet\n");
    let (done, _) = call_once(&s, "read_path", json!({"path": "secret.txt"}));
    let hint = lines_with(&done.stderr, "runs without");
    assert!(
        hint[0].contains("airlock plugins grant fs_probe --read .") && hint[0].contains("then `airlock trust`"),
        "{}",
        hint[0]
    );
}

/// `plugins grant NAME` with `flags`; asserts it was refused as a bad command line saying
/// `says`, and that the policy file is as it was.
fn refused_grant(s: &Session, name: &str, flags: &[&str], says: &str) {
    let before = read_policy(s);
    let mut args = vec!["plugins", "grant", name];
    args.extend_from_slice(flags);
    let done = run_args(s, &args);
    assert_eq!(done.code, Some(2), "{flags:?} was granted: {}{}", done.stdout, done.stderr);
    assert!(done.stderr.contains(says), "{flags:?}: {}", done.stderr);
    assert!(!done.stdout.contains("granted"), "{flags:?}: {}", done.stdout);
    assert_eq!(read_policy(s), before, "{flags:?}: the policy file changed");
}

#[test]
fn a_grant_that_cannot_take_effect_is_refused_with_the_reason_and_what_would_work() {
    let s = session();
    s.write("notes.txt", "the notes");
    std::fs::create_dir_all(s.workspace.join("docs")).unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), s.workspace.join("out")).unwrap();
    s.install_plugin(fixtures::FS_PROBE);
    // The review's case: read_file reads the workspace only.
    refused_grant(&s, "read-file", &["--read", "/etc"], "read-file does not request /etc");
    refused_grant(&s, "read-file", &["--read", "/etc"], "--add-dir /etc");
    refused_grant(&s, "read-file", &["--read", "~/nowhere"], "does not exist");
    refused_grant(&s, "read-file", &["--read", "out"], "out leads outside the workspace");
    refused_grant(&s, "read-file", &["--read", "notes.txt"], "notes.txt is not a folder");
    refused_grant(&s, "read-file", &["--write", "docs"], "only reads");
    refused_grant(&s, "read-file", &["--net", "https://api.example.com"], "does not request https://api.example.com");
    refused_grant(&s, "read-file", &["--env", "SOME_VAR"], "does not request the variable SOME_VAR");
    refused_grant(&s, "read-file", &["--process", "git status"], "does not request to run 'git status'");
    // A plugin that reads the workspace cannot be granted write access there, nor the home.
    refused_grant(&s, "fs_probe", &["--write", "."], "fs_probe requests only read access to .: grant `--read .`");
    refused_grant(&s, "run-shell-command", &["--write", "~/.airlock"], "airlock's own folder");
    // One part that cannot take effect refuses the whole grant.
    refused_grant(&s, "fs_probe", &["--read", "docs", "--env", "NOT_REQUESTED"], "NOT_REQUESTED");
    let hidden = run_args(&s, &["plugins", "show", "fs_probe", "--json"]);
    let view: Value = serde_json::from_str(&hidden.stdout).unwrap();
    assert_eq!(view["granted"]["files"], json!([]), "{view}");
    // Written by hand in a policy file, such an entry is a warning at its table.
    write_policy(&s, "# mine\n[grants.read-file]\nfiles = [\".:read\", \"/etc:read\"]\n");
    let shown = run_args(&s, &["plugins", "show", "read-file"]);
    let warning = lines_with(&shown.stderr, "/etc");
    assert_eq!(warning.len(), 1, "{}", shown.stderr);
    assert!(
        warning[0].contains("policy.toml:2: [grants.read-file]: read-file does not request /etc"),
        "{}",
        warning[0]
    );
    write_policy(&s, "");
    // What the plugin requests is granted.
    let granted = run_args(&s, &["plugins", "grant", "fs_probe", "--read", "docs", "--env", "GRANTED_VAR"]);
    assert_eq!(granted.code, Some(0), "{}", granted.stderr);
    assert!(read_policy(&s).contains("docs:read") && read_policy(&s).contains("GRANTED_VAR"), "{}", read_policy(&s));
}

/// Variables that make a program load or run code (the and our own variants).
const CODE_VARIABLES: &[&str] = &[
    "BASH_ENV",
    "ENV",
    "PS4",
    "PROMPT_COMMAND",
    "SHELLOPTS",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_CONFIG_KEY_0",
    "GIT_CONFIG_VALUE_0",
    "GIT_EXEC_PATH",
    "GIT_SSH_COMMAND",
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
    "GLIBC_TUNABLES",
    "PYTHONSTARTUP",
    "NODE_OPTIONS",
    "PERL5OPT",
    "RUBYOPT",
    "PATH",
    "HOME",
];

#[test]
fn a_variable_that_makes_a_program_run_code_is_never_granted() {
    let s = session();
    // A plugin that requests such variables beside a harmless one.
    let dir = s.airlock_home().join("plugins");
    std::fs::create_dir_all(&dir).unwrap();
    let probe = airlock_tests::variants::trust_probe("name=var_probe;env=PLAIN_VAR,BASH_ENV,GIT_CONFIG_KEY_0");
    std::fs::write(dir.join("var_probe.wasm"), &probe).unwrap();
    for name in CODE_VARIABLES {
        refused_grant(&s, "var_probe", &["--env", name], &format!("no plugin may be granted the variable {name}"));
        // In a policy file, it is an error at its line.
        write_policy(&s, &format!("# mine\n[grants.var_probe]\nenv = [\"PLAIN_VAR\",\n  \"{name}\"]\n"));
        let mock = MockModel::start(Wire::OpenAi);
        let done = s.airlock(&mock, &["-p", "hi"]);
        assert_eq!(done.code, Some(52), "{name} was accepted in policy.toml: {}", done.stderr);
        assert!(done.stderr.contains("policy.toml:4:") && done.stderr.contains(name), "{name}: {}", done.stderr);
        assert!(mock.requests().is_empty(), "{name}");
        write_policy(&s, "");
    }
    // The plugin's own request of one is ignored, with a warning, and never suggested.
    let granted = run_args(&s, &["plugins", "grant", "var_probe", "--env", "PLAIN_VAR"]);
    assert_eq!(granted.code, Some(0), "{}", granted.stderr);
    let (done, _) = call_once(&s, "probe_read", json!({"path": "x"}));
    for name in ["BASH_ENV", "GIT_CONFIG_KEY_0"] {
        let warning = lines_with(&done.stderr, &format!("requests the variable {name}"));
        assert_eq!(warning.len(), 1, "{name}: {}", done.stderr);
        assert!(warning[0].contains("the request is ignored"), "{}", warning[0]);
        assert!(!done.stderr.contains(&format!("--env {name}")), "{name} was suggested: {}", done.stderr);
    }
    let inspected = run_args(&s, &["plugins", "inspect", dir.join("var_probe.wasm").to_str().unwrap()]);
    assert!(!inspected.stdout.contains("--env BASH_ENV"), "{}", inspected.stdout);
}
