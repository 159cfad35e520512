//! Images and PDFs for the media tests: real PNGs made on the spot (any size; gradients and a
//! checkerboard, which compress well but not to nothing), a PNG whose header claims a size nobody should decode
//! (a decompression bomb), a corrupt PNG, and a small PDF.

use image::codecs::png::{CompressionType, FilterType, PngEncoder};
use image::{ImageEncoder, RgbImage};

/// An RGB PNG of `width`×`height` pixels: two gradients and a checkerboard.
pub fn png(width: u32, height: u32) -> Vec<u8> {
    let shade = |n: u32, of: u32| (u64::from(n) * 255 / u64::from(of.max(1))) as u8;
    let image = RgbImage::from_fn(width, height, |x, y| {
        image::Rgb([shade(x, width), shade(y, height), ((x / 16 + y / 16) % 2 * 200) as u8])
    });
    let mut out = Vec::new();
    PngEncoder::new_with_quality(&mut out, CompressionType::Default, FilterType::Sub)
        .write_image(image.as_raw(), width, height, image::ExtendedColorType::Rgb8)
        .unwrap_or_else(|e| panic!("encoding a PNG in memory: {e}"));
    out
}

/// A small valid PNG whose header was rewritten to claim `width`×`height` pixels (the CRC
/// fixed, so only the size gives it away): a decoder that trusts the header allocates
/// width × height × 4 bytes.
pub fn bomb_png(width: u32, height: u32) -> Vec<u8> {
    let mut bytes = png(8, 8);
    // Signature (8), IHDR length (4), "IHDR" (4), then width and height.
    bytes[16..20].copy_from_slice(&width.to_be_bytes());
    bytes[20..24].copy_from_slice(&height.to_be_bytes());
    let crc = crc32fast::hash(&bytes[12..29]);
    bytes[29..33].copy_from_slice(&crc.to_be_bytes());
    bytes
}

/// A PNG signature and header followed by garbage: it cannot be decoded.
pub fn corrupt_png() -> Vec<u8> {
    let mut bytes = png(64, 64);
    let len = bytes.len();
    for byte in &mut bytes[40..len - 12] {
        *byte = 0xA5;
    }
    bytes
}

/// A small, valid one-page PDF saying "airlock".
pub fn pdf() -> Vec<u8> {
    let body = "%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n\
3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 100]/Contents 4 0 R/Resources<</Font<</F1 5 0 R>>>>>>endobj\n\
4 0 obj<</Length 40>>stream\nBT /F1 18 Tf 20 40 Td (airlock) Tj ET\nendstream endobj\n\
5 0 obj<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n";
    body.as_bytes().to_vec()
}

/// A media item a request body sent the model, read back from any of the three wires.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SentMedia {
    pub mime_type: String,
    /// The bytes, decoded from base64.
    pub data: Vec<u8>,
    /// Where it went: `tool_result` (inside an Anthropic tool result), `user` (a user
    /// message's part: Gemini's content, OpenAI's user message, an Anthropic user block).
    pub place: &'static str,
    /// The wire's own kind of part: `inlineData`, `image`, `document`, `image_url`, `file`.
    pub kind: String,
}

/// Every media item `request` sent, in order, whatever its wire.
pub fn sent_media(request: &serde_json::Value) -> Vec<SentMedia> {
    let mut found = Vec::new();
    if let Some(contents) = request["contents"].as_array() {
        for part in contents.iter().filter_map(|c| c["parts"].as_array()).flatten() {
            if let Some(inline) = part.get("inlineData") {
                let data = decode(inline["data"].as_str().unwrap_or_default());
                let mime_type = inline["mimeType"].as_str().unwrap_or_default().to_owned();
                found.push(SentMedia { mime_type, data, place: "user", kind: "inlineData".into() });
            }
        }
        return found;
    }
    for message in request["messages"].as_array().into_iter().flatten() {
        for block in message["content"].as_array().into_iter().flatten() {
            match block["type"].as_str() {
                Some("tool_result") => {
                    for inner in block["content"].as_array().into_iter().flatten() {
                        anthropic_block(inner, "tool_result", &mut found);
                    }
                }
                Some("image" | "document") => anthropic_block(block, "user", &mut found),
                Some("image_url") => data_url(block["image_url"]["url"].as_str(), "image_url", &mut found),
                Some("file") => data_url(block["file"]["file_data"].as_str(), "file", &mut found),
                _ => {}
            }
        }
    }
    found
}

fn anthropic_block(block: &serde_json::Value, place: &'static str, found: &mut Vec<SentMedia>) {
    let Some(kind) = block["type"].as_str().filter(|t| *t == "image" || *t == "document") else {
        return;
    };
    let source = &block["source"];
    assert_eq!(source["type"], "base64", "{block}");
    found.push(SentMedia {
        mime_type: source["media_type"].as_str().unwrap_or_default().to_owned(),
        data: decode(source["data"].as_str().unwrap_or_default()),
        place,
        kind: kind.to_owned(),
    });
}

fn data_url(url: Option<&str>, kind: &str, found: &mut Vec<SentMedia>) {
    let url = url.unwrap_or_default();
    let (head, data) = url.split_once(',').unwrap_or_else(|| panic!("not a data URL: {url:.80}"));
    let mime_type = head.strip_prefix("data:").and_then(|h| h.strip_suffix(";base64")).unwrap_or_default();
    found.push(SentMedia { mime_type: mime_type.to_owned(), data: decode(data), place: "user", kind: kind.to_owned() });
}

/// `text` decoded from standard base64; a test fails on anything else.
pub fn decode(text: &str) -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.decode(text).unwrap_or_else(|e| panic!("not base64 ({e}): {text:.80}"))
}

/// `bytes` as standard base64, as a client sends media inline (ACP image blocks).
pub fn encode(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// The width and height of an encoded image, decoding it whole (a test fails if it does
/// not decode).
pub fn dimensions(bytes: &[u8]) -> (u32, u32) {
    let image = image::load_from_memory(bytes).unwrap_or_else(|e| panic!("not a valid image: {e}"));
    (image.width(), image.height())
}
