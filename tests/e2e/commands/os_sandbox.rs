//! The OS sandbox of children, attacked through the real binary: `airlock __sandbox <json>`
//! run directly (the helper), and the process manager ([`airlock_process::Child`]) with the
//! built binary as its helper. Every attack checks that nothing happened (a file absent or
//! unchanged, a listener that accepted nothing), not only that a command failed.

#![allow(clippy::expect_used, reason = "a test stops loudly on a broken setup")]

use std::io::Read;
use std::net::{TcpListener, UdpSocket};
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use airlock_process::{Child, ChildEvent, ExitInfo, Request};
use airlock_sandbox::{HELPER_ARG, Spec, support};
use serde_json::json;

const BINARY: &str = env!("CARGO_BIN_EXE_airlock");
const SECRET: &str = "AIRLOCK_TEST_SECRET=hunter2-do-not-leak";
const PYTHON: &str = "/usr/bin/python3";

/// A workspace the program may write, beside folders it may not touch.
struct Scene {
    _root: tempfile::TempDir,
    /// Whether the program runs in the namespace view (the default) or under the
    /// confinement alone (machines without unprivileged user namespaces).
    view: bool,
    /// `read_write`: the program's working folder.
    work: PathBuf,
    /// Not granted at all: holds a secret and files that must stay unchanged.
    outside: PathBuf,
    /// Granted read-only.
    shared: PathBuf,
}

impl Scene {
    fn new() -> Self {
        assert!(support().landlock_abi.is_some(), "these tests need a kernel with Landlock: {}", support());
        let root = tempfile::tempdir().expect("temp dir");
        let work = root.path().join("work");
        let outside = root.path().join("outside");
        let shared = root.path().join("shared");
        for folder in [&work, &outside, &shared] {
            std::fs::create_dir(folder).expect("folder");
        }
        std::fs::write(outside.join("secret"), "the secret").expect("secret");
        std::fs::write(outside.join("keep"), "original").expect("keep");
        std::fs::write(shared.join("readme"), "shared text").expect("readme");
        Self { _root: root, view: true, work, outside, shared }
    }

    /// The same scene for the confinement alone.
    fn without_view() -> Self {
        Self { view: false, ..Self::new() }
    }

    fn spec(&self, argv: &[&str], network: bool) -> serde_json::Value {
        json!({
            "argv": argv,
            "cwd": self.work,
            "env": [["PATH", "/usr/local/bin:/usr/bin:/bin"], ["HOME", self.work], ["OUT", self.outside], ["SHARED", self.shared]],
            "read_write": [self.work],
            "read_only": [self.shared],
            "network": network,
            "view": self.view,
        })
    }

    fn run(&self, argv: &[&str], network: bool) -> Output {
        helper(&self.spec(argv, network).to_string())
    }

    fn bash(&self, script: &str) -> Output {
        self.run(&["bash", "-c", script], false)
    }

    fn bash_net(&self, script: &str) -> Output {
        self.run(&["bash", "-c", script], true)
    }

    fn helper_with(&self, spec: &serde_json::Value) -> Output {
        helper(&spec.to_string())
    }

    fn keep_untouched(&self) {
        assert_eq!(std::fs::read_to_string(self.outside.join("keep")).expect("keep still there"), "original");
    }
}

fn helper(json: &str) -> Output {
    let (name, value) = SECRET.split_once('=').expect("name=value");
    Command::new(BINARY)
        .arg(HELPER_ARG)
        .arg(json)
        .env(name, value)
        .stdin(Stdio::null())
        .output()
        .expect("run the helper")
}

fn text(output: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
}

fn assert_denied(output: &Output, what: &str) {
    assert!(!output.status.success(), "{what} succeeded: {}", text(output));
}

fn has_python() -> bool {
    Path::new(PYTHON).exists()
}

#[test]
fn denies_writes_outside_read_write() {
    let scene = Scene::new();
    let out = scene.outside.display().to_string();
    let attacks = [
        ("absolute path", format!("echo x > {out}/new"), "new"),
        ("parent folder", "echo x > ../escaped".into(), "../escaped"),
        ("mkdir", format!("mkdir {out}/made"), "made"),
        ("mkfifo", format!("mkfifo {out}/fifo"), "fifo"),
        ("symlink to a folder", format!("ln -s {out} dirlink && echo x > dirlink/via-link"), "via-link"),
        ("move out", format!("echo x > inside && mv inside {out}/moved"), "moved"),
        ("hard link out", format!("echo x > inside2 && ln inside2 {out}/hard"), "hard"),
        ("copy out", format!("echo x > inside3 && cp inside3 {out}/copied"), "copied"),
    ];
    for (what, script, created) in attacks {
        let output = scene.bash(&script);
        assert_denied(&output, what);
        let target = if created.starts_with("..") { scene.work.join(created) } else { scene.outside.join(created) };
        assert!(!target.exists(), "{what}: {} was created", target.display());
    }
    let changes = [
        ("truncate", format!(": > {out}/keep")),
        ("append", format!("echo more >> {out}/keep")),
        ("overwrite", format!("echo changed > {out}/keep")),
        ("rm", format!("rm -f {out}/keep")),
        ("symlink to a file", format!("ln -s {out}/keep filelink && echo changed > filelink")),
        ("rename over", format!("echo x > mine && mv -f mine {out}/keep")),
        ("truncate command", format!("truncate -s 0 {out}/keep")),
    ];
    for (what, script) in changes {
        assert_denied(&scene.bash(&script), what);
        scene.keep_untouched();
    }
    assert!(!scene.work.join("dirlink/via-link").exists());
}

#[test]
fn denies_writes_to_system_files_and_device_nodes() {
    let scene = Scene::new();
    let output = scene.bash("echo x > /etc/airlock-sandbox-test");
    assert_denied(&output, "writing /etc");
    assert!(!Path::new("/etc/airlock-sandbox-test").exists());
    let before = std::fs::read_to_string("/proc/sys/kernel/printk_ratelimit").expect("sysctl");
    assert_denied(&scene.bash("echo 7 > /proc/sys/kernel/printk_ratelimit"), "writing /proc/sys");
    assert_eq!(std::fs::read_to_string("/proc/sys/kernel/printk_ratelimit").expect("sysctl"), before);
    // Device nodes are refused even inside the workspace: a copy of a disk would bypass all.
    assert_denied(&scene.bash("mknod memdev c 1 1"), "mknod inside the workspace");
    assert!(!scene.work.join("memdev").exists());
    assert_denied(&scene.bash("mknod blockdev b 7 0"), "block device");
    assert!(!scene.work.join("blockdev").exists());
    assert_denied(&scene.bash("echo x > $SHARED/new"), "writing a read-only folder");
    assert!(!scene.shared.join("new").exists());
}

#[test]
fn allows_writes_inside_read_write() {
    let scene = Scene::new();
    let output = scene.bash(
        "set -e; echo hi > a; mkdir -p d/e; mv a d/e/b; ln -s d/e/b link; cat link; ln d/e/b hard; \
         truncate -s 1 hard; mkfifo pipe; rm pipe; echo done > /dev/null; cat $SHARED/readme",
    );
    assert!(output.status.success(), "{}", text(&output));
    assert_eq!(String::from_utf8_lossy(&output.stdout), "hi\nshared text");
    assert_eq!(std::fs::read_to_string(scene.work.join("d/e/b")).expect("moved file"), "h");
}

#[test]
fn denies_reads_outside_the_granted_folders() {
    let scene = Scene::new();
    let out = scene.outside.display().to_string();
    for (what, script) in [
        ("a secret file", format!("cat {out}/secret")),
        ("a secret through a symlink", format!("ln -s {out}/secret s && cat s")),
        ("listing a folder", format!("ls {out}")),
        ("/etc/shadow", "cat /etc/shadow".into()),
        ("/etc/gshadow", "cat /etc/gshadow".into()),
        ("ssh host keys", "cat /etc/ssh/ssh_host_*_key".into()),
        ("root's home", "ls /root".into()),
    ] {
        let output = scene.bash(&script);
        assert_denied(&output, what);
        assert!(!text(&output).contains("the secret"), "{what} leaked");
    }
}

#[test]
fn denies_tcp_and_udp_without_network() {
    let scene = Scene::new();
    let listener = TcpListener::bind("127.0.0.1:0").expect("listener");
    listener.set_nonblocking(true).expect("nonblocking");
    let port = listener.local_addr().expect("addr").port();
    assert_denied(&scene.bash(&format!("exec 3<>/dev/tcp/127.0.0.1/{port}")), "bash /dev/tcp");
    assert_denied(&scene.bash(&format!("curl -s http://127.0.0.1:{port}/ || exit 1")), "curl");
    if has_python() {
        let script = format!("import socket; socket.create_connection(('127.0.0.1', {port}), timeout=2)");
        assert_denied(&scene.run(&[PYTHON, "-c", &script], false), "python3 connect");
    }
    assert!(listener.accept().is_err(), "a sandboxed program connected");

    let udp = UdpSocket::bind("127.0.0.1:0").expect("udp");
    udp.set_read_timeout(Some(Duration::from_millis(300))).expect("timeout");
    let udp_port = udp.local_addr().expect("addr").port();
    let _ = scene.bash(&format!("echo leak > /dev/udp/127.0.0.1/{udp_port}"));
    if has_python() {
        // In the view the datagram stays on the program's own loopback: sending succeeds and
        // nothing arrives; under the confinement alone the socket is refused.
        let script = format!(
            "import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'leak', ('127.0.0.1', {udp_port}))"
        );
        let _ = scene.run(&[PYTHON, "-c", &script], false);
        let alone = Scene::without_view();
        assert_denied(&alone.run(&[PYTHON, "-c", &script], false), "python3 sendto without the view");
    }
    assert!(udp.recv(&mut [0; 16]).is_err(), "a datagram got out");
}

#[test]
fn allows_tcp_with_network() {
    let scene = Scene::new();
    let listener = TcpListener::bind("127.0.0.1:0").expect("listener");
    let port = listener.local_addr().expect("addr").port();
    let output = scene.bash_net(&format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo hello >&3"));
    assert!(output.status.success(), "{}", text(&output));
    let (mut stream, _) = listener.accept().expect("the program connected");
    let mut got = String::new();
    stream.read_to_string(&mut got).expect("read");
    assert_eq!(got, "hello\n");
}

#[test]
fn denies_unix_sockets_even_with_network() {
    if !has_python() {
        return;
    }
    let scene = Scene::new();
    // One the program cannot even see, one in a folder it may read, one abstract.
    let hidden = UnixListener::bind(scene.outside.join("hidden.sock")).expect("hidden socket");
    let visible = UnixListener::bind(scene.shared.join("visible.sock")).expect("visible socket");
    let name = format!("airlock-test-{}", std::process::id());
    let address = <std::os::unix::net::SocketAddr as std::os::linux::net::SocketAddrExt>::from_abstract_name(&name)
        .expect("abstract address");
    let abstract_socket = UnixListener::bind_addr(&address).expect("abstract socket");
    for listener in [&hidden, &visible, &abstract_socket] {
        listener.set_nonblocking(true).expect("nonblocking");
    }
    let paths = [
        scene.outside.join("hidden.sock").display().to_string(),
        scene.shared.join("visible.sock").display().to_string(),
        format!("\0{name}"),
    ];
    for path in paths {
        for kind in ["SOCK_STREAM", "SOCK_DGRAM"] {
            let script =
                format!("import socket; s = socket.socket(socket.AF_UNIX, socket.{kind}); s.connect({path:?})");
            assert_denied(&scene.run(&[PYTHON, "-c", &script], true), &format!("connect {kind} {path:?}"));
        }
        // A datagram pair can be pointed anywhere with sendto: only stream pairs exist.
        let script = format!(
            "import socket; a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM); a.sendto(b'x', {path:?})"
        );
        assert_denied(&scene.run(&[PYTHON, "-c", &script], true), "datagram socketpair");
    }
    for listener in [&hidden, &visible, &abstract_socket] {
        assert!(listener.accept().is_err(), "a sandboxed program reached a Unix socket");
    }
    let ok =
        scene.run(&[PYTHON, "-c", "import socket; a, b = socket.socketpair(); a.send(b'ok'); print(b.recv(2))"], true);
    assert!(ok.status.success(), "a stream socketpair must keep working: {}", text(&ok));
}

#[test]
fn gives_exactly_the_spec_environment() {
    let scene = Scene::new();
    let output = scene.run(&["env"], false);
    assert!(output.status.success(), "{}", text(&output));
    let mut seen: Vec<String> = String::from_utf8_lossy(&output.stdout).lines().map(str::to_owned).collect();
    seen.sort();
    let mut expected = vec![
        "PATH=/usr/local/bin:/usr/bin:/bin".to_owned(),
        format!("HOME={}", scene.work.display()),
        format!("OUT={}", scene.outside.display()),
        format!("SHARED={}", scene.shared.display()),
    ];
    expected.sort();
    assert_eq!(seen, expected);
    let own = scene.bash("tr '\\0' '\\n' < /proc/self/environ");
    assert!(own.status.success(), "{}", text(&own));
    assert!(!text(&own).contains("hunter2"));
}

#[test]
fn cannot_read_other_processes_memory_or_environment() {
    let scene = Scene::new();
    let (name, value) = SECRET.split_once('=').expect("name=value");
    let mut holder = Command::new("sleep").arg("30").env(name, value).spawn().expect("a process holding the secret");
    let pid = holder.id();
    for (what, script) in [
        ("environ of a process with the secret", format!("cat /proc/{pid}/environ")),
        ("its memory", format!("head -c 16 /proc/{pid}/mem")),
        ("its fds", format!("ls -l /proc/{pid}/fd/")),
        ("the parent's environ", "cat /proc/$PPID/environ".into()),
        ("init's environ", "cat /proc/1/environ".into()),
        (
            "strace",
            format!(
                "strace -p {pid} -e trace=none -o /dev/null & sleep 0.3; kill -0 $! 2>/dev/null && exit 0; wait $!"
            ),
        ),
    ] {
        let output = scene.bash(&script);
        assert!(!text(&output).contains("hunter2"), "{what} leaked the secret");
        assert_denied(&output, what);
    }
    if has_python() {
        let script = format!(
            "import ctypes; libc = ctypes.CDLL(None, use_errno=True); r = libc.ptrace(16, {pid}, 0, 0); \
             print(r, ctypes.get_errno()); raise SystemExit(0 if r == -1 and ctypes.get_errno() == 1 else 1)"
        );
        let output = scene.run(&[PYTHON, "-c", &script], false);
        assert!(output.status.success(), "PTRACE_ATTACH was not refused with EPERM: {}", text(&output));
    }
    let _ = holder.kill();
    let _ = holder.wait();
}

/// Landlock's own ptrace rule, without the help of capabilities: a program of the same
/// unprivileged user cannot read the environment of a process outside its domain (as root,
/// both sides become `nobody` with `setpriv`; the missing capabilities would hide the rule).
#[test]
fn landlock_keeps_a_same_user_process_environment_unreadable() {
    assert!(support().landlock_abi.is_some(), "{}", support());
    let as_root = rustix::process::getuid().is_root();
    let setpriv = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"];
    let wrap = |argv: &[&str]| -> Command {
        let full: Vec<&str> = if as_root { setpriv.iter().chain(argv).copied().collect() } else { argv.to_vec() };
        let mut command = Command::new(full[0]);
        command.args(&full[1..]);
        command
    };
    let (name, value) = SECRET.split_once('=').expect("name=value");
    let mut holder = wrap(&["sleep", "30"]).env(name, value).spawn().expect("holder");
    // With setpriv the holder's pid is setpriv's, which execs into sleep.
    let pid = holder.id();
    std::thread::sleep(Duration::from_millis(200));
    let spec = json!({
        "argv": ["cat", format!("/proc/{pid}/environ")],
        "cwd": "/",
        "env": [["PATH", "/usr/bin:/bin"]],
        "read_write": [],
        "read_only": [],
        "network": false,
    });
    let output = wrap(&[BINARY, HELPER_ARG, &spec.to_string()]).stdin(Stdio::null()).output().expect("helper");
    let _ = holder.kill();
    let _ = holder.wait();
    assert!(!text(&output).contains("hunter2"), "Landlock let a same-user environ through: {}", text(&output));
    assert!(text(&output).contains("Permission denied"), "{}", text(&output));
}

/// Without the view the process group is what airlock kills, so a program may not leave it;
/// in the view it may (the PID namespace holds every descendant: see
/// `every_descendant_dies_when_the_helper_is_killed`). New namespaces never.
#[test]
fn cannot_leave_the_process_group_without_the_view_or_make_namespaces() {
    let alone = Scene::without_view();
    let output = alone.bash("setsid sleep 0");
    assert_denied(&output, "setsid");
    assert!(text(&output).contains("Operation not permitted"), "{}", text(&output));
    let scene = Scene::new();
    let detached = scene.bash("setsid sleep 0 && echo detached");
    assert!(detached.status.success(), "setsid in the view: {}", text(&detached));
    for scene in [&alone, &scene] {
        assert_denied(&scene.bash("unshare -U true"), "a user namespace");
        assert_denied(&scene.bash("unshare -n true"), "a network namespace");
        assert_denied(&scene.bash("unshare -m true"), "a mount namespace");
    }
    if has_python() {
        for script in ["import os; os.setpgid(0, 0)", "import os; os.setsid()"] {
            assert_denied(&alone.run(&[PYTHON, "-c", script], false), script);
        }
        for scene in [&alone, &scene] {
            assert_denied(&scene.run(&[PYTHON, "-c", "import os; os.unshare(os.CLONE_NEWUSER)"], false), "unshare");
        }
    }
}

#[test]
fn cannot_inject_terminal_input() {
    if !has_python() {
        return;
    }
    let scene = Scene::new();
    // On a pipe the kernel would say ENOTTY; EPERM proves the filter answered first.
    for request in ["TIOCSTI", "TIOCLINUX"] {
        let script = format!(
            "import fcntl, termios, errno\ntry:\n    fcntl.ioctl(1, getattr(termios, {request:?}, 0x541c), b'x')\n\
             except OSError as e:\n    raise SystemExit(0 if e.errno == errno.EPERM else e.errno)\nraise SystemExit(99)"
        );
        let output = scene.run(&[PYTHON, "-c", &script], false);
        assert!(output.status.success(), "{request} was not refused with EPERM: {}", text(&output));
    }
}

#[test]
fn drops_every_capability() {
    let scene = Scene::new();
    let output = scene.bash("grep ^Cap /proc/self/status");
    assert!(output.status.success(), "{}", text(&output));
    let caps = String::from_utf8_lossy(&output.stdout).into_owned();
    for set in ["CapInh", "CapPrm", "CapEff", "CapAmb"] {
        assert!(caps.contains(&format!("{set}:\t0000000000000000")), "{set} not empty: {caps}");
    }
    let ours = std::fs::read_to_string("/proc/self/status").expect("status");
    let privileged = ours.lines().any(|line| line.starts_with("CapEff:") && !line.ends_with("0000000000000000"));
    if privileged {
        assert!(caps.contains("CapBnd:\t0000000000000000"), "bounding set kept: {caps}");
        // Root without capabilities: no reading others' files through DAC override.
        assert_denied(&scene.bash("cat /etc/shadow"), "root reading /etc/shadow");
    }
    assert!(caps.contains("NoNewPrivs") || scene.bash("grep -q 'NoNewPrivs:\t1' /proc/self/status").status.success());
}

#[test]
fn reports_failures_before_exec_with_exit_codes() {
    let scene = Scene::new();
    let missing = scene.run(&["no-such-program-airlock"], false);
    assert_eq!(missing.status.code(), Some(127));
    assert_eq!(
        String::from_utf8_lossy(&missing.stderr),
        "airlock sandbox: no-such-program-airlock: command not found\n"
    );
    let missing_path = scene.run(&["./nothing-here"], false);
    assert_eq!(missing_path.status.code(), Some(127));
    let not_allowed = scene.run(&[&scene.outside.join("secret").display().to_string()], false);
    assert_eq!(not_allowed.status.code(), Some(126), "{}", text(&not_allowed));
    let bad = helper("{not json");
    assert_eq!(bad.status.code(), Some(126));
    assert!(String::from_utf8_lossy(&bad.stderr).starts_with("airlock sandbox: invalid spec"));
    let empty = helper(&serde_json::to_string(&Spec { cwd: scene.work.clone(), ..Spec::default() }).expect("json"));
    assert_eq!(empty.status.code(), Some(126));
    let code = scene.bash("exit 42");
    assert_eq!(code.status.code(), Some(42));
}

/// Where the kernel has no unprivileged user namespaces, the program runs under the
/// confinement alone: Landlock and seccomp still keep it inside its folders and off the
/// network, and a secret under a granted folder stays unreadable (granted around it).
#[test]
fn the_confinement_alone_holds_without_the_view() {
    let scene = Scene::without_view();
    let out = scene.outside.display().to_string();
    assert_denied(&scene.bash(&format!("echo x > {out}/new")), "a write outside");
    assert!(!scene.outside.join("new").exists());
    assert_denied(&scene.bash(&format!("cat {out}/secret")), "a read outside");
    let listener = TcpListener::bind("127.0.0.1:0").expect("listener");
    let port = listener.local_addr().expect("addr").port();
    assert_denied(&scene.bash(&format!("exec 3<>/dev/tcp/127.0.0.1/{port}")), "a connection");
    let hidden = Hidden::new(&scene);
    let output = scene.helper_with(&hidden.spec(&scene, &["bash", "-c", &hidden.script()]));
    hidden.check(&output);
}

/// A folder granted for reading that holds secrets: the secrets are hidden (issue 24), in
/// every way a program might reach them.
struct Hidden {
    home: PathBuf,
}

impl Hidden {
    fn new(scene: &Scene) -> Self {
        let home = scene.shared.join("home");
        std::fs::create_dir_all(home.join(".ssh")).expect("folder");
        std::fs::write(home.join(".ssh/id_ed25519"), "PRIVATE-KEY").expect("key");
        std::fs::write(home.join(".netrc"), "machine x password NETRC-PASSWORD").expect("netrc");
        std::fs::write(home.join("notes.txt"), "public notes").expect("notes");
        Self { home }
    }

    fn spec(&self, scene: &Scene, argv: &[&str]) -> serde_json::Value {
        let mut spec = scene.spec(argv, false);
        spec["hidden"] = json!([self.home.join(".ssh"), self.home.join(".netrc")]);
        spec["env"] = json!([["PATH", "/usr/local/bin:/usr/bin:/bin"], ["H", self.home]]);
        spec
    }

    fn script(&self) -> String {
        "cat $H/notes.txt; cat $H/.ssh/id_ed25519; cat $H/.netrc; ls -la $H/.ssh; cat $H/.ssh/*; \
         cp -r $H copy; cat copy/.ssh/id_ed25519 copy/.netrc; grep -r PASSWORD $H; tar cf - $H 2>/dev/null | strings | grep -E 'KEY|PASSWORD'; \
         ln -s $H/.ssh/id_ed25519 link; cat link; echo end"
            .into()
    }

    fn check(&self, output: &Output) {
        let shown = text(output);
        assert!(shown.contains("public notes") && shown.contains("end"), "{shown}");
        for secret in ["PRIVATE-KEY", "NETRC-PASSWORD"] {
            assert!(!shown.contains(secret), "{secret} leaked: {shown}");
        }
    }
}

#[test]
fn secrets_under_a_granted_folder_stay_hidden() {
    let scene = Scene::new();
    let hidden = Hidden::new(&scene);
    let output = scene.helper_with(&hidden.spec(&scene, &["bash", "-c", &hidden.script()]));
    hidden.check(&output);
    // The key's metadata is out of reach too.
    let key = hidden.home.join(".ssh/id_ed25519");
    let before = std::fs::metadata(&key).expect("key").permissions();
    let output = scene.helper_with(&hidden.spec(&scene, &["bash", "-c", "chmod 000 $H/.ssh/id_ed25519"]));
    assert_denied(&output, "chmod of a hidden key");
    assert_eq!(std::fs::metadata(&key).expect("key").permissions(), before);
}

/// Landlock does not cover metadata: the view's read-only mounts do (issue 23, item 6).
#[test]
fn metadata_outside_the_writable_folders_cannot_change() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let scene = Scene::new();
    let targets = [scene.outside.join("keep"), scene.shared.join("readme")];
    let before: Vec<_> = targets.iter().map(|t| std::fs::metadata(t).expect("target")).collect();
    for target in &targets {
        let t = target.display();
        for (what, script) in [
            ("chmod 000", format!("chmod 000 {t}")),
            ("setuid", format!("chmod u+s {t}")),
            ("times", format!("touch -d 2000-01-01 {t}")),
            ("times of the folder", format!("touch -d 2000-01-01 $(dirname {t})")),
            ("owner", format!("chown 65534 {t}")),
        ] {
            assert_denied(&scene.bash(&script), &format!("{what} on {t}"));
        }
        if has_python() {
            let script = format!("import os; os.setxattr({:?}, 'user.airlock', b'x')", target.display().to_string());
            assert_denied(&scene.run(&[PYTHON, "-c", &script], false), "setxattr");
        }
    }
    for (target, before) in targets.iter().zip(before) {
        let after = std::fs::metadata(target).expect("target");
        assert_eq!(after.permissions().mode(), before.permissions().mode(), "{} changed mode", target.display());
        assert_eq!((after.mtime(), after.uid()), (before.mtime(), before.uid()), "{} changed", target.display());
        let attribute = Command::new(PYTHON)
            .args(["-c", &format!("import os; print(os.listxattr({:?}))", target.display().to_string())])
            .output();
        assert!(attribute.is_ok_and(|o| !String::from_utf8_lossy(&o.stdout).contains("airlock")), "xattr set");
    }
    // Inside the workspace, metadata stays the program's to change.
    let inside = scene.bash("touch f && chmod 600 f && touch -d 2000-01-01 f");
    assert!(inside.status.success(), "{}", text(&inside));
}

/// Every descendant dies with the sandbox, also one that detached itself (issue 23, item 6):
/// the PID namespace dies with its init, and init with the helper.
#[test]
fn every_descendant_dies_when_the_helper_is_killed() {
    let scene = Scene::new();
    let beat = "while :; do date +%s%N > beat; sleep 0.05; done";
    for (what, script) in [
        ("a background job", format!("({beat}) & sleep 100")),
        ("a double fork", format!("( ( {beat} ) & ) ; sleep 100")),
        ("nohup and disown", format!("nohup bash -c '{beat}' >/dev/null 2>&1 & disown; sleep 100")),
        ("a new session", format!("setsid bash -c '{beat}' & sleep 100")),
    ] {
        let _ = std::fs::remove_file(scene.work.join("beat"));
        let spec = scene.spec(&["bash", "-c", &script], false).to_string();
        let (name, value) = SECRET.split_once('=').expect("name=value");
        let mut helper = Command::new(BINARY)
            .arg(HELPER_ARG)
            .arg(&spec)
            .env(name, value)
            .stdin(Stdio::null())
            .spawn()
            .expect("helper");
        let started = Instant::now();
        while !scene.work.join("beat").exists() {
            assert!(started.elapsed() < Duration::from_secs(5), "{what}: no heartbeat");
            std::thread::sleep(Duration::from_millis(20));
        }
        helper.kill().expect("SIGKILL the helper");
        let _ = helper.wait();
        assert!(super::heartbeat_stops(&scene.work.join("beat")), "{what} outlived the sandbox");
    }
}

#[test]
fn the_program_sees_its_own_processes_and_cannot_signal_init() {
    let scene = Scene::new();
    let output = scene.bash("ls /proc | grep -c '^[0-9]*$'; kill -9 1 2>/dev/null; echo still here");
    assert!(output.status.success(), "{}", text(&output));
    let shown = String::from_utf8_lossy(&output.stdout).into_owned();
    let count: usize = shown.lines().next().and_then(|l| l.trim().parse().ok()).expect("a count");
    assert!(count < 10, "the program sees {count} processes: {shown}");
    assert!(shown.contains("still here"));
}

/// Without the network a program has a loopback of its own (test servers work) and a
/// private `/dev/shm`; sequenced-packet socket pairs (cargo → rustc) work.
#[test]
fn local_servers_shared_memory_and_packet_pairs_work_inside() {
    if !has_python() {
        return;
    }
    let scene = Scene::new();
    let script = "import socket, threading, multiprocessing\n\
        server = socket.create_server(('127.0.0.1', 0))\n\
        port = server.getsockname()[1]\n\
        threading.Thread(target=lambda: server.accept()[0].sendall(b'pong'), daemon=True).start()\n\
        print(socket.create_connection(('127.0.0.1', port)).recv(4).decode())\n\
        a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)\n\
        a.send(b'packet'); print(b.recv(16).decode())\n\
        lock = multiprocessing.Lock(); lock.acquire(); lock.release(); print('lock')\n\
        open('/dev/shm/airlock-view-test', 'w').write('x'); print('shm')\n";
    let output = scene.run(&[PYTHON, "-c", script], false);
    assert!(output.status.success(), "{}", text(&output));
    assert_eq!(String::from_utf8_lossy(&output.stdout), "pong\npacket\nlock\nshm\n");
    assert!(!Path::new("/dev/shm/airlock-view-test").exists(), "the machine's /dev/shm was written");
}

/// The view as an unprivileged user (CI runs as root; most users do not).
#[test]
fn the_view_holds_for_an_unprivileged_user() {
    if !rustix::process::getuid().is_root() {
        return;
    }
    let scene = Scene::new();
    let hidden = Hidden::new(&scene);
    let chown = Command::new("chown").args(["-R", "65534:65534"]).arg(scene.work.parent().expect("root")).status();
    assert!(chown.is_ok_and(|s| s.success()));
    let run = |spec: &serde_json::Value| {
        Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups", BINARY, HELPER_ARG])
            .arg(spec.to_string())
            .current_dir("/")
            .stdin(Stdio::null())
            .output()
            .expect("setpriv")
    };
    hidden.check(&run(&hidden.spec(&scene, &["bash", "-c", &hidden.script()])));
    let keep = scene.outside.join("keep");
    let chmod = run(&scene.spec(&["chmod", "000", &keep.display().to_string()], false));
    assert_denied(&chmod, "chmod as nobody");
    use std::os::unix::fs::PermissionsExt;
    assert_ne!(std::fs::metadata(&keep).expect("keep").permissions().mode() & 0o777, 0);
    let inside = run(&scene.spec(&["bash", "-c", "echo ok > made && ls /proc | grep -c '^[0-9]*$'"], false));
    assert!(inside.status.success(), "{}", text(&inside));
    assert!(scene.work.join("made").exists());
}

// The process manager, with the built binary as the helper.

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime")
}

fn request(scene: &Scene, script: &str, timeout: Duration) -> Request {
    Request {
        spec: Spec {
            argv: vec!["bash".into(), "-c".into(), script.into()],
            cwd: scene.work.clone(),
            env: vec![("WORK".into(), scene.work.display().to_string())],
            read_write: vec![scene.work.clone()],
            ..Spec::default()
        },
        timeout,
        ..Request::default()
    }
}

fn spawn(request: Request) -> Child {
    Child::spawn_with_helper(Path::new(BINARY), request).expect("spawn")
}

/// Output until `Exited`, with the exit.
async fn collect(child: &mut Child) -> (String, String, ExitInfo) {
    let (mut out, mut err) = (String::new(), String::new());
    loop {
        match child.next(Duration::from_secs(30)).await {
            ChildEvent::Stdout(bytes) => out.push_str(&String::from_utf8_lossy(&bytes)),
            ChildEvent::Stderr(bytes) => err.push_str(&String::from_utf8_lossy(&bytes)),
            ChildEvent::Exited(info) => return (out, err, info),
            ChildEvent::Idle => panic!("no exit after 30 s"),
        }
    }
}

fn read_pid(path: &Path) -> u32 {
    super::wait_for_file(path, Duration::from_secs(5))
}

/// Whether `pid` is gone (or a zombie about to be reaped by init) within two seconds.
fn dies(pid: u32) -> bool {
    let deadline = Instant::now() + Duration::from_secs(2);
    while super::pid_alive(pid) {
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    true
}

#[test]
fn timeout_kills_the_whole_group_including_a_grandchild_that_ignores_sigterm() {
    let scene = Scene::new();
    runtime().block_on(async {
        let script = "(trap '' TERM; echo $BASHPID > grandchild; exec sleep 100) & trap '' TERM; wait";
        let started = Instant::now();
        let mut child = spawn(request(&scene, script, Duration::from_secs(1)));
        let grandchild = read_pid(&scene.work.join("grandchild"));
        let (_, _, info) = collect(&mut child).await;
        assert_eq!(info, ExitInfo { code: None, signal: Some(9), timed_out: true, ..info });
        assert!(started.elapsed() < Duration::from_secs(4), "took {:?}", started.elapsed());
        assert!(dies(grandchild), "the grandchild {grandchild} survived the timeout");
    });
}

#[test]
fn streams_output_before_the_exit() {
    let scene = Scene::new();
    runtime().block_on(async {
        let mut child =
            spawn(request(&scene, "echo first; echo oops >&2; sleep 3; echo second", Duration::from_secs(20)));
        let started = Instant::now();
        let mut seen = Vec::new();
        while seen.len() < 2 {
            match child.next(Duration::from_secs(10)).await {
                ChildEvent::Stdout(bytes) => seen.push(format!("out:{}", String::from_utf8_lossy(&bytes))),
                ChildEvent::Stderr(bytes) => seen.push(format!("err:{}", String::from_utf8_lossy(&bytes))),
                other => panic!("expected output, got {other:?}"),
            }
        }
        assert!(started.elapsed() < Duration::from_secs(2), "output arrived only after {:?}", started.elapsed());
        seen.sort();
        assert_eq!(seen, ["err:oops\n", "out:first\n"]);
        assert_eq!(child.next(Duration::from_millis(200)).await, ChildEvent::Idle);
        let (out, _, info) = collect(&mut child).await;
        assert_eq!(out, "second\n");
        assert_eq!(info, ExitInfo { code: Some(0), signal: None, timed_out: false, ..info });
        assert_eq!(child.next(Duration::ZERO).await, ChildEvent::Exited(info), "Exited is repeated");
    });
}

#[test]
fn reports_exit_codes_and_signals() {
    let scene = Scene::new();
    runtime().block_on(async {
        let mut child = spawn(request(&scene, "exit 7", Duration::from_secs(20)));
        let info = collect(&mut child).await.2;
        assert_eq!(info, ExitInfo { code: Some(7), signal: None, timed_out: false, ..info });
        let mut child = spawn(request(&scene, "kill -TERM $$", Duration::from_secs(20)));
        let info = collect(&mut child).await.2;
        assert_eq!(info, ExitInfo { code: None, signal: Some(15), timed_out: false, ..info });
        let mut child = spawn(request(&scene, "no-such-program-airlock", Duration::from_secs(20)));
        assert_eq!(collect(&mut child).await.2.code, Some(127));
    });
}

#[test]
fn kill_ends_the_group() {
    let scene = Scene::new();
    runtime().block_on(async {
        let mut child =
            spawn(request(&scene, "(echo $BASHPID > grandchild; exec sleep 100) & sleep 100", Duration::ZERO));
        let grandchild = read_pid(&scene.work.join("grandchild"));
        let started = Instant::now();
        child.kill();
        let (_, _, info) = collect(&mut child).await;
        assert_eq!(info, ExitInfo { code: None, signal: Some(9), timed_out: false, ..info });
        assert!(started.elapsed() < Duration::from_secs(2));
        assert!(dies(grandchild));
    });
}

#[test]
fn dropping_a_child_kills_its_group() {
    let scene = Scene::new();
    runtime().block_on(async {
        let child = spawn(request(
            &scene,
            "(echo $BASHPID > grandchild; exec sleep 100) & echo $$ > leader; wait",
            Duration::ZERO,
        ));
        let leader = read_pid(&scene.work.join("leader"));
        let grandchild = read_pid(&scene.work.join("grandchild"));
        assert_eq!(leader, child.pid());
        drop(child);
        assert!(dies(leader), "the program survived its handle");
        assert!(dies(grandchild), "the grandchild survived the handle");
    });
}

#[test]
fn a_grandchild_holding_the_pipes_does_not_delay_the_exit() {
    let scene = Scene::new();
    runtime().block_on(async {
        let started = Instant::now();
        let mut child = spawn(request(&scene, "sleep 100 & echo $! > grandchild; echo done", Duration::from_secs(60)));
        let (out, _, info) = collect(&mut child).await;
        assert_eq!(out, "done\n");
        assert_eq!(info.code, Some(0));
        assert!(started.elapsed() < Duration::from_secs(3), "took {:?}", started.elapsed());
        assert!(dies(read_pid(&scene.work.join("grandchild"))));
    });
}

#[test]
fn gives_a_private_home_and_stdin() {
    let scene = Scene::new();
    runtime().block_on(async {
        let mut request = request(
            &scene,
            "cat; echo; echo $HOME; echo $TMPDIR; touch $HOME/h $TMPDIR/t && echo writable; env | cut -d= -f1 | sort | tr '\\n' ' '",
            Duration::from_secs(20),
        );
        request.stdin = Some(b"from stdin".to_vec());
        let mut child = spawn(request);
        let (out, err, info) = collect(&mut child).await;
        assert_eq!(info.code, Some(0), "{err}");
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "from stdin");
        let home = PathBuf::from(lines[1]);
        assert!(home.ends_with("home") && lines[2].ends_with("tmp"), "{out}");
        assert_eq!(lines[3], "writable");
        assert_eq!(lines[4], "HOME LANG PATH PWD SHLVL TERM TMPDIR WORK _ ");
        let private = home.parent().expect("private folder").to_path_buf();
        let deadline = Instant::now() + Duration::from_secs(2);
        while private.exists() && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(!private.exists(), "the private folder {} was left behind", private.display());
    });
}

#[test]
fn refuses_loader_variables() {
    let scene = Scene::new();
    runtime().block_on(async {
        for name in ["LD_PRELOAD", "PATH", "HOME", "GLIBC_TUNABLES"] {
            let mut request = request(&scene, "true", Duration::from_secs(5));
            request.spec.env.push((name.into(), "/tmp/x".into()));
            let error = Child::spawn_with_helper(Path::new(BINARY), request).expect_err(name);
            assert!(error.to_string().contains(name), "{error}");
        }
    });
}

#[test]
fn background_children_log_and_stop() {
    let scene = Scene::new();
    runtime().block_on(async {
        let log = scene.outside.join("background.log");
        let mut first = request(&scene, "echo started; echo warn >&2; sleep 100", Duration::ZERO);
        first.background_log = Some(log.clone());
        let mut child = spawn(first);
        assert_eq!(child.log_path(), Some(log.clone()));
        assert_eq!(
            child.next(Duration::from_millis(500)).await,
            ChildEvent::Idle,
            "a background child has no output events"
        );
        let pid = child.pid();
        drop(child);
        assert!(
            airlock_process::background()
                .iter()
                .any(|(listed, command, path)| { *listed == pid && command.contains("sleep 100") && *path == log })
        );
        let logged = std::fs::read_to_string(&log).expect("log");
        assert!(logged.contains("started") && logged.contains("warn"), "{logged}");
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&log).expect("log").permissions().mode() & 0o777, 0o600);

        // An existing file (or a planted link) is never written through.
        std::fs::write(scene.outside.join("taken"), "mine").expect("file");
        std::os::unix::fs::symlink(scene.outside.join("taken"), scene.outside.join("link.log")).expect("link");
        for path in ["taken", "link.log"] {
            let mut again = request(&scene, "echo overwritten", Duration::ZERO);
            again.background_log = Some(scene.outside.join(path));
            assert!(Child::spawn_with_helper(Path::new(BINARY), again).is_err(), "{path} was reused");
        }
        assert_eq!(std::fs::read_to_string(scene.outside.join("taken")).expect("file"), "mine");

        assert!(airlock_process::stop_background() >= 1);
        assert!(dies(pid), "stop_background left it running");
        assert!(airlock_process::background().is_empty());
    });
}

#[test]
fn descriptors_airlock_inherited_do_not_reach_the_program() {
    let scene = Scene::new();
    let spec = scene.spec(&["bash", "-c", "cat <&7; ls /proc/self/fd"], false).to_string();
    // A launcher that leaves a descriptor open without close-on-exec (bash's `exec 7<`): the
    // secret is outside every granted folder, so only that descriptor could bring it in.
    let quoted = format!("'{}'", spec.replace('\'', "'\\''"));
    let script = format!("exec 7< {}/secret; exec {BINARY} {HELPER_ARG} {quoted}", scene.outside.display());
    let output = Command::new("bash").args(["-c", &script]).stdin(Stdio::null()).output().expect("run bash");
    let shown = text(&output);
    assert!(!shown.contains("the secret"), "an inherited descriptor leaked the file: {shown}");
    assert!(shown.contains("Bad file descriptor"), "{shown}");
}
