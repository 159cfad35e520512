use super::*;

fn parse(text: &str) -> Result<BTreeMap<String, ServerConfig>, String> {
    let parsed: WorkspaceConfig = toml::from_str(text).map_err(|e| e.message().to_owned())?;
    check_all(&parsed.mcp_servers)?;
    Ok(parsed.mcp_servers)
}

#[test]
fn the_contracts_example_parses_with_its_defaults() {
    let servers = parse(
        r#"
        [mcp_servers.fs]
        command = "npx"
        args = ["-y", "@modelcontextprotocol/server-filesystem", "."]
        env = ["GITHUB_TOKEN"]
        cwd = "."
        include_tools = ["read_file"]
        exclude_tools = ["write_file"]

        [mcp_servers.remote]
        url = "https://example.com/mcp"
        headers = { "X-Team" = "infra" }
        bearer_token_env = "EXAMPLE_TOKEN"
        enabled = false
        startup_timeout_sec = 5
        tool_timeout_sec = 60
        "#,
    )
    .expect("valid");
    let fs = &servers["fs"];
    assert_eq!(fs.command.as_deref(), Some("npx"));
    assert!(fs.enabled() && fs.startup_secs() == 30 && fs.tool_secs() == 600);
    assert!(fs.wants("read_file") && !fs.wants("write_file") && !fs.wants("list"));
    let remote = &servers["remote"];
    assert!(!remote.enabled() && remote.startup_secs() == 5 && remote.tool_secs() == 60);
    assert!(remote.wants("anything"));
}

#[test]
fn bad_tables_are_refused_with_what_to_fix() {
    let cases = [
        ("[mcp_servers.a__b]\ncommand = \"x\"", "no \"__\""),
        ("[mcp_servers.UPPER]\ncommand = \"x\"", "a-z"),
        (&format!("[mcp_servers.{}]\ncommand = \"x\"", "a".repeat(33)), "1-32"),
        ("[mcp_servers.a]\nargs = []", "give `command`"),
        ("[mcp_servers.a]\ncommand = \"x\"\nurl = \"https://e\"", "not both"),
        ("[mcp_servers.a]\ncommand = \"x\"\nbearer_token_env = \"T\"", "HTTP server"),
        ("[mcp_servers.a]\nurl = \"ftp://e\"", "https://"),
        ("[mcp_servers.a]\ncommand = \"x\"\nenv = [\"A B\"]", "variable name"),
        ("[mcp_servers.a]\ncommand = \"x\"\ncwd = \"../up\"", "inside the workspace"),
        ("[mcp_servers.a]\ncommand = \"x\"\nstartup_timeout_sec = 0", "between 1 and"),
        ("[mcp_servers.a]\ncommand = \"x\"\ncolour = \"red\"", "unknown field"),
    ];
    for (text, expected) in cases {
        let error = parse(text).expect_err(text);
        assert!(error.contains(expected), "{text}: {error}");
    }
}
