//! An answer's body decoded from bytes already in memory, through the same SSE reader and
//! wire decoder a live response goes through: the fuzz targets (`fuzz/`) and their
//! replay tests feed it untrusted bodies cut into arbitrary chunks.

use std::convert::Infallible;
use std::time::Duration;

use bytes::Bytes;

use super::sse::SseStream;
use super::{ModelError, ModelEvent, ProviderKind, anthropic, gemini, openai};

/// Decodes the body `chunks` of an answer of `kind` as a live stream would, passing every
/// event to `on_event`. The body never goes silent, so the idle timeout never fires.
#[doc(hidden)]
pub fn decode_body(
    kind: ProviderKind,
    chunks: &[&[u8]],
    on_event: &mut (dyn FnMut(ModelEvent) + Send),
) -> Result<(), ModelError> {
    let body = futures_util::stream::iter(chunks.iter().map(|c| Ok::<_, Infallible>(Bytes::copy_from_slice(c))));
    let events = SseStream::new(body, Duration::from_secs(3600));
    // The SSE reader's idle timeout needs a runtime with a clock; one per thread, reused.
    thread_local! {
        static RUNTIME: Option<tokio::runtime::Runtime> =
            tokio::runtime::Builder::new_current_thread().enable_time().build().ok();
    }
    RUNTIME.with(|runtime| {
        let Some(runtime) = runtime else {
            return Err(ModelError::MalformedStream("no runtime to decode the body on".into()));
        };
        runtime.block_on(async {
            match kind {
                ProviderKind::Gemini => gemini::decode(events, on_event).await,
                ProviderKind::Openai => openai::decode(events, on_event).await,
                ProviderKind::Anthropic => anthropic::decode(events, on_event).await,
            }
        })
    })
}
