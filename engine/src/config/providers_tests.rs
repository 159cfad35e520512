//! Tests of the provider settings: tables, precedence, keys and the errors users see.

use std::path::PathBuf;

use super::super::load;
use super::*;

/// Parses `text` as a config file (through [`load`], checks included).
fn parse(text: &str) -> Result<FileConfig, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let path = dir.path().join("config.toml");
    std::fs::write(&path, text).map_err(|e| e.to_string())?;
    load(&path).map_err(|e| e.to_string())
}

fn file(text: &str) -> FileConfig {
    parse(text).unwrap_or_else(|e| panic!("{e}"))
}

fn path() -> PathBuf {
    PathBuf::from("/home/u/.airlock/config.toml")
}

fn flags(provider: Option<&str>) -> ProviderFlags {
    ProviderFlags { provider: provider.map(str::to_owned), ..ProviderFlags::default() }
}

/// An environment holding only `pairs`.
fn env(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
    move |name| pairs.iter().find(|(n, _)| *n == name).map(|(_, v)| (*v).to_owned())
}

const OLLAMA: &str = r#"
provider = "ollama"
idle_timeout_secs = 9

[providers.ollama]
kind = "openai"
base_url = "http://127.0.0.1:11434/v1/"
key_variable = "OLLAMA_API_KEY"
model = "qwen2.5-coder"
headers = { "X-Org" = "acme" }

[providers.anthropic]
max_tokens = 4096
idle_timeout_secs = 30

[retry]
max_attempts = 3
base_delay_ms = 10
max_delay_ms = 200
"#;

#[test]
fn a_named_table_sets_kind_url_key_model_headers_and_timeouts() {
    let config = file(OLLAMA);
    let provider = resolve_provider(&config, &path(), flags(None), &env(&[("OLLAMA_API_KEY", "k")]))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((provider.name.as_str(), provider.kind), ("ollama", ProviderKind::Openai));
    assert_eq!(provider.base_url, "http://127.0.0.1:11434/v1");
    assert_eq!(provider.model, "qwen2.5-coder");
    assert_eq!((provider.api_key.as_deref(), provider.key_variable.as_deref()), (Some("k"), Some("OLLAMA_API_KEY")));
    assert_eq!(provider.headers, [("X-Org".to_owned(), "acme".to_owned())]);
    assert_eq!(provider.idle_timeout, Duration::from_secs(9));
    assert_eq!(
        provider.retry,
        RetryPolicy { max_attempts: 3, base_delay: Duration::from_millis(10), max_delay: Duration::from_millis(200) }
    );
}

#[test]
fn a_table_named_after_a_kind_adjusts_the_built_in_provider() {
    let config = file(OLLAMA);
    let provider = resolve_provider(&config, &path(), flags(Some("anthropic")), &env(&[("ANTHROPIC_API_KEY", "a")]))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(provider.kind, ProviderKind::Anthropic);
    assert_eq!(provider.base_url, "https://api.anthropic.com");
    assert_eq!(provider.model, "claude-sonnet-4-5");
    assert_eq!((provider.api_key.as_deref(), provider.key_variable.as_deref()), (Some("a"), Some("ANTHROPIC_API_KEY")));
    assert_eq!((provider.max_tokens, provider.idle_timeout), (4096, Duration::from_secs(30)));
    assert!(provider.headers.is_empty());
}

#[test]
fn flags_win_and_top_level_settings_follow_the_top_level_provider() {
    let config = file("provider = \"openai\"\nmodel = \"top\"\nbase_url = \"http://local:1/v1\"\n");
    let provider = resolve_provider(&config, &path(), flags(None), &env(&[])).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((provider.model.as_str(), provider.base_url.as_str()), ("top", "http://local:1/v1"));
    assert_eq!((provider.api_key, provider.key_variable.as_deref()), (None, Some("OPENAI_API_KEY")));

    let chosen = ProviderFlags { model: Some("flag".into()), ..flags(Some("openai")) };
    let provider = resolve_provider(&config, &path(), chosen, &env(&[])).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((provider.model.as_str(), provider.base_url.as_str()), ("flag", "http://local:1/v1"));

    let other = ProviderFlags { base_url: Some("http://other:2".into()), ..flags(Some("gemini")) };
    let provider = resolve_provider(&config, &path(), other, &env(&[])).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((provider.kind, provider.model.as_str()), (ProviderKind::Gemini, "gemini-2.5-flash"));
    assert_eq!(provider.retry, RetryPolicy::default());
    assert_eq!(provider.idle_timeout, ProviderConfig::DEFAULT_IDLE_TIMEOUT);
    assert_eq!(provider.context_window_tokens, 1_048_576);
}

#[test]
fn the_context_window_comes_from_the_table_then_the_top_level_then_the_kind() {
    let config =
        file("context_window_tokens = 50000\n[providers.small]\nkind = \"openai\"\ncontext_window_tokens = 8192\n");
    let resolve = |name: &str| {
        resolve_provider(&config, &path(), flags(Some(name)), &env(&[("ANTHROPIC_API_KEY", "a")]))
            .unwrap_or_else(|e| panic!("{e}"))
            .context_window_tokens
    };
    assert_eq!(resolve("small"), 8192);
    assert_eq!(resolve("anthropic"), 50000);
    let defaults = file("");
    let provider = resolve_provider(&defaults, &path(), flags(Some("anthropic")), &env(&[("ANTHROPIC_API_KEY", "a")]))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(provider.context_window_tokens, 200_000);
}

#[test]
fn a_table_without_key_variable_sends_no_key() {
    let config = file("[providers.local]\nkind = \"anthropic\"\nbase_url = \"http://127.0.0.1:8080\"\n");
    let provider = resolve_provider(&config, &path(), flags(Some("local")), &env(&[("ANTHROPIC_API_KEY", "a")]))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((provider.api_key, provider.key_variable), (None, None));
    assert_eq!(provider.max_tokens, ProviderConfig::DEFAULT_MAX_TOKENS);
}

#[test]
fn missing_keys_say_which_variable_to_set() {
    let config = file(OLLAMA);
    let error = resolve_provider(&config, &path(), flags(None), &env(&[("OLLAMA_API_KEY", "")])).err();
    let message = error.map(|e| e.to_string()).unwrap_or_default();
    assert!(message.contains("OLLAMA_API_KEY") && message.contains("[providers.ollama]"), "{message}");

    let error = resolve_provider(&FileConfig::default(), &path(), flags(Some("anthropic")), &env(&[])).err();
    assert!(
        matches!(&error, Some(ConfigError::MissingKey(m)) if m.contains("ANTHROPIC_API_KEY") && m.contains("--base-url")),
        "{error:?}"
    );
}

#[test]
fn an_unknown_provider_flag_lists_the_known_names() {
    let config = file(OLLAMA);
    let error = resolve_provider(&config, &path(), flags(Some("olama")), &env(&[])).err();
    let message = error.map(|e| e.to_string()).unwrap_or_default();
    assert!(message.contains("--provider olama"), "{message}");
    assert!(message.contains("gemini, openai, anthropic, ollama"), "{message}");
    assert!(message.contains("[providers.olama]") && message.contains("config.toml"), "{message}");
}

#[test]
fn file_problems_name_their_line() {
    let cases = [
        (
            "model = \"m\"\nprovider = \"olama\"\n",
            "line 2: unknown provider `olama`; known providers: gemini, openai, anthropic",
        ),
        (
            "[providers.x]\nbase_url = \"u\"\n",
            "line 1: [providers.x] needs kind = \"gemini\", \"openai\", \"anthropic\"",
        ),
        ("\n[providers.x]\nkind = \"claude\"\n", "line 3"),
        ("[providers.x]\nkind = \"openai\"\nbase_uri = \"u\"\n", "line 3"),
        ("[providers.x]\nkind = \"openai\"\nheaders = { \"bad name\" = \"v\" }\n", "header `bad name` is not a valid"),
        ("[providers.openai]\nmax_tokens = 0\n", "max_tokens and idle_timeout_secs must be at least 1"),
        ("[retry]\nmax_attempts = 0\n", "[retry] max_attempts must be at least 1"),
        ("model = \"m\"\nbase_url = \"not-a-url\"\n", "line 2: base_url `not-a-url` is not a URL"),
        ("base_url = \"ftp://host/v1\"\n", "line 1: base_url `ftp://host/v1` must start with http:// or https://"),
        ("[providers.openai]\nbase_url = \"127.0.0.1:8080\"\n", "[providers.openai] base_url `127.0.0.1:8080`"),
        ("[retry]\nattempts = 2\n", "line 2"),
        ("idle_timeout_secs = 0\n", "idle_timeout_secs must be at least 1"),
        ("context_window_tokens = 10\n", "context_window_tokens must be at least 1000"),
        ("[providers.openai]\ncontext_window_tokens = 999\n", "context_window_tokens must be at least 1000"),
    ];
    for (text, expected) in cases {
        let message = parse(text).err().unwrap_or_default();
        assert!(message.contains(expected), "{text:?}: {message}");
        assert!(message.contains("config.toml"), "{message}");
    }
    assert!(parse("provider = \"ollama\"\n[providers.ollama]\nkind = \"openai\"\n").is_ok());
}
