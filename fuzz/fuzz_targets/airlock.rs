//! The libFuzzer binary of every target: `AIRLOCK_FUZZ_TARGET` names the one it runs
//! (`airlock_fuzz::TARGETS`).
#![no_main]

use std::sync::OnceLock;

fn target() -> airlock_fuzz::Target {
    static TARGET: OnceLock<airlock_fuzz::Target> = OnceLock::new();
    *TARGET.get_or_init(|| {
        let name = std::env::var("AIRLOCK_FUZZ_TARGET").unwrap_or_default();
        match airlock_fuzz::target(&name) {
            Some(target) => target,
            None => panic!("set AIRLOCK_FUZZ_TARGET to one of: {}", airlock_fuzz::names().join(", ")),
        }
    })
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| target()(data));
