//! A coding agent's first job, under the default command sandbox (issue 24): the model's
//! `cargo test`, `python -m unittest` in a virtual environment of the workspace, `npm test`
//! with `node_modules` and a Node installed outside the system folders, `make` with `cc`, and
//! `git commit` — each with the toolchains as a user has them (the user's `PATH`, rustup
//! homes, a venv, an nvm-style Node, a `~/.gitconfig`) — while in the same session the
//! user's secrets, airlock's own folder, a credential variable and the network stay out of
//! reach, each refusal named in one line. The real binary, the scripted model, real
//! toolchains; what the model was told is read from the mock's requests.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use airlock_tests::http_server::CountingListener;
use airlock_tests::{Finished, MockModel, Session, Turn, Wire, call, function_responses, run_bounded};
use serde_json::json;

use super::session;

/// The machine's rustup homes, as cargo (running these tests) has them.
fn rust_homes() -> (PathBuf, PathBuf) {
    let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_default();
    let cargo = std::env::var_os("CARGO_HOME").map_or_else(|| home.join(".cargo"), PathBuf::from);
    let rustup = std::env::var_os("RUSTUP_HOME").map_or_else(|| home.join(".rustup"), PathBuf::from);
    (cargo, rustup)
}

/// The folder of a program on the test's own `PATH`.
fn folder_of(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).find(|folder| folder.join(program).is_file())
}

/// A user's home beside the session's: a Node installed the nvm way (outside the system
/// folders), npm's cache, a git identity, and secrets.
struct UserHome {
    home: PathBuf,
    node_bin: PathBuf,
}

impl UserHome {
    fn new(s: &Session) -> Self {
        let home = s.airlock_home().parent().unwrap_or_else(|| panic!("no home")).to_path_buf();
        let node_bin = home.join(".nvm/versions/node/v20/bin");
        std::fs::create_dir_all(&node_bin).unwrap_or_else(|e| panic!("{e}"));
        let system_node = Path::new("/usr/bin/node").canonicalize().unwrap_or_else(|e| panic!("node: {e}"));
        // A real file of its own (a hard link where the file system allows one).
        if std::fs::hard_link(&system_node, node_bin.join("node")).is_err() {
            std::fs::copy(&system_node, node_bin.join("node")).unwrap_or_else(|e| panic!("copy node: {e}"));
        }
        let npm_cli = Path::new("/usr/lib/node_modules/npm/bin/npm-cli.js");
        std::os::unix::fs::symlink(npm_cli, node_bin.join("npm")).unwrap_or_else(|e| panic!("{e}"));
        for folder in [".npm", ".ssh", ".aws"] {
            std::fs::create_dir_all(home.join(folder)).unwrap_or_else(|e| panic!("{e}"));
        }
        let files = [
            (".gitconfig", "[user]\n\tname = Airlock Test\n\temail = test@airlock.invalid\n"),
            (".ssh/id_ed25519", "-----BEGIN OPENSSH PRIVATE KEY----- SSH-KEY-SECRET"),
            (".aws/credentials", "[default]\naws_secret_access_key = AWS-SECRET-VALUE\n"),
        ];
        for (name, text) in files {
            std::fs::write(home.join(name), text).unwrap_or_else(|e| panic!("{e}"));
        }
        Self { home, node_bin }
    }
}

/// The workspace of a small polyglot project: a crate, a Python package with tests and a
/// venv, a Node package with `node_modules`, a C program with a Makefile, under git.
fn project(s: &Session) {
    s.write("Cargo.toml", "[package]\nname = \"small\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n");
    s.write(
        "src/lib.rs",
        "pub fn add(a: i32, b: i32) -> i32 { a + b }\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() { assert_eq!(super::add(2, 2), 4); }\n}\n",
    );
    s.write("calc.py", "def double(x):\n    return 2 * x\n");
    s.write(
        "test_calc.py",
        "import sys, unittest\nfrom calc import double\n\nclass T(unittest.TestCase):\n    def test_double(self):\n        print('python at', sys.prefix)\n        self.assertEqual(double(21), 42)\n\nif __name__ == '__main__':\n    unittest.main()\n",
    );
    s.write("package.json", "{\"name\":\"small\",\"version\":\"1.0.0\",\"scripts\":{\"test\":\"node test.js\"}}\n");
    s.write("node_modules/pad/index.js", "module.exports = (s, n) => s.padStart(n, '.');\n");
    s.write(
        "test.js",
        "const pad = require('pad');\nif (pad('ok', 4) !== '..ok') process.exit(1);\nconsole.log('node tests pass with', process.execPath);\n",
    );
    s.write("hello.c", "#include <stdio.h>\nint main(void) { puts(\"hello from cc\"); return 0; }\n");
    s.write("Makefile", "hello: hello.c\n\tcc -o hello hello.c\n");
    let python = folder_of("python3").map_or_else(|| PathBuf::from("python3"), |folder| folder.join("python3"));
    let venv = Command::new(&python).args(["-m", "venv", ".venv"]).current_dir(&s.workspace).output();
    assert!(venv.is_ok_and(|o| o.status.success()), "python3 -m venv failed");
    for args in
        [&["init", "-q"][..], &["add", "-A"], &["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "start"]]
    {
        let done = Command::new("git").args(args).current_dir(&s.workspace).output();
        assert!(done.is_ok_and(|o| o.status.success()), "git {args:?} failed");
    }
}

/// Runs one session in yolo whose model runs `commands` in order (one call each, each its
/// own turn), with the user's environment; returns the run and what each call told the model.
fn run_commands(s: &Session, user: &UserHome, commands: &[String], secret_variable: &str) -> (Finished, Vec<String>) {
    let mock = MockModel::start(Wire::OpenAi);
    for command in commands {
        mock.push_turn(Turn::calls(vec![call("run_shell_command", json!({ "command": command }))]));
    }
    mock.push_turn(Turn::text("done"));
    let (cargo, rustup) = rust_homes();
    let mut path = vec![user.node_bin.clone(), cargo.join("bin")];
    path.extend(folder_of("python3"));
    path.extend(["/usr/local/bin", "/usr/bin", "/bin"].map(PathBuf::from));
    let path = std::env::join_paths(path).unwrap_or_else(|e| panic!("{e}"));
    let mut command = s.command(&mock);
    command
        .env("PATH", path)
        .env("CARGO_HOME", &cargo)
        .env("RUSTUP_HOME", &rustup)
        .env("NVM_DIR", user.home.join(".nvm"))
        .env("GITHUB_TOKEN", secret_variable)
        .args(["-p", "build and test the project", "--approval-mode", "yolo"]);
    if let Some(root) = std::env::var_os("PYENV_ROOT") {
        command.env("PYENV_ROOT", root);
    }
    let done = run_bounded(command, Some(""), Duration::from_secs(600));
    let sent = mock
        .requests()
        .iter()
        .skip(1)
        .filter_map(|request| function_responses(request).into_iter().next().map(|(_, text)| text))
        .collect();
    (done, sent)
}

#[test]
fn the_models_builds_and_tests_run_with_the_users_toolchains_and_its_secrets_stay_out() {
    let s = session();
    let user = UserHome::new(&s);
    project(&s);
    let server = CountingListener::start();
    let airlock_config = s.airlock_home().join("config.toml");
    let commands = [
        "cargo test --offline 2>&1".to_owned(),
        ".venv/bin/python -m unittest -v test_calc 2>&1".to_owned(),
        "npm test 2>&1".to_owned(),
        "make 2>&1 && ./hello".to_owned(),
        "git add -A && git commit -qm 'from the sandbox' && git log --oneline -1".to_owned(),
        "cat ~/.ssh/id_ed25519".to_owned(),
        "cat ~/.aws/credentials".to_owned(),
        format!("cat {}", airlock_config.display()),
        "echo \"token=[$GITHUB_TOKEN]\"; env | grep -c GITHUB || true".to_owned(),
        format!("curl -sS --max-time 5 http://{}/", server.addr()),
    ];
    let (done, sent) = run_commands(&s, &user, &commands, "ghp_SECRET_VARIABLE_VALUE");
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(sent.len(), commands.len(), "every call answered: {sent:#?}\n{}", done.stderr);
    let by_command = |i: usize| &sent[i];

    let cargo = by_command(0);
    assert!(cargo.contains("test result: ok. 1 passed") && cargo.contains("Exit Code: 0"), "cargo test:\n{cargo}");
    let python = by_command(1);
    assert!(python.contains("OK") && python.contains("Exit Code: 0"), "unittest:\n{python}");
    assert!(python.contains(&format!("python at {}", s.workspace.join(".venv").display())), "the venv ran:\n{python}");
    let npm = by_command(2);
    assert!(npm.contains("node tests pass with") && npm.contains("Exit Code: 0"), "npm test:\n{npm}");
    assert!(npm.contains(".nvm/versions/node/v20/bin/node"), "the user's node ran, not the system's:\n{npm}");
    let npm_logs = std::fs::read_dir(user.home.join(".npm/_logs")).map(|d| d.count()).unwrap_or(0);
    assert!(npm_logs > 0, "npm could not write its cache folder");
    let make = by_command(3);
    assert!(make.contains("hello from cc") && make.contains("Exit Code: 0"), "make:\n{make}");
    let git = by_command(4);
    assert!(git.contains("from the sandbox") && git.contains("Exit Code: 0"), "git commit:\n{git}");
    assert!(!git.contains("fatal"), "git complained:\n{git}");

    for (i, secret) in [(5, "SSH-KEY-SECRET"), (6, "AWS-SECRET-VALUE"), (7, "base_delay_ms")] {
        let text = by_command(i);
        assert!(!text.contains(secret), "command {i} read a secret:\n{text}");
        assert!(text.contains("blocked by the sandbox"), "command {i} was not explained:\n{text}");
    }
    assert!(by_command(5).contains("hidden from commands"), "{}", by_command(5));
    let variable = by_command(8);
    assert!(variable.contains("token=[]") && !variable.contains("ghp_SECRET"), "{variable}");
    let curl = by_command(9);
    assert!(curl.contains("blocked by the sandbox: commands have no network"), "curl:\n{curl}");
    assert_eq!(server.accepted(), 0, "the local server was reached");
    let everything = sent.join("\n");
    for secret in ["SSH-KEY-SECRET", "AWS-SECRET-VALUE", "ghp_SECRET_VARIABLE_VALUE"] {
        assert!(!everything.contains(secret) && !done.stdout.contains(secret), "{secret} leaked");
    }
}
