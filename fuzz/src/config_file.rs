//! The `config.toml` reader. Only the user writes this file (`$AIRLOCK_HOME/config.toml`;
//! no repository file is read as configuration), so this target only looks for crashes,
//! in reading the file and in choosing the provider from it.

use airlock_engine::config::{ProviderFlags, resolve_provider};

use crate::support;

pub fn run(data: &[u8]) {
    support::with_folder(|folder| {
        let path = support::write(folder, "config.toml", data);
        let Ok(config) = airlock_engine::config::load(&path) else { return };
        let _ = config.tools.search();
        let _ = config.tools.limits();
        let key = |_: &str| Some("key".to_string());
        let _ = resolve_provider(&config, &path, ProviderFlags::default(), &key);
        for name in config.providers.keys() {
            let flags = ProviderFlags { provider: Some(name.clone()), ..ProviderFlags::default() };
            let _ = resolve_provider(&config, &path, flags, &key);
        }
    });
}
