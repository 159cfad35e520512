//! A fresh instance holds nothing of the instances before it, against the `runtime_hostile`
//! fixture's `stash` tool: the pool keeps a freed memory slot's dirty pages resident and
//! resets them in place ([`pool`](super::super::pool)), so what one call wrote — in the data
//! segment or in memory it grew — must be gone when the next instance gets the slot.

use std::time::Duration;

use airlock_tests::fixtures;
use serde_json::json;

use super::super::*;

/// `stash` with `secret` on `instance`: what the instance held before the call.
async fn stash(instance: &mut Instance, secret: &str) -> String {
    let args = json!({"secret": secret, "mib": 2}).to_string();
    instance.execute("stash", &args).await.unwrap().unwrap().llm_text()
}

#[tokio::test]
async fn a_fresh_instance_sees_nothing_of_the_one_before_it_in_the_same_slot() {
    // One instance at a time: every instance below gets the same slots of the pool.
    let limits = ProcessLimits { memory: 1 << 30, instances: 1 };
    let runtime = Runtime::with_limits(crate::testing::shared_cache(), limits).unwrap();
    let bytes = std::fs::read(fixtures::RUNTIME_HOSTILE).unwrap();
    let (component, _) = runtime.load(&airlock_files::content_hash(&bytes), || Ok(bytes.clone())).unwrap();
    let sandbox = Sandbox::empty(64 << 20, Duration::from_secs(30));
    for round in 0..3 {
        let mut instance = runtime.instantiate(&component, Arc::from("t"), &sandbox).await.unwrap();
        assert_eq!(
            stash(&mut instance, &format!("secret {round}")).await,
            "static=pristine; leftover=0",
            "round {round}"
        );
        // The same instance does see its own writes: the probe can tell.
        let again = stash(&mut instance, "second").await;
        assert!(again.starts_with(&format!("static=secret {round}; leftover=")), "{again}");
        assert_ne!(again, format!("static=secret {round}; leftover=0"), "the probe found none of its own writes");
    }
}
