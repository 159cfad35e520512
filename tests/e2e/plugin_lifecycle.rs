//! A plugin's life cycle as a user drives it (issue 13): `plugins new` writes a project that
//! builds as written and passes its own test; `plugins check` loads a component without
//! installing it; `plugins install` (from a file or a URL, with or without `--sha256`)
//! records its source and digest, and a file that no longer matches is not loaded;
//! `plugins remove` takes the file, its lock entry and its grant.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;

use airlock_tests::kits::root;
use airlock_tests::{MockModel, Session, Turn, Wire, call, fixtures, function_responses};
use serde_json::json;

use crate::session;

/// `airlock plugins ARGS` with no model.
fn plugins(s: &Session, args: &[&str]) -> airlock_tests::Finished {
    let mut command = s.bare_command();
    command.arg("plugins").args(args);
    Session::run(command)
}

fn installed(s: &Session) -> PathBuf {
    s.airlock_home().join("plugins")
}

/// A cargo command for a guest build: the outer build's settings removed.
fn cargo(dir: &Path) -> Command {
    let mut cargo = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cargo.current_dir(dir);
    airlock_tests::kits::without_outer_cargo_env(&mut cargo);
    cargo
}

fn succeeded(what: &str, output: &std::process::Output) -> String {
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(output.status.success(), "{what} failed:\n{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    stdout
}

#[test]
fn a_new_rust_plugin_passes_its_own_test_builds_as_written_and_the_model_calls_it() {
    let s = session();
    let projects = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let dir = projects.path().join("demo");
    let created = plugins(&s, &["new", "demo-count", "--lang", "rust", "--dir", &dir.display().to_string()]);
    assert_eq!(created.code, Some(0), "{}", created.stderr);
    assert!(created.stdout.contains("./build.sh") && created.stdout.contains("plugins check demo-count.wasm"));
    // The contract version is pinned in the project: its own copy of the released WIT.
    let wit = std::fs::read_to_string(dir.join("wit/tool.wit")).unwrap_or_default();
    assert!(wit.contains("package airlock:tool@0.2.0;"), "{wit}");
    // The built-in tools' lock pins the SDK's dependencies, so nothing is downloaded here.
    std::fs::copy(root().join("plugins/Cargo.lock"), dir.join("Cargo.lock")).unwrap_or_else(|e| panic!("{e}"));

    // Its own test, natively.
    let mut test = cargo(&dir);
    test.args(["test", "--offline"]).env("CARGO_TARGET_DIR", root().join("target/guest-native"));
    let tested = succeeded("the project's cargo test", &test.output().unwrap_or_else(|e| panic!("cargo: {e}")));
    assert!(tested.contains("test result: ok. 2 passed"), "{tested}");

    // Its one build command.
    let build = airlock_tests::kits::without_outer_cargo_env(&mut Command::new(dir.join("build.sh")))
        .env("CARGO_TARGET_DIR", root().join("target/wasm"))
        .env("CARGO_NET_OFFLINE", "true")
        .output()
        .unwrap_or_else(|e| panic!("build.sh: {e}"));
    succeeded("build.sh", &build);
    let component = dir.join("demo-count.wasm");
    assert!(component.is_file(), "build.sh wrote no demo-count.wasm");

    let checked = plugins(&s, &["check", &component.display().to_string()]);
    assert_eq!(checked.code, Some(0), "{}", checked.stderr);
    assert!(checked.stdout.contains("a valid airlock plugin") && checked.stdout.contains("airlock:tool@0.2.0"));
    assert!(checked.stdout.contains("tool demo_count (think)"), "{}", checked.stdout);
    assert!(!installed(&s).join("demo-count.wasm").exists(), "check installs nothing");

    let install = plugins(&s, &["install", &component.display().to_string()]);
    assert_eq!(install.code, Some(0), "{}", install.stderr);
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![call("demo_count", json!({"text": "to be or not to be", "top": 1}))]));
    mock.push_turn(Turn::text("counted"));
    let done = s.airlock(&mock, &["-p", "count it"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let told = serde_json::to_string(&function_responses(&mock.requests()[1])).unwrap_or_default();
    assert!(told.contains(r#"\"words\":6"#) && told.contains(r#"\"word\":\"be\""#), "{told}");
}

#[test]
fn check_says_what_a_component_is_and_refuses_what_is_not_a_plugin() {
    let s = session();
    let good = plugins(&s, &["check", fixtures::FS_PROBE]);
    assert_eq!(good.code, Some(0), "{}", good.stderr);
    assert!(good.stdout.contains("fs_probe 0.1.0") && good.stdout.contains("requests: read ."), "{}", good.stdout);
    assert!(good.stdout.contains("airlock plugins grant fs_probe --read ."), "{}", good.stdout);
    assert!(good.stdout.contains("sha-256"), "{}", good.stdout);
    for (bad, says) in
        [(fixtures::BAD_NAME, "name"), (fixtures::TRAP_IN_DESCRIBE, "describe"), (fixtures::BAD_SCHEMA, "schema")]
    {
        let checked = plugins(&s, &["check", bad]);
        assert_ne!(checked.code, Some(0), "{bad} passed the check");
        assert!(checked.stderr.to_lowercase().contains(says), "{bad}: {}", checked.stderr);
    }
    let module = tempfile::NamedTempFile::new().unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(module.path(), b"\0asm\x01\0\0\0").unwrap_or_else(|e| panic!("{e}"));
    let checked = plugins(&s, &["check", &module.path().display().to_string()]);
    assert_ne!(checked.code, Some(0));
    assert!(checked.stderr.contains("module, not a component"), "{}", checked.stderr);
    let missing = plugins(&s, &["check", "no-such-file.wasm"]);
    assert_ne!(missing.code, Some(0));
    assert!(missing.stderr.contains("no-such-file.wasm"), "{}", missing.stderr);
}

/// Serves `body` to every GET on 127.0.0.1 until the test ends; returns the base URL.
fn serve(body: Vec<u8>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("bind: {e}"));
    let port = listener.local_addr().map(|a| a.port()).unwrap_or_default();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut stream = stream;
            let mut request = [0u8; 4096];
            let _ = stream.read(&mut request);
            let head = format!("HTTP/1.1 200 OK\r\ncontent-length: {}\r\nconnection: close\r\n\r\n", body.len());
            let _ = stream.write_all(head.as_bytes()).and_then(|()| stream.write_all(&body));
        }
    });
    format!("http://127.0.0.1:{port}")
}

fn sha256(path: &str) -> String {
    let output = Command::new("sha256sum").arg(path).output().unwrap_or_else(|e| panic!("sha256sum: {e}"));
    String::from_utf8_lossy(&output.stdout).split_whitespace().next().unwrap_or_default().to_string()
}

#[test]
fn install_pins_the_digest_and_a_replaced_file_is_not_loaded_until_reinstalled() {
    let s = session();
    let digest = sha256(fixtures::FS_PROBE);
    // A wrong digest: nothing is written.
    let wrong = plugins(&s, &["install", fixtures::FS_PROBE, "--sha256", &"0".repeat(64)]);
    assert_ne!(wrong.code, Some(0));
    assert!(wrong.stderr.contains(&digest) && wrong.stderr.contains("nothing was installed"), "{}", wrong.stderr);
    assert!(!installed(&s).join("fs_probe.wasm").exists());
    let bad_hex = plugins(&s, &["install", fixtures::FS_PROBE, "--sha256", "xyz"]);
    assert_eq!(bad_hex.code, Some(2), "{}", bad_hex.stderr);

    let done = plugins(&s, &["install", fixtures::FS_PROBE, "--sha256", &digest.to_uppercase()]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert!(done.stdout.contains("installed fs_probe 0.1.0"), "{}", done.stdout);
    // What it requests and what it gets: nothing until granted.
    assert!(done.stdout.contains("requests: read .") && done.stdout.contains("gets: nothing"), "{}", done.stdout);
    assert!(done.stdout.contains("airlock plugins grant fs_probe --read ."), "{}", done.stdout);
    let lock = std::fs::read_to_string(installed(&s).join("plugins.lock")).unwrap_or_default();
    assert!(lock.contains("[plugins.\"fs_probe.wasm\"]") && lock.contains(&digest), "{lock}");
    assert!(
        lock.contains(&format!(
            "source = {:?}",
            Path::new(fixtures::FS_PROBE).canonicalize().map(|p| p.display().to_string()).unwrap_or_default()
        )),
        "{lock}"
    );

    let listed = s.airlock(&MockModel::start(Wire::OpenAi), &["tools", "list", "--json"]);
    assert!(listed.stdout.contains("\"fs_probe\"") || listed.stdout.contains("fs_"), "{}", listed.stdout);

    // Another program replaces the file: it is not loaded, and the user is told why.
    std::fs::copy(fixtures::ECHO_TOOLS, installed(&s).join("fs_probe.wasm")).unwrap_or_else(|e| panic!("{e}"));
    let listed = plugins(&s, &["list"]);
    assert!(!listed.stdout.contains("echo_tools 0.1.0"), "the replaced file was loaded:\n{}", listed.stdout);
    assert!(listed.stdout.contains("differs from the one recorded in plugins.lock"), "{}", listed.stdout);
    assert!(listed.stdout.contains("airlock plugins remove fs_probe"), "{}", listed.stdout);
    // A session goes on without it, and says so.
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::text("fine"));
    let session = s.airlock(&mock, &["-p", "hi"]);
    assert_eq!(session.code, Some(0), "{}", session.stderr);
    assert!(session.stderr.contains("differs from the one recorded"), "{}", session.stderr);

    // Installing it again restores it.
    let again = plugins(&s, &["install", fixtures::FS_PROBE]);
    assert_eq!(again.code, Some(0), "{}", again.stderr);
    assert!(again.stdout.contains("replacing") || again.stdout.contains("installed fs_probe"), "{}", again.stdout);
    assert!(plugins(&s, &["list"]).stdout.contains("fs_probe 0.1.0"));
}

#[test]
fn install_from_a_url_checks_the_download_and_refuses_plain_http_elsewhere() {
    let s = session();
    let bytes = std::fs::read(fixtures::ECHO_TOOLS).unwrap_or_else(|e| panic!("{e}"));
    let base = serve(bytes);
    let url = format!("{base}/echo_tools.wasm");
    let digest = sha256(fixtures::ECHO_TOOLS);
    let done = plugins(&s, &["install", &url, "--sha256", &digest]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let lock = std::fs::read_to_string(installed(&s).join("plugins.lock")).unwrap_or_default();
    assert!(lock.contains(&url) && lock.contains(&digest), "{lock}");
    assert!(installed(&s).join("echo_tools.wasm").is_file());
    // Garbage from a server is checked before it lands in the folder.
    let junk = serve(b"<html>not found</html>".to_vec());
    let refused = plugins(&s, &["install", &format!("{junk}/x.wasm")]);
    assert_ne!(refused.code, Some(0));
    assert!(refused.stderr.contains("nothing was installed"), "{}", refused.stderr);
    let names: Vec<String> = std::fs::read_dir(installed(&s))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "only the plugin and its lock are in the folder: {names:?}");
    let http = plugins(&s, &["install", "http://example.com/x.wasm"]);
    assert_eq!(http.code, Some(2), "{}", http.stderr);
    assert!(http.stderr.contains("use https"), "{}", http.stderr);
}

#[test]
fn remove_takes_the_file_its_lock_entry_and_its_grant() {
    let s = session();
    assert_eq!(plugins(&s, &["install", fixtures::FS_PROBE]).code, Some(0));
    let granted = plugins(&s, &["grant", "fs_probe", "--read", "."]);
    assert_eq!(granted.code, Some(0), "{}", granted.stderr);
    let removed = plugins(&s, &["remove", "fs_probe"]);
    assert_eq!(removed.code, Some(0), "{}", removed.stderr);
    assert!(!installed(&s).join("fs_probe.wasm").exists());
    assert!(!installed(&s).join("plugins.lock").exists(), "the last entry took the lock file with it");
    let policy = std::fs::read_to_string(s.airlock_home().join("policy.toml")).unwrap_or_default();
    assert!(!policy.contains("fs_probe"), "the grant stayed behind for the next plugin of that name:\n{policy}");
    let again = plugins(&s, &["remove", "fs_probe"]);
    assert_eq!(again.code, Some(2), "{}", again.stderr);
    let builtin = plugins(&s, &["remove", "read_file"]);
    assert_eq!(builtin.code, Some(2));
    assert!(builtin.stderr.contains("built in"), "{}", builtin.stderr);

    // A file that no longer loads can still be removed by its name.
    assert_eq!(plugins(&s, &["install", fixtures::FS_PROBE]).code, Some(0));
    std::fs::copy(fixtures::ECHO_TOOLS, installed(&s).join("fs_probe.wasm")).unwrap_or_else(|e| panic!("{e}"));
    let removed = plugins(&s, &["remove", "fs_probe"]);
    assert_eq!(removed.code, Some(0), "{}", removed.stderr);
    assert!(removed.stdout.contains("did not load"), "{}", removed.stdout);
    assert!(!installed(&s).join("fs_probe.wasm").exists());
}

#[test]
fn install_refuses_a_name_that_is_taken_and_new_refuses_bad_names() {
    let s = session();
    // A file dropped in by hand under another name holds `echo_tools` already.
    s.install_plugin(fixtures::ECHO_TOOLS);
    std::fs::rename(installed(&s).join("echo_tools.wasm"), installed(&s).join("mine.wasm"))
        .unwrap_or_else(|e| panic!("{e}"));
    let taken = plugins(&s, &["install", fixtures::ECHO_TOOLS]);
    assert_ne!(taken.code, Some(0));
    assert!(taken.stderr.contains("already installed as") && taken.stderr.contains("mine.wasm"), "{}", taken.stderr);
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    for bad in ["Bad", "read-file", "../x"] {
        let new = plugins(&s, &["new", bad, "--lang", "c", "--dir", &dir.path().join("x").display().to_string()]);
        assert_eq!(new.code, Some(2), "{bad}: {}", new.stderr);
    }
    assert!(!dir.path().join("x").exists());
}

/// `plugins new NAME --lang LANG` into a fresh folder; the project's folder.
fn new_project(s: &Session, lang: &str, parent: &Path) -> PathBuf {
    let dir = parent.join(format!("{lang}-demo"));
    let created = plugins(s, &["new", "demo-tool", "--lang", lang, "--dir", &dir.display().to_string()]);
    assert_eq!(created.code, Some(0), "{lang}: {}", created.stderr);
    assert!(dir.join("build.sh").is_file() && dir.join("README.md").is_file(), "{lang}: no build.sh or README");
    dir
}

#[test]
fn new_python_js_and_c_projects_pass_their_own_tests_and_build_as_written() {
    let s = session();
    let projects = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));

    let python = new_project(&s, "python", projects.path());
    let output = Command::new("python3")
        .args(["-m", "unittest", "-v"])
        .current_dir(&python)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .unwrap_or_else(|e| panic!("python3: {e}"));
    let report = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success() && report.contains("OK") && !report.contains("Ran 0 tests"), "{report}");
    assert!(python.join("requirements.txt").is_file() && python.join("airlock_tool.py").is_file());

    let js = new_project(&s, "js", projects.path());
    let output = Command::new("node").arg("--test").current_dir(&js).output().unwrap_or_else(|e| panic!("node: {e}"));
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success() && report.contains("# fail 0") && !report.contains("# pass 0"), "{report}");
    let package = std::fs::read_to_string(js.join("package.json")).unwrap_or_default();
    assert!(package.contains("\"name\": \"demo-tool\"") && package.contains("componentize-js"), "{package}");

    // Python and JavaScript build as written too, with the kits' pinned toolchains on PATH
    // (what `pip install -r requirements.txt` and `npm install` put there).
    let tools = airlock_tests::kits::toolchains();
    for project in [&python, &js] {
        let built = Command::new(project.join("build.sh"))
            .current_dir(project)
            .env("PATH", tools.path())
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .output()
            .unwrap_or_else(|e| panic!("build.sh: {e}"));
        succeeded(&format!("{}'s build.sh", project.display()), &built);
        let component = project.join("demo-tool.wasm");
        let checked = plugins(&s, &["check", &component.display().to_string()]);
        assert_eq!(checked.code, Some(0), "{}: {}", project.display(), checked.stderr);
        assert!(checked.stdout.contains("tool demo_tool"), "{}", checked.stdout);
    }

    let c = new_project(&s, "c", projects.path());
    let tested = Command::new(c.join("test.sh")).output().unwrap_or_else(|e| panic!("test.sh: {e}"));
    succeeded("the C project's test.sh", &tested);
    // Its one build command, with the kits' pinned toolchain (zig cc, wasm-tools) on PATH and
    // the WASI adapter `plugins new` wrote beside it.
    let built = Command::new(c.join("build.sh"))
        .current_dir(&c)
        .env("PATH", tools.path())
        .env_remove("WASI_ADAPTER")
        .output()
        .unwrap_or_else(|e| panic!("build.sh: {e}"));
    succeeded("the C project's build.sh", &built);
    let component = c.join("demo-tool.wasm");
    let checked = plugins(&s, &["check", &component.display().to_string()]);
    assert_eq!(checked.code, Some(0), "{}", checked.stderr);
    assert!(checked.stdout.contains("tool demo_tool"), "{}", checked.stdout);
}

#[test]
fn a_hostile_workspace_cannot_steer_install_or_remove_outside_its_plugin_folder() {
    let s = session();
    // A lock entry that names a file outside the folder: remove deletes nothing out there.
    let victim = s.workspace.join("victim.wasm");
    std::fs::write(&victim, b"keep me").unwrap_or_else(|e| panic!("{e}"));
    s.write(
        ".airlock/plugins/plugins.lock",
        "[plugins.\"../../victim.wasm\"]\nname = \"evil\"\nversion = \"1\"\nsource = \"x\"\nsha256 = \"00\"\ninstalled_at = 0\n",
    );
    let removed = plugins(&s, &["remove", "evil"]);
    assert_ne!(removed.code, Some(0), "{}", removed.stdout);
    assert_eq!(std::fs::read(&victim).ok().as_deref(), Some(&b"keep me"[..]), "remove deleted a file outside");

    // A workspace whose plugin folder is a link to the user's own: install refuses to write
    // through it, and the user's folder stays as it was.
    std::fs::remove_dir_all(s.workspace.join(".airlock/plugins")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::create_dir_all(installed(&s)).unwrap_or_else(|e| panic!("{e}"));
    std::os::unix::fs::symlink(installed(&s), s.workspace.join(".airlock/plugins")).unwrap_or_else(|e| panic!("{e}"));
    let refused = plugins(&s, &["install", fixtures::ECHO_TOOLS, "--in-workspace"]);
    assert_ne!(refused.code, Some(0), "{}", refused.stdout);
    assert!(refused.stderr.contains("symbolic link"), "{}", refused.stderr);
    assert_eq!(std::fs::read_dir(installed(&s)).map(Iterator::count).unwrap_or(99), 0);

    // Without the link, --in-workspace installs into the workspace's folder and locks it there.
    std::fs::remove_file(s.workspace.join(".airlock/plugins")).unwrap_or_else(|e| panic!("{e}"));
    let done = plugins(&s, &["install", fixtures::ECHO_TOOLS, "--in-workspace"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert!(s.workspace.join(".airlock/plugins/echo_tools.wasm").is_file());
    let lock = std::fs::read_to_string(s.workspace.join(".airlock/plugins/plugins.lock")).unwrap_or_default();
    assert!(lock.contains("echo_tools.wasm"), "{lock}");
}

#[test]
fn install_never_overwrites_a_file_that_holds_another_plugin() {
    let s = session();
    // `fs_probe.wasm`, dropped in by hand, holds the plugin `echo_tools`.
    std::fs::create_dir_all(installed(&s)).unwrap_or_else(|e| panic!("{e}"));
    std::fs::copy(fixtures::ECHO_TOOLS, installed(&s).join("fs_probe.wasm")).unwrap_or_else(|e| panic!("{e}"));
    let refused = plugins(&s, &["install", fixtures::FS_PROBE]);
    assert_ne!(refused.code, Some(0), "{}", refused.stdout);
    assert!(refused.stderr.contains("holds another plugin, `echo_tools`"), "{}", refused.stderr);
    assert_eq!(std::fs::read(installed(&s).join("fs_probe.wasm")).ok(), std::fs::read(fixtures::ECHO_TOOLS).ok());
}

#[test]
fn a_first_run_compiles_no_built_in_and_says_which_new_plugins_it_compiles() {
    // An empty compile cache of its own: what a new user's first run meets.
    let cache = tempfile::tempdir().unwrap();
    let s = Session::new(env!("CARGO_BIN_EXE_airlock"), cache.path());
    // Two plugins large enough to be announced (a custom section makes them 1 MB), and one
    // small enough to compile silently.
    let plugins = s.airlock_home().join("plugins");
    std::fs::create_dir_all(&plugins).unwrap();
    std::fs::write(plugins.join("echo_tools.wasm"), padded(fixtures::ECHO_TOOLS, 1 << 20)).unwrap();
    std::fs::write(plugins.join("env_peek.wasm"), padded(fixtures::ENV_PEEK, 1 << 20)).unwrap();
    s.install_plugin(fixtures::FS_PROBE);
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![
        call("read_file", json!({"file_path": "a.txt"})),
        call("echo", json!({"text": "hi"})),
    ]));
    mock.push_turn(Turn::text("Done."));
    s.write("a.txt", "alpha\n");
    let first = s.airlock(&mock, &["-p", "go"]);
    assert_eq!(first.code, Some(0), "{}", first.stderr);
    // Both new plugins are announced before they are compiled, the built-ins never are.
    for file in ["echo_tools.wasm", "env_peek.wasm"] {
        assert!(
            first
                .stderr
                .lines()
                .any(|l| l.starts_with(&format!("airlock: compiling {file} (")) && l.ends_with(" MB)…")),
            "{file} not announced: {}",
            first.stderr
        );
    }
    assert_eq!(first.stderr.matches("compiling").count(), 2, "fs_probe.wasm is small: {}", first.stderr);
    let sent = function_responses(&mock.requests()[1]);
    assert_eq!((sent[0].1.trim_end(), sent[1].1.as_str()), ("alpha", "hi"), "{sent:?}");
    let compiled = std::fs::read_dir(cache.path().join("components")).unwrap().count();
    assert_eq!(compiled, 3, "only the three plugins were compiled and cached");

    // The next run compiles nothing and says nothing.
    mock.push_turn(Turn::text("Again."));
    let second = s.airlock(&mock, &["-p", "again"]);
    assert_eq!(second.code, Some(0), "{}", second.stderr);
    assert!(!second.stderr.contains("compiling"), "{}", second.stderr);
}

/// `component` with a custom section of `extra` bytes appended (valid anywhere in a component).
fn padded(component: &str, extra: usize) -> Vec<u8> {
    fn leb(mut n: usize, out: &mut Vec<u8>) {
        loop {
            let byte = (n & 0x7f) as u8;
            n >>= 7;
            out.push(if n == 0 { byte } else { byte | 0x80 });
            if n == 0 {
                return;
            }
        }
    }
    let mut body = Vec::new();
    leb(7, &mut body);
    body.extend_from_slice(b"padding");
    body.resize(body.len() + extra, 0);
    let mut bytes = std::fs::read(component).unwrap_or_else(|e| panic!("read {component}: {e}"));
    bytes.push(0);
    leb(body.len(), &mut bytes);
    bytes.extend_from_slice(&body);
    bytes
}
