use super::*;
use crate::mcp::{McpGrant, Scope, ServerConfig};

fn http_server(url: &str, token_env: Option<&str>, grant: McpGrant) -> ConfiguredServer {
    let config = ServerConfig {
        url: Some(url.to_owned()),
        bearer_token_env: token_env.map(str::to_owned),
        headers: [("X-Team".to_owned(), "infra".to_owned())].into(),
        ..ServerConfig::default()
    };
    ConfiguredServer {
        name: "remote".into(),
        config,
        scope: Scope::User,
        config_file: PathBuf::from("/home/u/.airlock/config.toml"),
        grant,
        grant_file: PathBuf::from("/home/u/.airlock/policy.toml"),
    }
}

#[test]
fn a_missing_token_variable_is_a_start_failure_that_names_it() {
    let server = http_server("https://example.com/mcp", Some("AIRLOCK_TEST_UNSET_TOKEN_26"), McpGrant::default());
    let error = http_launch(&server).expect_err("no token");
    assert!(error.contains("AIRLOCK_TEST_UNSET_TOKEN_26") && error.contains("bearer_token_env"), "{error}");
}

#[test]
fn plain_http_to_another_machine_is_warned_of_and_loopback_is_not() {
    let (launch, warnings) = http_launch(&http_server("http://10.0.0.5/mcp", None, McpGrant::default())).unwrap();
    assert_eq!(launch.headers, [("X-Team".to_owned(), "infra".to_owned())]);
    assert!(launch.bearer_token.is_none());
    assert!(warnings.len() == 1 && warnings[0].contains("travel in clear"), "{warnings:?}");
    for url in ["http://127.0.0.1:8080/mcp", "http://localhost/mcp", "http://[::1]:9/mcp", "https://example.com/mcp"] {
        let (_, warnings) = http_launch(&http_server(url, None, McpGrant::default())).unwrap();
        assert!(warnings.is_empty(), "{url}: {warnings:?}");
    }
}

#[test]
fn a_grant_does_not_apply_to_an_http_server_and_it_is_marked_remote() {
    let grant = McpGrant { network: true, ..McpGrant::default() };
    let server = http_server("https://user:secret@example.com/mcp?key=hidden", None, grant);
    let (_, warnings) = http_launch(&server).unwrap();
    assert!(warnings.len() == 1 && warnings[0].contains("does not apply"), "{warnings:?}");
    assert_eq!(server.marker(), "MCP server remote (remote: https://example.com)");
}
