//! `run_shell_command` end to end: the real binary, the scripted mock model, real commands
//! in the OS sandbox. What the model is told is read from the requests the mock received.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use airlock_tests::http_server::CountingListener;
use airlock_tests::{Finished, MockModel, Session, Turn, Wire, call, declared_tools, function_responses, run_bounded};
use serde_json::{Value, json};

use super::{pid_alive, session, write_policy};

/// One headless run: the model calls `run_shell_command` once per line of `commands` (one
/// batch), then answers `done`. Returns the run and what each call sent back to the model.
pub(super) fn shell(s: &Session, commands: &[&str], args: &[&str]) -> (Finished, Vec<String>) {
    let mock = MockModel::start(Wire::OpenAi);
    let calls = commands.iter().map(|c| call("run_shell_command", json!({ "command": c }))).collect();
    mock.push_turn(Turn::calls(calls));
    mock.push_turn(Turn::text("done"));
    let mut command = s.command(&mock);
    command.args(["-p", "run it"]).args(args);
    let done = run_bounded(command, Some(""), Duration::from_secs(120));
    let requests = mock.requests();
    let sent = match requests.get(1) {
        Some(request) => function_responses(request).into_iter().map(|(_, text)| text).collect(),
        None => Vec::new(),
    };
    (done, sent)
}

pub(super) fn yolo(s: &Session, commands: &[&str]) -> (Finished, Vec<String>) {
    shell(s, commands, &["--approval-mode", "yolo"])
}

#[test]
fn echo_runs_and_its_output_reaches_the_model() {
    let s = session();
    let (done, sent) = yolo(&s, &["echo hello from the shell && pwd"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let text = &sent[0];
    assert!(text.contains("hello from the shell"), "{text}");
    assert!(text.contains(&s.workspace.display().to_string()), "it runs in the workspace: {text}");
    assert!(text.contains("Exit Code: 0"), "{text}");
}

#[test]
fn a_failing_command_tells_the_model_its_exit_code_and_signal() {
    let s = session();
    let (done, sent) = yolo(&s, &["echo broken >&2; exit 3", "kill -SEGV $$"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert!(sent[0].contains("broken") && sent[0].contains("Exit Code: 3"), "{}", sent[0]);
    assert!(sent[1].contains("Signal: 11 (SIGSEGV)"), "{}", sent[1]);
}

#[test]
fn headless_default_mode_refuses_and_runs_nothing() {
    let s = session();
    let (done, sent) = shell(&s, &["touch made"], &[]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert!(s.read("made").is_none(), "a command ran without approval");
    assert!(sent[0].to_lowercase().contains("approv") || sent[0].contains("denied"), "{}", sent[0]);
}

#[test]
fn plan_mode_offers_no_shell() {
    let s = session();
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::text("ok"));
    let done = s.airlock(&mock, &["-p", "plan", "--approval-mode", "plan"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let tools = declared_tools(&mock.requests()[0]);
    assert!(!tools.iter().any(|t| t == "run_shell_command"), "{tools:?}");
    assert!(tools.iter().any(|t| t == "read_file"), "{tools:?}");
    // In default mode it is offered.
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::text("ok"));
    s.airlock(&mock, &["-p", "go"]);
    assert!(declared_tools(&mock.requests()[0]).iter().any(|t| t == "run_shell_command"));
}

#[test]
fn each_command_of_a_line_is_judged_on_its_own() {
    let s = session();
    std::fs::create_dir(s.workspace.join("x")).unwrap_or_else(|e| panic!("{e}"));
    s.write("x/file", "keep me");
    write_policy(&s, "[[rule]]\ntool = \"run_shell_command\"\ncommand = \"ls\"\ndecision = \"allow\"\n");
    // `ls x` alone: allowed by the rule, runs in default mode without asking.
    let (done, sent) = shell(&s, &["ls x"], &[]);
    assert!(sent[0].contains("file") && sent[0].contains("Exit Code: 0"), "{}\n{}", sent[0], done.stderr);
    // `ls && rm -rf x`: asked about, and about `rm`; refused, nothing removed.
    let (done, sent) = shell(&s, &["ls && rm -rf x"], &["--ask"]);
    assert!(done.stderr.contains("$ ls && rm -rf x"), "{}", done.stderr);
    assert!(done.stderr.contains("`run_shell_command` running `rm …`"), "{}", done.stderr);
    assert!(s.read("x/file").is_some(), "x was removed: {}", sent[0]);
    // With a rule denying `rm`, no way of writing it gets through, even in yolo.
    write_policy(
        &s,
        "[[rule]]\ntool = \"run_shell_command\"\ncommand = \"ls\"\ndecision = \"allow\"\n\n\
         [[rule]]\ntool = \"run_shell_command\"\ncommand = \"rm\"\ndecision = \"deny\"\n",
    );
    let smuggled = [
        "ls && rm -rf x",
        "echo $(rm -rf x)",
        "echo `rm -rf x`",
        "bash -c 'rm -rf x'",
        "sh -c \"true; rm -rf x\"",
        "env rm -rf x",
        "sudo rm -rf x",
        "(cd x; rm file)",
        "/bin/rm -rf x",
        "\\rm -rf x",
        "'r'm -rf x",
        "if true; then rm -rf x; fi",
        "find x -exec rm {} \\;",
        "$(printf rm) -rf x",
        "R=rm; $R -rf x",
        "eval 'rm -rf x'",
    ];
    let (done, sent) = yolo(&s, &smuggled);
    for (line, text) in smuggled.iter().zip(&sent) {
        assert!(!text.contains("Exit Code"), "`{line}` ran: {text}");
        assert!(text.contains("denies") || text.contains("deny"), "`{line}`: {text}");
    }
    assert_eq!(s.read("x/file").as_deref(), Some("keep me"), "{}", done.stderr);
}

#[test]
fn always_for_a_command_root_remembers_it_for_the_session() {
    let s = session();
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![call("run_shell_command", json!({ "command": "echo one" }))]));
    mock.push_turn(Turn::calls(vec![call("run_shell_command", json!({ "command": "echo two" }))]));
    mock.push_turn(Turn::calls(vec![call("run_shell_command", json!({ "command": "touch made" }))]));
    mock.push_turn(Turn::text("done"));
    let mut command = s.command(&mock);
    command.args(["-p", "go", "--ask"]);
    // "a" for `echo one`; `echo two` must not ask; `touch made` asks and gets no answer.
    let done = run_bounded(command, Some("a\n"), Duration::from_secs(120));
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let requests = mock.requests();
    assert!(function_responses(&requests[1])[0].1.contains("one"));
    assert!(function_responses(&requests[2])[0].1.contains("two"), "{}", done.stderr);
    assert_eq!(done.stderr.matches("wants to run:").count(), 2, "asked twice: {}", done.stderr);
    assert!(s.read("made").is_none());
}

#[test]
fn a_redirection_outside_the_workspace_is_refused_before_anything_runs() {
    let s = session();
    let outside = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let stolen = outside.path().join("stolen");
    let parent = s.workspace.parent().unwrap_or_else(|| panic!("no parent")).join("escaped-by-redirect");
    let lines = [format!("echo secret > {}", stolen.display()), "echo secret > ../escaped-by-redirect".to_string()];
    let (done, sent) = shell(&s, &lines.iter().map(String::as_str).collect::<Vec<_>>(), &["--ask"]);
    for text in &sent {
        assert!(text.contains("writes outside"), "{text}");
    }
    assert!(!done.stderr.contains("allow always"), "it was asked about: {}", done.stderr);
    assert!(!stolen.exists() && !parent.exists());
}

#[test]
fn live_output_arrives_while_the_command_still_runs() {
    let s = session();
    let mock = MockModel::start(Wire::OpenAi);
    let line = "echo first; sleep 2; echo second";
    mock.push_turn(Turn::calls(vec![call("run_shell_command", json!({ "command": line }))]));
    mock.push_turn(Turn::text("done"));
    let mut command = s.command(&mock);
    command.args(["-p", "go", "--approval-mode", "yolo", "-o", "stream-json"]).stdout(Stdio::piped());
    let mut child = command.spawn().unwrap_or_else(|e| panic!("{e}"));
    let stdout = child.stdout.take().unwrap_or_else(|| panic!("no stdout"));
    let started = Instant::now();
    let (mut first_at, mut done_at) = (None, None);
    for line in BufReader::new(stdout).lines() {
        let line = line.unwrap_or_default();
        let event: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
        if event["type"] == "tool_output" && event["chunk"].as_str().is_some_and(|c| c.contains("first")) {
            first_at.get_or_insert(started.elapsed());
        }
        if event["type"] == "tool_call" && event["status"] == "success" {
            done_at.get_or_insert(started.elapsed());
        }
    }
    let _ = child.wait();
    let (first, done) = (first_at.unwrap_or_else(|| panic!("no live output")), done_at.unwrap_or_default());
    assert!(done >= first + Duration::from_secs(1), "first line at {first:?}, the end at {done:?}");
}

#[test]
fn output_over_the_cap_is_saved_whole_and_the_model_told_where() {
    let s = session();
    let (done, sent) = yolo(&s, &["seq 1 200000"]);
    let text = &sent[0];
    assert!(text.contains("truncated"), "{}", &text[text.len().saturating_sub(400)..]);
    let marker = "saved to ";
    let at = text.rfind(marker).unwrap_or_else(|| panic!("no saved path: {}\n{}", &text[..200], done.stderr));
    let path = text[at + marker.len()..].split(" (").next().unwrap_or_default();
    let saved = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert!(saved.contains("Output: 1\n2\n") && saved.contains("\n200000\n"), "the whole output is saved");
    assert_eq!(saved.lines().filter(|l| l.parse::<u32>().is_ok()).count(), 199_999, "and the line `Output: 1`");
}

#[test]
fn binary_output_is_detected_and_not_dumped() {
    let s = session();
    let (_, sent) = yolo(&s, &["head -c 20000 /dev/urandom; printf '\\0\\0'"]);
    assert!(sent[0].contains("[binary output:"), "{}", &sent[0][..sent[0].len().min(300)]);
    assert!(sent[0].len() < 2_000, "{} bytes", sent[0].len());
}

#[test]
fn a_timeout_kills_the_whole_process_group_grandchildren_included() {
    let s = session();
    write_policy(&s, "[grants.run-shell-command]\ntimeout_secs = 4\n");
    let line = "echo started; (trap '' TERM; while :; do date +%s%N > beat; sleep 0.05; done) & sleep 300";
    let started = Instant::now();
    let (done, sent) = yolo(&s, &[line]);
    assert!(started.elapsed() < Duration::from_secs(60), "{:?}", started.elapsed());
    let text = &sent[0];
    assert!(text.contains("time limit") && text.contains("started"), "{text}\n{}", done.stderr);
    assert!(s.read("beat").is_some(), "the grandchild never ran");
    assert!(super::heartbeat_stops(&s.workspace.join("beat")), "the grandchild outlived the timeout");
}

#[test]
fn ctrl_c_during_a_long_command_kills_it_and_ends_the_run() {
    let s = session();
    let mock = MockModel::start(Wire::OpenAi);
    // The shell and a child each beat; pids inside the sandbox are its own, not the machine's.
    let line = "(while :; do date +%s%N > child.beat; sleep 0.05; done) & \
                while :; do date +%s%N > shell.beat; sleep 0.05; done";
    mock.push_turn(Turn::calls(vec![call("run_shell_command", json!({ "command": line }))]));
    mock.push_turn(Turn::text("done"));
    let mut command = s.command(&mock);
    command.args(["-p", "go", "--approval-mode", "yolo"]).stdout(Stdio::null()).stderr(Stdio::null());
    let mut child = command.spawn().unwrap_or_else(|e| panic!("{e}"));
    let started = Instant::now();
    while s.read("child.beat").is_none() || s.read("shell.beat").is_none() {
        assert!(started.elapsed() < Duration::from_secs(60), "the command never started");
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = Command::new("kill").args(["-INT", &child.id().to_string()]).status();
    let started = Instant::now();
    while child.try_wait().ok().flatten().is_none() {
        assert!(started.elapsed() < Duration::from_secs(20), "airlock did not end on Ctrl-C");
        std::thread::sleep(Duration::from_millis(50));
    }
    for beat in ["child.beat", "shell.beat"] {
        assert!(super::heartbeat_stops(&s.workspace.join(beat)), "{beat}: the command outlived airlock");
    }
}

#[test]
fn a_background_command_is_listed_and_stopped_when_airlock_exits() {
    let s = session();
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![call(
        "run_shell_command",
        json!({ "command": "echo serving; sleep 300", "is_background": true }),
    )]));
    mock.push_turn(Turn::text("done"));
    let done = s.airlock(&mock, &["-p", "serve", "--approval-mode", "yolo"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let text = &function_responses(&mock.requests()[1])[0].1;
    let pid: u32 = text
        .split("(PID ")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .and_then(|pid| pid.parse().ok())
        .unwrap_or_else(|| panic!("no pid: {text}"));
    assert!(done.stderr.contains("stopped 1 background command"), "{}", done.stderr);
    assert!(!pid_alive(pid), "the background command outlived airlock");
}

/// SIGKILL of airlock itself takes every descendant of a running command with it, also
/// ones that started a session of their own (issue 23, item 6).
#[test]
fn a_commands_descendants_die_when_airlock_is_killed() {
    let s = session();
    let mock = MockModel::start(Wire::OpenAi);
    let beat = |file: &str| format!("while :; do date +%s%N > {file}; sleep 0.05; done");
    let line = format!(
        "(setsid bash -c '{}' &); nohup bash -c '{}' >/dev/null 2>&1 & disown; ({}) & sleep 300",
        beat("beat1"),
        beat("beat2"),
        beat("beat3")
    );
    mock.push_turn(Turn::calls(vec![call("run_shell_command", json!({ "command": line }))]));
    let mut command = s.command(&mock);
    command.args(["-p", "go", "--approval-mode", "yolo"]).stdout(Stdio::null()).stderr(Stdio::null());
    let mut airlock = command.spawn().unwrap_or_else(|e| panic!("{e}"));
    let started = Instant::now();
    while !["beat1", "beat2", "beat3"].iter().all(|f| s.workspace.join(f).exists()) {
        assert!(started.elapsed() < Duration::from_secs(60), "the command never started");
        std::thread::sleep(Duration::from_millis(50));
    }
    airlock.kill().unwrap_or_else(|e| panic!("SIGKILL airlock: {e}"));
    let _ = airlock.wait();
    for file in ["beat1", "beat2", "beat3"] {
        assert!(super::heartbeat_stops(&s.workspace.join(file)), "{file}'s writer outlived airlock");
    }
}

#[test]
fn writes_outside_the_workspace_fail_under_the_sandbox() {
    let s = session();
    let outside = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let home = s.airlock_home().parent().unwrap_or_else(|| panic!("no home")).to_path_buf();
    let targets = [
        home.join("home-x"),
        outside.path().join("abs-x"),
        s.workspace.parent().unwrap_or(Path::new("/")).join("parent-x"),
    ];
    std::os::unix::fs::symlink(outside.path(), s.workspace.join("link-out")).unwrap_or_else(|e| panic!("{e}"));
    let lines = [
        format!("touch {}", targets[0].display()),
        format!("touch {}", targets[1].display()),
        "touch ../parent-x".to_string(),
        "touch link-out/through-link".to_string(),
        format!("mkdir {}/made-dir", outside.path().display()),
        "touch inside-ok".to_string(),
    ];
    let (done, sent) = yolo(&s, &lines.iter().map(String::as_str).collect::<Vec<_>>());
    for (line, text) in lines.iter().zip(&sent).take(5) {
        let refused = text.contains("Permission denied") || text.contains("Read-only file system");
        assert!(refused && !text.contains("Exit Code: 0"), "`{line}`: {text}");
    }
    assert!(sent[5].contains("Exit Code: 0"), "{}\n{}", sent[5], done.stderr);
    assert!(s.read("inside-ok").is_some());
    for target in &targets {
        assert!(!target.exists(), "{} was written", target.display());
    }
    assert!(!outside.path().join("through-link").exists() && !outside.path().join("made-dir").exists());
}

#[test]
fn without_a_network_grant_a_command_cannot_connect_to_a_local_server() {
    let s = session();
    let listener = CountingListener::start();
    let port = listener.addr().port();
    let lines = [
        format!("cat < /dev/tcp/127.0.0.1/{port}"),
        format!("cat < /dev/tcp/127.0.0.1/{port} && echo connected"),
        format!("python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {port}), 2)'"),
    ];
    let (done, sent) = yolo(&s, &lines.iter().map(String::as_str).collect::<Vec<_>>());
    for (line, text) in lines.iter().zip(&sent) {
        let connected = text.lines().any(|l| l == "connected");
        assert!(!text.contains("Exit Code: 0") && !connected, "`{line}`: {text}\n{}", done.stderr);
    }
    assert_eq!(listener.accepted(), 0, "a command reached the local server");
}

#[test]
fn the_network_comes_only_from_the_users_grant_of_every_host() {
    let s = session();
    let listener = CountingListener::start();
    let line = format!("cat < /dev/tcp/127.0.0.1/{} && echo connected", listener.addr().port());
    write_policy(&s, "[grants.run-shell-command]\nnetwork = [\"https://*:*\"]\n");
    let (done, sent) = yolo(&s, &[&line]);
    assert!(sent[0].contains("connected") && sent[0].contains("Exit Code: 0"), "{}\n{}", sent[0], done.stderr);
    assert_eq!(listener.accepted(), 1);
}

#[test]
fn the_child_sees_none_of_the_hosts_secrets() {
    let s = session();
    let mock = MockModel::start(Wire::OpenAi);
    let line = "env; echo ---; tr '\\0' '\\n' < /proc/$PPID/environ; echo ---; cat /proc/1/environ; \
                cat $AIRLOCK_HOME/config.toml";
    mock.push_turn(Turn::calls(vec![call("run_shell_command", json!({ "command": line }))]));
    mock.push_turn(Turn::text("done"));
    let mut command = s.command(&mock);
    command
        .args(["-p", "go", "--approval-mode", "yolo"])
        .env("OPENAI_API_KEY", "sk-host-secret-openai")
        .env("ANTHROPIC_API_KEY", "sk-host-secret-anthropic")
        .env("AWS_SECRET_ACCESS_KEY", "host-secret-aws");
    let done = Session::run(command);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let text = &function_responses(&mock.requests()[1])[0].1;
    assert!(text.contains("PATH="), "{text}");
    for secret in
        ["sk-host-secret-openai", "sk-host-secret-anthropic", "host-secret-aws", "AIRLOCK_HOME=", "base_delay_ms"]
    {
        assert!(!text.contains(secret), "{secret} reached the command: {text}");
    }
}

#[test]
fn git_works_in_the_sandbox_without_the_users_home() {
    let s = session();
    let (done, sent) = yolo(&s, &["git init -q . && git status --short && echo git-ok"]);
    assert!(sent[0].contains("git-ok") && sent[0].contains("Exit Code: 0"), "{}\n{}", sent[0], done.stderr);
}

#[test]
fn an_approved_command_is_asked_with_its_sandbox() {
    let s = session();
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![call("run_shell_command", json!({ "command": "echo asked" }))]));
    mock.push_turn(Turn::text("done"));
    let mut command = s.command(&mock);
    command.args(["-p", "go", "--ask"]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = command.spawn().unwrap_or_else(|e| panic!("{e}"));
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(b"y\n");
    }
    let output = child.wait_with_output().unwrap_or_else(|e| panic!("{e}"));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("$ echo asked"), "{stderr}");
    assert!(stderr.contains("programs it starts run in a read-only view of the system"), "{stderr}");
    assert!(stderr.contains("under Landlock"), "{stderr}");
    assert!(function_responses(&mock.requests()[1])[0].1.contains("asked\n"));
}

/// The user's `PATH` reaches commands (issue 24): a program in a folder of it runs, with the
/// folder readable; the rest of the home stays shut until the user grants it.
#[test]
fn programs_on_the_users_path_run_and_the_rest_of_the_home_stays_shut() {
    let s = session();
    let home = s.airlock_home().parent().unwrap_or_else(|| panic!("no home")).to_path_buf();
    let bin = home.join("tools/bin");
    std::fs::create_dir_all(&bin).unwrap_or_else(|e| panic!("{e}"));
    let tool = bin.join("hello-tool");
    std::fs::write(&tool, "#!/bin/sh\necho hello from a home tool\n").unwrap_or_else(|e| panic!("{e}"));
    std::fs::set_permissions(&tool, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(home.join("secret.txt"), "home secret").unwrap_or_else(|e| panic!("{e}"));
    let lines = ["hello-tool", &format!("cat {}", home.join("secret.txt").display())];
    let run = |s: &Session| {
        let mock = MockModel::start(Wire::OpenAi);
        mock.push_turn(Turn::calls(lines.iter().map(|c| call("run_shell_command", json!({ "command": c }))).collect()));
        mock.push_turn(Turn::text("done"));
        let mut command = s.command(&mock);
        command.args(["-p", "go", "--approval-mode", "yolo"]).env("PATH", format!("{}:/usr/bin:/bin", bin.display()));
        let done = Session::run(command);
        assert_eq!(done.code, Some(0), "{}", done.stderr);
        function_responses(&mock.requests()[1]).into_iter().map(|(_, text)| text).collect::<Vec<_>>()
    };
    let sent = run(&s);
    assert!(sent[0].contains("hello from a home tool") && sent[0].contains("Exit Code: 0"), "{}", sent[0]);
    assert!(!sent[1].contains("home secret") && sent[1].contains("Permission denied"), "{}", sent[1]);
    assert!(
        sent[1].contains(&format!("blocked by the sandbox: commands may not read {}", home.display())),
        "{}",
        sent[1]
    );
    // Granted the home for reading, commands read it.
    write_policy(&s, "[grants.run-shell-command]\nfiles = [\".:read-write\", \"~:read\"]\n");
    let sent = run(&s);
    assert!(sent[1].contains("home secret") && sent[1].contains("Exit Code: 0"), "{}", sent[1]);
}
