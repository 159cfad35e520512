use super::*;

#[test]
fn the_default_grant_reads_the_workspace_and_nothing_more() {
    let grant = McpGrant::default();
    assert_eq!(grant.describe(), "reads the workspace; writes nothing; no network; no variables");
}

#[test]
fn grant_and_revoke_keep_the_files_comments_and_other_tables() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("policy.toml");
    let original = "# my policy\n[grants.weather]\nnetwork = [\"https://api.weather.example\"] # keep\n";
    std::fs::write(&path, original).expect("write");
    let change = GrantChange {
        read: vec!["~/notes".into()],
        write: vec![".".into()],
        env: vec!["GITHUB_TOKEN".into()],
        network: true,
    };
    let granted = grant(&path, None, "github", &change).expect("grant");
    assert_eq!(
        granted,
        McpGrant {
            read: vec!["~/notes".into()],
            write: vec![".".into()],
            network: true,
            env: vec!["GITHUB_TOKEN".into()]
        }
    );
    assert_eq!(granted.describe(), "reads the workspace, ~/notes; writes .; network; variables GITHUB_TOKEN");
    let text = std::fs::read_to_string(&path).expect("read");
    assert!(text.starts_with(original), "{text}");
    let fewer = GrantChange { write: vec![".".into()], network: true, ..GrantChange::default() };
    let left = revoke(&path, None, "github", &fewer, false).expect("revoke");
    assert_eq!(left.write, Vec::<String>::new());
    assert!(!left.network && left.read == ["~/notes"]);
    let none = revoke(&path, None, "github", &GrantChange::default(), true).expect("revoke all");
    assert_eq!(none, McpGrant::default());
    let text = std::fs::read_to_string(&path).expect("read");
    assert!(text.contains("# my policy") && text.contains("# keep"), "{text}");
}

#[test]
fn a_bad_grant_is_an_error_at_load() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("policy.toml");
    for (text, expected) in [
        ("[mcp_servers.x]\nenv = [\"NOT A NAME\"]\n", "variable name"),
        ("[mcp_servers.x]\nprocesses = [\"*\"]\n", "unknown field"),
    ] {
        std::fs::write(&path, text).expect("write");
        let error = crate::policy::file::load(&path, crate::policy::rules::RuleSource::User).expect_err(text);
        assert!(error.to_string().contains(expected), "{error}");
    }
}

#[test]
fn folders_resolve_in_home_and_workspace_and_missing_ones_are_named() {
    let dir = tempfile::tempdir().expect("dir");
    let root = dir.path().canonicalize().expect("canonical");
    let (home, workspace) = (root.join("home"), root.join("ws"));
    std::fs::create_dir_all(home.join("notes")).expect("mkdir");
    std::fs::create_dir_all(workspace.join("docs")).expect("mkdir");
    let list = ["~/notes".to_owned(), "docs".to_owned(), ".".to_owned(), "missing".to_owned()];
    let (folders, problems) = McpGrant::resolve(&list, &workspace, Some(&home));
    assert_eq!(folders, [home.join("notes"), workspace.join("docs"), workspace.clone()]);
    assert_eq!(problems.len(), 1);
    assert!(problems[0].starts_with("missing:"), "{problems:?}");
}
