//! Capability diffs (issue 30): a new version of a plugin that requests one more host, under
//! a wildcard grant that covers it, reaches nothing new until the user approves it — a real
//! HTTP server on 127.0.0.1 counts the requests; `plugins update` and an install over show
//! the diff first; a headless session before approval is refused with a message naming the
//! new request; a version that requests less leaves the record smaller, so a later version
//! asking again asks anew. The plugin is the `net_probe` fixture, its requests and version
//! patched into its bytes ([`airlock_tests::variants::net_probe`]).

use std::path::{Path, PathBuf};

use airlock_tests::http_server::WebServer;
use airlock_tests::{Finished, MockModel, Session, Turn, Wire, call, function_responses, variants};
use serde_json::json;

use crate::session;

/// `airlock plugins ARGS` with no model.
fn plugins(s: &Session, args: &[&str]) -> Finished {
    let mut command = s.bare_command();
    command.arg("plugins").args(args);
    Session::run(command)
}

fn ok(what: &str, done: Finished) -> Finished {
    assert_eq!(done.code, Some(0), "{what}: {}\n{}", done.stdout, done.stderr);
    done
}

/// Writes a version of `net_probe` requesting `hosts` to `file` (the source its lock entry
/// names, so `plugins update` finds it there).
fn write_version(file: &Path, version: &str, hosts: &[&WebServer]) {
    let net: Vec<String> = hosts.iter().map(|h| format!("http://127.0.0.1:{}", h.port())).collect();
    let bytes = variants::net_probe(&format!("net={};version={version}", net.join(",")));
    std::fs::write(file, bytes).unwrap_or_else(|e| panic!("write {}: {e}", file.display()));
}

/// A headless session whose model fetches `urls`; what each call answered, and the run.
fn fetch(s: &Session, urls: &[String]) -> (Vec<String>, Finished) {
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(urls.iter().map(|url| call("fetch", json!({ "url": url }))).collect()));
    mock.push_turn(Turn::text("done"));
    let mut command = s.command(&mock);
    command.args(["-p", "fetch them", "--approval-mode", "yolo"]);
    let done = Session::run(command);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let answers = function_responses(&mock.requests()[1]).into_iter().map(|(_, answer)| answer).collect();
    (answers, done)
}

fn policy(s: &Session) -> String {
    std::fs::read_to_string(s.airlock_home().join("policy.toml")).unwrap_or_default()
}

/// The `network` list of `[grants.net_probe.approved]`.
fn approved_network(s: &Session) -> Vec<String> {
    let text = policy(s);
    let value: toml::Value = toml::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    value["grants"]["net_probe"]["approved"]["network"]
        .as_array()
        .unwrap_or_else(|| panic!("no record: {text}"))
        .iter()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect()
}

struct Setup {
    s: Session,
    _dist: tempfile::TempDir,
    file: PathBuf,
    old: WebServer,
    new: WebServer,
}

/// Version 1 (requests the `old` server) installed from a file and granted every port of
/// 127.0.0.1, which would cover the `new` server too.
fn setup() -> Setup {
    let s = session();
    let (old, new) = (WebServer::start(), WebServer::start());
    let dist = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let file = dist.path().join("net_probe.wasm");
    write_version(&file, "1.0.0", &[&old]);
    ok("install v1", plugins(&s, &["install", &file.display().to_string()]));
    ok("grant", plugins(&s, &["grant", "net_probe", "--net", "http://127.0.0.1:*"]));
    Setup { s, _dist: dist, file, old, new }
}

#[test]
fn a_new_host_under_a_wildcard_grant_gets_nothing_until_approved_and_a_shrunk_record_stays_small() {
    let Setup { s, _dist, file, old, new } = setup();
    let new_rule = format!("http://127.0.0.1:{}", new.port());
    // The grant recorded the requests it was given for: version 1's.
    assert_eq!(approved_network(&s), [format!("http://127.0.0.1:{}", old.port())]);

    // Version 2 asks for one more host; `update` shows it before anything changes.
    write_version(&file, "2.0.0", &[&old, &new]);
    let updated = ok("update to v2", plugins(&s, &["update", "net_probe"]));
    let diff_at = updated.stdout.find("capability diff of net_probe: 1.0.0 -> 2.0.0");
    let installed_at = updated.stdout.find("installed net_probe 2.0.0");
    assert!(diff_at.is_some() && diff_at < installed_at, "the diff comes first: {}", updated.stdout);
    assert!(
        updated.stdout.contains(&format!(
            "+ net {new_rule}  (covered by your grant `http://127.0.0.1:*`, but not approved: it gets nothing until you approve it)"
        )),
        "{}",
        updated.stdout
    );
    assert!(updated.stdout.contains("memory:"), "{}", updated.stdout);
    assert_eq!(approved_network(&s), [format!("http://127.0.0.1:{}", old.port())]);
    let again = ok("update again", plugins(&s, &["update", "net_probe"]));
    assert!(again.stdout.contains("net_probe is already up to date"), "{}", again.stdout);
    let shown = ok("show", plugins(&s, &["show", "net_probe"]));
    assert!(
        shown.stdout.contains(&format!("`net {new_rule}`"))
            && shown.stdout.contains("airlock plugins approve net_probe"),
        "{}",
        shown.stdout
    );

    // Before approval: the old host is reached, the new one never is.
    let (answers, done) = fetch(&s, &[old.url("/old"), new.url("/before")]);
    assert!(answers[0].starts_with("status="), "{answers:?}");
    assert!(answers[1].contains("HttpRequestDenied"), "{answers:?}");
    assert_eq!(new.requests().len(), 0, "the unapproved host was reached");
    assert_eq!(old.requests().len(), 1);
    assert!(
        done.stderr
            .contains(&format!("it requests {new_rule}, a new request since the version its grant was given for"))
            && done.stderr.contains("airlock plugins approve net_probe"),
        "{}",
        done.stderr
    );

    // Approved: the grant that already covered it now applies.
    let approved = ok("approve", plugins(&s, &["approve", "net_probe"]));
    assert!(approved.stdout.contains(&format!("+ net {new_rule}")), "{}", approved.stdout);
    let (answers, _) = fetch(&s, &[new.url("/after")]);
    assert!(answers[0].starts_with("status="), "{answers:?}");
    assert_eq!(new.requests(), ["/after"]);

    // Version 3 requests less: the record shrinks to the intersection.
    write_version(&file, "3.0.0", &[&old]);
    let shrunk = ok("update to v3", plugins(&s, &["update", "net_probe"]));
    assert!(shrunk.stdout.contains(&format!("- net {new_rule}")), "{}", shrunk.stdout);
    assert_eq!(approved_network(&s), [format!("http://127.0.0.1:{}", old.port())]);

    // Version 4 asks again: a new request again, refused until approved.
    write_version(&file, "4.0.0", &[&old, &new]);
    let asked = ok("update to v4", plugins(&s, &["update", "net_probe"]));
    assert!(asked.stdout.contains(&format!("+ net {new_rule}")), "{}", asked.stdout);
    let (answers, _) = fetch(&s, &[new.url("/v4")]);
    assert!(answers[0].contains("HttpRequestDenied"), "{answers:?}");
    assert_eq!(new.requests(), ["/after"], "v4 reached the host it was never approved for");
}

#[test]
fn install_over_with_approve_approves_and_a_table_without_a_record_approves_only_the_old_version() {
    let Setup { s, _dist, file, old, new } = setup();
    // A table written before records existed: no `approved`.
    let written = policy(&s);
    let cut = written.find("[grants.net_probe.approved]").unwrap_or_else(|| panic!("{written}"));
    std::fs::write(s.airlock_home().join("policy.toml"), &written[..cut]).unwrap_or_else(|e| panic!("{e}"));
    let (answers, _) = fetch(&s, &[old.url("/legacy")]);
    assert!(answers[0].starts_with("status="), "a table without a record approves what is requested now");

    // Installing version 2 over it records version 1's requests first.
    write_version(&file, "2.0.0", &[&old, &new]);
    let over = ok("install over", plugins(&s, &["install", &file.display().to_string()]));
    assert!(over.stdout.contains("capability diff of net_probe: 1.0.0 -> 2.0.0"), "{}", over.stdout);
    assert!(over.stdout.contains("not approved:"), "{}", over.stdout);
    assert_eq!(approved_network(&s), [format!("http://127.0.0.1:{}", old.port())]);
    let (answers, _) = fetch(&s, &[new.url("/before")]);
    assert!(answers[0].contains("HttpRequestDenied"), "{answers:?}");
    assert!(new.requests().is_empty());

    // Version 3 (one more byte of difference) installed with --approve gets the new host.
    write_version(&file, "3.0.0", &[&old, &new]);
    let approved = ok("install --approve", plugins(&s, &["install", "--approve", &file.display().to_string()]));
    assert!(approved.stdout.contains("approved: its grant applies to all it requests"), "{}", approved.stdout);
    let (answers, _) = fetch(&s, &[new.url("/approved")]);
    assert!(answers[0].starts_with("status="), "{answers:?}");
    assert_eq!(new.requests(), ["/approved"]);
}

#[test]
fn an_inline_grant_gets_its_record_and_a_new_host_stays_unapproved() {
    let Setup { s, _dist, file, old, new } = setup();
    // The same grant written inline, without a record (as a person might write it by hand).
    std::fs::write(
        s.airlock_home().join("policy.toml"),
        "[grants]\nnet_probe = { network = [\"http://127.0.0.1:*\"] }\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    write_version(&file, "2.0.0", &[&old, &new]);
    let updated = ok("update to v2", plugins(&s, &["update", "net_probe"]));
    assert!(updated.stdout.contains("not approved:"), "{}", updated.stdout);
    assert_eq!(approved_network(&s), [format!("http://127.0.0.1:{}", old.port())]);
    let (answers, _) = fetch(&s, &[old.url("/old"), new.url("/before")]);
    assert!(answers[0].starts_with("status="), "{answers:?}");
    assert!(answers[1].contains("HttpRequestDenied"), "{answers:?}");
    assert!(new.requests().is_empty(), "the unapproved host was reached");
}

#[test]
fn a_fresh_install_under_a_table_without_a_record_approves_nothing_until_approved() {
    let s = session();
    let (host, dist) = (WebServer::start(), tempfile::tempdir().unwrap_or_else(|e| panic!("{e}")));
    // A grant written before the plugin was ever installed (by hand, or left over from
    // before records existed): it records nothing.
    std::fs::write(s.airlock_home().join("policy.toml"), "[grants.net_probe]\nnetwork = [\"http://127.0.0.1:*\"]\n")
        .unwrap_or_else(|e| panic!("{e}"));
    let file = dist.path().join("net_probe.wasm");
    write_version(&file, "1.0.0", &[&host]);
    let installed = ok("install", plugins(&s, &["install", &file.display().to_string()]));
    let rule = format!("http://127.0.0.1:{}", host.port());
    assert!(
        installed.stdout.contains("not approved: net ")
            && installed.stdout.contains("airlock plugins approve net_probe"),
        "{}",
        installed.stdout
    );
    assert!(approved_network(&s).is_empty(), "{}", policy(&s));
    let (answers, _) = fetch(&s, &[host.url("/before")]);
    assert!(answers[0].contains("HttpRequestDenied"), "{answers:?}");
    assert!(host.requests().is_empty(), "a request no one approved was let through");

    let approved = ok("approve", plugins(&s, &["approve", "net_probe"]));
    assert!(approved.stdout.contains(&format!("+ net {rule}")), "{}", approved.stdout);
    let (answers, _) = fetch(&s, &[host.url("/after")]);
    assert!(answers[0].starts_with("status="), "{answers:?}");
    assert_eq!(host.requests(), ["/after"]);
}

#[test]
fn a_changed_workspace_plugin_shows_its_diff_when_trusted_again_and_gets_nothing_before() {
    let s = session();
    let (old, new) = (WebServer::start(), WebServer::start());
    let dir = s.workspace.join(".airlock/plugins");
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let file = dir.join("net_probe.wasm");
    write_version(&file, "1.0.0", &[&old]);
    s.write(".airlock/policy.toml", "[grants.net_probe]\nnetwork = [\"http://127.0.0.1:*\"]\n");
    let trusted = ok("trust", crate::run_args(&s, &["trust"]));
    assert!(!trusted.stdout.contains("capability diff"), "{}", trusted.stdout);
    let (answers, _) = fetch(&s, &[old.url("/v1")]);
    assert!(answers[0].starts_with("status="), "{answers:?}");

    // Version 2 asks for one more host: before trusting again it gets nothing at all.
    write_version(&file, "2.0.0", &[&old, &new]);
    let (answers, done) = fetch(&s, &[new.url("/before")]);
    assert!(answers[0].contains("HttpRequestDenied"), "{answers:?}");
    assert!(done.stderr.contains("changed since you trusted this folder"), "{}", done.stderr);
    assert!(new.requests().is_empty());

    // Trusting again shows the diff first, then trusts; then the grant applies.
    let again = ok("trust again", crate::run_args(&s, &["trust"]));
    let diff_at = again.stdout.find("changed since you last trusted this folder; capability diff:");
    let trusted_at = again.stdout.find("\ntrusted ");
    assert!(diff_at.is_some() && diff_at < trusted_at, "{}", again.stdout);
    assert!(again.stdout.contains(&format!("+ net http://127.0.0.1:{}", new.port())), "{}", again.stdout);
    let (answers, _) = fetch(&s, &[new.url("/after")]);
    assert!(answers[0].starts_with("status="), "{answers:?}");
    assert_eq!(new.requests(), ["/after"]);
}

/// `plugins update` of a plugin installed from an OCI tag takes the version the tag moved to
/// (an `install` of the same tag is refused: tests/e2e/oci.rs), showing the diff first; the
/// new request stays unapproved and the lock pins the new manifest.
#[test]
fn update_from_a_moved_oci_tag_shows_the_diff_and_pins_the_new_manifest() {
    let Some(registry) = airlock_tests::registry::Registry::start() else { return };
    let s = session();
    let (old, new) = (WebServer::start(), WebServer::start());
    let dist = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let file = dist.path().join("net_probe.wasm");
    let tagged = format!("oci://{}/tools/net-probe:stable", registry.host());
    write_version(&file, "1.0.0", &[&old]);
    ok("publish v1", plugins(&s, &["publish", &file.display().to_string(), &tagged]));
    ok("install v1", plugins(&s, &["install", &tagged]));
    ok("grant", plugins(&s, &["grant", "net_probe", "--net", "http://127.0.0.1:*"]));
    let lock = || std::fs::read_to_string(s.airlock_home().join("plugins").join("plugins.lock")).unwrap_or_default();
    let before = lock();

    write_version(&file, "2.0.0", &[&old, &new]);
    ok("publish v2", plugins(&s, &["publish", &file.display().to_string(), &tagged]));
    let updated = ok("update to v2", plugins(&s, &["update", "net_probe"]));
    let diff_at = updated.stdout.find("capability diff of net_probe: 1.0.0 -> 2.0.0");
    let installed_at = updated.stdout.find("installed net_probe 2.0.0");
    assert!(diff_at.is_some() && diff_at < installed_at, "the diff comes first: {}", updated.stdout);
    assert!(updated.stdout.contains(&format!("+ net http://127.0.0.1:{}", new.port())), "{}", updated.stdout);
    assert_eq!(approved_network(&s), [format!("http://127.0.0.1:{}", old.port())]);
    let after = lock();
    assert_ne!(before, after);
    assert!(after.contains("version = \"2.0.0\"") && after.contains(&tagged), "{after}");
    let again = ok("update again", plugins(&s, &["update", "net_probe"]));
    assert!(again.stdout.contains("net_probe is already up to date"), "{}", again.stdout);
}
