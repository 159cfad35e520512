//! Images and PDFs for the media tests: real PNGs made on the spot (any size, a gradient so
//! they do not compress to nothing), a PNG whose header claims a size nobody should decode
//! (a decompression bomb), a corrupt PNG, and a small PDF.

use image::codecs::png::{CompressionType, FilterType, PngEncoder};
use image::{ImageEncoder, RgbImage};

/// An RGB PNG of `width`×`height` pixels, encoded fast.
pub fn png(width: u32, height: u32) -> Vec<u8> {
    let image =
        RgbImage::from_fn(width, height, |x, y| image::Rgb([(x % 251) as u8, (y % 241) as u8, ((x ^ y) % 239) as u8]));
    let mut out = Vec::new();
    PngEncoder::new_with_quality(&mut out, CompressionType::Fast, FilterType::Sub)
        .write_image(image.as_raw(), width, height, image::ExtendedColorType::Rgb8)
        .expect("encoding a PNG in memory");
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
