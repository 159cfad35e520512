//! `[context]` and `[skills]` of `config.toml`: which context files are read, and whether
//! skills are offered.
//!
//! ```toml
//! [context]
//! file_names = ["AIRLOCK.md", "AGENTS.md"]   # the default; ["GEMINI.md"] for Gemini CLI's
//!
//! [skills]
//! enabled = true                             # the default
//! ```

use serde::Deserialize;

/// The names read when `file_names` is not set: airlock's own, then the one Codex and many
/// repositories use.
pub const DEFAULT_FILE_NAMES: [&str; 2] = ["AIRLOCK.md", "AGENTS.md"];

/// The most names `file_names` may hold.
const MAX_NAMES: usize = 16;

/// `[context]`.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContextSettings {
    /// The file names read in each context folder, in order (default `AIRLOCK.md`,
    /// `AGENTS.md`); an empty list reads none but the memory file.
    pub file_names: Option<Vec<String>>,
}

impl ContextSettings {
    /// The names to read.
    pub fn file_names(&self) -> Vec<String> {
        self.file_names.clone().unwrap_or_else(|| DEFAULT_FILE_NAMES.iter().map(|n| (*n).to_owned()).collect())
    }

    /// Each name must be a plain Markdown file name: no folder, no `..`, nothing hidden, and
    /// ending in `.md`. The names are also looked for in `$AIRLOCK_HOME`, and a trusted
    /// workspace's file may set them: without the `.md` rule, `file_names = ["config.toml"]`
    /// would send the user's own settings (provider headers included) to the model.
    pub fn check(&self) -> Result<(), String> {
        let names = self.file_names.as_deref().unwrap_or_default();
        if names.len() > MAX_NAMES {
            return Err(format!("context.file_names: at most {MAX_NAMES} names"));
        }
        for name in names {
            let plain = !name.is_empty()
                && name != "."
                && name != ".."
                && name.len() <= 255
                && !name.contains(['/', '\\', '\0'])
                && !name.chars().any(|c| c.is_control() || crate::sanitize::is_hidden(c));
            if !plain {
                let shown = crate::sanitize::line(name);
                return Err(format!("context.file_names: `{shown}` is not a plain file name (no `/`, no `..`)"));
            }
            if !name.to_ascii_lowercase().ends_with(".md") || name.len() == 3 {
                let shown = crate::sanitize::line(name);
                return Err(format!("context.file_names: `{shown}` is not a Markdown file name (NAME.md)"));
            }
        }
        Ok(())
    }
}

/// `[skills]`.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SkillSettings {
    /// Whether skills are found and offered (default on).
    pub enabled: Option<bool>,
}

impl SkillSettings {
    pub fn enabled(&self) -> bool {
        self.enabled.unwrap_or(true)
    }
}
