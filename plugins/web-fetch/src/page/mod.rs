//! A fetched page as text for the model: its bytes decoded in the encoding it is in
//! ([`charset`]), and HTML turned into Markdown ([`html`]).
//!
//! This module is also compiled natively, by path, by the fuzz targets (`fuzz/`) and the
//! corpus tests (`plugins/web-fetch/corpus/`): it needs nothing of the guest's.

pub mod charset;
mod entities;
pub mod html;
mod refs;
mod writer;

pub use html::to_markdown;

#[cfg(test)]
mod tests;
