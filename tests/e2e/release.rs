//! Getting airlock itself: `dist/install.sh` against release files served on 127.0.0.1 (a
//! good archive installs and runs; a tampered one, or one without its digest, is refused
//! and nothing is installed; a plain-http page elsewhere is refused before any download), and the `cargo binstall` metadata of `host/Cargo.toml`
//! naming the archive `dist/release.sh` builds. The archive here is a small fake (a shell
//! script named `airlock`), so no musl build runs in the suite; `dist/release.sh` and
//! `dist/check-static.sh` build and try the real one (BENCHMARKS.md, "Issue 30: release").
// The helpers set up files and servers a test cannot go on without; a skip is said on stdout.
#![allow(clippy::unwrap_used, clippy::print_stdout)]

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use airlock_tests::kits::root;
use sha2::{Digest, Sha256};

/// The only release target.
const TARGET: &str = "x86_64-unknown-linux-musl";

/// `dist/release.sh --name`: the archive's file name, from the script that builds it.
fn release_archive_name() -> String {
    let output = Command::new("sh").arg(root().join("dist/release.sh")).arg("--name").output().unwrap();
    assert!(output.status.success(), "release.sh --name: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap().trim().to_string()
}

/// The workspace's version (`[workspace.package]`).
fn workspace_version() -> String {
    let table: toml::Table = std::fs::read_to_string(root().join("Cargo.toml")).unwrap().parse().unwrap();
    table["workspace"]["package"]["version"].as_str().unwrap().to_string()
}

/// A releases page on 127.0.0.1: `GET|HEAD /releases/latest` redirects to
/// `/releases/tag/v<version>`, and `/releases/download/...` serves files of `dir`. It
/// answers until the test process ends.
fn serve_releases(dir: &Path, version: &str) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let (dir, version) = (dir.to_path_buf(), version.to_string());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            answer(stream, &dir, &version);
        }
    });
    addr
}

fn answer(mut stream: TcpStream, dir: &Path, version: &str) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut request = String::new();
    if reader.read_line(&mut request).is_err() {
        return;
    }
    let mut line = String::new();
    while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
        line.clear();
    }
    let mut words = request.split_whitespace();
    let (method, path) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
    let (status, headers, body) = if path == "/releases/latest" {
        ("302 Found", format!("Location: /releases/tag/v{version}\r\n"), Vec::new())
    } else if path.starts_with("/releases/tag/") {
        ("200 OK", String::new(), b"a release page".to_vec())
    } else if let Some(file) = path.strip_prefix(&format!("/releases/download/v{version}/")) {
        match std::fs::read(dir.join(file)) {
            Ok(bytes) if !file.contains('/') => ("200 OK", String::new(), bytes),
            _ => ("404 Not Found", String::new(), Vec::new()),
        }
    } else {
        ("404 Not Found", String::new(), Vec::new())
    };
    let head = format!("HTTP/1.1 {status}\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n", body.len());
    let _ = stream.write_all(head.as_bytes());
    if method != "HEAD" {
        let _ = stream.write_all(&body);
    }
}

/// A release folder holding a fake archive (`<name>/airlock`, a script printing
/// `airlock <version> (fake)`) and its `.sha256`, as `dist/release.sh` lays them out.
fn fake_release(version: &str) -> (tempfile::TempDir, String) {
    let archive = release_archive_name();
    let name = archive.strip_suffix(".tar.gz").unwrap().to_string();
    let dir = tempfile::tempdir().unwrap();
    let stage = dir.path().join("stage");
    std::fs::create_dir_all(stage.join(&name)).unwrap();
    let binary = stage.join(&name).join("airlock");
    std::fs::write(&binary, format!("#!/bin/sh\necho 'airlock {version} (fake)'\n")).unwrap();
    std::fs::set_permissions(&binary, std::fs::Permissions::from_mode(0o755)).unwrap();
    let status = Command::new("tar")
        .arg("-czf")
        .arg(dir.path().join(&archive))
        .arg("-C")
        .arg(&stage)
        .arg(&name)
        .status()
        .unwrap();
    assert!(status.success(), "tar failed");
    let digest = hex::encode(Sha256::digest(std::fs::read(dir.path().join(&archive)).unwrap()));
    std::fs::write(dir.path().join(format!("{archive}.sha256")), format!("{digest}  {archive}\n")).unwrap();
    (dir, archive)
}

/// Runs `dist/install.sh` with the releases page at `addr`, a temporary home, and
/// `extra` settings.
fn install(addr: SocketAddr, home: &Path, extra: &[(&str, &str)]) -> Output {
    let mut command = Command::new("sh");
    command
        .arg(root().join("dist/install.sh"))
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("TMPDIR", home)
        .env("AIRLOCK_RELEASE_URL", format!("http://{addr}/releases"));
    for (key, value) in extra {
        command.env(key, value);
    }
    command.output().unwrap()
}

fn installed_files(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir).map(|entries| entries.flatten().map(|e| e.path()).collect()).unwrap_or_default()
}

fn on_x86_64_linux() -> bool {
    let here = cfg!(target_os = "linux") && cfg!(target_arch = "x86_64");
    if !here {
        println!("skipped: releases are built for x86_64 Linux only");
    }
    here
}

#[test]
fn install_script_installs_the_latest_release_after_checking_its_digest() {
    if !on_x86_64_linux() {
        return;
    }
    let version = workspace_version();
    let (release, _) = fake_release(&version);
    let addr = serve_releases(release.path(), &version);
    let home = tempfile::tempdir().unwrap();
    let output = install(addr, home.path(), &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "install.sh failed: {stderr}");
    assert!(stderr.contains("sha-256 checked"), "{stderr}");
    let installed = home.path().join(".local/bin/airlock");
    let run = Command::new(&installed).arg("--version").output().unwrap();
    assert_eq!(String::from_utf8_lossy(&run.stdout).trim(), format!("airlock {version} (fake)"));
    assert!(stderr.contains(&format!("{} is not on your PATH", home.path().join(".local/bin").display())), "{stderr}");
    assert_eq!(installed_files(&home.path().join(".local/bin")), vec![installed], "a leftover beside the binary");
}

#[test]
fn install_script_installs_a_named_version_into_the_chosen_folder() {
    if !on_x86_64_linux() {
        return;
    }
    let version = workspace_version();
    let (release, _) = fake_release(&version);
    let addr = serve_releases(release.path(), &version);
    let home = tempfile::tempdir().unwrap();
    let folder = home.path().join("tools");
    let output = install(
        addr,
        home.path(),
        &[("AIRLOCK_VERSION", &format!("v{version}")), ("AIRLOCK_INSTALL_DIR", folder.to_str().unwrap())],
    );
    assert!(output.status.success(), "install.sh failed: {}", String::from_utf8_lossy(&output.stderr));
    let run = Command::new(folder.join("airlock")).arg("--version").output().unwrap();
    assert_eq!(String::from_utf8_lossy(&run.stdout).trim(), format!("airlock {version} (fake)"));
    assert!(!home.path().join(".local/bin").exists(), "installed outside AIRLOCK_INSTALL_DIR");
}

#[test]
fn install_script_refuses_a_tampered_archive_and_installs_nothing() {
    if !on_x86_64_linux() {
        return;
    }
    let version = workspace_version();
    let (release, archive) = fake_release(&version);
    let expected = hex::encode(Sha256::digest(std::fs::read(release.path().join(&archive)).unwrap()));
    // The same archive with a byte changed after its digest was published.
    let mut bytes = std::fs::read(release.path().join(&archive)).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x01;
    std::fs::write(release.path().join(&archive), &bytes).unwrap();
    let actual = hex::encode(Sha256::digest(&bytes));
    let addr = serve_releases(release.path(), &version);
    let home = tempfile::tempdir().unwrap();
    let output = install(addr, home.path(), &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "a tampered archive was accepted: {stderr}");
    assert!(stderr.contains(&expected) && stderr.contains(&actual), "the refusal names neither digest: {stderr}");
    assert!(stderr.contains("nothing was installed"), "{stderr}");
    assert!(installed_files(&home.path().join(".local/bin")).is_empty(), "something was installed");
    assert!(
        installed_files(home.path()).iter().all(|p| !p.to_string_lossy().contains("airlock-install")),
        "the download folder was left behind"
    );
}

#[test]
fn install_script_refuses_an_archive_without_its_digest() {
    if !on_x86_64_linux() {
        return;
    }
    let version = workspace_version();
    let (release, archive) = fake_release(&version);
    std::fs::remove_file(release.path().join(format!("{archive}.sha256"))).unwrap();
    let addr = serve_releases(release.path(), &version);
    let home = tempfile::tempdir().unwrap();
    let output = install(addr, home.path(), &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "an archive without a digest was installed: {stderr}");
    assert!(stderr.contains(".sha256") && stderr.contains("nothing was installed"), "{stderr}");
    assert!(installed_files(&home.path().join(".local/bin")).is_empty(), "something was installed");
}

#[test]
fn install_script_refuses_a_plain_http_releases_page_before_any_download() {
    // Plain http is taken from this machine only (the servers above); anywhere else one
    // downgraded hop could replace both the archive and its digest.
    let home = tempfile::tempdir().unwrap();
    let output = Command::new("sh")
        .arg(root().join("dist/install.sh"))
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .env("TMPDIR", home.path())
        .env("AIRLOCK_VERSION", "1.0.0")
        .env("AIRLOCK_RELEASE_URL", "http://example.invalid/releases")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "a plain-http releases page was taken: {stderr}");
    assert!(
        stderr.contains("AIRLOCK_RELEASE_URL must be https") && stderr.contains("http://example.invalid/releases"),
        "{stderr}"
    );
    assert!(!stderr.contains("downloading"), "it downloaded before refusing: {stderr}");
    assert!(installed_files(&home.path().join(".local/bin")).is_empty(), "something was installed");
}

/// Expands a `cargo binstall` template (`{ name }` style) with `values`.
fn expand(template: &str, values: &[(&str, &str)]) -> String {
    let mut text = template.to_string();
    for (key, value) in values {
        text = text.replace(&format!("{{ {key} }}"), value);
    }
    assert!(!text.contains('{'), "a template variable was left: {text}");
    text
}

#[test]
fn binstall_metadata_names_the_archive_the_release_script_builds() {
    let host: toml::Table = std::fs::read_to_string(root().join("host/Cargo.toml")).unwrap().parse().unwrap();
    let workspace: toml::Table = std::fs::read_to_string(root().join("Cargo.toml")).unwrap().parse().unwrap();
    let repo = workspace["workspace"]["package"]["repository"].as_str().unwrap();
    let version = workspace_version();
    let name = host["package"]["name"].as_str().unwrap();
    let binstall = &host["package"]["metadata"]["binstall"];
    assert_eq!(binstall["pkg-fmt"].as_str(), Some("tgz"));
    let archive = release_archive_name();
    let folder = archive.strip_suffix(".tar.gz").unwrap();
    // install.sh's default releases page is the repository's: both read the same files.
    let install = std::fs::read_to_string(root().join("dist/install.sh")).unwrap();
    assert!(install.contains(&format!("{repo}/releases}}")), "install.sh's default is not {repo}/releases");
    // The musl target itself, and a glibc host, which takes the same static archive.
    for (target, table) in
        [(TARGET, binstall), ("x86_64-unknown-linux-gnu", &binstall["overrides"]["x86_64-unknown-linux-gnu"])]
    {
        let values = [
            ("repo", repo),
            ("version", &version),
            ("name", name),
            ("target", target),
            ("bin", "airlock"),
            ("binary-ext", ""),
        ];
        let url = expand(table["pkg-url"].as_str().unwrap(), &values);
        assert_eq!(url, format!("{repo}/releases/download/v{version}/{archive}"), "pkg-url for {target}");
        let bin = expand(table["bin-dir"].as_str().unwrap(), &values);
        assert_eq!(bin, format!("{folder}/airlock"), "bin-dir for {target}");
    }
}
