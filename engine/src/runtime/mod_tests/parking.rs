//! Parked instances against the `runtime_hostile` fixture: a faulted instance is never
//! parked, a parked one never makes another call wait for room, and one resumed gets its
//! whole deadline again.

use std::time::Duration;

use airlock_tests::fixtures;
use serde_json::json;

use super::super::*;

async fn loaded(runtime: &Runtime) -> LoadedComponent {
    let bytes = std::fs::read(fixtures::RUNTIME_HOSTILE).unwrap();
    runtime.load(&airlock_files::content_hash(&bytes), || Ok(bytes.clone())).unwrap().0
}

fn sandbox(deadline: Duration) -> Sandbox {
    Sandbox::empty(64 << 20, deadline)
}

/// A budget of `instances` live instances.
fn runtime(instances: usize) -> Arc<Runtime> {
    let limits = ProcessLimits { memory: 1 << 30, instances };
    Arc::new(Runtime::with_limits(crate::testing::shared_cache(), limits).unwrap())
}

/// The quick `hog` call (it allocates nothing outside its named phase).
async fn quick_call(instance: &mut Instance) -> Result<String, CallFault> {
    let output = instance.execute("hog", &json!({"phase": "none"}).to_string()).await?;
    Ok(output.unwrap().llm_text())
}

#[tokio::test]
async fn an_instance_that_faulted_is_never_parked() {
    let runtime = runtime(4);
    let component = loaded(&runtime).await;
    let mut instance =
        runtime.instantiate(&component, Arc::from("t"), &sandbox(Duration::from_secs(20))).await.unwrap();
    let fault = instance.execute("exit_now", "{}").await.unwrap_err();
    assert!(matches!(fault, CallFault::Exited(_)), "{fault:?}");
    assert!(runtime.park(instance).is_none());
}

#[tokio::test]
async fn a_call_that_finds_no_room_takes_the_room_of_parked_instances() {
    let runtime = runtime(1);
    let component = loaded(&runtime).await;
    let short = sandbox(Duration::from_secs(2));
    let parked = runtime.park(runtime.instantiate(&component, Arc::from("t"), &short).await.unwrap()).unwrap();
    // The only room is the parked instance's: the new call gets it at once, not at its deadline.
    let mut instance = runtime.instantiate(&component, Arc::from("t"), &short).await.unwrap();
    assert_eq!(quick_call(&mut instance).await.unwrap(), "held 0 bytes");
    assert!(parked.resume().is_none(), "the parked instance was given up");
}

#[tokio::test]
async fn an_instance_parked_while_a_call_waits_is_given_up() {
    let runtime = runtime(2);
    let component = loaded(&runtime).await;
    let long = sandbox(Duration::from_secs(20));
    let held = runtime.instantiate(&component, Arc::from("t"), &long).await.unwrap();
    let checked = runtime.instantiate(&component, Arc::from("t"), &long).await.unwrap();
    let waiter = tokio::spawn({
        let (runtime, component, long) = (runtime.clone(), component.clone(), long.clone());
        async move { runtime.instantiate(&component, Arc::from("t"), &long).await.map(drop) }
    });
    // Let the waiter find the budget full and wait (this runtime runs one task at a time).
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(runtime.park(checked).is_none(), "parked while a call waits");
    tokio::time::timeout(Duration::from_secs(5), waiter).await.expect("the waiter got the room").unwrap().unwrap();
    drop(held);
}

#[tokio::test]
async fn a_resumed_instance_gets_its_whole_deadline_again() {
    let runtime = runtime(4);
    let component = loaded(&runtime).await;
    let deadline = Duration::from_millis(300);
    let parked = runtime.park(runtime.instantiate(&component, Arc::from("t"), &sandbox(deadline)).await.unwrap());
    tokio::time::sleep(deadline * 2).await;
    let mut instance = parked.unwrap().resume().unwrap();
    assert_eq!(quick_call(&mut instance).await.unwrap(), "held 0 bytes");
}

#[tokio::test]
async fn giving_up_parked_instances_frees_their_room() {
    let runtime = runtime(1);
    let component = loaded(&runtime).await;
    let short = sandbox(Duration::from_millis(500));
    let parked = runtime.park(runtime.instantiate(&component, Arc::from("t"), &short).await.unwrap()).unwrap();
    runtime.release_parked();
    assert!(parked.resume().is_none());
    assert!(runtime.budget.try_acquire(64 << 20).is_some(), "the room was given back");
}
