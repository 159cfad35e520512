//! The names one plugin goes by. A plugin has its own name (`word-count`, what grants are
//! keyed by), tool names (`word_count`) and a file (`word_count.wasm`); a person may type
//! any of them, or the plugin's name with `_` for `-`. [`find`] takes any of these and says
//! which plugin it belongs to.
//!
//! Invariants: a plugin's own name always wins (plugin names are unique in a registry); any
//! other name resolves only when it belongs to exactly one of the candidates — a name that
//! two plugins answer to (a tool each declares, a tool of one and the file of another) is
//! ambiguous, never resolved by order, so a grant cannot land on a plugin the user did not
//! mean. Candidates are chosen by the caller: a policy file's names resolve only among the
//! plugins that file governs.

use std::sync::Arc;

use super::Plugin;

/// How a name matched a plugin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum How {
    /// The plugin's own name.
    Name,
    /// The plugin's name with `_` and `-` swapped.
    Spelling,
    /// One of its tools.
    Tool,
    /// Its file (`x.wasm`), with or without `.wasm`.
    File,
}

/// The plugin a name belongs to.
#[derive(Debug, Clone)]
pub struct Found<'a> {
    pub plugin: &'a Arc<Plugin>,
    pub how: How,
}

impl Found<'_> {
    /// "`word_count` is a tool of plugin `word-count`", or `None` for the plugin's own name.
    pub fn note(&self, name: &str) -> Option<String> {
        let plugin = &self.plugin.info.name;
        match self.how {
            How::Name => None,
            How::Spelling => Some(format!("`{name}` is plugin `{plugin}`")),
            How::Tool => Some(format!("`{name}` is a tool of plugin `{plugin}`")),
            How::File => Some(format!("`{name}` is the file of plugin `{plugin}`")),
        }
    }
}

/// Why a name does not give one plugin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NameError {
    /// No candidate answers to it; the closest plugin's name, if one is close.
    Unknown { suggestion: Option<String> },
    /// Several do: each plugin's name and why it answers.
    Ambiguous(Vec<String>),
}

impl NameError {
    /// One sentence about `name`, for messages.
    pub fn describe(&self, name: &str) -> String {
        match self {
            Self::Unknown { suggestion: Some(close) } => {
                format!("no plugin is named `{name}` (did you mean `{close}`?)")
            }
            Self::Unknown { suggestion: None } => format!("no plugin is named `{name}`"),
            Self::Ambiguous(plugins) => {
                format!("`{name}` names more than one plugin: {}; give the plugin's own name", plugins.join(", "))
            }
        }
    }
}

/// The file name of `plugin` and its stem.
fn file_names(plugin: &Plugin) -> (String, String) {
    let file = plugin.source.file_name();
    let stem = file.strip_suffix(".wasm").unwrap_or(&file).to_string();
    (file, stem)
}

/// How `name` matches `plugin` other than by its own name, if at all.
fn alias(plugin: &Plugin, name: &str) -> Option<How> {
    let (file, stem) = file_names(plugin);
    if plugin.info.tools.iter().any(|t| t.name == name) {
        Some(How::Tool)
    } else if file == name || stem == name {
        Some(How::File)
    } else if plugin.info.name.replace('_', "-") == name.replace('_', "-") {
        Some(How::Spelling)
    } else {
        None
    }
}

/// The one plugin among `plugins` that `name` belongs to.
pub fn find<'a>(plugins: &[&'a Arc<Plugin>], name: &str) -> Result<Found<'a>, NameError> {
    if let Some(plugin) = plugins.iter().find(|p| p.info.name == name) {
        return Ok(Found { plugin, how: How::Name });
    }
    let matches: Vec<Found<'a>> =
        plugins.iter().filter_map(|plugin| Some(Found { plugin, how: alias(plugin, name)? })).collect();
    match matches.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err(NameError::Unknown { suggestion: closest(plugins, name) }),
        many => Err(NameError::Ambiguous(
            many.iter()
                .map(|found| {
                    let why = match found.how {
                        How::Tool => format!("a tool of `{}`", found.plugin.info.name),
                        How::File => format!("the file of `{}`", found.plugin.info.name),
                        How::Name | How::Spelling => format!("plugin `{}`", found.plugin.info.name),
                    };
                    format!("{why} ({})", found.plugin.source.display())
                })
                .collect(),
        )),
    }
}

/// How far apart two names are: the Levenshtein distance in chars (`strsim`), which counts
/// an insertion, a deletion or a substitution as one edit.
fn distance(a: &str, b: &str) -> usize {
    strsim::levenshtein(a, b)
}

/// Whether `name` is close enough to `candidate` to suggest it: at most half the longer of
/// the two names away, so `cd` never suggests `ls` but `read_fil` suggests `read_file`.
fn close(name: &str, candidate: &str, distance: usize) -> bool {
    distance <= candidate.len().max(name.len()) / 2
}

/// The plugin whose name, tool or file stem is closest to `name`, if any is close.
fn closest(plugins: &[&Arc<Plugin>], name: &str) -> Option<String> {
    plugins
        .iter()
        .flat_map(|plugin| {
            let (_, stem) = file_names(plugin);
            let tools = plugin.info.tools.iter().map(|t| t.name.clone());
            std::iter::once(plugin.info.name.clone())
                .chain(tools)
                .chain(std::iter::once(stem))
                .map(move |candidate| (distance(name, &candidate), candidate, &plugin.info.name))
        })
        .filter(|(distance, candidate, _)| close(name, candidate, *distance))
        .min_by_key(|(distance, _, _)| *distance)
        .map(|(_, _, plugin)| plugin.clone())
}

/// The name among `candidates` closest to `name`, if one is close (see [`close`]).
pub fn closest_name<'a>(candidates: impl IntoIterator<Item = &'a str>, name: &str) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|candidate| (distance(name, candidate), candidate))
        .filter(|(distance, candidate)| close(name, candidate, *distance))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate)
}
