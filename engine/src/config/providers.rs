//! The model provider part of `config.toml`, and choosing the provider of a run.
//!
//! ```toml
//! provider = "ollama"                  # a [providers.NAME] table or a kind
//! idle_timeout_secs = 120              # how long a stream may stay silent
//!
//! [providers.ollama]
//! kind = "openai"                      # wire format: gemini | openai | anthropic
//! base_url = "http://127.0.0.1:11434/v1"
//! key_variable = "OLLAMA_API_KEY"      # optional: the environment variable holding the key
//! model = "qwen2.5-coder"
//! headers = { "X-Org" = "acme" }       # sent with every request
//! max_tokens = 8192                    # answer length limit (Anthropic)
//! context_window_tokens = 32768        # the model's context window (default by kind)
//! media = ["image"]                    # what the model takes: image, pdf (default both)
//!
//! [retry]
//! max_attempts = 5                     # requests per answer, the first included
//! base_delay_ms = 1000                 # first backoff ceiling; doubles per retry
//! max_delay_ms = 30000                 # longest wait, Retry-After included
//! ```
//!
//! A table named after a kind (`[providers.anthropic]`) adjusts that built-in provider and
//! may leave `kind` out. Built-in kinds read their key from their usual variable
//! (`ANTHROPIC_API_KEY`, ...); other tables send a key only when they name `key_variable`.
//! Precedence, per setting: flag, then the provider's table, then the top-level `model`
//! and `base_url` (which go with the top-level `provider`, so a `--provider` naming another
//! one ignores them), then the kind's default.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use serde::Deserialize;
use toml::Spanned;

use super::{ConfigError, FileConfig};
use airlock_model::{ProviderConfig, ProviderKind, RetryPolicy};

/// `[providers.NAME]`: one provider's settings.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderTable {
    /// The wire format; may be left out when the table is named after a kind.
    pub kind: Option<ProviderKind>,
    pub base_url: Option<String>,
    /// The environment variable that holds the API key.
    pub key_variable: Option<String>,
    pub model: Option<String>,
    /// Extra headers sent with every request.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// Most tokens of one answer, for providers that require a limit (Anthropic).
    pub max_tokens: Option<u32>,
    /// Overrides the top-level `idle_timeout_secs` for this provider.
    pub idle_timeout_secs: Option<u64>,
    /// The model's context window in tokens; overrides the top-level setting.
    pub context_window_tokens: Option<u64>,
    /// The kinds of media the model takes (`image`, `pdf`); `[]` for a text-only model.
    pub media: Option<Vec<airlock_model::MediaKind>>,
}

/// `[retry]`: how failed model requests are retried.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RetrySettings {
    pub max_attempts: Option<u32>,
    pub base_delay_ms: Option<u64>,
    pub max_delay_ms: Option<u64>,
}

impl RetrySettings {
    pub fn policy(&self) -> RetryPolicy {
        let defaults = RetryPolicy::default();
        RetryPolicy {
            max_attempts: self.max_attempts.unwrap_or(defaults.max_attempts),
            base_delay: self.base_delay_ms.map_or(defaults.base_delay, Duration::from_millis),
            max_delay: self.max_delay_ms.map_or(defaults.max_delay, Duration::from_millis),
        }
    }
}

/// The smallest context window accepted: below it the system prompt and tool declarations
/// alone would fill most of it.
const MIN_CONTEXT_WINDOW: u64 = 1000;

/// The provider flags of the command line; each wins over the file.
#[derive(Debug, Default, Clone)]
pub struct ProviderFlags {
    /// `--provider`: a table name or a kind.
    pub provider: Option<String>,
    pub model: Option<String>,
    pub base_url: Option<String>,
}

/// Checks the provider settings of a parsed file. Problems are messages starting with
/// the line they are on.
pub(super) fn check(config: &FileConfig, text: &str) -> Result<(), String> {
    if config.idle_timeout_secs == Some(0) {
        return Err("idle_timeout_secs must be at least 1".into());
    }
    if config.context_window_tokens.is_some_and(|t| t < MIN_CONTEXT_WINDOW) {
        return Err(format!("context_window_tokens must be at least {MIN_CONTEXT_WINDOW}"));
    }
    if config.retry.max_attempts == Some(0) {
        return Err("[retry] max_attempts must be at least 1 (1 means no retries)".into());
    }
    if let Some(url) = &config.base_url {
        let line = text.lines().position(|l| l.trim_start().starts_with("base_url")).map_or(1, |i| i + 1);
        check_base_url(url).map_err(|problem| format!("line {line}: base_url {problem}"))?;
    }
    for (name, table) in &config.providers {
        let line = line_of(text, table.span().start);
        check_table(name, table.get_ref()).map_err(|problem| format!("line {line}: [providers.{name}] {problem}"))?;
    }
    Ok(())
}

/// The top-level `provider` names a kind or a `[providers.NAME]` table of any layer: an
/// error and the offset of the `provider` key.
pub(super) fn check_known(config: &FileConfig) -> Result<(), (usize, String)> {
    match &config.provider {
        Some(provider) if !known(config, provider.get_ref()) => Err((
            provider.span().start,
            format!("unknown provider `{}`; known providers: {}", provider.get_ref(), known_names(config)),
        )),
        _ => Ok(()),
    }
}

fn check_table(name: &str, table: &ProviderTable) -> Result<(), String> {
    if table.kind.is_none() && ProviderKind::from_name(name).is_none() {
        return Err(format!("needs kind = {}", kind_choices()));
    }
    if let Some(url) = &table.base_url {
        check_base_url(url).map_err(|problem| format!("base_url {problem}"))?;
    }
    if table.key_variable.as_deref().is_some_and(|v| v.trim().is_empty()) {
        return Err("key_variable must name an environment variable".into());
    }
    if table.max_tokens == Some(0) || table.idle_timeout_secs == Some(0) {
        return Err("max_tokens and idle_timeout_secs must be at least 1".into());
    }
    if table.context_window_tokens.is_some_and(|t| t < MIN_CONTEXT_WINDOW) {
        return Err(format!("context_window_tokens must be at least {MIN_CONTEXT_WINDOW}"));
    }
    for (header, value) in &table.headers {
        if reqwest::header::HeaderName::from_bytes(header.as_bytes()).is_err() {
            return Err(format!("header `{header}` is not a valid HTTP header name"));
        }
        if reqwest::header::HeaderValue::from_str(value).is_err() {
            return Err(format!("header `{header}` has a value that cannot be sent (control characters?)"));
        }
    }
    Ok(())
}

/// The provider a run uses: `flags` over the file over the defaults. `env` reads an
/// environment variable (the key).
pub fn resolve_provider(
    config: &FileConfig,
    path: &Path,
    flags: ProviderFlags,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<ProviderConfig, ConfigError> {
    let file_choice = config.provider.as_ref().map(|p| p.get_ref().as_str());
    let name = flags.provider.as_deref().or(file_choice).unwrap_or(ProviderKind::Gemini.name()).to_owned();
    let top_level_applies = match (flags.provider.as_deref(), file_choice) {
        (Some(flag), Some(file)) => flag == file,
        _ => true,
    };
    let table = config.providers.get(&name).map(Spanned::get_ref);
    let builtin = ProviderKind::from_name(&name);
    let Some(kind) = table.and_then(|t| t.kind).or(builtin) else {
        return Err(ConfigError::UnknownProvider { name, known: known_names(config), path: path.to_path_buf() });
    };
    let top = |value: &Option<String>| if top_level_applies { value.clone() } else { None };
    let base_url = flags
        .base_url
        .or_else(|| table.and_then(|t| t.base_url.clone()))
        .or_else(|| top(&config.base_url))
        .unwrap_or_else(|| kind.default_base_url().to_owned())
        .trim_end_matches('/')
        .to_owned();
    let model = flags
        .model
        .or_else(|| table.and_then(|t| t.model.clone()))
        .or_else(|| top(&config.model))
        .unwrap_or_else(|| kind.default_model().to_owned());
    let explicit_variable = table.and_then(|t| t.key_variable.clone());
    let key_variable =
        explicit_variable.clone().or_else(|| (builtin == Some(kind)).then(|| kind.key_variable().to_owned()));
    let api_key = key_variable.as_deref().and_then(env).filter(|k| !k.is_empty());
    if api_key.is_none() {
        if let Some(variable) = &explicit_variable {
            return Err(ConfigError::MissingKey(format!(
                "provider `{name}` reads its API key from {variable}, which is not set: set it, or remove \
                 key_variable from [providers.{name}] in {} if the server needs no key",
                path.display()
            )));
        }
        if let Some(variable) = key_variable.as_deref().filter(|_| base_url == kind.default_base_url()) {
            return Err(ConfigError::MissingKey(format!(
                "set {variable} to use {base_url}, or pass --base-url for a local server"
            )));
        }
    }
    let mut provider = ProviderConfig::new(kind, base_url, model);
    provider.name = name;
    provider.api_key = api_key;
    provider.key_variable = key_variable;
    provider.retry = config.retry.policy();
    let idle_secs = table.and_then(|t| t.idle_timeout_secs).or(config.idle_timeout_secs);
    provider.idle_timeout = idle_secs.map_or(ProviderConfig::DEFAULT_IDLE_TIMEOUT, Duration::from_secs);
    if let Some(tokens) = table.and_then(|t| t.context_window_tokens).or(config.context_window_tokens) {
        provider.context_window_tokens = tokens;
    }
    if let Some(media) = table.and_then(|t| t.media.clone()) {
        provider.media = media;
    }
    if let Some(table) = table {
        provider.headers = table.headers.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        provider.max_tokens = table.max_tokens.unwrap_or(ProviderConfig::DEFAULT_MAX_TOKENS);
    }
    Ok(provider)
}

/// Checks that `text` can be a model API root: an absolute `http://` or `https://` URL with
/// a host. Returns why not, as words that follow the value's name.
pub fn check_base_url(text: &str) -> Result<(), String> {
    let shown = crate::sanitize::line(text);
    let url = reqwest::Url::parse(text.trim())
        .map_err(|e| format!("`{shown}` is not a URL ({e}); give one like http://127.0.0.1:11434/v1"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!("`{shown}` must start with http:// or https://"));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(format!("`{shown}` names no host"));
    }
    Ok(())
}

fn known(config: &FileConfig, name: &str) -> bool {
    ProviderKind::from_name(name).is_some() || config.providers.contains_key(name)
}

/// The kinds, then the tables that are not kinds, comma-separated.
fn known_names(config: &FileConfig) -> String {
    let mut names: Vec<&str> = ProviderKind::ALL.into_iter().map(ProviderKind::name).collect();
    names.extend(config.providers.keys().map(String::as_str).filter(|n| ProviderKind::from_name(n).is_none()));
    names.join(", ")
}

fn kind_choices() -> String {
    ProviderKind::ALL.into_iter().map(|k| format!("\"{}\"", k.name())).collect::<Vec<_>>().join(", ")
}

/// The 1-based line of byte `offset` in `text`.
pub(super) fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())].iter().filter(|&&b| b == b'\n').count() + 1
}

#[cfg(test)]
#[path = "providers_tests.rs"]
mod tests;
