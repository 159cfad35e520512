//! Images and PDFs an editor puts in a prompt (ACP image blocks, binary resources) reach the
//! model as the user's attachments, on the wire's own image and document parts; a type the
//! model cannot take is refused with an error and the session goes on.

use agent_client_protocol::v1::schema::{
    BlobResourceContents, ContentBlock, EmbeddedResource, EmbeddedResourceResource, ImageContent, PromptRequest,
    StopReason, TextContent,
};
use airlock_tests::images::{self, sent_media};
use airlock_tests::{MockModel, Turn, Wire};

use super::{acp, new_session, prompt, send, session};

#[test]
fn an_image_and_a_pdf_in_a_prompt_reach_the_model_as_the_users_media() {
    let (png, pdf) = (images::png(32, 24), images::pdf());
    let s = session();
    let mock = MockModel::start(Wire::Anthropic);
    mock.push_turn(Turn::text("a picture and a document"));
    mock.push_turn(Turn::text("still here"));
    let (refused, responses) = {
        let (png, pdf) = (png.clone(), pdf.clone());
        let ((refused, first, second), _, _) = acp(&s, &mock, &[], async |cx, _seen| {
            let opened = new_session(&cx, &s).await?;
            let blocks = vec![
                ContentBlock::Text(TextContent::new("what are these?")),
                ContentBlock::Image(ImageContent::new(images::encode(&png), "image/png")),
                ContentBlock::Resource(EmbeddedResource::new(EmbeddedResourceResource::BlobResourceContents(
                    BlobResourceContents::new(images::encode(&pdf), "file:///docs/spec.pdf")
                        .mime_type("application/pdf".to_string()),
                ))),
            ];
            let first = send(&cx, PromptRequest::new(opened.session_id.clone(), blocks)).await?;
            let svg = vec![ContentBlock::Image(ImageContent::new(images::encode(b"<svg/>"), "image/svg+xml"))];
            let refused = send(&cx, PromptRequest::new(opened.session_id.clone(), svg)).await.err();
            let second = send(&cx, prompt(&opened, "and now?")).await?;
            Ok((refused, first, second))
        });
        (refused, [first, second])
    };
    assert_eq!(responses.map(|r| r.stop_reason), [StopReason::EndTurn, StopReason::EndTurn]);
    let refused = refused.unwrap_or_else(|| panic!("an SVG image was taken"));
    assert!(format!("{refused:?}").contains("image/svg+xml"), "{refused:?}");
    let requests = mock.requests();
    assert_eq!(requests.len(), 2, "the refused prompt sent nothing to the model");
    let sent = sent_media(&requests[0]);
    assert_eq!(sent.len(), 2, "{sent:?}");
    assert_eq!((sent[0].mime_type.as_str(), sent[0].kind.as_str(), sent[0].place), ("image/png", "image", "user"));
    assert_eq!(sent[0].data, png);
    assert_eq!((sent[1].mime_type.as_str(), sent[1].kind.as_str()), ("application/pdf", "document"));
    assert_eq!(sent[1].data, pdf);
    assert!(requests[0].to_string().contains("what are these?"));
}
