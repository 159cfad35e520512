//! Images on their way to the model (BENCHMARKS.md, issue 27: media):
//! - scaling a 20-megapixel PNG down under the caps (decode, resize, JPEG encode), as
//!   `engine::media::prepare` does for a tool's image, median of 7 runs after one warm-up;
//! - the cost of encoding a request whose history holds one image, on each wire: the first
//!   request (every message encoded) and a later one (one message more, the rest from the
//!   encode cache).
//!
//! Run: `cargo bench -p airlock --bench media`. It prints figures and asserts nothing on time.

#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark is a test program: it prints its report and stops loudly on a broken setup"
)]

mod support;

use std::hint::black_box;

use airlock_engine::media::{MediaLimits, prepare};
use airlock_model::{
    FunctionCall, FunctionResponse, History, Media, Message, Part, ProviderConfig, ProviderKind, Role, encode_request,
};
use bytes::Bytes;

/// Messages of text around the image in the encoded history.
const TEXT_TURNS: usize = 40;

fn main() {
    support::header("media", "images for the model: scaling down, and request encoding with an image");
    let png = Bytes::from(airlock_tests::images::png(5000, 4000));
    println!("a 5000x4000 PNG of {} bytes", png.len());
    let limits = MediaLimits::default();
    let mut scaled = None;
    let samples = support::sample(1, 7, || {
        scaled = Some(prepare("image/png", None, png.clone(), &limits).expect("the PNG scales down"));
    });
    let scaled = scaled.unwrap();
    let (w, h) = airlock_engine::media::image_size(&scaled.data).unwrap();
    support::report(
        &format!("scale 20 MP PNG -> {w}x{h} {} ({} B)", scaled.mime_type, scaled.data.len()),
        &support::Summary::of(&samples),
    );

    for kind in ProviderKind::ALL {
        let config = ProviderConfig::new(kind, "http://127.0.0.1:1", "bench-model");
        let first = support::sample(3, 30, || {
            let history = History::new(history(&scaled));
            black_box(encode_request(&config, &history.request(Some("system"), &[])));
        });
        support::report(
            &format!("{}: first request, image + {TEXT_TURNS} texts", kind.name()),
            &support::Summary::of(&first),
        );
        let mut history = History::new(history(&scaled));
        let size = encode_request(&config, &history.request(Some("system"), &[])).len();
        println!("{}: the request is {size} bytes", kind.name());
        let later = support::sample(3, 30, || {
            history.push(text(Role::User, "one more"));
            black_box(encode_request(&config, &history.request(Some("system"), &[])));
        });
        support::report(
            &format!("{}: later request (cache), one message more", kind.name()),
            &support::Summary::of(&later),
        );
    }
}

/// A prompt, a call to read an image, its response with the image, then text turns.
fn history(image: &Media) -> Vec<Message> {
    let mut messages = vec![
        text(Role::User, "look at the picture"),
        Message {
            role: Role::Model,
            parts: vec![Part::FunctionCall(FunctionCall {
                id: "call-1".into(),
                name: "read_file".into(),
                arguments: r#"{"file_path":"big.png"}"#.into(),
                signature: None,
            })],
        },
        Message {
            role: Role::User,
            parts: vec![Part::FunctionResponse(FunctionResponse {
                id: "call-1".into(),
                name: "read_file".into(),
                content: "[image/png content, attached]".into(),
                is_error: false,
                media: vec![image.clone()],
            })],
        },
    ];
    for i in 0..TEXT_TURNS {
        let role = if i % 2 == 0 { Role::Model } else { Role::User };
        messages.push(text(role, &"a line of conversation text. ".repeat(20)));
    }
    messages
}

fn text(role: Role, text: &str) -> Message {
    Message { role, parts: vec![Part::Text { text: text.into() }] }
}
