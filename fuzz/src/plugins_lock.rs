//! The `plugins.lock` reader (a workspace's plugin folder holds one a repository wrote) and
//! its writer.
//!
//! Checks: a lock that reads, written by [`Lock::write_in`], reads again the same.

use airlock_engine::registry::lock::{Lock, check};

use crate::support;

pub fn run(data: &[u8]) {
    support::with_folder(|folder| {
        support::write(folder, airlock_engine::registry::lock::FILE_NAME, data);
        let dir = match airlock_files::open_dir(folder) {
            Ok(dir) => dir,
            Err(e) => panic!("the target's folder cannot be opened: {e}"),
        };
        let Ok(lock) = Lock::read_in(&dir, folder) else { return };
        for (name, entry) in &lock.plugins {
            // The message a mismatch prints quotes the entry: it must be made whatever it holds.
            let _ = check(&lock, &folder.join(name), &entry.sha256.to_uppercase());
            let _ = check(&lock, &folder.join(name), "0");
        }
        if let Err(e) = lock.write_in(&dir) {
            panic!("a lock that was read cannot be written: {e}");
        }
        let again = match Lock::read_in(&dir, folder) {
            Ok(again) => again,
            Err(e) => panic!("a lock that was read does not read once written: {e}"),
        };
        assert_eq!(lock.plugins, again.plugins, "the lock changed when written");
    });
}
