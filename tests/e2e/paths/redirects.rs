//! Issue 23 item 7: `airlock plugins install URL` follows redirects only to `https` or to
//! this machine, checks every hop before asking it for anything, and records in
//! `plugins.lock` the URL the bytes came from.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{IpAddr, TcpListener, UdpSocket};
use std::sync::{Arc, Mutex};

use airlock_tests::{Session, fixtures};

use super::{airlock, session};

/// What a path of a [`Server`] answers.
#[derive(Clone)]
enum Answer {
    Redirect(String),
    Body(Vec<u8>),
}

/// A plain-http server on `bind`, answering each path as told and counting the requests.
struct Server {
    base: String,
    hits: Arc<Mutex<Vec<String>>>,
}

impl Server {
    fn start(bind: IpAddr, routes: HashMap<String, Answer>) -> Self {
        let listener = TcpListener::bind((bind, 0)).unwrap_or_else(|e| panic!("bind {bind}: {e}"));
        let port = listener.local_addr().map(|a| a.port()).unwrap_or_default();
        let hits = Arc::new(Mutex::new(Vec::new()));
        let seen = hits.clone();
        std::thread::spawn(move || {
            for mut stream in listener.incoming().flatten() {
                let mut request = [0u8; 4096];
                let read = stream.read(&mut request).unwrap_or(0);
                let head = String::from_utf8_lossy(&request[..read]).into_owned();
                let path = head.split_whitespace().nth(1).unwrap_or("/").to_string();
                seen.lock().unwrap_or_else(|e| e.into_inner()).push(path.clone());
                let (status, extra, body) = match routes.get(&path) {
                    Some(Answer::Redirect(to)) => ("302 Found", format!("location: {to}\r\n"), Vec::new()),
                    Some(Answer::Body(body)) => ("200 OK", String::new(), body.clone()),
                    None => ("404 Not Found", String::new(), Vec::new()),
                };
                let head =
                    format!("HTTP/1.1 {status}\r\n{extra}content-length: {}\r\nconnection: close\r\n\r\n", body.len());
                let _ = stream.write_all(head.as_bytes()).and_then(|()| stream.write_all(&body));
            }
        });
        let host = if bind.is_ipv6() { format!("[{bind}]") } else { bind.to_string() };
        Self { base: format!("http://{host}:{port}"), hits }
    }

    fn hits(&self) -> Vec<String> {
        self.hits.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// An address of this machine that is not loopback: to airlock's rule, a plain-http host
/// elsewhere (no packet is sent to find it).
fn lan_address() -> IpAddr {
    let socket = UdpSocket::bind("0.0.0.0:0").unwrap_or_else(|e| panic!("{e}"));
    socket.connect("192.0.2.1:9").unwrap_or_else(|e| panic!("no route off loopback here: {e}"));
    let ip = socket.local_addr().map(|a| a.ip()).unwrap_or_else(|e| panic!("{e}"));
    assert!(!ip.is_loopback(), "{ip}");
    ip
}

fn installed(s: &Session) -> Vec<String> {
    super::names_below(&s.airlock_home().join("plugins"))
}

fn routes(pairs: &[(&str, Answer)]) -> HashMap<String, Answer> {
    pairs.iter().map(|(path, answer)| ((*path).to_string(), answer.clone())).collect()
}

#[test]
fn a_redirect_from_this_machine_to_plain_http_elsewhere_is_refused_before_it_is_asked() {
    let s = session();
    let plugin = std::fs::read(fixtures::ECHO_TOOLS).unwrap_or_else(|e| panic!("{e}"));
    // The "remote" host: plain http at an address that is not this machine's loopback.
    let remote = Server::start(lan_address(), routes(&[("/echo_tools.wasm", Answer::Body(plugin))]));
    let remote_url = format!("{}/echo_tools.wasm", remote.base);
    let local = Server::start(
        "127.0.0.1".parse().unwrap_or_else(|e| panic!("{e}")),
        routes(&[
            ("/direct", Answer::Redirect(remote_url.clone())),
            ("/via-local", Answer::Redirect("/hop3".into())),
            ("/hop3", Answer::Redirect("/hop4".into())),
            ("/hop4", Answer::Redirect(remote_url.clone())),
        ]),
    );
    for start in ["/direct", "/via-local"] {
        let url = format!("{}{start}", local.base);
        let refused = airlock(&s, &["plugins", "install", &url]);
        assert_ne!(refused.code, Some(0), "{url}: {}", refused.stdout);
        assert!(refused.stderr.contains("redirects to") && refused.stderr.contains("plain http"), "{}", refused.stderr);
        assert!(refused.stderr.contains(&remote_url), "{}", refused.stderr);
    }
    assert_eq!(remote.hits(), Vec::<String>::new(), "the plain-http host was asked");
    assert_eq!(installed(&s), Vec::<String>::new(), "something was installed");
    // The remote host is what it seems: asked directly, it is refused too.
    let direct = airlock(&s, &["plugins", "install", &remote_url]);
    assert_eq!(direct.code, Some(2), "{}", direct.stderr);
    assert_eq!(remote.hits(), Vec::<String>::new());
}

#[test]
fn a_redirect_within_this_machine_installs_and_the_lock_records_where_the_bytes_came_from() {
    let s = session();
    let plugin = std::fs::read(fixtures::ECHO_TOOLS).unwrap_or_else(|e| panic!("{e}"));
    let loopback: IpAddr = "127.0.0.1".parse().unwrap_or_else(|e| panic!("{e}"));
    let origin = Server::start(loopback, routes(&[("/files/echo_tools.wasm", Answer::Body(plugin))]));
    let fetched = format!("{}/files/echo_tools.wasm", origin.base);
    let front = Server::start(
        loopback,
        routes(&[
            ("/latest", Answer::Redirect("/v2".into())),
            ("/v2", Answer::Redirect(fetched.clone())),
            ("/loop", Answer::Redirect("/loop".into())),
        ]),
    );
    let asked = format!("{}/latest", front.base);
    let done = airlock(&s, &["plugins", "install", &asked]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert!(done.stdout.contains(&format!("from    {fetched} (redirected from {asked})")), "{}", done.stdout);
    let lock = std::fs::read_to_string(s.airlock_home().join("plugins/plugins.lock")).unwrap_or_default();
    assert!(lock.contains(&format!("source = \"{fetched}\"")), "the lock names the URL asked for:\n{lock}");
    assert!(!lock.contains(&asked), "{lock}");
    assert_eq!(origin.hits(), ["/files/echo_tools.wasm"]);
    // A redirect loop ends.
    let looped = airlock(&s, &["plugins", "install", &format!("{}/loop", front.base)]);
    assert_ne!(looped.code, Some(0));
    assert!(looped.stderr.contains("redirects"), "{}", looped.stderr);
    assert!(front.hits().iter().filter(|p| *p == "/loop").count() <= 12, "{:?}", front.hits());
}
