//! Unit tests of `checkpoints/mod.rs`: what is taken without a store's work (roots inside
//! airlock's home, checkpoints off), and the labels' session and prompt.

use super::*;

fn sink() -> (EventSink, tokio::sync::mpsc::UnboundedReceiver<Event>) {
    EventSink::new()
}

/// SECURITY CP3: airlock's own home (the memory folder inside it) is never a root: a call
/// whose only root lies there takes no checkpoint and opens no store.
#[tokio::test]
async fn a_root_inside_airlocks_home_takes_nothing_and_opens_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let workspace = dir.path().join("ws");
    std::fs::create_dir_all(home.join("memory")).unwrap();
    std::fs::create_dir_all(&workspace).unwrap();
    let checkpointer = Checkpointer::new(&home, &workspace, &CheckpointSettings::default());
    assert!(checkpointer.enabled());
    let (events, mut received) = sink();
    let memory = home.canonicalize().unwrap().join("memory");
    assert!(checkpointer.before("call_1", &[memory], &events).await.is_none());
    assert!(checkpointer.store().is_none(), "the store was opened");
    assert!(received.try_recv().is_err(), "a warning was given");
}

#[tokio::test]
async fn checkpoints_off_take_nothing_and_say_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let settings = CheckpointSettings { enabled: Some(false), ..CheckpointSettings::default() };
    let checkpointer = Checkpointer::new(dir.path(), dir.path(), &settings);
    assert!(!checkpointer.enabled());
    let (events, mut received) = sink();
    assert!(checkpointer.before("call_1", &[dir.path().join("a.txt")], &events).await.is_none());
    assert!(checkpointer.ready(&events).await.is_none());
    assert!(received.try_recv().is_err());
    assert!(!dir.path().join("checkpoints").exists());
}

#[test]
fn the_labels_follow_the_session_and_the_prompt() {
    let checkpointer = Checkpointer::off();
    checkpointer.set_session("abc");
    checkpointer.set_prompt(3);
    assert_eq!(checkpointer.prompt(), 3);
    assert_eq!(*checkpointer.session.lock().unwrap(), "abc");
}
