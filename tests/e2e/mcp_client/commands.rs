//! `airlock mcp add / remove / grant / revoke / list / show` through the real binary, on real
//! files: config.toml and policy.toml keep what the user wrote, a command changes only what
//! it names, a bad command line exits 2 and changes nothing, and `list` / `show` start the
//! servers to say what they offer.
// Set-up helpers unwrap: a failed set-up step should fail the test loudly.
#![allow(clippy::unwrap_used)]

use serde_json::Value;

use super::{WARM_RULE, configure, list_json, mcp, python_folders, python_grant, python_server, servers_dir};
use crate::{session, write_policy};
use airlock_tests::Session;

fn config_text(s: &Session) -> String {
    std::fs::read_to_string(s.airlock_home().join("config.toml")).unwrap_or_default()
}

fn policy_text(s: &Session) -> String {
    std::fs::read_to_string(s.airlock_home().join("policy.toml")).unwrap_or_default()
}

fn python() -> String {
    airlock_tests::mcp::toolchain().python.display().to_string()
}

fn script(name: &str) -> String {
    servers_dir().join(name).display().to_string()
}

/// `mcp grant NAME --read` each folder the Python fixtures need.
fn grant_python(s: &Session, name: &str) {
    let mut args = vec!["grant".to_string(), name.to_string()];
    for folder in python_folders() {
        args.push("--read".into());
        args.push(folder.display().to_string());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let granted = mcp(s, &args);
    assert_eq!(granted.code, Some(0), "{}", granted.stderr);
}

#[test]
fn added_server_is_listed_started_with_its_tools_and_the_default_grant() {
    let s = session();
    configure(&s, "# my own settings\nmodel = \"m\" # keep me\n");
    let (python, script) = (python(), script("normal.py"));
    let added = mcp(&s, &["add", "notes", "--", &python, &script]);
    assert_eq!(added.code, Some(0), "{}", added.stderr);
    assert!(added.stdout.contains("added the MCP server notes"), "{}", added.stdout);
    assert!(
        added.stdout.contains("sandboxed: reads the workspace; writes nothing; no network; no variables"),
        "{}",
        added.stdout
    );
    let config = config_text(&s);
    assert!(config.contains("# my own settings\nmodel = \"m\" # keep me"), "{config}");
    assert!(config.contains("[mcp_servers.notes]"), "{config}");

    grant_python(&s, "notes");
    let listed = list_json(&s);
    let server = &listed["servers"][0];
    assert_eq!(server["name"], "notes", "{listed}");
    assert_eq!(server["state"], "started", "{listed}");
    assert_eq!(server["scope"], "user");
    assert_eq!(server["command"], serde_json::json!([python, script]));
    let tools: Vec<&str> = server["tools"].as_array().unwrap().iter().filter_map(|t| t["name"].as_str()).collect();
    for tool in ["notes__read_note", "notes__write_note", "notes__slow_count", "notes__echo", "notes__peek"] {
        assert!(tools.contains(&tool), "{tool} is not offered: {tools:?}");
    }
    assert_eq!(server["grant"]["network"], false);
    assert!(server["grant"].get("write").is_none_or(|w| w.as_array().is_some_and(Vec::is_empty)), "{server}");
    assert!(server["marker"].as_str().unwrap().starts_with("MCP server notes (sandboxed: reads the workspace, "));

    let text = mcp(&s, &["list"]);
    assert_eq!(text.code, Some(0), "{}", text.stderr);
    assert!(text.stdout.starts_with("notes  started  (user: "), "{}", text.stdout);
    assert!(text.stdout.contains("  tools (10): notes__read_note, notes__write_note"), "{}", text.stdout);
    assert!(text.stdout.contains("writes nothing; no network; no variables  (grant in "), "{}", text.stdout);
}

#[test]
fn a_bad_or_taken_name_is_refused_and_nothing_changes() {
    let s = session();
    let (python, script) = (python(), script("normal.py"));
    for bad in ["Notes", "a__b", "", "with space", "x".repeat(33).as_str()] {
        let refused = mcp(&s, &["add", bad, "--", &python, &script]);
        assert_eq!(refused.code, Some(2), "{bad:?}: {}", refused.stderr);
    }
    assert_eq!(mcp(&s, &["add", "notes", "--", &python, &script]).code, Some(0));
    let before = config_text(&s);
    let again = mcp(&s, &["add", "notes", "--", "other"]);
    assert_eq!(again.code, Some(2), "{}", again.stderr);
    assert!(again.stderr.contains("already has an MCP server named notes"), "{}", again.stderr);
    let no_command = mcp(&s, &["add", "bare"]);
    assert_eq!(no_command.code, Some(2), "{}", no_command.stderr);
    assert!(no_command.stderr.contains("after `--`"), "{}", no_command.stderr);
    assert_eq!(config_text(&s), before);
}

#[test]
fn an_http_server_is_added_with_its_url_headers_and_token_variable() {
    let s = session();
    let added = mcp(
        &s,
        &[
            "add",
            "remote",
            "--url",
            "https://example.com/mcp",
            "--header",
            "X-Team=infra",
            "--bearer-token-env",
            "EXAMPLE_TOKEN",
        ],
    );
    assert_eq!(added.code, Some(0), "{}", added.stderr);
    let config: toml::Table = toml::from_str(&config_text(&s)).unwrap();
    let remote = &config["mcp_servers"]["remote"];
    assert_eq!(remote["url"].as_str(), Some("https://example.com/mcp"));
    assert_eq!(remote["headers"]["X-Team"].as_str(), Some("infra"));
    assert_eq!(remote["bearer_token_env"].as_str(), Some("EXAMPLE_TOKEN"));
    // A remote service is not shown a sandbox grant it does not run under.
    assert!(added.stdout.contains("remote: it runs on its own machine"), "{}", added.stdout);
    assert!(!added.stdout.contains("sandboxed:"), "{}", added.stdout);
    let refused = mcp(&s, &["add", "ftp", "--url", "ftp://example.com"]);
    assert_eq!(refused.code, Some(2), "{}", refused.stderr);
}

#[test]
fn grant_and_revoke_change_only_what_they_name_and_keep_comments() {
    let s = session();
    configure(&s, &python_server("notes", "normal.py", &[], ""));
    write_policy(&s, "# my rules\n[[rule]]\ntool = \"read_file\"\ndecision = \"allow\"\n");
    std::fs::create_dir_all(s.workspace.join("out")).unwrap();

    let granted = mcp(&s, &["grant", "notes", "--write", "out", "--env", "NOTES_TOKEN", "--network"]);
    assert_eq!(granted.code, Some(0), "{}", granted.stderr);
    assert!(granted.stdout.contains("sandboxed: reads the workspace; writes out; network; variables NOTES_TOKEN"));
    let policy = policy_text(&s);
    assert!(policy.starts_with("# my rules\n[[rule]]"), "{policy}");
    let parsed: toml::Table = toml::from_str(&policy).unwrap();
    assert_eq!(parsed["mcp_servers"]["notes"]["network"].as_bool(), Some(true), "{policy}");

    let narrowed = mcp(&s, &["revoke", "notes", "--network"]);
    assert_eq!(narrowed.code, Some(0), "{}", narrowed.stderr);
    let parsed: toml::Table = toml::from_str(&policy_text(&s)).unwrap();
    let notes = &parsed["mcp_servers"]["notes"];
    assert!(notes.get("network").is_none_or(|n| n.as_bool() == Some(false)), "{notes}");
    assert_eq!(notes["env"].as_array().unwrap()[0].as_str(), Some("NOTES_TOKEN"));
    assert_eq!(notes["write"].as_array().unwrap()[0].as_str(), Some("out"));

    let all = mcp(&s, &["revoke", "notes", "--all"]);
    assert_eq!(all.code, Some(0), "{}", all.stderr);
    assert!(all.stdout.contains("sandboxed: reads the workspace; writes nothing; no network; no variables"));
    let policy = policy_text(&s);
    assert!(!policy.contains("mcp_servers.notes"), "{policy}");
    assert!(policy.contains("# my rules"), "{policy}");
}

#[test]
fn a_grant_that_cannot_be_right_exits_2_and_writes_nothing() {
    let s = session();
    configure(&s, &python_server("notes", "normal.py", &[], ""));
    write_policy(&s, "# untouched\n");
    let cases: [&[&str]; 6] = [
        &["grant", "notes"],
        &["grant", "nobody", "--network"],
        &["grant", "notes", "--read", "missing-folder"],
        &["grant", "notes", "--env", "NOT A NAME"],
        &["grant", "notes", "--read", "bad\u{1b}[2Jpath"],
        &["revoke", "notes", "--all", "--network"],
    ];
    for args in cases {
        let refused = mcp(&s, args);
        assert_eq!(refused.code, Some(2), "{args:?}: {}", refused.stderr);
        assert!(!refused.stderr.contains('\u{1b}'), "an escape reached the terminal: {:?}", refused.stderr);
    }
    let unknown = mcp(&s, &["grant", "nobody", "--network"]);
    assert!(unknown.stderr.contains("the servers are: notes"), "{}", unknown.stderr);
    assert_eq!(policy_text(&s), "# untouched\n");
}

#[test]
fn remove_takes_the_server_and_its_grant_and_keeps_the_rest() {
    let s = session();
    configure(&s, &format!("model = \"m\" # keep this comment\n\n{}", python_server("notes", "normal.py", &[], "")));
    write_policy(&s, &format!("# and this one\n{WARM_RULE}\n{}", python_grant("notes", "network = true")));
    let removed = mcp(&s, &["remove", "notes"]);
    assert_eq!(removed.code, Some(0), "{}", removed.stderr);
    assert!(removed.stdout.contains("removed the MCP server notes"), "{}", removed.stdout);
    let (config, policy) = (config_text(&s), policy_text(&s));
    assert!(config.contains("# keep this comment") && !config.contains("mcp_servers"), "{config}");
    assert!(policy.contains("# and this one") && !policy.contains("mcp_servers"), "{policy}");
    assert_eq!(mcp(&s, &["remove", "notes"]).code, Some(2));
}

#[test]
fn show_names_each_tool_and_a_server_that_cannot_start_says_why() {
    let s = session();
    configure(
        &s,
        &format!("{}{}", python_server("notes", "normal.py", &[], ""), python_server("broken", "crash.py", &[], "")),
    );
    write_policy(&s, &format!("{}{}", python_grant("notes", ""), python_grant("broken", "")));
    let shown = mcp(&s, &["show", "notes"]);
    assert_eq!(shown.code, Some(0), "{}", shown.stderr);
    assert!(shown.stdout.contains("    notes__slow_count: Count to `steps`"), "{}", shown.stdout);

    let broken: Value = serde_json::from_str(&mcp(&s, &["show", "broken", "--json"]).stdout).unwrap();
    assert_eq!(broken["state"], "failed", "{broken}");
    assert!(broken["tools"].as_array().unwrap().is_empty());
    let listed = mcp(&s, &["list"]);
    assert_eq!(listed.code, Some(0), "{}", listed.stderr);
    assert!(listed.stdout.contains("broken  failed  (user: "), "{}", listed.stdout);
    assert!(listed.stdout.contains("notes  started  (user: "), "{}", listed.stdout);
}

#[test]
fn a_workspace_server_is_added_to_its_folder_and_waits_for_trust() {
    let s = session();
    let (python, script) = (python(), script("normal.py"));
    let added = mcp(&s, &["add", "local", "--in-workspace", "--", &python, &script]);
    assert_eq!(added.code, Some(0), "{}", added.stderr);
    assert!(added.stdout.contains("airlock trust"), "{}", added.stdout);
    let written = std::fs::read_to_string(s.workspace.join(".airlock/config.toml")).unwrap();
    assert!(written.contains("[mcp_servers.local]"), "{written}");
    assert!(!config_text(&s).contains("mcp_servers"), "the user's config.toml changed");

    let listed = mcp(&s, &["list", "--json"]);
    assert_eq!(listed.code, Some(0), "{}", listed.stderr);
    assert!(listed.stderr.contains("not trusted"), "{}", listed.stderr);
    let json: Value = serde_json::from_str(&listed.stdout).unwrap();
    assert_eq!(json["servers"], serde_json::json!([]));

    // Trusted, the server is configured; trust pins the file, so a command changed since
    // (a `git pull`) starts nothing until the folder is trusted again.
    let mut trust = s.bare_command();
    trust.arg("--workspace").arg(&s.workspace).arg("trust");
    let trusted = Session::run(trust);
    assert_eq!(trusted.code, Some(0), "{}", trusted.stderr);
    assert!(trusted.stdout.contains("pins its settings and MCP servers"), "{}", trusted.stdout);
    let names = |listed: &Value| -> Vec<String> {
        listed["servers"].as_array().unwrap().iter().map(|v| v["name"].as_str().unwrap().to_string()).collect()
    };
    assert_eq!(names(&list_json(&s)), ["local"]);
    let pulled = written.replace(&script, &servers_dir().join("crash.py").display().to_string());
    assert_ne!(pulled, written);
    std::fs::write(s.workspace.join(".airlock/config.toml"), pulled).unwrap();
    let listed = mcp(&s, &["list", "--json"]);
    assert!(listed.stderr.contains("changed since this folder was trusted"), "{}", listed.stderr);
    let json: Value = serde_json::from_str(&listed.stdout).unwrap();
    assert_eq!(json["servers"], serde_json::json!([]));
}
