//! The images and PDFs a turn brings into the history — a user's attachments, the media of
//! a batch's results — each made ready by [`crate::media`] (off the async workers), checked
//! against the kinds the session's model takes, and held to the conversation's total
//! ([`MediaLimits::max_total_bytes`]: every request carries the whole history). What cannot
//! go is a text stand-in in its place, so the turn goes on and the model knows what it
//! missed.

use airlock_model::{FunctionResponse, Media, MediaKind, Message, Part};

use crate::media::{MediaLimits, MediaSettings, prepare_blocking};

/// Bytes of media the history holds.
pub(super) fn held(history: &[Message]) -> usize {
    history
        .iter()
        .flat_map(|m| &m.parts)
        .map(|part| match part {
            Part::Media(media) => media.data.len(),
            Part::FunctionResponse(response) => response.media.iter().map(|m| m.data.len()).sum(),
            _ => 0,
        })
        .sum()
}

/// The parts of a user's attachments: each its media, or a text standing in for it.
pub(super) async fn attachments(attachments: Vec<Media>, settings: &MediaSettings, mut held: usize) -> Vec<Part> {
    let mut parts = Vec::with_capacity(attachments.len());
    for media in attachments {
        parts.push(match ready(media, settings, &mut held).await {
            Ok(media) => Part::Media(media),
            Err(text) => Part::Text { text },
        });
    }
    parts
}

/// Makes the media of `responses` ready; what cannot go is named at the end of its
/// response's content instead.
pub(super) async fn responses(responses: &mut [FunctionResponse], settings: &MediaSettings, mut held: usize) {
    for response in responses {
        for media in std::mem::take(&mut response.media) {
            match ready(media, settings, &mut held).await {
                Ok(media) => response.media.push(media),
                Err(text) => {
                    response.content.push('\n');
                    response.content.push_str(&text);
                }
            }
        }
    }
}

async fn ready(media: Media, settings: &MediaSettings, held: &mut usize) -> Result<Media, String> {
    if let Some(kind) = media.kind()
        && !settings.accepted.contains(&kind)
    {
        let what = match kind {
            MediaKind::Image => "images",
            MediaKind::Pdf => "PDFs",
        };
        let why = format!("the model's provider is set not to take {what} ([providers.NAME] media)");
        return Err(media.stand_in(&why));
    }
    let Media { mime_type, name, data } = media;
    let media = prepare_blocking(mime_type, name, data, settings.limits.clone()).await?;
    let MediaLimits { max_total_bytes, .. } = settings.limits;
    if *held + media.data.len() > max_total_bytes {
        let why = format!(
            "the conversation already holds {} KiB of media, and may hold {} KiB ([media] max_total_bytes)",
            *held >> 10,
            max_total_bytes >> 10
        );
        return Err(media.stand_in(&why));
    }
    *held += media.data.len();
    Ok(media)
}
