//! The trust file reader (`trust.toml`): the user's own file, but read at every start, and
//! its writer.
//!
//! Checks: a file that loads, saved by [`TrustStore::save`], loads again with the same
//! folders, policy pins and plugin pins.

use airlock_engine::policy::trust::TrustStore;

use crate::support;

pub fn run(data: &[u8]) {
    support::with_folder(|folder| {
        let path = support::write(folder, "trust.toml", data);
        let Ok(store) = TrustStore::load(&path) else { return };
        if let Err(e) = store.save() {
            panic!("a trust file that loaded cannot be saved: {e}");
        }
        let again = match TrustStore::load(&path) {
            Ok(again) => again,
            Err(e) => panic!("a trust file that loaded does not load once saved: {e}"),
        };
        assert_eq!(pins(&store), pins(&again), "trust changed when saved");
    });
}

/// Each folder with its pins.
fn pins(store: &TrustStore) -> Vec<String> {
    store.folders().map(|folder| format!("{folder:?} {:?}", store.pinned_plugins(folder))).collect()
}
