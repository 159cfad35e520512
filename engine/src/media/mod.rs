//! Images and PDFs on their way to the model: what a tool returned or a user attached is
//! checked and, for images, decoded within bounds and scaled down, before it enters the
//! history as an [`airlock_model::Media`].

/// The width and height an image's header claims, without decoding its pixels.
pub fn image_size(data: &[u8]) -> Option<(u32, u32)> {
    image::ImageReader::new(std::io::Cursor::new(data)).with_guessed_format().ok()?.into_dimensions().ok()
}
