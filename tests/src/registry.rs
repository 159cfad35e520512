//! A real OCI registry for the tests: Debian's `docker-registry` (the CNCF distribution
//! registry, 2.8) on 127.0.0.1, with a temporary storage folder, stopped when dropped.
//!
//! When the binary is absent, [`Registry::start`] prints [`SKIP_MESSAGE`] and returns `None`:
//! the test passes without running (`.ci/run` installs the package, so CI runs them). The
//! registry's output (its access log: one line per request) goes to a file the tests read
//! ([`Registry::log`]), to show which blobs were requested. A few raw HTTP helpers push what
//! `airlock plugins publish` never would (an image manifest, a blob larger than a plugin may be).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

/// Where Debian installs the registry.
pub const BINARY: &str = "/usr/bin/docker-registry";

/// What a test prints when it cannot run.
pub const SKIP_MESSAGE: &str = "skipped: docker-registry is not installed (apt-get install docker-registry)";

/// How long the registry may take to answer `GET /v2/`.
const START_TIMEOUT: Duration = Duration::from_secs(20);

/// A running registry; killed and its storage removed when dropped.
#[derive(Debug)]
pub struct Registry {
    addr: SocketAddr,
    child: Child,
    dir: tempfile::TempDir,
}

impl Registry {
    /// Starts a registry on a free loopback port, or `None` (after printing [`SKIP_MESSAGE`])
    /// when `docker-registry` is not installed.
    pub fn start() -> Option<Registry> {
        if !Path::new(BINARY).is_file() {
            // The test's own output: what a reader of the run needs to see it did not run.
            #[allow(clippy::print_stdout)]
            {
                println!("{SKIP_MESSAGE}");
            }
            return None;
        }
        // The port is free when picked and taken by the registry a moment later; another
        // process can take it in between, so a registry that does not come up is retried.
        let mut last = String::new();
        for _ in 0..3 {
            match Self::try_start() {
                Ok(registry) => return Some(registry),
                Err(e) => last = e,
            }
        }
        panic!("docker-registry did not start: {last}");
    }

    fn try_start() -> Result<Registry, String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let port = TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map_err(|e| e.to_string())?.port();
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        let storage = dir.path().join("storage");
        let config = dir.path().join("config.yml");
        std::fs::write(
            &config,
            format!(
                "version: 0.1\nlog:\n  level: warn\nstorage:\n  filesystem:\n    rootdirectory: {}\n  delete:\n    enabled: true\nhttp:\n  addr: {addr}\n",
                storage.display()
            ),
        )
        .map_err(|e| e.to_string())?;
        let log = std::fs::File::create(dir.path().join("registry.log")).map_err(|e| e.to_string())?;
        let log_err = log.try_clone().map_err(|e| e.to_string())?;
        let child = Command::new(BINARY)
            .arg("serve")
            .arg(&config)
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(log_err)
            .spawn()
            .map_err(|e| format!("cannot run {BINARY}: {e}"))?;
        let mut registry = Registry { addr, child, dir };
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            if let Ok(Some(status)) = registry.child.try_wait() {
                return Err(format!("it exited ({status}): {}", registry.log()));
            }
            if registry.request("GET", "/v2/", &[], &[]).is_ok_and(|r| r.status == 200) {
                return Ok(registry);
            }
            if Instant::now() > deadline {
                return Err(format!("no answer on {addr} after {START_TIMEOUT:?}: {}", registry.log()));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// `HOST:PORT` of the registry, as an `oci://` reference names it.
    pub fn host(&self) -> String {
        self.addr.to_string()
    }

    /// Its storage folder (`docker/registry/v2/...` inside).
    pub fn storage(&self) -> PathBuf {
        self.dir.path().join("storage")
    }

    /// The file holding the blob `digest` (`sha256:HEX`) in the storage folder.
    pub fn blob_file(&self, digest: &str) -> PathBuf {
        let hex = digest.strip_prefix("sha256:").unwrap_or(digest);
        self.storage().join(format!("docker/registry/v2/blobs/sha256/{}/{hex}/data", &hex[..2]))
    }

    /// What the registry has written so far: its access log (one line per request) and warnings.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("registry.log")).unwrap_or_default()
    }

    /// Pushes a blob of `len` bytes read from `body` (streamed, never held whole) whose
    /// sha-256 is `digest`, in one monolithic upload; the registry checks the digest.
    pub fn push_blob(&self, repo: &str, digest: &str, len: u64, body: &mut dyn Read) -> Result<(), String> {
        let started = self.request("POST", &format!("/v2/{repo}/blobs/uploads/"), &[], &[])?;
        if started.status != 202 {
            return Err(format!("upload not started: {} {}", started.status, started.body_text()));
        }
        let location = started.header("location").ok_or("no Location")?;
        let path = location.split_once(&*self.host()).map_or(location.as_str(), |(_, path)| path);
        let separator = if path.contains('?') { '&' } else { '?' };
        let url = format!("{path}{separator}digest={digest}");
        let put = self.request_streamed("PUT", &url, &[("Content-Type", "application/octet-stream")], len, body)?;
        if put.status != 201 {
            return Err(format!("upload refused: {} {}", put.status, put.body_text()));
        }
        Ok(())
    }

    /// Pushes `bytes` as a blob (their digest computed here); returns the digest.
    pub fn push_blob_bytes(&self, repo: &str, bytes: &[u8]) -> Result<String, String> {
        let digest = sha256_digest(bytes);
        self.push_blob(repo, &digest, bytes.len() as u64, &mut &bytes[..])?;
        Ok(digest)
    }

    /// Puts `manifest` (of `media_type`) under `tag` (or a digest) in `repo`; returns its digest.
    pub fn put_manifest(&self, repo: &str, tag: &str, media_type: &str, manifest: &[u8]) -> Result<String, String> {
        let put =
            self.request("PUT", &format!("/v2/{repo}/manifests/{tag}"), &[("Content-Type", media_type)], manifest)?;
        if put.status != 201 {
            return Err(format!("manifest refused: {} {}", put.status, put.body_text()));
        }
        Ok(sha256_digest(manifest))
    }

    /// One HTTP/1.1 request with a body in memory.
    pub fn request(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Result<Response, String> {
        self.request_streamed(method, path, headers, body.len() as u64, &mut &body[..])
    }

    /// One HTTP/1.1 request whose `len`-byte body is copied from `body` as it is sent.
    fn request_streamed(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        len: u64,
        body: &mut dyn Read,
    ) -> Result<Response, String> {
        let failed = |e: std::io::Error| format!("{method} {path}: {e}");
        let mut stream = TcpStream::connect_timeout(&self.addr, Duration::from_secs(5)).map_err(failed)?;
        stream.set_read_timeout(Some(Duration::from_secs(60))).map_err(failed)?;
        let mut head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Length: {len}\r\n",
            self.addr
        );
        for (name, value) in headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str("\r\n");
        stream.write_all(head.as_bytes()).map_err(failed)?;
        std::io::copy(&mut body.take(len), &mut stream).map_err(failed)?;
        let mut reader = BufReader::new(stream);
        let mut status_line = String::new();
        reader.read_line(&mut status_line).map_err(failed)?;
        let status = status_line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| format!("{method} {path}: no status line: {status_line:?}"))?;
        let mut headers = Vec::new();
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).map_err(failed)?;
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some((name, value)) = line.split_once(':') {
                headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
            }
        }
        let mut body = Vec::new();
        reader.read_to_end(&mut body).map_err(failed)?;
        Ok(Response { status, headers, body })
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An answer of the registry.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    /// Names in lower case.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<String> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone())
    }

    pub fn body_text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// `sha256:HEX` of `bytes`.
pub fn sha256_digest(bytes: &[u8]) -> String {
    format!("sha256:{:x}", Sha256::digest(bytes))
}
