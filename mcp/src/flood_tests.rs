use std::sync::Arc;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::*;

#[tokio::test]
async fn a_line_longer_than_the_limit_ends_the_stream_and_says_why() {
    let health = Arc::new(Health::default());
    let (mut writer, reader) = tokio::io::duplex(1 << 16);
    let mut guard = FloodGuard::new(reader, 100, health.clone());
    tokio::spawn(async move {
        let _ = writer.write_all(format!("{}\n", "a".repeat(60)).as_bytes()).await;
        let _ = writer.write_all("b".repeat(200).as_bytes()).await;
    });
    let mut read = Vec::new();
    let error = guard.read_to_end(&mut read).await.expect_err("the long line passed");
    assert!(error.to_string().contains("flooded"), "{error}");
    // The first line and at most the limit of the second.
    assert!(read.len() <= 61 + 100, "{} bytes passed", read.len());
    let reason = health.failure().expect("a reason");
    assert!(reason.contains("longer than 100 bytes"), "{reason}");
}

#[tokio::test]
async fn many_short_lines_within_the_limit_pass() {
    let health = Arc::new(Health::default());
    let (mut writer, reader) = tokio::io::duplex(1 << 16);
    let mut guard = FloodGuard::new(reader, 100, health.clone());
    tokio::spawn(async move {
        for _ in 0..1000 {
            let _ = writer.write_all(format!("{}\n", "a".repeat(99)).as_bytes()).await;
        }
    });
    let mut read = Vec::new();
    guard.read_to_end(&mut read).await.expect("lines under the limit");
    assert_eq!(read.len(), 100_000);
    assert_eq!(health.failure(), None);
}

#[test]
fn the_first_failure_is_the_one_kept() {
    let health = Health::default();
    health.fail("a flood");
    health.fail("the pipe closed");
    assert_eq!(health.failure().as_deref(), Some("a flood"));
}
