//! Unit tests of `budget.rs`.

use super::*;

#[tokio::test]
async fn caps_larger_than_the_budget_take_all_of_it_and_run_alone() {
    let budget = Budget::new(ProcessLimits { memory: 100 << 20, instances: 8 });
    let cancel = CancelFlag::default();
    let wait = Duration::from_millis(200);
    let big = budget.acquire(4 << 30, wait, &cancel).await.unwrap();
    let small = budget.acquire(1, wait, &cancel).await.unwrap_err();
    assert!(matches!(small, CallFault::Queued { budget_mib: 100, .. }), "{small:?}");
    drop(big);
    budget.acquire(1, wait, &cancel).await.unwrap();
}

#[tokio::test]
async fn the_live_instance_count_is_bounded_whatever_the_caps() {
    let budget = Budget::new(ProcessLimits { memory: 1 << 30, instances: 3 });
    let cancel = CancelFlag::default();
    let wait = Duration::from_millis(100);
    let held: Vec<Permits> = futures_util::future::join_all((0..3).map(|_| budget.acquire(0, wait, &cancel)))
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert!(matches!(budget.acquire(0, wait, &cancel).await, Err(CallFault::Queued { .. })));
    drop(held);
    budget.acquire(0, wait, &cancel).await.unwrap();
}

#[tokio::test]
async fn a_waiting_call_stops_when_cancelled() {
    let budget = Budget::new(ProcessLimits { memory: 10 << 20, instances: 8 });
    let cancel = CancelFlag::default();
    let _all = budget.acquire(10 << 20, Duration::from_secs(1), &cancel).await.unwrap();
    let waiter = CancelFlag::default();
    let stopper = waiter.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(50)).await;
        stopper.cancel();
    });
    let started = std::time::Instant::now();
    let fault = budget.acquire(1 << 20, Duration::from_secs(60), &waiter).await.unwrap_err();
    assert_eq!(fault, CallFault::Cancelled);
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
}
