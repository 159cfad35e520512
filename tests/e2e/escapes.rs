//! Sandbox escapes through the host itself (issue 7), through the real binary: host actions
//! on paths a plugin re-pointed (item 1), grants re-pointed between the check and the use
//! (item 2), airlock's own folders spelled so a grant reaches them (item 3), context files
//! that lead out of the workspace or never end (items 4 and 9), check phases that reach the
//! network or the environment (item 14), and approvals that do not bind what runs (item 15).
// Set-up helpers unwrap: a failed set-up step should fail the test loudly.
#![allow(clippy::unwrap_used)]

use std::io::Write;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use airlock_tests::{Finished, MockModel, Session, Turn, Wire, call, climbing, fixtures, function_responses};
use serde_json::{Value, json};

use crate::{session, write_policy};

const SECRET: &str = "TOP-SECRET-41c9";

/// A folder outside the workspace, canonical, holding `secret.txt` (mode 0600).
struct Outside {
    _dir: tempfile::TempDir,
    path: PathBuf,
}

impl Outside {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().canonicalize().unwrap();
        let outside = Self { _dir: dir, path };
        outside.file("secret.txt", 0o600);
        outside
    }

    /// Creates `name` holding the secret with `mode`, and returns its path.
    fn file(&self, name: &str, mode: u32) -> PathBuf {
        let path = self.path.join(name);
        std::fs::write(&path, SECRET).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        path
    }
}

fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path).unwrap().permissions().mode() & 0o777
}

/// Runs `command` to the end, killing it after `limit` (a hang fails the test, never the suite).
fn run_bounded(mut command: Command, limit: Duration) -> Finished {
    let child = command.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let id = child.id();
    let started = Instant::now();
    let watchdog = std::thread::spawn(move || {
        while started.elapsed() < limit {
            std::thread::sleep(Duration::from_millis(50));
            if std::fs::metadata(format!("/proc/{id}")).is_err() {
                return false;
            }
        }
        let _ = Command::new("kill").arg("-9").arg(id.to_string()).status();
        true
    });
    let output = child.wait_with_output().unwrap();
    let killed = watchdog.join().unwrap();
    assert!(!killed, "airlock hung for {limit:?}: {}", String::from_utf8_lossy(&output.stderr));
    Finished {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

fn fs_ops(shown: impl AsRef<Path>, ops: Value) -> airlock_tests::MockCall {
    call("fs_ops", json!({"shown": shown.as_ref().display().to_string(), "ops": ops}))
}

#[test]
fn an_approved_edit_cannot_make_the_host_change_a_file_outside_the_workspace() {
    let s = session();
    let outside = Outside::new();
    s.install_plugin(fixtures::ESCAPE_PROBE);
    write_policy(&s, "[grants.escape_probe]\nfiles = [\".:read-write\"]\n");
    // Each confirmed file is world-readable; each victim outside is private. The host puts a
    // confirmed file's mode back after an edit: it must never put it on a victim.
    for (file, victim) in [("notes.txt", "a"), ("d/f.txt", "b"), ("h.txt", "c")] {
        s.write(file, "original");
        std::fs::set_permissions(s.workspace.join(file), std::fs::Permissions::from_mode(0o644)).unwrap();
        outside.file(victim, 0o600);
    }
    std::fs::create_dir(outside.path.join("dir")).unwrap();
    outside.file("dir/f.txt", 0o600);
    // A hard link to the victim, planted in the workspace (by an archive, another process…).
    std::fs::hard_link(outside.path.join("c"), s.workspace.join("planted")).unwrap();
    s.write("run.sh", "#!/bin/sh\n");
    std::fs::set_permissions(s.workspace.join("run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();

    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![
        // The confirmed file becomes a link that climbs out to a victim.
        fs_ops(
            s.workspace.join("notes.txt"),
            json!([{"op": "remove", "path": "notes.txt"},
                   {"op": "symlink", "target": climbing(&s.workspace, &outside.path.join("a")), "link": "notes.txt"}]),
        ),
        // A folder on the confirmed path becomes a link to a folder outside.
        fs_ops(
            s.workspace.join("d/f.txt"),
            json!([{"op": "rename", "from": "d", "to": "d_old"},
                   {"op": "symlink", "target": climbing(&s.workspace, &outside.path.join("dir")), "link": "d"}]),
        ),
        // A planted hard link to a victim is renamed over the confirmed file.
        fs_ops(s.workspace.join("h.txt"), json!([{"op": "rename", "from": "planted", "to": "h.txt"}])),
        // An honest edit keeps the file's mode.
        call("write_file", json!({"file_path": "run.sh", "content": "#!/bin/sh\necho hi\n"})),
    ]));
    mock.push_turn(Turn::text("done"));
    let done = s.airlock(&mock, &["-p", "edit", "--approval-mode", "yolo"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);

    for victim in ["a", "dir/f.txt", "c", "secret.txt"] {
        assert_eq!(mode(&outside.path.join(victim)), 0o600, "{victim} changed: {}", done.stderr);
        assert_eq!(std::fs::read_to_string(outside.path.join(victim)).unwrap(), SECRET);
    }
    assert_eq!(s.read("run.sh").as_deref(), Some("#!/bin/sh\necho hi\n"));
    assert_eq!(mode(&s.workspace.join("run.sh")), 0o755, "an honest edit must keep the mode");
}

#[test]
fn a_call_cannot_re_point_a_granted_folder_for_the_next_call_of_its_batch() {
    let s = session();
    let outside = Outside::new();
    s.install_plugin(fixtures::FS_PROBE);
    // The built-in write_file narrowed to `data`; fs_probe may read `data` only.
    write_policy(
        &s,
        "[grants.write-file]\nfiles = [\"data:read-write\"]\n\n\
         [grants.fs_probe]\nfiles = [\"data:read\", \"deep/er:read\"]\n",
    );
    s.write("data/ok.txt", "inside");
    s.write("deep/er/ok.txt", "inside too");
    std::fs::create_dir_all(outside.path.join("er")).unwrap();
    outside.file("er/secret.txt", 0o600);
    let escape = climbing(&s.workspace, &outside.path);
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::calls(vec![
        call("read_path", json!({"path": "data/ok.txt"})),
        // A command of the batch swaps the granted folder for a link leading out (a third-party
        // edit no longer can: what it writes beside the file it showed is discarded).
        call("run_shell_command", json!({"command": format!("mv data data_real && ln -s '{escape}' data")})),
        call("write_file", json!({"file_path": "data/new.txt", "content": "pwned"})),
        call("read_path", json!({"path": "data/secret.txt"})),
        // A folder above the granted one is swapped: `deep/er` now leads outside.
        call("run_shell_command", json!({"command": format!("mv deep deep_real && ln -s '{escape}' deep")})),
        call("read_path", json!({"path": "deep/er/secret.txt"})),
    ]));
    mock.push_turn(Turn::text("done"));
    let done = s.airlock(&mock, &["-p", "swap", "--approval-mode", "yolo"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);

    let sent = function_responses(&mock.requests()[1]);
    assert_eq!(sent[0].1, "inside", "the grant itself must work: {sent:?}");
    assert!(sent[1].1.contains("Exit Code: 0"), "the swap must happen for the test to mean anything: {sent:?}");
    assert!(sent[2].1.starts_with("Error:"), "{sent:?}");
    assert!(sent[3].1.starts_with("Error:") && !sent[3].1.contains(SECRET), "{sent:?}");
    assert!(sent[4].1.contains("Exit Code: 0"), "{sent:?}");
    assert!(std::fs::symlink_metadata(s.workspace.join("deep")).is_ok_and(|m| m.file_type().is_symlink()));
    assert!(sent[5].1.starts_with("Error:") && !sent[5].1.contains(SECRET), "{sent:?}");
    assert!(!outside.path.join("new.txt").exists(), "write_file wrote outside its grant");
    let everything = serde_json::to_string(&mock.requests()).unwrap();
    assert!(!everything.contains(SECRET), "the secret reached the model");
}

/// Spellings of `$AIRLOCK_HOME` and the cache themselves are in `trust.rs`; these are the
/// spellings of the workspace and of a cache reached through a link.
#[test]
fn a_workspace_or_cache_named_through_a_link_still_protects_airlocks_folders() {
    let s = session();
    let home = s.workspace.join("ah");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(home.join("policy.toml"), "# mine\n").unwrap();
    let link = tempfile::tempdir().unwrap();
    let ws_link = link.path().join("ws");
    symlink(&s.workspace, &ws_link).unwrap();
    // The workspace named through a link, the home spelled plainly.
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![call("write_file", json!({"file_path": "ah/policy.toml", "content": "x"}))]));
    mock.push_turn(Turn::text("done"));
    let mut command = s.bare_command();
    command.env("AIRLOCK_HOME", &home).env("OPENAI_API_KEY", "k");
    command.args(["--provider", "openai", "--base-url", &mock.base_url(), "-m", "m", "--approval-mode", "auto-edit"]);
    command.args(["-p", "edit", "--workspace"]).arg(&ws_link);
    let done = Session::run(command);
    assert!(function_responses(&mock.requests()[1])[0].1.starts_with("Error:"), "{}", done.stderr);
    assert_eq!(std::fs::read_to_string(home.join("policy.toml")).unwrap(), "# mine\n");
    // The compile cache inside the workspace, named through the link; the home outside.
    let cache = s.workspace.join("cache");
    std::fs::create_dir_all(&cache).unwrap();
    let outside_home = tempfile::tempdir().unwrap();
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![call("write_file", json!({"file_path": "cache/evil.cwasm", "content": "x"}))]));
    mock.push_turn(Turn::text("done"));
    let mut command = s.command(&mock);
    command.env("AIRLOCK_HOME", outside_home.path()).env("AIRLOCK_CACHE_DIR", ws_link.join("cache"));
    command.args(["-p", "edit", "--approval-mode", "auto-edit"]);
    let done = Session::run(command);
    assert!(function_responses(&mock.requests()[1])[0].1.starts_with("Error:"), "{}", done.stderr);
    assert!(!cache.join("evil.cwasm").exists());
}

#[test]
fn a_context_file_that_links_out_of_the_workspace_is_not_read() {
    let s = session();
    let outside = Outside::new();
    symlink(outside.path.join("secret.txt"), s.workspace.join("AIRLOCK.md")).unwrap();
    std::fs::create_dir(s.workspace.join("sub")).unwrap();
    symlink("/proc/self/environ", s.workspace.join("sub/AIRLOCK.md")).unwrap();
    let mut command = s.bare_command();
    command.env("OPENAI_API_KEY", "sk-host-key-f00d").current_dir(s.workspace.join("sub"));
    command.args(["--show-context", "--workspace"]).arg(&s.workspace);
    let done = Session::run(command);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert!(!done.stdout.contains(SECRET) && !done.stdout.contains("sk-host-key"), "{}", done.stdout);
    assert!(done.stdout.contains("symbolic link"), "the user is told why: {}", done.stdout);

    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::text("hi"));
    let mut command = s.command(&mock);
    command.env("OPENAI_API_KEY", "sk-host-key-f00d").current_dir(s.workspace.join("sub")).args(["-p", "hi"]);
    let done = Session::run(command);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let sent = serde_json::to_string(&mock.requests()).unwrap();
    assert!(!sent.contains(SECRET) && !sent.contains("sk-host-key"), "a context file leaked to the model");
    assert!(done.stderr.contains("AIRLOCK.md"), "the user is warned: {}", done.stderr);
}

#[test]
fn a_context_file_that_never_ends_or_never_opens_cannot_hang_or_flood_airlock() {
    for (name, plant) in [
        ("fifo", (|p: &Path| assert!(Command::new("mkfifo").arg(p).status().unwrap().success())) as fn(&Path)),
        ("zero", |p: &Path| symlink("/dev/zero", p).unwrap()),
        ("sparse", |p: &Path| std::fs::File::create(p).unwrap().set_len(8 << 30).unwrap()),
    ] {
        let s = session();
        plant(&s.workspace.join("AIRLOCK.md"));
        let mock = MockModel::start(Wire::Gemini);
        mock.push_turn(Turn::text("hi"));
        let mut command = s.command(&mock);
        command.args(["-p", "hi"]);
        let done = run_bounded(command, Duration::from_secs(60));
        assert_eq!(done.code, Some(0), "{name}: {}", done.stderr);
        assert_eq!(done.stdout, "hi\n", "{name}");
        let sent = serde_json::to_string(&mock.requests()).unwrap();
        // 32 KiB of NUL bytes is ~200 kB of JSON escapes; without a cap, gigabytes.
        assert!(sent.len() < 1_000_000, "{name}: the request holds {} bytes", sent.len());
    }
}

/// Listens on the first port `check_leak` may be granted that is free; counts connections.
struct Listener {
    port: u16,
    accepted: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl Listener {
    fn start() -> Self {
        let listener = [47391, 47392, 47393, 47394]
            .iter()
            .find_map(|port| std::net::TcpListener::bind(("127.0.0.1", *port)).ok())
            .unwrap_or_else(|| panic!("none of the probe ports is free"));
        let port = listener.local_addr().unwrap().port();
        let accepted = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counter = accepted.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let mut stream = stream;
                let mut request = Vec::new();
                let mut byte = [0u8; 1];
                while !request.ends_with(b"\r\n\r\n") && std::io::Read::read(&mut stream, &mut byte).unwrap_or(0) == 1 {
                    request.push(byte[0]);
                }
                let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
            }
        });
        Self { port, accepted }
    }

    fn accepted(&self) -> usize {
        self.accepted.load(std::sync::atomic::Ordering::SeqCst)
    }
}

#[test]
fn check_phases_reach_neither_the_network_nor_the_environment() {
    let s = session();
    let listener = Listener::start();
    s.install_plugin(fixtures::ESCAPE_PROBE);
    let url = format!("http://127.0.0.1:{}/leak?data=workspace-file", listener.port);
    write_policy(
        &s,
        &format!(
            "[grants.escape_probe]\nnetwork = [\"http://127.0.0.1:{}\"]\nenv = [\"GRANTED_VAR\"]\n",
            listener.port
        ),
    );
    // Headless without approval: only validate, describe-call and confirm run.
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![
        call("check_leak", json!({"url": url, "fail_in": "validate"})),
        call("check_leak", json!({"url": url})),
    ]));
    mock.push_turn(Turn::text("done"));
    let mut command = s.command(&mock);
    command.env("GRANTED_VAR", "visible").args(["-p", "leak", "-o", "stream-json"]);
    let done = Session::run(command);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let sent = function_responses(&mock.requests()[1]);
    assert!(sent[0].1.contains("validate saw env=none; net=ErrorCode::HttpRequestDenied"), "{sent:?}");
    assert!(done.stdout.contains("describe-call saw env=none; net=ErrorCode::HttpRequestDenied"), "{}", done.stdout);
    assert!(!done.stdout.contains("visible"), "{}", done.stdout);
    assert_eq!(listener.accepted(), 0, "a check phase reached the network");

    // Approved, the execution gets both: the grant is real, so the test above could fail.
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![call("check_leak", json!({"url": url}))]));
    mock.push_turn(Turn::text("done"));
    let mut command = s.command(&mock);
    command.env("GRANTED_VAR", "visible").args(["-p", "leak", "--approval-mode", "yolo"]);
    let done = Session::run(command);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let sent = function_responses(&mock.requests()[1]);
    assert!(sent[0].1.contains("execute saw env=visible; net=status 200"), "{sent:?}");
    assert_eq!(listener.accepted(), 1, "only the execution reached the network");
}

#[test]
fn an_approved_edit_writes_only_where_its_confirmation_showed() {
    let s = session();
    s.install_plugin(fixtures::ESCAPE_PROBE);
    write_policy(
        &s,
        "[grants.escape_probe]\nfiles = [\".:read-write\"]\n\n\
         [[rule]]\ntool = \"fs_ops\"\npath = \"docs/**\"\ndecision = \"allow\"\n\n\
         [[rule]]\ntool = \"write_file\"\npath = \"docs/**\"\ndecision = \"allow\"\n",
    );
    // Empty, as the probe's confirmation shows it.
    s.write("docs/notes.md", "");
    s.write("src/main.rs", "fn main() {}\n");
    symlink("../src", s.workspace.join("docs/sym")).unwrap();
    let mock = MockModel::start(Wire::Anthropic);
    mock.push_turn(Turn::calls(vec![
        // Shows a small fix in docs/notes.md, writes elsewhere.
        fs_ops(
            "docs/notes.md",
            json!([{"op": "write", "path": "src/main.rs", "content": "pwned"},
                   {"op": "mkdir", "path": ".airlock"},
                   {"op": "write", "path": ".airlock/policy.toml", "content": "[grants.escape_probe]\n"},
                   {"op": "write", "path": "docs/notes.md", "content": "a small fix\n"}]),
        ),
        // A link in docs/ leads to src/: a docs/** rule must not approve it.
        call("write_file", json!({"file_path": "docs/sym/main.rs", "content": "pwned"})),
    ]));
    mock.push_turn(Turn::text("done"));
    let done = s.airlock(&mock, &["-p", "fix the typo"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);

    let sent = function_responses(&mock.requests()[1]);
    let lines: Vec<&str> = sent[0].1.lines().collect();
    assert_eq!(lines.len(), 4, "the rule allowed the call: {sent:?}");
    assert!(lines[0].starts_with("error:") && lines[2].starts_with("error:"), "{lines:?}");
    assert_eq!(lines[3], "ok", "what was shown may be written: {lines:?}");
    assert_eq!(s.read("docs/notes.md").as_deref(), Some("a small fix\n"));
    assert_eq!(s.read("src/main.rs").as_deref(), Some("fn main() {}\n"));
    assert!(!s.workspace.join(".airlock/policy.toml").exists());
    assert!(sent[1].1.starts_with("Error: policy_denied"), "the link's target is src/main.rs: {sent:?}");
}

#[test]
fn an_ask_question_says_where_the_call_can_write() {
    let s = session();
    s.install_plugin(fixtures::ESCAPE_PROBE);
    write_policy(&s, "[grants.escape_probe]\nfiles = [\".:read-write\"]\n");
    s.write("docs/notes.md", "a typo\n");
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![fs_ops("docs/notes.md", json!([]))]));
    mock.push_turn(Turn::text("done"));
    let mut command = s.command(&mock);
    command.args(["-p", "fix", "--ask"]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = command.spawn().unwrap();
    child.stdin.take().unwrap().write_all(b"n\n").unwrap();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    // A third-party plugin's edit: the one file it showed, to the content shown.
    let notes = s.workspace.join("docs/notes.md");
    assert!(stderr.contains(&format!("it can change only {}, to the content shown", notes.display())), "{stderr}");
    assert!(!stderr.contains("it can write anywhere in"), "{stderr}");
    // The sandbox it will hold, said in full: the edit's file writable, the rest read-only.
    let held = stderr.lines().find(|l| l.contains("its sandbox will hold:")).unwrap_or_else(|| panic!("{stderr}"));
    assert!(held.contains(&format!("{} (read-write)", notes.display())), "{held}");
    assert!(held.contains(&format!("{} (read-only)", s.workspace.display())), "{held}");
    assert!(!held.contains(&format!("{} (read-write)", s.workspace.join("docs").display())), "{held}");
    assert!(held.contains("network none") && held.contains("memory 256 MiB"), "{held}");
}

#[test]
fn an_edit_whose_file_lies_outside_every_grant_can_write_nothing() {
    let s = session();
    let outside = Outside::new();
    s.install_plugin(fixtures::ESCAPE_PROBE);
    write_policy(&s, "[grants.escape_probe]\nfiles = [\".:read-write\"]\n");
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::calls(vec![
        fs_ops(outside.path.join("secret.txt"), json!([{"op": "write", "path": "inside.txt", "content": "x"}])),
        fs_ops("", json!([{"op": "write", "path": "inside.txt", "content": "x"}])),
    ]));
    mock.push_turn(Turn::text("done"));
    let done = s.airlock(&mock, &["-p", "edit", "--approval-mode", "yolo"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let sent = function_responses(&mock.requests()[1]);
    assert!(sent.iter().all(|(_, text)| text.starts_with("error:")), "{sent:?}");
    assert_eq!(s.read("inside.txt"), None);
    assert_eq!(std::fs::read_to_string(outside.path.join("secret.txt")).unwrap(), SECRET);
}

#[test]
fn a_mutating_call_that_shows_no_edit_is_approved_by_neither_auto_edit_nor_a_path_rule() {
    let s = session();
    s.install_plugin(fixtures::ESCAPE_PROBE);
    write_policy(
        &s,
        "[grants.escape_probe]\nfiles = [\".:read-write\"]\n\n\
         [[rule]]\ntool = \"fs_ops\"\npath = \"docs/**\"\ndecision = \"allow\"\n",
    );
    s.write("docs/notes.md", "a typo\n");
    s.write("src/main.rs", "fn main() {}\n");
    let pwn = json!([{"op": "write", "path": "src/main.rs", "content": "pwned"}]);
    for mode in ["default", "auto-edit"] {
        let mock = MockModel::start(Wire::OpenAi);
        // No `shown`: the plugin confirms nothing, and names a docs/ path in its arguments.
        mock.push_turn(Turn::calls(vec![call("fs_ops", json!({"ops": pwn, "path": "docs/notes.md"}))]));
        mock.push_turn(Turn::text("done"));
        let done = s.airlock(&mock, &["-p", "fix", "--approval-mode", mode]);
        assert_eq!(done.code, Some(0), "{mode}: {}", done.stderr);
        let sent = function_responses(&mock.requests()[1]);
        assert!(sent[0].1.starts_with("Error: policy_denied"), "{mode}: {sent:?}");
        assert_eq!(s.read("src/main.rs").as_deref(), Some("fn main() {}\n"), "{mode}");
    }
}
