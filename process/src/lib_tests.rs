use std::ffi::OsStr;
use std::os::unix::fs::PermissionsExt;

use super::environment::{Private, SYSTEM_PATH, build};
use super::group::{MAX_BACKGROUND, MAX_LIVE, Slot};
use super::*;

fn private() -> Private<'static> {
    Private { home: Path::new("/tmp/p/home"), tmp: Path::new("/tmp/p/tmp") }
}

fn pairs(env: &[(String, String)]) -> Vec<(&str, &str)> {
    env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect()
}

#[test]
fn environment_is_built_from_scratch() {
    let extra = vec![("CARGO_TERM_COLOR".to_owned(), "never".to_owned())];
    let env = build(&extra, &[], None, private(), Some(OsStr::new("de_DE.UTF-8"))).expect("env");
    assert_eq!(
        pairs(&env),
        [
            ("PATH", SYSTEM_PATH),
            ("HOME", "/tmp/p/home"),
            ("TMPDIR", "/tmp/p/tmp"),
            ("LANG", "de_DE.UTF-8"),
            ("TERM", "dumb"),
            ("CARGO_TERM_COLOR", "never"),
        ]
    );
}

#[test]
fn a_base_brings_the_users_path_home_and_toolchains() {
    let base = Base {
        path: "/home/u/.cargo/bin:/usr/bin".into(),
        home: Some(PathBuf::from("/home/u")),
        vars: vec![("RUSTUP_HOME".into(), "/home/u/.rustup".into())],
    };
    let env = build(&[], &[], Some(&base), private(), None).expect("env");
    let env = pairs(&env);
    assert!(env.contains(&("PATH", "/home/u/.cargo/bin:/usr/bin")), "{env:?}");
    assert!(env.contains(&("HOME", "/home/u")) && env.contains(&("TMPDIR", "/tmp/p/tmp")), "{env:?}");
    assert!(env.contains(&("RUSTUP_HOME", "/home/u/.rustup")), "{env:?}");
    // A plugin cannot point a toolchain elsewhere.
    let extra = vec![("RUSTUP_HOME".to_owned(), "/tmp/evil".to_owned())];
    let refused = build(&extra, &[], Some(&base), private(), None).expect_err("a plugin moved rustup");
    assert!(refused.to_string().contains("toolchain"), "{refused}");
    // Without a home of the user's, the private one.
    let homeless = Base { home: None, ..base };
    let env = build(&[], &[], Some(&homeless), private(), None).expect("env");
    assert!(pairs(&env).contains(&("HOME", "/tmp/p/home")));
}

#[test]
fn environment_refuses_reserved_variables_with_the_reason() {
    let cases = [
        ("LD_PRELOAD", "loader"),
        ("LD_LIBRARY_PATH", "loader"),
        ("GLIBC_TUNABLES", "loader"),
        ("PATH", "airlock sets it"),
        ("HOME", "airlock sets it"),
        ("TMPDIR", "airlock sets it"),
        ("BASH_ENV", "shell"),
        ("ENV", "shell"),
        ("BASH_FUNC_ls%%", "shell"),
        ("PS4", "shell"),
        ("PROMPT_COMMAND", "shell"),
        ("SHELLOPTS", "shell"),
        ("GIT_CONFIG_PARAMETERS", "git"),
        ("GIT_CONFIG_COUNT", "git"),
        ("GIT_CONFIG_KEY_0", "git"),
        ("GIT_EXTERNAL_DIFF", "git"),
        ("GIT_SSH_COMMAND", "git"),
        ("PYTHONSTARTUP", "runtime"),
        ("PYTHONPATH", "runtime"),
        ("NODE_OPTIONS", "runtime"),
        ("npm_config_script_shell", "runtime"),
        ("PERL5OPT", "runtime"),
        ("RUBYOPT", "runtime"),
        ("JAVA_TOOL_OPTIONS", "runtime"),
        ("RUSTC_WRAPPER", "build"),
        ("CARGO_BUILD_RUSTC_WRAPPER", "build"),
        ("MAKEFLAGS", "build"),
        ("LESSOPEN", "program"),
        ("XDG_CONFIG_HOME", "program"),
        ("OPENSSL_CONF", "program"),
    ];
    for (name, why) in cases {
        let reason = crate::is_reserved_variable(name).unwrap_or_else(|| panic!("{name} is not reserved"));
        assert!(reason.contains(why), "{name}: {reason}");
        let extra = vec![(name.to_owned(), "/tmp/evil.so".to_owned())];
        let refused = build(&extra, &[], None, private(), None).expect_err(name);
        assert!(refused.to_string().contains(name) && refused.to_string().contains(reason), "{refused}");
    }
    for harmless in ["GIT_AUTHOR_NAME", "PYTHONUNBUFFERED", "NODE_ENV", "CARGO_TERM_COLOR", "MY_SETTING", "LANG"] {
        assert_eq!(crate::is_reserved_variable(harmless), None, "{harmless}");
    }
    for invalid in ["", "A=B", "NUL\0"] {
        let extra = vec![(invalid.to_owned(), "x".to_owned())];
        assert!(build(&extra, &[], None, private(), None).is_err(), "{invalid:?} was accepted");
    }
    let nul_value = vec![("X".to_owned(), "a\0b".to_owned())];
    assert!(build(&nul_value, &[], None, private(), None).is_err());
}

#[test]
fn the_host_sets_its_own_variables_last_but_never_path_home_or_tmpdir() {
    let host = vec![("GIT_CONFIG_COUNT".to_owned(), "1".to_owned()), ("LD_BIND_NOW".to_owned(), "1".to_owned())];
    let env = build(&[], &host, None, private(), None).expect("env");
    assert!(pairs(&env).contains(&("GIT_CONFIG_COUNT", "1")), "{env:?}");
    assert!(pairs(&env).contains(&("LD_BIND_NOW", "1")), "{env:?}");
    for name in ["PATH", "HOME", "TMPDIR", "A=B"] {
        let host = vec![(name.to_owned(), "/tmp/x".to_owned())];
        assert!(build(&[], &host, None, private(), None).is_err(), "the host set {name}");
    }
}

#[test]
fn environment_keeps_only_a_plain_locale_and_lets_term_be_replaced() {
    for odd in ["../../etc/passwd", "en_US.UTF-8\n", "", "x".repeat(100).as_str()] {
        let env = build(&[], &[], None, private(), Some(OsStr::new(odd))).expect("env");
        assert!(pairs(&env).contains(&("LANG", "C.UTF-8")), "{odd:?} kept");
    }
    let extra = vec![("TERM".to_owned(), "xterm".to_owned())];
    let env = build(&extra, &[], None, private(), None).expect("env");
    assert_eq!(env.iter().filter(|(k, _)| k == "TERM").count(), 1);
    assert!(pairs(&env).contains(&("TERM", "xterm")));
}

/// The caps count every child of the process, so the test that fills them runs alone
/// among this binary's tests that spawn: one of theirs would take a place it counts on.
static SLOTS: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn slots_cap_live_and_background_children() {
    let _alone = SLOTS.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let background: Vec<Slot> = (0..MAX_BACKGROUND).map(|_| Slot::reserve(true).expect("slot")).collect();
    assert!(Slot::reserve(true).is_err(), "a 17th background child");
    let live: Vec<Slot> = (MAX_BACKGROUND..MAX_LIVE).map(|_| Slot::reserve(false).expect("slot")).collect();
    let refused = Slot::reserve(false).expect_err("a 65th child");
    assert!(refused.to_string().contains("at most 64"), "{refused}");
    drop(background);
    assert!(Slot::reserve(true).is_ok(), "slots are given back");
    drop(live);
}

#[test]
fn private_folders_are_private_and_removed() {
    let folders = PrivateFolders::create().expect("folders");
    let root = folders._root.path().to_path_buf();
    for folder in [&root, &folders.home, &folders.tmp] {
        assert_eq!(
            std::fs::metadata(folder).expect("folder").permissions().mode() & 0o777,
            0o700,
            "{}",
            folder.display()
        );
    }
    std::fs::write(folders.tmp.join("left-over"), "x").expect("file");
    drop(folders);
    assert!(!root.exists());
}

#[test]
fn spawn_outside_a_runtime_is_refused() {
    let _alone = SLOTS.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let request = Request { spec: Spec { argv: vec!["true".into()], ..Spec::default() }, ..Request::default() };
    let error = Child::spawn(request).expect_err("no runtime");
    assert!(error.to_string().contains("runtime"), "{error}");
}

/// The spec holds the values of the variables passed on; a process's arguments are readable
/// by every process on the machine (`/proc/<pid>/cmdline`), sandboxed ones included, for as
/// long as the helper runs. So the spec travels in the helper's environment instead.
#[test]
fn the_spec_is_not_on_the_helpers_command_line() {
    let _alone = SLOTS.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let dir = tempfile::tempdir().expect("dir");
    let helper = dir.path().join("helper");
    std::fs::write(&helper, "#!/bin/sh\nprintf '%s\\n' \"$@\"\necho \"env:$AIRLOCK_SANDBOX_SPEC\"\n").expect("helper");
    std::fs::set_permissions(&helper, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let spec = Spec {
        argv: vec!["true".into()],
        cwd: dir.path().to_path_buf(),
        env: vec![("API_TOKEN".into(), "hunter2-secret".into())],
        ..Spec::default()
    };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let out = runtime.block_on(async {
        let mut child = Child::spawn_with_helper(&helper, Request { spec, ..Request::default() }).expect("spawn");
        let mut out = Vec::new();
        loop {
            match child.next(Duration::from_secs(5)).await {
                ChildEvent::Stdout(bytes) => out.extend(bytes),
                ChildEvent::Exited(_) => break,
                _ => {}
            }
        }
        String::from_utf8_lossy(&out).into_owned()
    });
    let (args, env) = out.split_once("env:").expect("the helper's output");
    assert!(!args.contains("hunter2-secret"), "the secret is on the command line: {args}");
    assert!(env.contains("hunter2-secret"), "the spec is not in the environment: {out}");
}

/// An interactive child: a line written to its stdin comes back on its stdout while both
/// stay open, its stderr arrives through `next`, and dropping the handle kills it even
/// though the caller still holds its pipes.
#[test]
fn an_interactive_child_keeps_its_stdin_open_and_dies_with_its_handle() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let _alone = SLOTS.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let dir = tempfile::tempdir().expect("dir");
    // The helper plays the sandboxed program: it answers each line, and says so on stderr.
    let helper = dir.path().join("helper");
    let pid_file = dir.path().join("pid");
    let script = format!(
        "#!/bin/sh\necho $$ > {}\nwhile read line; do echo \"got $line\"; echo \"err $line\" >&2; done\n",
        pid_file.display()
    );
    std::fs::write(&helper, script).expect("helper");
    std::fs::set_permissions(&helper, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let spec = Spec { argv: vec!["sh".into()], cwd: dir.path().to_path_buf(), ..Spec::default() };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    runtime.block_on(async {
        let refused = Child::spawn_interactive_with_helper(
            &helper,
            Request { spec: spec.clone(), stdin: Some(b"x".to_vec()), ..Request::default() },
        );
        assert!(refused.is_err(), "stdin bytes and an interactive stdin at once");
        let Interactive { mut child, mut stdin, stdout } =
            Child::spawn_interactive_with_helper(&helper, Request { spec, ..Request::default() }).expect("spawn");
        let mut lines = BufReader::new(stdout).lines();
        for word in ["one", "two"] {
            stdin.write_all(format!("{word}\n").as_bytes()).await.expect("write");
            let line = tokio::time::timeout(Duration::from_secs(10), lines.next_line()).await.expect("answer");
            assert_eq!(line.expect("read").as_deref(), Some(format!("got {word}").as_str()));
        }
        let mut stderr = Vec::new();
        while !String::from_utf8_lossy(&stderr).contains("err two") {
            match child.next(Duration::from_secs(10)).await {
                ChildEvent::Stderr(bytes) => stderr.extend(bytes),
                other => panic!("expected stderr, got {other:?}"),
            }
        }
        let pid: i32 = std::fs::read_to_string(&pid_file).expect("pid").trim().parse().expect("a pid");
        assert_eq!(child.pid() as i32, pid);
        drop(child);
        // The program is killed although its stdin is still open.
        let gone = tokio::time::timeout(Duration::from_secs(10), lines.next_line()).await.expect("stdout ends");
        assert!(matches!(gone, Ok(None)), "{gone:?}");
        drop(stdin);
        // Reaped, and (a moment later) its slot given back for the test that counts them.
        while Path::new(&format!("/proc/{pid}")).exists() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    });
}
