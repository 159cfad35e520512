//! Requests a tool's kind can never be given (issue 30, item 6): a `fetch` tool asking to
//! write `.` is refused by `plugins check` and `plugins install`, each naming the request and
//! what to do; one put in the plugin folder by hand still loads, and `plugins show` says what
//! it really gets — a read, never the write it cannot use — and suggests no `--write`.

use airlock_tests::{Finished, Session, variants};

use crate::{session, write_policy};

fn plugins(s: &Session, args: &[&str]) -> Finished {
    let mut command = s.bare_command();
    command.arg("plugins").args(args);
    Session::run(command)
}

const REASON: &str =
    "tool `probe_read` requests `write .`: `fetch` tools never write files: declare the tool `edit`, or drop `write .`";

#[test]
fn check_and_install_refuse_a_fetch_tool_that_asks_to_write() {
    let s = session();
    let component = s.workspace.join("fetch_writes.wasm");
    std::fs::write(&component, variants::trust_probe("name=fetch_writes;kind=fetch;write=yes"))
        .unwrap_or_else(|e| panic!("{e}"));
    let path = component.display().to_string();

    let checked = plugins(&s, &["check", &path]);
    assert_ne!(checked.code, Some(0), "{}", checked.stdout);
    assert!(checked.stderr.contains(REASON), "{}", checked.stderr);
    assert!(checked.stdout.contains("loads, but requests what its tools can never be given"), "{}", checked.stdout);
    assert!(checked.stdout.contains("requests: write . (never given: `fetch` tools only read"), "{}", checked.stdout);
    // The grant it suggests is one the tool can use.
    assert!(checked.stdout.contains("--read .") && !checked.stdout.contains("--write"), "{}", checked.stdout);

    let installed = plugins(&s, &["install", &path]);
    assert_ne!(installed.code, Some(0), "{}", installed.stdout);
    assert!(
        installed.stderr.contains(REASON) && installed.stderr.contains("nothing was installed"),
        "{}",
        installed.stderr
    );
    assert!(!s.airlock_home().join("plugins/fetch_writes.wasm").exists(), "nothing was installed");

    // The same tool asking only to read passes.
    std::fs::write(&component, variants::trust_probe("name=fetch_reads;kind=fetch")).unwrap_or_else(|e| panic!("{e}"));
    let checked = plugins(&s, &["check", &path]);
    assert_eq!(checked.code, Some(0), "{}", checked.stderr);
    assert!(checked.stdout.contains("a valid airlock plugin"), "{}", checked.stdout);
}

#[test]
fn show_never_claims_a_write_the_tool_cannot_use() {
    let s = session();
    let dir = s.airlock_home().join("plugins");
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(dir.join("fetch_writes.wasm"), variants::trust_probe("name=fetch_writes;kind=fetch;write=yes"))
        .unwrap_or_else(|e| panic!("{e}"));
    // Granted the write by hand: the grant holds it, the tool still only reads.
    write_policy(&s, "[grants.fetch_writes]\nfiles = [\".:read-write\"]\n");

    let shown = plugins(&s, &["show", "fetch_writes"]);
    assert_eq!(shown.code, Some(0), "{}", shown.stderr);
    let gets = shown.stdout.lines().find(|l| l.contains("probe_read gets:")).unwrap_or_default().to_owned();
    assert!(gets.contains(&format!("read {}", s.workspace.display())), "{}", shown.stdout);
    assert!(!gets.contains("write"), "show claims a write the tool cannot use: {}", shown.stdout);
    assert!(shown.stdout.contains("(never given: `fetch` tools only read"), "{}", shown.stdout);

    let json = plugins(&s, &["show", "fetch_writes", "--json"]);
    assert_eq!(json.code, Some(0), "{}", json.stderr);
    let value: serde_json::Value =
        serde_json::from_str(&json.stdout).unwrap_or_else(|e| panic!("{e}: {}", json.stdout));
    let files = &value["tools"][0]["gets"]["files"];
    assert_eq!(files[0]["access"], "read", "{value}");
    assert_eq!(value["tools"][0]["missing"].as_array().map(Vec::len), Some(0), "{value}");

    // Without a grant, the hint grants a read.
    write_policy(&s, "");
    let shown = plugins(&s, &["show", "fetch_writes"]);
    assert!(shown.stdout.contains("--read .") && !shown.stdout.contains("--write"), "{}", shown.stdout);
}
