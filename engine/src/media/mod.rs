//! Images and PDFs on their way to the model: what a tool returned or a user attached is
//! checked and, for an image, decoded within bounds and scaled down, before it enters the
//! history as an [`airlock_model::Media`]; what cannot be sent becomes a text stand-in that
//! says what it was, its size and why.
//!
//! Invariants:
//! - An image is always decoded whole before it is sent (a corrupt one is stood in, never
//!   sent for the provider to refuse the whole request), and decoding is bounded by
//!   [`decode_limits`]: a header that claims more pixels than airlock decodes is refused
//!   before anything is allocated for them.
//! - An image that fits ([`MediaLimits::max_image_pixels`], [`MediaLimits::max_image_bytes`])
//!   and is of a type every wire takes goes as its own bytes; any other is scaled down
//!   (aspect kept) and re-encoded: PNG when it has transparency, else JPEG.
//! - The work is CPU-bound (a 20-megapixel PNG takes a good part of a second): callers on
//!   the async runtime run it through [`prepare_blocking`].

use std::io::Cursor;

use airlock_model::{Media, MediaKind, stand_in};
use bytes::Bytes;
use image::codecs::jpeg::JpegEncoder;
use image::codecs::png::PngEncoder;
use image::{DynamicImage, ImageError, ImageFormat, ImageReader};
use serde::Deserialize;

/// `[media]`: how big the images and PDFs sent to the model may be.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MediaLimits {
    /// Most bytes of one image as sent (after scaling down).
    pub max_image_bytes: usize,
    /// Most pixels (width × height) of one image as sent; a larger one is scaled down.
    pub max_image_pixels: u64,
    /// Most bytes of one PDF; a larger one is stood in.
    pub max_pdf_bytes: usize,
    /// Most bytes of media the conversation may hold, all messages together (each request
    /// carries the whole conversation).
    pub max_total_bytes: usize,
}

impl Default for MediaLimits {
    /// The providers' documented limits, the strictest of the three: Anthropic takes images
    /// of at most 5 MB and scales any past ~1.15 megapixels down itself; Gemini takes at most
    /// 20 MB of inline data in one request, base64 included, so 14 MiB of bytes (18.7 MiB
    /// as base64) leaves room for the text; a PDF is held to 10 MiB of that.
    fn default() -> Self {
        Self {
            max_image_bytes: 5 << 20,
            max_image_pixels: 1_150_000,
            max_pdf_bytes: 10 << 20,
            max_total_bytes: 14 << 20,
        }
    }
}

/// The caps, and the kinds of media the session's model takes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MediaSettings {
    pub limits: MediaLimits,
    /// What the provider takes (`[providers.NAME] media`); none for a session without a
    /// model.
    pub accepted: Vec<MediaKind>,
}

/// Widest or tallest image airlock decodes, in pixels.
const MAX_DECODE_SIDE: u32 = 20_000;
/// Most memory the decoder may take for one image: a 20-megapixel RGBA image is 80 MiB.
const MAX_DECODE_ALLOC: u64 = 256 << 20;
/// The JPEG quality of a scaled-down image.
const JPEG_QUALITY: u8 = 85;
/// How often an image still over the byte cap is scaled down again, to half its pixels.
const MAX_SHRINKS: u32 = 4;

/// The bounds every image is decoded within.
pub fn decode_limits() -> image::Limits {
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_DECODE_SIDE);
    limits.max_image_height = Some(MAX_DECODE_SIDE);
    limits.max_alloc = Some(MAX_DECODE_ALLOC);
    limits
}

/// The width and height an image's header claims, without decoding its pixels.
pub fn image_size(data: &[u8]) -> Option<(u32, u32)> {
    ImageReader::new(Cursor::new(data)).with_guessed_format().ok()?.into_dimensions().ok()
}

/// `data` of type `mime_type` made ready for the model, or the text that stands in for it.
pub fn prepare(mime_type: &str, name: Option<String>, data: Bytes, limits: &MediaLimits) -> Result<Media, String> {
    let refuse = |why: String| stand_in(mime_type, name.as_deref(), data.len(), &why);
    match MediaKind::of(mime_type) {
        None => Err(refuse("airlock sends only PNG, JPEG, GIF and WebP images and PDFs".into())),
        Some(MediaKind::Pdf) if data.len() > limits.max_pdf_bytes => Err(refuse(format!(
            "it is over the {} KiB cap for a PDF ([media] max_pdf_bytes)",
            limits.max_pdf_bytes >> 10
        ))),
        Some(MediaKind::Pdf) => Ok(Media::new(mime_type, name, data)),
        Some(MediaKind::Image) => match image(&data, limits) {
            Ok(Sent::AsIs(mime)) => Ok(Media::new(mime, name, data)),
            Ok(Sent::Scaled { mime, bytes }) => Ok(Media::new(mime, name, bytes)),
            Err(why) => Err(refuse(why)),
        },
    }
}

/// [`prepare`] on a blocking thread, off the async runtime's workers.
pub async fn prepare_blocking(
    mime_type: String,
    name: Option<String>,
    data: Bytes,
    limits: MediaLimits,
) -> Result<Media, String> {
    let size = data.len();
    let (mime, shown) = (mime_type.clone(), name.clone());
    tokio::task::spawn_blocking(move || prepare(&mime_type, name, data, &limits))
        .await
        .unwrap_or_else(|error| Err(stand_in(&mime, shown.as_deref(), size, &format!("preparing it failed: {error}"))))
}

/// What becomes of an image that can be sent.
enum Sent {
    /// Its own bytes, of this (detected) type.
    AsIs(&'static str),
    /// Scaled down and re-encoded.
    Scaled { mime: &'static str, bytes: Bytes },
}

fn image(data: &[u8], limits: &MediaLimits) -> Result<Sent, String> {
    let mut reader = ImageReader::new(Cursor::new(data))
        .with_guessed_format()
        .map_err(|error| format!("it could not be read: {error}"))?;
    let format = reader.format().ok_or_else(|| "it is not an image airlock reads".to_string())?;
    let claimed = image_size(data);
    reader.limits(decode_limits());
    let image = reader.decode().map_err(|error| match (error, claimed) {
        (ImageError::Limits(_), Some((w, h))) => {
            format!(
                "it claims {w}x{h} pixels, more than airlock decodes ({MAX_DECODE_SIDE} a side, {} MiB)",
                MAX_DECODE_ALLOC >> 20
            )
        }
        (ImageError::Limits(_), None) => "it is larger than airlock decodes".to_string(),
        (error, _) => format!("it could not be decoded: {error}"),
    })?;
    let pixels = u64::from(image.width()) * u64::from(image.height());
    let sent_as_is = match format {
        ImageFormat::Png => Some("image/png"),
        ImageFormat::Jpeg => Some("image/jpeg"),
        ImageFormat::WebP => Some("image/webp"),
        // Gemini does not take GIF: it is re-encoded like an image too large.
        _ => None,
    };
    if let Some(mime) = sent_as_is
        && pixels <= limits.max_image_pixels
        && data.len() <= limits.max_image_bytes
    {
        return Ok(Sent::AsIs(mime));
    }
    let mut budget = limits.max_image_pixels.min(pixels);
    for _ in 0..=MAX_SHRINKS {
        let (mime, bytes) = scaled(&image, budget)?;
        if bytes.len() <= limits.max_image_bytes {
            return Ok(Sent::Scaled { mime, bytes: Bytes::from(bytes) });
        }
        budget /= 2;
    }
    Err(format!("scaled down, it is still over the {} KiB cap ([media] max_image_bytes)", limits.max_image_bytes >> 10))
}

/// `image` scaled to at most `budget` pixels (aspect kept) and encoded: PNG when it has
/// transparency, else JPEG.
fn scaled(image: &DynamicImage, budget: u64) -> Result<(&'static str, Vec<u8>), String> {
    let (width, height) = (u64::from(image.width()), u64::from(image.height()));
    let factor = (budget as f64 / (width * height) as f64).sqrt().min(1.0);
    // Both sides are at most MAX_DECODE_SIDE, so the products fit a u32.
    let side = |n: u64| ((n as f64 * factor).floor() as u32).max(1);
    let small = if factor < 1.0 { image.thumbnail_exact(side(width), side(height)) } else { image.clone() };
    let mut out = Vec::new();
    let failed = |error: ImageError| format!("it could not be re-encoded: {error}");
    if small.color().has_alpha() {
        DynamicImage::ImageRgba8(small.to_rgba8()).write_with_encoder(PngEncoder::new(&mut out)).map_err(failed)?;
        Ok(("image/png", out))
    } else {
        let encoder = JpegEncoder::new_with_quality(&mut out, JPEG_QUALITY);
        DynamicImage::ImageRgb8(small.to_rgb8()).write_with_encoder(encoder).map_err(failed)?;
        Ok(("image/jpeg", out))
    }
}

#[cfg(test)]
#[path = "mod_tests.rs"]
mod tests;
