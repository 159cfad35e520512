//! Images and PDFs a person attaches to a prompt: `@image.png` / `@doc.pdf` in the composer
//! or a `-p` prompt, and `--image PATH` on the command line. They go in the user turn as
//! [`Attachment`]s, base64, for the engine to check, scale down and send as image or
//! document parts.
//!
//! Invariants: an `@mention` is read under the rules of the text attachments
//! ([`airlock_door::queries::attachment_bytes`]: inside the workspace, no link followed out
//! of it, no FIFO blocked on); `--image` reads any regular file the user names, since naming
//! it on their own command line is the user's own act. Both stop at [`MAX_BYTES`], the
//! size `read_file` sends as media.

use std::io::Read as _;
use std::path::Path;

use airlock_protocol::Attachment;
use base64::Engine as _;

/// Most bytes of one attached image or PDF.
pub const MAX_BYTES: u64 = 10 << 20;

/// The media type of an image or PDF path, by its extension.
pub fn media_type(path: &str) -> Option<&'static str> {
    let extension = Path::new(path).extension()?.to_str()?.to_ascii_lowercase();
    match extension.as_str() {
        "png" => Some("image/png"),
        "jpg" | "jpeg" => Some("image/jpeg"),
        "gif" => Some("image/gif"),
        "webp" => Some("image/webp"),
        "pdf" => Some("application/pdf"),
        _ => None,
    }
}

/// The attachment of `mention`, a workspace path of an image or a PDF.
pub fn from_mention(workspace: &Path, mention: &str) -> Result<Attachment, String> {
    let mime_type = media_type(mention).ok_or("it is not an image or a PDF")?;
    let bytes = airlock_door::queries::attachment_bytes(workspace, mention, MAX_BYTES)?;
    Ok(attachment(mime_type, mention, &bytes))
}

/// The attachment of `--image PATH`: any regular file the user names, an image or a PDF.
pub fn from_path(path: &Path) -> Result<Attachment, String> {
    let shown = path.display().to_string();
    let mime_type = media_type(&shown).ok_or_else(|| format!("{shown} is not a PNG, JPEG, GIF, WebP or PDF file"))?;
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read {shown}: {e}"))?;
    let metadata = file.metadata().map_err(|e| format!("cannot read {shown}: {e}"))?;
    if !metadata.is_file() {
        return Err(format!("{shown} is not a file"));
    }
    let mut bytes = Vec::new();
    file.take(MAX_BYTES + 1).read_to_end(&mut bytes).map_err(|e| format!("cannot read {shown}: {e}"))?;
    if bytes.len() as u64 > MAX_BYTES {
        return Err(format!("{shown} is over {} MiB", MAX_BYTES >> 20));
    }
    let name = path.file_name().map_or(shown.clone(), |n| n.to_string_lossy().into_owned());
    Ok(attachment(mime_type, &name, &bytes))
}

/// The attachments of a headless prompt: its `@mentions` of images and PDFs, then each
/// `--image`. A mention that cannot be attached is a notice (the prompt goes as typed); an
/// `--image` that cannot is an error, since the user named it to be sent.
pub fn for_prompt(
    workspace: &Path,
    prompt: &str,
    images: &[std::path::PathBuf],
    notice: &mut dyn FnMut(String),
) -> Result<Vec<Attachment>, String> {
    let mut attachments = Vec::new();
    for mention in airlock_ui::composer::mentions(prompt).iter().filter(|m| media_type(m).is_some()) {
        match from_mention(workspace, mention) {
            Ok(attachment) => attachments.push(attachment),
            Err(why) => notice(format!("@{mention} not attached: {why}")),
        }
    }
    for path in images {
        attachments.push(from_path(path).map_err(|why| format!("--image: {why}"))?);
    }
    Ok(attachments)
}

fn attachment(mime_type: &str, name: &str, bytes: &[u8]) -> Attachment {
    Attachment {
        mime_type: mime_type.to_owned(),
        data: base64::engine::general_purpose::STANDARD.encode(bytes),
        name: Some(name.to_owned()),
    }
}
