use super::*;
use airlock_tests::images;

fn limits() -> MediaLimits {
    MediaLimits::default()
}

#[test]
fn a_small_png_goes_as_its_own_bytes() {
    let png = images::png(64, 48);
    let media = prepare("image/png", Some("a.png".into()), Bytes::from(png.clone()), &limits()).unwrap();
    assert_eq!(media.mime_type, "image/png");
    assert_eq!(&media.data[..], &png[..]);
    assert_eq!(media.name.as_deref(), Some("a.png"));
}

#[test]
fn a_20_megapixel_png_is_scaled_under_the_caps_keeping_its_aspect() {
    let png = images::png(5000, 4000);
    let limits = limits();
    let media = prepare("image/png", None, Bytes::from(png), &limits).unwrap();
    assert_eq!(media.mime_type, "image/jpeg", "an opaque image is re-encoded as JPEG");
    assert!(media.data.len() <= limits.max_image_bytes);
    let decoded = image::load_from_memory(&media.data).unwrap();
    let (w, h) = (decoded.width(), decoded.height());
    assert!(u64::from(w) * u64::from(h) <= limits.max_image_pixels, "{w}x{h}");
    assert!(u64::from(w) * u64::from(h) > limits.max_image_pixels * 9 / 10, "scaled no more than needed: {w}x{h}");
    assert!((w * 4).abs_diff(h * 5) <= 5, "5:4 kept: {w}x{h}");
}

#[test]
fn an_image_over_the_byte_cap_is_shrunk_until_it_fits() {
    let png = images::png(1000, 1000);
    let tight = MediaLimits { max_image_bytes: 40 << 10, ..limits() };
    let media = prepare("image/png", None, Bytes::from(png), &tight).unwrap();
    assert!(media.data.len() <= 40 << 10, "{}", media.data.len());
    assert!(image::load_from_memory(&media.data).is_ok());
}

#[test]
fn a_decompression_bomb_is_refused_before_it_is_allocated() {
    let bomb = images::bomb_png(100_000, 100_000);
    assert_eq!(image_size(&bomb), Some((100_000, 100_000)), "the header claims the size");
    let why = prepare("image/png", Some("bomb.png".into()), Bytes::from(bomb), &limits()).unwrap_err();
    assert!(why.contains("100000x100000") && why.contains("more than airlock decodes"), "{why}");
    assert!(why.starts_with("[image/png \"bomb.png\""), "{why}");
}

#[test]
fn a_header_within_the_sides_but_over_the_memory_bound_is_refused_too() {
    let bomb = images::bomb_png(19_000, 19_000);
    let why = prepare("image/png", None, Bytes::from(bomb), &limits()).unwrap_err();
    assert!(why.contains("more than airlock decodes"), "{why}");
}

#[test]
fn a_corrupt_image_is_stood_in() {
    let why =
        prepare("image/png", Some("broken.png".into()), Bytes::from(images::corrupt_png()), &limits()).unwrap_err();
    assert!(why.contains("could not be decoded"), "{why}");
    assert!(why.contains("not shown to the model"), "{why}");
}

#[test]
fn a_pdf_goes_as_it_is_under_its_cap_and_is_stood_in_over_it() {
    let pdf = images::pdf();
    let media = prepare("application/pdf", Some("d.pdf".into()), Bytes::from(pdf.clone()), &limits()).unwrap();
    assert_eq!(&media.data[..], &pdf[..]);
    let tight = MediaLimits { max_pdf_bytes: 100, ..limits() };
    let why = prepare("application/pdf", Some("d.pdf".into()), Bytes::from(pdf), &tight).unwrap_err();
    assert!(why.contains("max_pdf_bytes"), "{why}");
}

#[test]
fn a_type_no_wire_takes_is_stood_in() {
    let why = prepare("audio/wav", None, Bytes::from_static(b"RIFF"), &limits()).unwrap_err();
    assert!(why.starts_with("[audio/wav, 4 bytes, not shown to the model:"), "{why}");
}
