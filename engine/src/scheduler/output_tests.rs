//! Unit tests of `output.rs`.

use super::*;

fn text(text: String) -> ToolOutput {
    ToolOutput { llm_content: vec![ContentPart::Text { text }], display: None }
}

#[tokio::test]
async fn caps_output_and_says_so() {
    let capped = cap(text("é".repeat(100)), 51, None, "c").await;
    let told = capped.llm_text();
    assert!(told.starts_with(&"é".repeat(25)));
    assert!(told.contains("showing the first 50 of 200 bytes"), "{told}");
}

#[tokio::test]
async fn saves_the_whole_output_privately_and_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let outputs = dir.path().join("session.outputs");
    let whole = "x".repeat(1000);
    let told = cap(text(whole.clone()), 100, Some(&outputs), "../../evil id").await.llm_text();
    let files: Vec<_> = std::fs::read_dir(&outputs).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(files.len(), 1);
    assert!(files[0].file_name().unwrap().to_str().unwrap().ends_with("-evilid.txt"), "{files:?}");
    assert_eq!(std::fs::read_to_string(&files[0]).unwrap(), whole);
    assert!(told.contains(files[0].to_str().unwrap()) && told.contains("all of it"), "{told}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&files[0]).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(std::fs::metadata(&outputs).unwrap().permissions().mode() & 0o777, 0o700);
    }
    // A second cut output of the same id gets a file of its own.
    cap(text(whole), 100, Some(&outputs), "../../evil id").await;
    assert_eq!(std::fs::read_dir(&outputs).unwrap().count(), 2);
}

#[tokio::test]
async fn saves_at_most_the_hard_maximum() {
    let dir = tempfile::tempdir().unwrap();
    let told = cap(text("y".repeat(MAX_SAVED + 10)), 100, Some(dir.path()), "c").await.llm_text();
    assert!(told.contains(&format!("its first {MAX_SAVED} bytes")), "{}", &told[100..]);
    let file = std::fs::read_dir(dir.path()).unwrap().next().unwrap().unwrap().path();
    assert_eq!(std::fs::metadata(file).unwrap().len(), MAX_SAVED as u64);
}

/// A plugin that floods on every call of a long session fills at most the session's budget.
#[tokio::test]
async fn one_session_saves_a_bounded_number_of_files_and_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let mut refused = 0;
    for n in 0..MAX_SESSION_FILES + 5 {
        let told = cap(text("z".repeat(200)), 100, Some(dir.path()), &format!("c{n}")).await.llm_text();
        refused += usize::from(told.contains("reached their limit"));
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), MAX_SESSION_FILES);
    assert_eq!(refused, 5);
    // Bytes too: 16 of the largest outputs reach 256 MiB.
    let big = tempfile::tempdir().unwrap();
    for n in 0..17 {
        cap(text("b".repeat(MAX_SAVED)), 100, Some(big.path()), &format!("b{n}")).await;
    }
    let bytes: u64 = std::fs::read_dir(big.path()).unwrap().map(|e| e.unwrap().metadata().unwrap().len()).sum();
    assert!(bytes <= MAX_SESSION_BYTES, "{bytes}");
    assert_eq!(std::fs::read_dir(big.path()).unwrap().count(), 16);
}
