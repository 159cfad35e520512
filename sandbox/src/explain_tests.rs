use std::path::{Path, PathBuf};

use super::*;

struct Scene {
    _root: tempfile::TempDir,
    root: PathBuf,
    spec: Spec,
}

fn scene(network: bool) -> Scene {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().canonicalize().expect("canonical");
    for folder in ["home/.ssh", "home/.cargo/registry", "work", "data", "shared"] {
        std::fs::create_dir_all(root.join(folder)).expect("folder");
    }
    std::fs::write(root.join("home/.ssh/id_ed25519"), "key").expect("key");
    let spec = Spec {
        argv: vec!["bash".into()],
        cwd: root.join("work"),
        env: vec![("HOME".into(), root.join("home").display().to_string())],
        read_write: vec![root.join("work"), root.join("home/.cargo/registry")],
        read_only: vec![root.join("shared")],
        hidden: vec![root.join("home/.ssh")],
        network,
        view: true,
    };
    Scene { _root: dir, root, spec }
}

fn explain(scene: &Scene, output: &str) -> Vec<Blocked> {
    blocked(output.as_bytes(), false, Rules { spec: &scene.spec })
}

#[test]
fn a_secret_is_named_as_hidden_in_every_spelling() {
    let scene = scene(false);
    let key = scene.root.join("home/.ssh/id_ed25519");
    let hidden = Blocked::Hidden(scene.root.join("home/.ssh"));
    let lines = [
        format!("cat: {}: Permission denied", key.display()),
        "cat: ~/.ssh/id_ed25519: Permission denied".to_owned(),
        format!("PermissionError: [Errno 13] Permission denied: '{}'", key.display()),
        format!("Error: EACCES: permission denied, open '{}'", key.display()),
        format!("Error: failed to read `{}`: Permission denied (os error 13)", key.display()),
    ];
    for line in lines {
        assert_eq!(explain(&scene, &line), vec![hidden.clone()], "{line}");
    }
}

#[test]
fn folders_outside_the_rules_are_named_with_the_access_they_lack() {
    let scene = scene(false);
    let data = scene.root.join("data");
    assert_eq!(
        explain(&scene, &format!("ls: cannot open directory '{}': Permission denied", data.display())),
        vec![Blocked::Unreadable(data.clone())]
    );
    let shared = scene.root.join("shared");
    assert_eq!(
        explain(&scene, &format!("touch: cannot touch '{}/new': Read-only file system", shared.display())),
        vec![Blocked::ReadOnly(shared)]
    );
    // A write outside the rules asks for write access, even where reading was not allowed
    // either (`chmod` of a file of the home, in the read-only view).
    for line in [
        format!("chmod: changing permissions of '{}/notes': Read-only file system", data.display()),
        format!("touch: cannot touch '{}/new': Permission denied", data.display()),
    ] {
        assert_eq!(explain(&scene, &line), vec![Blocked::ReadOnly(data.clone())], "{line}");
    }
    // A file that does not exist yet names its nearest folder.
    assert_eq!(
        explain(&scene, &format!("bash: {}/out/log.txt: Permission denied", data.display())),
        vec![Blocked::Unreadable(data)]
    );
}

#[test]
fn refusals_inside_the_rules_are_not_the_sandboxs() {
    let scene = scene(false);
    let work = scene.root.join("work/locked.txt");
    let registry = scene.root.join("home/.cargo/registry/x");
    for line in [
        format!("cat: {}: Permission denied", work.display()),
        format!("error: {}: Permission denied (os error 13)", registry.display()),
        "cat: /usr/share/doc: Permission denied".to_owned(),
        "cat: relative.txt: Permission denied".to_owned(),
    ] {
        assert_eq!(explain(&scene, &line), Vec::new(), "{line}");
    }
}

#[test]
fn the_network_is_named_only_when_the_command_had_none_and_failed() {
    let scene = scene(false);
    for line in [
        "curl: (7) Failed to connect to 127.0.0.1 port 8080 after 0 ms: Couldn't connect to server",
        "curl: (6) Could not resolve host: example.com",
        "fatal: unable to access 'https://github.com/x/y/': Could not resolve host: github.com",
        "error: failed to download from `https://index.crates.io/config.json`",
        "npm ERR! code EAI_AGAIN",
        "urllib.error.URLError: <urlopen error [Errno -3] Temporary failure in name resolution>",
        "socket: Operation not permitted",
    ] {
        assert!(explain(&scene, line).contains(&Blocked::Network), "{line}");
    }
    let online = self::scene(true);
    assert!(!explain(&online, "curl: (6) Could not resolve host: example.com").contains(&Blocked::Network));
    let ok = blocked(b"curl: (6) Could not resolve host: example.com", true, Rules { spec: &scene.spec });
    assert!(ok.is_empty(), "a command that succeeded was not blocked");
}

#[test]
fn a_unix_socket_is_a_local_service() {
    let scene = scene(true);
    let socket = scene.root.join("data/agent.sock");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).expect("socket");
    let line = format!("Cannot connect to {}: Permission denied", socket.display());
    assert_eq!(explain(&scene, &line), vec![Blocked::LocalService(socket)]);
}

#[test]
fn findings_are_few_deduplicated_and_the_network_comes_first() {
    let scene = scene(false);
    let data = scene.root.join("data");
    let mut output = String::new();
    for i in 0..50 {
        output.push_str(&format!("cat: {}/f{i}: Permission denied\n", data.display()));
    }
    output.push_str("curl: (7) Couldn't connect to server\n");
    output.push_str(&format!("cat: {}/id_ed25519: Permission denied\n", scene.root.join("home/.ssh").display()));
    let found = explain(&scene, &output);
    assert!(found.len() <= MAX_FINDINGS);
    assert_eq!(found[0], Blocked::Network);
    assert!(found.contains(&Blocked::Unreadable(data)));
    assert!(found.contains(&Blocked::Hidden(scene.root.join("home/.ssh"))));
}

#[test]
fn each_finding_reads_as_one_line_naming_the_sandbox() {
    for finding in [
        Blocked::Network,
        Blocked::Hidden(PathBuf::from("/h/.ssh")),
        Blocked::LocalService(PathBuf::from("/run/docker.sock")),
        Blocked::Unreadable(PathBuf::from("/srv")),
        Blocked::ReadOnly(Path::new("/opt/x").to_path_buf()),
    ] {
        let line = finding.describe();
        assert!(line.starts_with("blocked by the sandbox: ") && !line.contains('\n'), "{line}");
    }
}
