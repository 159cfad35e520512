//! The search API `web_search` talks to (`[tools.web_search]` in `config.toml`), and what
//! that gives the built-in: a network grant for that one endpoint's origin, and the three
//! variables it reads (provider, URL, key) — the key's value taken from the one variable
//! the user named, and nothing else of the environment.
//!
//! The endpoint's address follows the network rules of every grant: a public host, or a
//! private one only when the URL names it (an IP literal, `localhost`).

use super::net::NetRule;

/// The variables the `web_search` component reads.
pub const PROVIDER_VAR: &str = "AIRLOCK_WEB_SEARCH_PROVIDER";
pub const URL_VAR: &str = "AIRLOCK_WEB_SEARCH_URL";
pub const KEY_VAR: &str = "AIRLOCK_WEB_SEARCH_KEY";

/// The built-in plugin that searches.
pub const PLUGIN: &str = "web-search";

/// A search API airlock knows how to call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchProvider {
    Brave,
    Tavily,
    Searxng,
}

impl SearchProvider {
    pub fn parse(text: &str) -> Option<Self> {
        match text.to_ascii_lowercase().as_str() {
            "brave" => Some(Self::Brave),
            "tavily" => Some(Self::Tavily),
            "searxng" => Some(Self::Searxng),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Brave => "brave",
            Self::Tavily => "tavily",
            Self::Searxng => "searxng",
        }
    }

    /// The API's URL when the configuration names none; SearXNG is self-hosted and has
    /// none.
    pub fn default_url(self) -> Option<&'static str> {
        match self {
            Self::Brave => Some("https://api.search.brave.com/res/v1/web/search"),
            Self::Tavily => Some("https://api.tavily.com/search"),
            Self::Searxng => None,
        }
    }

    /// Whether the API needs a key.
    pub fn needs_key(self) -> bool {
        !matches!(self, Self::Searxng)
    }
}

/// A configured search API.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchEndpoint {
    pub provider: SearchProvider,
    /// The full URL the component calls (`https://api.search.brave.com/res/v1/web/search`).
    pub url: String,
    /// The origin of `url`: the one destination the component may reach.
    pub rule: NetRule,
    /// The variable of airlock's environment that holds the API key.
    pub key_env: Option<String>,
}

impl SearchEndpoint {
    /// Checks a configuration: a known provider, an `http(s)` URL without user name, and a
    /// key variable when the provider needs one. The error says what to write.
    pub fn new(provider: &str, url: Option<&str>, key_env: Option<&str>) -> Result<Self, String> {
        let provider = SearchProvider::parse(provider).ok_or_else(|| {
            format!("[tools.web_search] provider `{provider}` is not known; use brave, tavily or searxng")
        })?;
        let url = match (url, provider.default_url()) {
            (Some(url), _) => url.trim().to_string(),
            (None, Some(url)) => url.to_string(),
            (None, None) => {
                return Err("[tools.web_search] url is needed for searxng: the address of your instance, e.g. \
                            url = \"http://127.0.0.1:8888\""
                    .into());
            }
        };
        let (scheme, rest) =
            url.split_once("://").ok_or_else(|| format!("[tools.web_search] url `{url}` is not an absolute URL"))?;
        let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
        let rule = NetRule::for_authority(scheme, authority)
            .map_err(|why| format!("[tools.web_search] url `{url}`: {why}"))?;
        let key_env = key_env.map(str::trim).filter(|k| !k.is_empty()).map(str::to_string);
        // A key goes over https, unless the API is on this machine (a literal loopback
        // address or localhost).
        let local = rule
            .host()
            .is_some_and(|h| h == "localhost" || h.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback()));
        if key_env.is_some() && rule.scheme() == super::net::Scheme::Http && !local {
            return Err(format!(
                "[tools.web_search] url `{url}` is plain http: the API key would travel in clear; use https"
            ));
        }
        if provider.needs_key() && key_env.is_none() {
            return Err(format!(
                "[tools.web_search] key_env is needed for {}: the name of the variable that holds the API key, \
                 e.g. key_env = \"BRAVE_API_KEY\"",
                provider.as_str()
            ));
        }
        if let Some(name) = &key_env
            && !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            return Err(format!("[tools.web_search] key_env `{name}` is not a variable name"));
        }
        Ok(Self { provider, url, rule, key_env })
    }

    /// The variables the component gets, with their values (the key's read from airlock's
    /// environment now; left out when it is not set, which the component reports).
    pub fn environment(&self) -> Vec<(String, String)> {
        let mut env = vec![
            (PROVIDER_VAR.to_string(), self.provider.as_str().to_string()),
            (URL_VAR.to_string(), self.url.clone()),
        ];
        if let Some(value) = self.key_env.as_deref().and_then(|name| std::env::var(name).ok()) {
            env.push((KEY_VAR.to_string(), value));
        }
        env
    }
}
