//! [`Media`]: an image or a PDF on its way to the model — a tool's media part or a file the
//! user attached. Its bytes are a [`Bytes`], so the history, a request's encoding and the
//! session recorder share one copy rather than each holding its own.
//!
//! Invariants: the bytes are the file's as it will be sent (any downscaling happened before
//! a `Media` was made); in JSON (the session file) they are base64 under `data`, and a
//! record whose `data` is not valid base64 loads with no bytes, which every wire then
//! stands in by text ([`Media::stand_in`]) rather than failing the resume.

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use bytes::Bytes;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The kinds of media a wire may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MediaKind {
    /// `image/png`, `image/jpeg`, `image/gif`, `image/webp`.
    Image,
    /// `application/pdf`.
    Pdf,
}

impl MediaKind {
    /// The kind of `mime_type`, if airlock sends that type to a model at all.
    pub fn of(mime_type: &str) -> Option<MediaKind> {
        match mime_type {
            "image/png" | "image/jpeg" | "image/gif" | "image/webp" => Some(MediaKind::Image),
            "application/pdf" => Some(MediaKind::Pdf),
            _ => None,
        }
    }

    /// The name a stand-in and the configuration use.
    pub fn name(self) -> &'static str {
        match self {
            MediaKind::Image => "image",
            MediaKind::Pdf => "pdf",
        }
    }
}

/// An image or a PDF, with the bytes to send.
#[derive(Clone, PartialEq, Eq)]
pub struct Media {
    /// The media type (`image/png`, `application/pdf`, ...).
    pub mime_type: String,
    /// The file's name, when it has one (a user's attachment, a read file).
    pub name: Option<String>,
    /// The bytes as sent.
    pub data: Bytes,
}

impl Media {
    pub fn new(mime_type: impl Into<String>, name: Option<String>, data: impl Into<Bytes>) -> Self {
        Self { mime_type: mime_type.into(), name, data: data.into() }
    }

    /// What kind of media this is, if airlock sends its type at all.
    pub fn kind(&self) -> Option<MediaKind> {
        MediaKind::of(&self.mime_type)
    }

    /// The bytes as standard padded base64, as every wire takes them.
    pub fn base64(&self) -> String {
        STANDARD.encode(&self.data)
    }

    /// The text the model reads in the media's place: what it was, its size, and `why` it
    /// was not sent.
    pub fn stand_in(&self, why: &str) -> String {
        stand_in(&self.mime_type, self.name.as_deref(), self.data.len(), why)
    }
}

/// The text that names media not sent: `[image/png "a.png", 1234 bytes, not shown to the
/// model: why]`.
pub fn stand_in(mime_type: &str, name: Option<&str>, size: usize, why: &str) -> String {
    let name = name.map(|n| format!(" {n:?}")).unwrap_or_default();
    format!("[{mime_type}{name}, {size} bytes, not shown to the model: {why}]")
}

impl fmt::Debug for Media {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Media")
            .field("mime_type", &self.mime_type)
            .field("name", &self.name)
            .field("bytes", &self.data.len())
            .finish()
    }
}

/// The JSON shape of a [`Media`].
#[derive(Serialize, Deserialize)]
struct Record<'a> {
    mime_type: std::borrow::Cow<'a, str>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<std::borrow::Cow<'a, str>>,
    data: std::borrow::Cow<'a, str>,
}

impl Serialize for Media {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        Record {
            mime_type: self.mime_type.as_str().into(),
            name: self.name.as_deref().map(Into::into),
            data: self.base64().into(),
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Media {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let record = Record::deserialize(deserializer)?;
        let data = STANDARD.decode(record.data.as_bytes()).unwrap_or_default();
        Ok(Media {
            mime_type: record.mime_type.into_owned(),
            name: record.name.map(|n| n.into_owned()),
            data: Bytes::from(data),
        })
    }
}

impl Media {
    /// The media's kind when a wire can send it as it is, else why not (for the stand-in).
    pub(crate) fn sendable(&self) -> Result<MediaKind, &'static str> {
        let kind = self.kind().ok_or("airlock sends only PNG, JPEG, GIF and WebP images and PDFs")?;
        if self.data.is_empty() {
            return Err("its bytes were not kept");
        }
        Ok(kind)
    }

    /// Writes the bytes as a JSON string of base64 (which needs no escaping).
    pub(crate) fn write_base64(&self, out: &mut Vec<u8>, prefix: &str) {
        out.push(b'"');
        out.extend_from_slice(prefix.as_bytes());
        let start = out.len();
        out.resize(start + base64::encoded_len(self.data.len(), true).unwrap_or(0), 0);
        let written = STANDARD.encode_slice(&self.data, &mut out[start..]).unwrap_or(0);
        out.truncate(start + written);
        out.push(b'"');
    }
}
