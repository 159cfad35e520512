//! Character references (`&amp;`, `&#233;`, `&#xE9;`, `&copy`) decoded as the HTML
//! standard decodes them: every one of its 2,231 named references (`entities.rs`), the
//! legacy names also without their `;`, numbers in the C1 range read as windows-1252 (as
//! pages meant them), and anything else left as written.

use std::borrow::Cow;

use super::entities::ENTITIES;

/// Longest name a reference can have (`&CounterClockwiseContourIntegral;` is 33 bytes with
/// its `;`).
const LONGEST: usize = 32;
/// Longest legacy name (`frac34`, `middot`, `plusmn`: the ones that work without `;`).
const LONGEST_LEGACY: usize = 6;

/// `text` with its character references decoded. In an attribute value (`attribute`), a
/// legacy name without `;` followed by `=` or a letter or digit stays as written, since it
/// is likely a query string (`?a=1&copy=2`).
pub fn decode(text: &str, attribute: bool) -> Cow<'_, str> {
    if !text.contains('&') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at + 1..];
        let taken = if let Some(number) = rest.strip_prefix('#') {
            numeric(number, &mut out).map(|len| len + 1)
        } else {
            named(rest, attribute, &mut out)
        };
        match taken {
            Some(len) => rest = &rest[len..],
            None => out.push('&'),
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// Decodes the number after `&#` into `out`; the bytes it took, `;` included.
fn numeric(text: &str, out: &mut String) -> Option<usize> {
    let (digits, radix, skip) = match text.strip_prefix(['x', 'X']) {
        Some(hex) => (hex, 16, 1),
        None => (text, 10, 0),
    };
    let len = digits.bytes().take_while(|b| char::from(*b).is_digit(radix)).count();
    if len == 0 {
        return None;
    }
    // Past eight digits the number is out of Unicode's range whatever it is.
    let value = if len > 8 { u32::MAX } else { u32::from_str_radix(&digits[..len], radix).unwrap_or(u32::MAX) };
    let c = match value {
        0x80..=0x9f => windows_1252(value),
        0 => '\u{fffd}',
        _ => char::from_u32(value).unwrap_or('\u{fffd}'),
    };
    out.push(c);
    let semicolon = usize::from(digits[len..].starts_with(';'));
    Some(skip + len + semicolon)
}

/// What a page meant by a number in 0x80–0x9F: the windows-1252 character of that byte.
fn windows_1252(value: u32) -> char {
    let byte = [u8::try_from(value).unwrap_or(0)];
    let (text, _) = encoding_rs::WINDOWS_1252.decode_without_bom_handling(&byte);
    text.chars().next().unwrap_or('\u{fffd}')
}

/// Decodes the name after `&` into `out`; the bytes it took.
fn named(text: &str, attribute: bool, out: &mut String) -> Option<usize> {
    let run = text.bytes().take(LONGEST).take_while(u8::is_ascii_alphanumeric).count();
    if run == 0 {
        return None;
    }
    if text[run..].starts_with(';')
        && let Some(value) = lookup(&text[..=run])
    {
        out.push_str(value);
        return Some(run + 1);
    }
    // A legacy name without `;`, possibly followed by more letters (`&copy2024`).
    for len in (2..=run.min(LONGEST_LEGACY)).rev() {
        if let Some(value) = lookup(&text[..len]) {
            let next = text[len..].bytes().next();
            if attribute && next.is_some_and(|b| b == b'=' || b.is_ascii_alphanumeric()) {
                return None;
            }
            out.push_str(value);
            return Some(len);
        }
    }
    None
}

fn lookup(name: &str) -> Option<&'static str> {
    ENTITIES.binary_search_by(|(key, _)| key.cmp(&name)).ok().map(|at| ENTITIES[at].1)
}
