use super::*;

/// A 1×1 PNG.
const DOT: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

#[test]
fn an_attached_image_is_shown_by_name_pixel_size_and_kib() {
    let dot = Attachment { mime_type: "image/png".into(), data: DOT.into(), name: Some("dot.png".into()) };
    assert_eq!(attachment_label(&dot), "[image: dot.png, 1x1, 1 KiB]");
    let pdf = Attachment { mime_type: "application/pdf".into(), data: "JVBERi0=".into(), name: Some("d.pdf".into()) };
    assert_eq!(attachment_label(&pdf), "[pdf: d.pdf, 1 KiB]");
    let broken = Attachment { mime_type: "image/png".into(), data: "AAAA".into(), name: None };
    assert_eq!(attachment_label(&broken), "[image: image/png, 1 KiB]", "no pixel size when the header is not one");
}

#[test]
fn image_and_pdf_mentions_become_attachments_and_text_files_stay_text() {
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path().canonicalize().unwrap();
    std::fs::write(root.join("note.txt"), "a note").unwrap();
    std::fs::write(root.join("dot.png"), base64::engine::general_purpose::STANDARD.decode(DOT).unwrap()).unwrap();
    let mut notices = Vec::new();
    let mentions = ["note.txt".to_string(), "dot.png".to_string(), "gone.pdf".to_string()];
    let (text, media) = with_mentions(&root, "see", &mentions, &mut |n| notices.push(n));
    assert!(text.contains("<file path=\"note.txt\">\na note\n</file>"), "{text}");
    assert!(!text.contains("dot.png"), "{text}");
    assert_eq!(media.len(), 1);
    assert_eq!(
        (media[0].mime_type.as_str(), media[0].data.as_str(), media[0].name.as_deref()),
        ("image/png", DOT, Some("dot.png"))
    );
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert!(notices[0].starts_with("@gone.pdf not attached"), "{notices:?}");
}
