//! Registry credentials: the basic auth `docker login` stores in the docker config
//! (`$DOCKER_CONFIG/config.json`, else `~/.docker/config.json`), or anonymous.
//!
//! Only inline credentials (`auths.HOST.auth`, or `username` and `password`) are read;
//! credential helpers (`credsStore`, `credHelpers`) are not run, so a registry reached
//! through one is tried anonymously. A missing or unreadable config is anonymous, never an error.

use base64::Engine;
use oci_client::secrets::RegistryAuth;
use serde::Deserialize;

/// Most bytes of the docker config read.
const MAX_CONFIG_BYTES: u64 = 1 << 20;

#[derive(Deserialize)]
struct DockerConfig {
    #[serde(default)]
    auths: std::collections::BTreeMap<String, AuthEntry>,
}

#[derive(Deserialize)]
struct AuthEntry {
    auth: Option<String>,
    username: Option<String>,
    password: Option<String>,
}

/// The credentials the docker config holds for `registry` (`HOST` or `HOST:PORT`).
pub(crate) fn for_registry(registry: &str) -> RegistryAuth {
    let Some(path) = config_path() else { return RegistryAuth::Anonymous };
    let Ok(file) = std::fs::File::open(path) else { return RegistryAuth::Anonymous };
    let mut text = String::new();
    if std::io::Read::read_to_string(&mut std::io::Read::take(file, MAX_CONFIG_BYTES), &mut text).is_err() {
        return RegistryAuth::Anonymous;
    }
    from_config(&text, registry)
}

fn config_path() -> Option<std::path::PathBuf> {
    if let Some(dir) = std::env::var_os("DOCKER_CONFIG") {
        return Some(std::path::PathBuf::from(dir).join("config.json"));
    }
    std::env::var_os("HOME").map(|home| std::path::PathBuf::from(home).join(".docker/config.json"))
}

fn from_config(text: &str, registry: &str) -> RegistryAuth {
    let Ok(config) = serde_json::from_str::<DockerConfig>(text) else { return RegistryAuth::Anonymous };
    // `docker login` keys entries by host, some tools by `https://HOST` or `https://HOST/v1/`.
    let entry = config.auths.iter().find(|(key, _)| {
        let key = key.trim_start_matches("https://").trim_start_matches("http://");
        key.split('/').next() == Some(registry)
    });
    let Some((_, entry)) = entry else { return RegistryAuth::Anonymous };
    if let (Some(user), Some(password)) = (&entry.username, &entry.password) {
        return RegistryAuth::Basic(user.clone(), password.clone());
    }
    let decoded = entry
        .auth
        .as_deref()
        .and_then(|auth| base64::engine::general_purpose::STANDARD.decode(auth.trim()).ok())
        .and_then(|bytes| String::from_utf8(bytes).ok());
    match decoded.as_deref().and_then(|pair| pair.split_once(':')) {
        Some((user, password)) => RegistryAuth::Basic(user.to_string(), password.to_string()),
        None => RegistryAuth::Anonymous,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_inline_credentials_of_the_registry_only() {
        // "alice:s3cret"
        let config = r#"{"auths":{"ghcr.io":{"auth":"YWxpY2U6czNjcmV0"},"https://index.docker.io/v1/":{"username":"bob","password":"pw"}},"credsStore":"desktop"}"#;
        assert!(matches!(from_config(config, "ghcr.io"), RegistryAuth::Basic(u, p) if u == "alice" && p == "s3cret"));
        assert!(matches!(from_config(config, "index.docker.io"), RegistryAuth::Basic(u, p) if u == "bob" && p == "pw"));
        assert!(matches!(from_config(config, "quay.io"), RegistryAuth::Anonymous));
        assert!(matches!(from_config("not json", "ghcr.io"), RegistryAuth::Anonymous));
    }
}
