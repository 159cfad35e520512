//! Which encoding a fetched body is in, decided as a browser decides (the WHATWG HTML
//! standard's encoding sniffing): a byte order mark, then the `Content-Type` header's
//! `charset`, then for HTML a `<meta charset>` or `<meta http-equiv>` in the first 1024
//! bytes, then UTF-8. The body is then decoded with `encoding_rs`, the decoder Firefox
//! uses. Decoding never fails: a byte sequence the encoding does not know becomes U+FFFD.

use std::borrow::Cow;

use encoding_rs::{Encoding, UTF_8, WINDOWS_1252};

/// Bytes of an HTML page the `<meta>` prescan reads, as browsers do.
const PRESCAN: usize = 1024;

/// Where the encoding was learnt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    ByteOrderMark,
    Header,
    Meta,
    /// Nothing said: UTF-8.
    Default,
}

impl Source {
    /// Where the encoding was learnt, in words for the model.
    pub fn describe(self) -> &'static str {
        match self {
            Source::ByteOrderMark => "its byte order mark",
            Source::Header => "the Content-Type header",
            Source::Meta => "the page's <meta>",
            Source::Default => "nothing: UTF-8 is assumed",
        }
    }
}

/// A body decoded to text.
pub struct Decoded<'a> {
    pub text: Cow<'a, str>,
    pub encoding: &'static Encoding,
    pub source: Source,
}

/// Decodes `body`, served with the `Content-Type` header `content_type` (empty when there
/// was none); `html` says whether a `<meta>` in it may name its encoding.
pub fn decode<'a>(body: &'a [u8], content_type: &str, html: bool) -> Decoded<'a> {
    let (encoding, source, bytes) = if let Some((encoding, bom)) = Encoding::for_bom(body) {
        (encoding, Source::ByteOrderMark, &body[bom..])
    } else if let Some(encoding) = header_charset(content_type) {
        (encoding, Source::Header, body)
    } else if let Some(encoding) = html.then(|| prescan(&body[..body.len().min(PRESCAN)])).flatten() {
        (encoding, Source::Meta, body)
    } else {
        (UTF_8, Source::Default, body)
    };
    let (text, _) = encoding.decode_without_bom_handling(bytes);
    Decoded { text, encoding, source }
}

/// The encoding a `Content-Type` value's `charset` parameter names, if it names one.
fn header_charset(content_type: &str) -> Option<&'static Encoding> {
    content_type.split(';').skip(1).find_map(|parameter| {
        let (name, value) = parameter.split_once('=')?;
        if !name.trim().eq_ignore_ascii_case("charset") {
            return None;
        }
        Encoding::for_label(value.trim().trim_matches(['"', '\'']).as_bytes())
    })
}

/// The WHATWG "prescan a byte stream to determine its encoding": the first `<meta>` in
/// `head` (outside comments) that names a known encoding by `charset`, or by `content` with
/// `http-equiv="content-type"`.
fn prescan(head: &[u8]) -> Option<&'static Encoding> {
    let mut at = 0;
    while at < head.len() {
        let rest = &head[at..];
        if rest.starts_with(b"<!--") {
            // The `>` of a `-->`, which may share its dashes with the `<!--`.
            at += 2 + rest[2..].windows(3).position(|w| w == b"-->").map_or(rest.len(), |end| end + 3);
        } else if starts_with_ignore_case(rest, b"<meta") && rest.get(5).is_some_and(|&b| is_space(b) || b == b'/') {
            at += 5;
            if let Some(encoding) = meta(head, &mut at) {
                return Some(encoding);
            }
        } else if rest.len() > 1
            && (rest[1].is_ascii_alphabetic() || (rest[1] == b'/' && rest.get(2).is_some_and(u8::is_ascii_alphabetic)))
            && rest[0] == b'<'
        {
            // Another tag: its attributes are read past, so a `>` in a quoted value ends nothing.
            at += rest.iter().position(|&b| is_space(b) || b == b'>').unwrap_or(rest.len());
            while attribute(head, &mut at).is_some() {}
        } else if rest.starts_with(b"<!") || rest.starts_with(b"</") || rest.starts_with(b"<?") {
            at += rest.iter().position(|&b| b == b'>').map_or(rest.len(), |end| end + 1);
        } else {
            at += 1;
        }
    }
    None
}

/// The attributes of one `<meta>` from `at`: the encoding it declares, if it declares one.
fn meta(head: &[u8], at: &mut usize) -> Option<&'static Encoding> {
    let mut seen: Vec<Vec<u8>> = Vec::new();
    let mut pragma = false;
    let mut need_pragma = None;
    let mut charset = None;
    while let Some((name, value)) = attribute(head, at) {
        if seen.contains(&name) {
            continue;
        }
        match name.as_slice() {
            b"http-equiv" => pragma |= value.eq_ignore_ascii_case(b"content-type"),
            b"content" if charset.is_none() => {
                if let Some(label) = charset_in_content(&value) {
                    charset = Encoding::for_label(label);
                    need_pragma = Some(true);
                }
            }
            b"charset" => {
                charset = Encoding::for_label(&value);
                need_pragma = Some(false);
            }
            _ => {}
        }
        seen.push(name);
    }
    let charset = match need_pragma {
        Some(true) if pragma => charset?,
        Some(false) => charset?,
        _ => return None,
    };
    // A page that says UTF-16 in ASCII is not UTF-16; `x-user-defined` is read as windows-1252.
    Some(match charset.name() {
        "UTF-16LE" | "UTF-16BE" => UTF_8,
        "x-user-defined" => WINDOWS_1252,
        _ => charset,
    })
}

/// The next attribute from `at` (its name lower-cased), or `None` at the tag's end.
fn attribute(head: &[u8], at: &mut usize) -> Option<(Vec<u8>, Vec<u8>)> {
    while head.get(*at).is_some_and(|&b| is_space(b) || b == b'/') {
        *at += 1;
    }
    if head.get(*at).is_none_or(|&b| b == b'>') {
        return None;
    }
    let start = *at;
    *at += 1;
    while head.get(*at).is_some_and(|&b| !is_space(b) && !matches!(b, b'=' | b'>' | b'/')) {
        *at += 1;
    }
    let name = head[start..*at].to_ascii_lowercase();
    while head.get(*at).is_some_and(|&b| is_space(b)) {
        *at += 1;
    }
    if head.get(*at) != Some(&b'=') {
        return Some((name, Vec::new()));
    }
    *at += 1;
    while head.get(*at).is_some_and(|&b| is_space(b)) {
        *at += 1;
    }
    let value = match head.get(*at) {
        Some(&quote @ (b'"' | b'\'')) => {
            let from = *at + 1;
            let end = head[from..].iter().position(|&b| b == quote).map_or(head.len(), |e| from + e);
            *at = (end + 1).min(head.len());
            &head[from..end]
        }
        _ => {
            let from = *at;
            while head.get(*at).is_some_and(|&b| !is_space(b) && b != b'>') {
                *at += 1;
            }
            &head[from..*at]
        }
    };
    Some((name, value.to_ascii_lowercase()))
}

/// The label after `charset=` in a `content` value (`text/html; charset=gbk`).
fn charset_in_content(content: &[u8]) -> Option<&[u8]> {
    let mut rest = content;
    loop {
        let at = rest.windows(7).position(|w| w.eq_ignore_ascii_case(b"charset"))?;
        rest = trim_start(&rest[at + 7..]);
        if let Some(value) = rest.strip_prefix(b"=") {
            rest = trim_start(value);
            break;
        }
    }
    match rest.first() {
        Some(&quote @ (b'"' | b'\'')) => {
            let end = rest[1..].iter().position(|&b| b == quote)?;
            Some(&rest[1..1 + end])
        }
        Some(_) => Some(&rest[..rest.iter().position(|&b| is_space(b) || b == b';').unwrap_or(rest.len())]),
        None => None,
    }
}

fn trim_start(bytes: &[u8]) -> &[u8] {
    &bytes[bytes.iter().position(|&b| !is_space(b)).unwrap_or(bytes.len())..]
}

fn starts_with_ignore_case(bytes: &[u8], prefix: &[u8]) -> bool {
    bytes.get(..prefix.len()).is_some_and(|head| head.eq_ignore_ascii_case(prefix))
}

fn is_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ')
}
