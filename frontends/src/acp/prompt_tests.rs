use std::path::Path;

use agent_client_protocol::v1::schema::{
    BlobResourceContents, ContentBlock, EmbeddedResource, EmbeddedResourceResource, ImageContent, ResourceLink,
    TextContent, TextResourceContents,
};

use super::*;
use airlock_protocol::listing::{CommandRow, CommandSource};

fn row(name: &str) -> CommandRow {
    CommandRow { name: name.into(), description: String::new(), argument_hint: None, source: CommandSource::User }
}

#[test]
fn a_slash_names_a_custom_command_first_then_compress() {
    let custom = [row("review"), row("frontend:component")];
    assert_eq!(
        slash("/review src/main.rs now", &custom),
        Some(Slash::Custom { name: "review", args: "src/main.rs now" })
    );
    assert_eq!(slash("  /frontend:component", &custom), Some(Slash::Custom { name: "frontend:component", args: "" }));
    assert_eq!(slash("/compress", &custom), Some(Slash::Compress));
    assert_eq!(slash("/compress", &[row("compress")]), Some(Slash::Custom { name: "compress", args: "" }));
    assert_eq!(slash("/unknown thing", &custom), None);
    assert_eq!(slash("review this", &custom), None);
    assert_eq!(slash("//review", &custom), None);
}

#[test]
fn a_double_slash_sends_one_slash() {
    assert_eq!(unescaped("//review it".into()), "/review it");
    assert_eq!(unescaped("/review it".into()), "/review it");
    assert_eq!(unescaped("plain".into()), "plain");
}

#[test]
fn an_embedded_resource_is_appended_and_a_link_outside_the_workspace_is_refused() {
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path().canonicalize().unwrap();
    std::fs::write(root.join("notes.txt"), "NOTES").unwrap();
    let embedded = EmbeddedResource::new(EmbeddedResourceResource::TextResourceContents(TextResourceContents::new(
        "fn main() {}",
        "file:///elsewhere/main.rs",
    )));
    let link = ResourceLink::new("notes.txt", format!("file://{}", root.join("notes.txt").display()));
    let blocks = [
        ContentBlock::Text(TextContent::new("look at these")),
        ContentBlock::Resource(embedded),
        ContentBlock::ResourceLink(link),
    ];
    let (text, media) = text(&root, &blocks).unwrap();
    assert!(media.is_empty());
    assert!(text.starts_with("look at these"), "{text}");
    assert!(text.contains("<file path=\"notes.txt\">\nNOTES\n</file>"), "{text}");
    assert!(text.contains("<file uri=\"file:///elsewhere/main.rs\">\nfn main() {}\n</file>"), "{text}");
    let outside = ContentBlock::ResourceLink(ResourceLink::new("passwd", "file:///etc/passwd"));
    let refused = super::text(&root, &[outside]).unwrap_err();
    assert!(refused.message.contains("not a file in the workspace"), "{refused:?}");
    assert!(super::text(&root, &[ContentBlock::Text(TextContent::new("  "))]).is_err());
}

#[test]
fn images_and_pdfs_travel_as_attachments_and_other_media_are_refused() {
    let image = ContentBlock::Image(ImageContent::new("iVBORw0KGgo=", "image/png"));
    let pdf = ContentBlock::Resource(EmbeddedResource::new(EmbeddedResourceResource::BlobResourceContents(
        BlobResourceContents::new("JVBERi0=", "file:///elsewhere/a.pdf").mime_type("application/pdf".to_string()),
    )));
    let (text, media) =
        super::text(Path::new("/"), &[ContentBlock::Text(TextContent::new("what is this")), image, pdf]).unwrap();
    assert_eq!(text, "what is this");
    assert_eq!(media.len(), 2);
    assert_eq!((media[0].mime_type.as_str(), media[0].data.as_str()), ("image/png", "iVBORw0KGgo="));
    assert_eq!(media[1].mime_type, "application/pdf");
    assert_eq!(media[1].name.as_deref(), Some("file:///elsewhere/a.pdf"));
    // An image alone is a prompt.
    let alone = ContentBlock::Image(ImageContent::new("R0lGOD==", "image/gif"));
    assert_eq!(super::text(Path::new("/"), &[alone]).unwrap().1.len(), 1);
    let svg = ContentBlock::Image(ImageContent::new("PHN2Zz4=", "image/svg+xml"));
    let refused = super::text(Path::new("/"), &[svg]).unwrap_err();
    assert!(refused.message.contains("image/svg+xml") || format!("{refused:?}").contains("image/svg+xml"));
    let zip = ContentBlock::Resource(EmbeddedResource::new(EmbeddedResourceResource::BlobResourceContents(
        BlobResourceContents::new("UEsDBA==", "file:///a.zip").mime_type("application/zip".to_string()),
    )));
    assert!(super::text(Path::new("/"), &[zip]).is_err());
    let huge = ContentBlock::Image(ImageContent::new("A".repeat(MAX_MEDIA_BYTES + 4), "image/png"));
    assert!(super::text(Path::new("/"), &[huge]).is_err());
}

#[cfg(unix)]
#[test]
fn a_linked_file_that_escapes_through_a_symlink_is_left_out_with_a_note() {
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path().canonicalize().unwrap();
    std::os::unix::fs::symlink("/etc/hostname", root.join("escape.txt")).unwrap();
    let link = ResourceLink::new("escape.txt", format!("file://{}", root.join("escape.txt").display()));
    let (text, _) =
        text(&root, &[ContentBlock::Text(TextContent::new("read")), ContentBlock::ResourceLink(link)]).unwrap();
    assert!(text.contains("(airlock: @escape.txt not attached"), "{text}");
    assert!(!text.contains("<file"), "{text}");
}

#[test]
fn each_way_a_turn_ends_has_its_stop_reason() {
    let ended = |outcome| stop_reason(&Report { outcome, ..Report::default() });
    assert_eq!(ended(Outcome::Completed).unwrap(), StopReason::EndTurn);
    assert_eq!(ended(Outcome::MaxTurns(100)).unwrap(), StopReason::MaxTurnRequests);
    assert_eq!(ended(Outcome::Cancelled).unwrap(), StopReason::Cancelled);
    assert_eq!(ended(Outcome::LoopDetected("the same call".into())).unwrap(), StopReason::EndTurn);
    let blocked = Unusable::Blocked { reason: "SAFETY".into() };
    assert_eq!(ended(Outcome::Unusable(blocked)).unwrap(), StopReason::Refusal);
    let cut = Unusable::Cut { reason: "MAX_TOKENS".into(), with_calls: false };
    assert_eq!(ended(Outcome::Unusable(cut)).unwrap(), StopReason::MaxTokens);
    let empty = Unusable::Empty { reason: "STOP".into() };
    assert_eq!(ended(Outcome::Unusable(empty)).unwrap(), StopReason::EndTurn);
}
