//! `airlock plugins search` (issue 30, item 5): an index served by an HTTP server on
//! 127.0.0.1 and a git index (a bare repository made here, read as a local mirror) are
//! searched by words; each result prints its install line pinned to a digest, its signer and
//! what it requests; a malformed entry breaks the index naming it, malformed requests skip
//! the entry with a warning, and only the user's settings (or `--index`) choose the index.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::Command;
use std::sync::{Arc, Mutex, PoisonError};

use airlock_tests::{Finished, Session};

use crate::session;

const DIGEST_A: &str = "sha256:1111111111111111111111111111111111111111111111111111111111111111";
const DIGEST_B: &str = "sha256:2222222222222222222222222222222222222222222222222222222222222222";

/// A static HTTP/1.1 server on 127.0.0.1 answering every GET with the current body.
struct IndexServer {
    port: u16,
    body: Arc<Mutex<String>>,
}

impl IndexServer {
    fn start(body: &str) -> IndexServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("bind: {e}"));
        let port = listener.local_addr().unwrap_or_else(|e| panic!("addr: {e}")).port();
        let body = Arc::new(Mutex::new(body.to_owned()));
        let served = Arc::clone(&body);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let mut reader = BufReader::new(match stream.try_clone() {
                    Ok(s) => s,
                    Err(_) => continue,
                });
                let mut header = String::new();
                while reader.read_line(&mut header).is_ok_and(|n| n > 0) && !header.ends_with("\r\n\r\n") {}
                let text = served.lock().unwrap_or_else(PoisonError::into_inner).clone();
                let _ = write!(
                    stream,
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
                    text.len()
                );
            }
        });
        IndexServer { port, body }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/index.json", self.port)
    }
}

/// An index entry.
fn entry(name: &str, description: &str, digest: &str, requests: &str, signer: Option<&str>) -> String {
    let signer = signer.map(|s| format!(r#", "signer": "{s}""#)).unwrap_or_default();
    format!(
        r#"{{"name": "{name}", "description": "{description}", "version": "1.2.0",
            "reference": "oci://registry.example:5000/acme/{name}:1.2.0", "digest": "{digest}",
            "requests": {requests}{signer}}}"#
    )
}

fn index(entries: &[String]) -> String {
    format!(r#"{{"plugins": [{}]}}"#, entries.join(","))
}

/// The index most tests search: two plugins that request things, one that requests
/// nothing, one with malformed requests, listed out of name order.
fn sample() -> String {
    index(&[
        entry(
            "weather-now",
            "Current weather \\u001b[31mfor a city\\u001b[0m",
            DIGEST_A,
            r#"{"network": ["https://api.weather.example"], "env": ["WEATHER_KEY"]}"#,
            Some("https://github.com/acme/weather/.github/workflows/release.yml@refs/heads/main"),
        ),
        entry(
            "image-resize",
            "Resize images in the workspace",
            DIGEST_B,
            r#"{"files": [{"path": ".", "access": "read-write"}], "processes": ["magick"]}"#,
            None,
        ),
        entry("clock", "What time is it, in any weather", DIGEST_B, "{}", None),
        entry(
            "sneaky",
            "weather, but hides a request",
            DIGEST_A,
            r#"{"network": ["https://x.example"], "secrets": ["ALL"]}"#,
            None,
        ),
    ])
}

fn search(s: &Session, args: &[&str]) -> Finished {
    let mut command = s.bare_command();
    command.args(["plugins", "search"]).args(args);
    Session::run(command)
}

fn configured(index: &str) -> Session {
    let s = session();
    s.write_config(&format!("[plugins]\nindex = \"{index}\"\n"));
    s
}

#[test]
fn search_finds_by_every_word_and_prints_what_each_result_requests() {
    let server = IndexServer::start(&sample());
    let s = configured(&server.url());

    let done = search(&s, &["weather"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let out = &done.stdout;
    // Sorted by name: clock before weather-now; the entry with malformed requests is not shown.
    let (clock, weather) = (out.find("clock 1.2.0"), out.find("weather-now 1.2.0"));
    assert!(clock.is_some() && weather.is_some() && clock < weather, "{out}");
    assert!(!out.contains("sneaky"), "an entry whose requests are malformed is never shown: {out}");
    assert!(
        done.stderr.contains("warning:")
            && done.stderr.contains("(\"sneaky\") skipped")
            && done.stderr.contains("secrets"),
        "{}",
        done.stderr
    );
    let suffix = DIGEST_A;
    assert!(
        out.contains(&format!(
            "install: airlock plugins install oci://registry.example:5000/acme/weather-now@{suffix}"
        )),
        "{out}"
    );
    assert!(out.contains("requests: net https://api.weather.example, env WEATHER_KEY"), "{out}");
    assert!(out.contains("requests: nothing"), "clock requests nothing: {out}");
    assert!(out.contains("checked on install): https://github.com/acme/weather/"), "{out}");
    assert!(out.contains("signer: unsigned"), "{out}");
    assert!(!out.contains('\u{1b}'), "index text is sanitised: {out:?}");

    // Every word must match, in the name or the description, whatever the case.
    let done = search(&s, &["RESIZE", "workspace"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert!(done.stdout.starts_with("image-resize 1.2.0"), "{}", done.stdout);
    assert!(done.stdout.contains("requests: write ., process `magick`"), "{}", done.stdout);
    assert!(!done.stdout.contains("weather"), "{}", done.stdout);
    let done = search(&s, &["resize", "weather"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert!(done.stdout.starts_with("no plugin of the index matches"), "{}", done.stdout);

    // --json: the matching entries, as the index wrote them.
    let done = search(&s, &["weather", "--json"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let value: serde_json::Value =
        serde_json::from_str(&done.stdout).unwrap_or_else(|e| panic!("{e}: {}", done.stdout));
    let names: Vec<&str> =
        value["plugins"].as_array().into_iter().flatten().filter_map(|p| p["name"].as_str()).collect();
    assert_eq!(names, ["clock", "weather-now"]);
    assert_eq!(value["plugins"][1]["requests"]["env"][0], "WEATHER_KEY");
}

#[test]
fn a_malformed_index_is_refused_naming_the_entry() {
    let broken = index(&[
        entry("fine", "ok", DIGEST_A, "{}", None),
        entry("broken", "its digest is short", "sha256:1234", "{}", None),
    ]);
    let server = IndexServer::start(&broken);
    let s = configured(&server.url());
    let done = search(&s, &[]);
    assert_ne!(done.code, Some(0), "{}", done.stdout);
    assert!(done.stderr.contains("entry 2 (\"broken\")") && done.stderr.contains("digest"), "{}", done.stderr);
    assert!(done.stdout.is_empty(), "nothing of a broken index is listed: {}", done.stdout);

    *server.body.lock().unwrap_or_else(PoisonError::into_inner) = "<html>not an index</html>".into();
    let done = search(&s, &[]);
    assert_ne!(done.code, Some(0));
    assert!(done.stderr.contains("not JSON"), "{}", done.stderr);
}

#[test]
fn only_the_user_chooses_the_index() {
    let server = IndexServer::start(&sample());
    let s = session();
    // Nothing set: the message says how to set one.
    let done = search(&s, &["weather"]);
    assert_ne!(done.code, Some(0));
    assert!(done.stderr.contains("[plugins]") && done.stderr.contains("--index"), "{}", done.stderr);

    // A workspace's config.toml may not choose it, trusted or not.
    s.write(".airlock/config.toml", &format!("[plugins]\nindex = \"{}\"\n", server.url()));
    let mut command = s.bare_command();
    command.args(["--workspace"]).arg(&s.workspace).args(["plugins", "search", "weather"]);
    let done = Session::run(command);
    assert_ne!(done.code, Some(0), "{}", done.stdout);
    assert!(done.stderr.contains("no plugin index is set"), "{}", done.stderr);

    // --index names one for this run; plain http off this machine is refused.
    let done = search(&s, &["weather", "--index", &server.url()]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert!(done.stdout.contains("weather-now"), "{}", done.stdout);
    let done = search(&s, &["weather", "--index", "http://example.com/index.json"]);
    assert_eq!(done.code, Some(2), "{}", done.stderr);
    assert!(done.stderr.contains("plain http"), "{}", done.stderr);
}

/// Runs `git ARGS` in `dir` as a person making an index repository would.
fn git(dir: &Path, args: &[&str]) {
    let output = Command::new("git")
        .args(["-c", "user.name=Index", "-c", "user.email=index@example.com", "-c", "init.defaultBranch=main"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap_or_else(|e| panic!("cannot run git: {e}"));
    assert!(output.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&output.stderr));
}

#[test]
fn a_git_index_is_fetched_once_and_again_on_refresh() {
    let s = session();
    let root = s.workspace.join("origin");
    let work = root.join("work");
    std::fs::create_dir_all(&work).unwrap_or_else(|e| panic!("{e}"));
    git(&work, &["init", "--quiet"]);
    std::fs::write(work.join("index.json"), sample()).unwrap_or_else(|e| panic!("{e}"));
    git(&work, &["add", "index.json"]);
    git(&work, &["commit", "--quiet", "-m", "index"]);
    git(&root, &["clone", "--quiet", "--bare", "work", "index.git"]);
    let url = format!("git+file://{}", root.join("index.git").display());
    s.write_config(&format!("[plugins]\nindex = \"{url}\"\n"));

    let done = search(&s, &["weather"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert!(done.stdout.contains("weather-now 1.2.0"), "{}", done.stdout);
    assert!(done.stdout.contains("requests: net https://api.weather.example, env WEATHER_KEY"), "{}", done.stdout);

    // A new version of the index: the copy is less than an hour old, so it is used until
    // --refresh fetches again.
    let newer = index(&[entry(
        "weather-later",
        "Tomorrow's weather",
        DIGEST_B,
        r#"{"network": ["https://later.example"]}"#,
        None,
    )]);
    std::fs::write(work.join("index.json"), newer).unwrap_or_else(|e| panic!("{e}"));
    git(&work, &["commit", "--quiet", "-am", "newer"]);
    git(&work, &["push", "--quiet", "../index.git", "main"]);
    let done = search(&s, &["weather"]);
    assert!(done.stdout.contains("weather-now") && !done.stdout.contains("weather-later"), "{}", done.stdout);
    let done = search(&s, &["weather", "--refresh"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert!(done.stdout.contains("weather-later") && !done.stdout.contains("weather-now"), "{}", done.stdout);
    assert!(done.stdout.contains("requests: net https://later.example"), "{}", done.stdout);

    // The copy is a bare repository in the cache folder: no file of the index is checked out.
    let copies: Vec<_> = std::fs::read_dir(crate::shared_cache().join("index"))
        .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    assert!(copies.iter().any(|c| c.join("FETCH_HEAD").is_file()), "a fetched copy: {copies:?}");
    assert!(copies.iter().all(|c| !c.join("index.json").exists()), "nothing checked out: {copies:?}");

    // A repository without index.json is an error saying so.
    let empty = root.join("empty");
    std::fs::create_dir_all(&empty).unwrap_or_else(|e| panic!("{e}"));
    git(&empty, &["init", "--quiet"]);
    std::fs::write(empty.join("README"), "no index").unwrap_or_else(|e| panic!("{e}"));
    git(&empty, &["add", "README"]);
    git(&empty, &["commit", "--quiet", "-m", "readme"]);
    let done = search(&s, &["--index", &format!("git+file://{}", empty.display())]);
    assert_ne!(done.code, Some(0));
    assert!(done.stderr.contains("no index.json"), "{}", done.stderr);
}
