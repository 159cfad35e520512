use super::*;

const WRITTEN_BY_HAND: &str = "\
# my settings
model = \"gemini-2.5-flash\" # the fast one

[mcp_servers.github]   # the work account
command = \"github-mcp\"
env = [\"GITHUB_TOKEN\"]

[tools]
timeout_secs = 30
";

fn stdio(command: &str, args: &[&str]) -> NewServer {
    NewServer {
        command: Some(command.into()),
        args: args.iter().map(|a| (*a).to_string()).collect(),
        ..NewServer::default()
    }
}

#[test]
fn adding_keeps_every_comment_and_table_and_reads_back_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(&path, WRITTEN_BY_HAND).unwrap();

    let mut editor = ConfigEditor::open(&path).unwrap();
    let mut server = stdio("npx", &["-y", "@modelcontextprotocol/server-filesystem", "."]);
    server.env = vec!["HOME_DIR".into()];
    assert!(editor.add("files", &server));
    editor.save().unwrap();

    let text = std::fs::read_to_string(&path).unwrap();
    for kept in ["# my settings", "# the fast one", "# the work account", "[tools]\ntimeout_secs = 30"] {
        assert!(text.contains(kept), "{kept:?} was lost:\n{text}");
    }
    let parsed: toml::Table = toml::from_str(&text).unwrap();
    let files = &parsed["mcp_servers"]["files"];
    assert_eq!(files["command"].as_str(), Some("npx"));
    let args: Vec<&str> = files["args"].as_array().unwrap().iter().filter_map(|a| a.as_str()).collect();
    assert_eq!(args, ["-y", "@modelcontextprotocol/server-filesystem", "."]);
    assert_eq!(files["env"].as_array().unwrap()[0].as_str(), Some("HOME_DIR"));
    assert_eq!(parsed["mcp_servers"]["github"]["command"].as_str(), Some("github-mcp"));
    assert_eq!(ConfigEditor::open(&path).unwrap().servers(), ["github", "files"]);
}

#[test]
fn adding_a_server_of_a_taken_name_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(&path, WRITTEN_BY_HAND).unwrap();
    let mut editor = ConfigEditor::open(&path).unwrap();
    assert!(!editor.add("github", &stdio("other", &[])));
    assert_eq!(editor.text(), WRITTEN_BY_HAND);
}

#[test]
fn an_http_server_is_written_with_its_headers_and_token_variable() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    let mut editor = ConfigEditor::open(&path).unwrap();
    let server = NewServer {
        url: Some("https://example.com/mcp".into()),
        headers: vec![("X-Team".into(), "infra".into())],
        bearer_token_env: Some("EXAMPLE_TOKEN".into()),
        ..NewServer::default()
    };
    assert!(editor.add("example", &server));
    editor.save().unwrap();
    let parsed: toml::Table = toml::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let example = &parsed["mcp_servers"]["example"];
    assert_eq!(example["url"].as_str(), Some("https://example.com/mcp"));
    assert_eq!(example["headers"]["X-Team"].as_str(), Some("infra"));
    assert_eq!(example["bearer_token_env"].as_str(), Some("EXAMPLE_TOKEN"));
    assert!(example.get("command").is_none());
}

#[test]
fn removing_takes_only_that_table_and_the_emptied_section() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(&path, WRITTEN_BY_HAND).unwrap();
    let mut editor = ConfigEditor::open(&path).unwrap();
    assert!(!editor.remove("missing"));
    assert!(editor.remove("github"));
    editor.save().unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(!text.contains("mcp_servers"), "{text}");
    assert!(!text.contains("github"), "{text}");
    assert!(text.starts_with("# my settings\nmodel = \"gemini-2.5-flash\" # the fast one\n"), "{text}");
    assert!(text.contains("[tools]\ntimeout_secs = 30"), "{text}");
}

#[test]
fn a_file_that_is_not_toml_is_refused_and_left_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(&path, "model = \n").unwrap();
    let error = ConfigEditor::open(&path).err().unwrap().to_string();
    assert!(error.contains("config.toml"), "{error}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "model = \n");
}

#[test]
fn a_workspace_file_is_written_under_its_airlock_folder() {
    let workspace = tempfile::tempdir().unwrap();
    let mut editor = ConfigEditor::open_workspace(workspace.path()).unwrap();
    assert!(editor.add("local", &stdio("python3", &["server.py"])));
    editor.save().unwrap();
    let text = std::fs::read_to_string(workspace.path().join(".airlock/config.toml")).unwrap();
    assert!(text.contains("[mcp_servers.local]\ncommand = \"python3\"\nargs = [\"server.py\"]"), "{text}");
}

#[test]
fn a_workspace_whose_airlock_folder_is_a_link_is_not_followed() {
    let workspace = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), workspace.path().join(".airlock")).unwrap();
    assert!(ConfigEditor::open_workspace(workspace.path()).is_err());
    assert!(!elsewhere.path().join("config.toml").exists());
}
