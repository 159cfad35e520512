//! The languages code blocks are coloured in: each one's tree-sitter grammar, its
//! highlight queries (the ones the grammar crate ships) and the names a fence may give it.
//! A language's queries are compiled on its first use, once per process; a language whose
//! queries do not compile is treated as unknown, so its blocks are drawn plain.

use std::sync::OnceLock;

use tree_sitter::Language;
use tree_sitter_highlight::HighlightConfiguration;

/// What a highlight capture colours. The capture names the grammars use map to one of the
/// colours the theme has (`style.rs`); a capture not listed keeps its parent's colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Category {
    Plain,
    Keyword,
    Str,
    Comment,
    /// Numbers and the literal constants (`true`, `None`, `nil`): Rust's grammar captures
    /// its numbers as `constant.builtin` too.
    Number,
    /// Types, constructors and labels (Rust's lifetimes).
    Type,
}

/// The capture names recognised, in the order [`category`] reads them by index. A capture
/// such as `string.special.key` takes the longest listed name it starts with.
pub(super) const CAPTURES: &[(&str, Category)] = &[
    ("comment", Category::Comment),
    ("string", Category::Str),
    ("string.special", Category::Str),
    ("escape", Category::Str),
    ("number", Category::Number),
    ("boolean", Category::Number),
    ("constant.builtin", Category::Number),
    ("keyword", Category::Keyword),
    ("type", Category::Type),
    ("constructor", Category::Type),
    ("label", Category::Type),
];

/// The category of recognised capture `index`.
pub(super) fn category(index: usize) -> Category {
    CAPTURES.get(index).map_or(Category::Plain, |(_, category)| *category)
}

/// One language: the names a fence gives it, its grammar and its highlight queries
/// (concatenated, the first pattern that matches a node wins).
struct Grammar {
    names: &'static [&'static str],
    language: fn() -> Language,
    queries: &'static [&'static str],
}

/// TypeScript's queries add to JavaScript's, as the grammar's own `tree-sitter.json` says.
/// One grammar, TSX, reads both `.ts` and `.tsx`: it parses all of TypeScript but the old
/// `<T>value` casts, and a second grammar would add its parse tables to the binary.
const TS_QUERIES: &[&str] = &[
    tree_sitter_javascript::HIGHLIGHT_QUERY,
    tree_sitter_javascript::JSX_HIGHLIGHT_QUERY,
    tree_sitter_typescript::HIGHLIGHTS_QUERY,
];

const GRAMMARS: &[Grammar] = &[
    Grammar {
        names: &["rust", "rs"],
        language: || tree_sitter_rust::LANGUAGE.into(),
        queries: &[tree_sitter_rust::HIGHLIGHTS_QUERY],
    },
    Grammar {
        names: &["python", "py", "python3"],
        language: || tree_sitter_python::LANGUAGE.into(),
        queries: &[tree_sitter_python::HIGHLIGHTS_QUERY],
    },
    Grammar {
        names: &["javascript", "js", "jsx", "mjs", "cjs"],
        language: || tree_sitter_javascript::LANGUAGE.into(),
        queries: &[tree_sitter_javascript::HIGHLIGHT_QUERY, tree_sitter_javascript::JSX_HIGHLIGHT_QUERY],
    },
    Grammar {
        names: &["typescript", "ts", "tsx", "mts", "cts"],
        language: || tree_sitter_typescript::LANGUAGE_TSX.into(),
        queries: TS_QUERIES,
    },
    Grammar {
        names: &["go", "golang"],
        language: || tree_sitter_go::LANGUAGE.into(),
        queries: &[tree_sitter_go::HIGHLIGHTS_QUERY],
    },
    Grammar {
        names: &["c", "h"],
        language: || tree_sitter_c::LANGUAGE.into(),
        queries: &[tree_sitter_c::HIGHLIGHT_QUERY],
    },
    Grammar {
        names: &["sh", "bash", "shell", "zsh", "console", "shellsession"],
        language: || tree_sitter_bash::LANGUAGE.into(),
        queries: &[tree_sitter_bash::HIGHLIGHT_QUERY],
    },
    Grammar {
        names: &["json", "jsonc", "json5"],
        language: || tree_sitter_json::LANGUAGE.into(),
        queries: &[tree_sitter_json::HIGHLIGHTS_QUERY],
    },
    Grammar {
        names: &["toml"],
        language: || tree_sitter_toml_ng::LANGUAGE.into(),
        queries: &[tree_sitter_toml_ng::HIGHLIGHTS_QUERY],
    },
];

/// One compiled configuration per grammar, made on first use.
static CONFIGS: [OnceLock<Option<HighlightConfiguration>>; GRAMMARS.len()] =
    [const { OnceLock::new() }; GRAMMARS.len()];

/// The highlight configuration for the fence name `lang` (lowercase), or `None` when no
/// grammar knows it.
pub(super) fn config(lang: &str) -> Option<&'static HighlightConfiguration> {
    let index = GRAMMARS.iter().position(|g| g.names.contains(&lang))?;
    let grammar = &GRAMMARS[index];
    CONFIGS[index]
        .get_or_init(|| {
            let queries = grammar.queries.join("\n");
            let mut config =
                HighlightConfiguration::new((grammar.language)(), grammar.names[0], &queries, "", "").ok()?;
            let names: Vec<&str> = CAPTURES.iter().map(|(name, _)| *name).collect();
            config.configure(&names);
            Some(config)
        })
        .as_ref()
}

/// Every fence name a grammar answers to, for tests.
#[cfg(test)]
pub(super) fn names() -> impl Iterator<Item = &'static str> {
    GRAMMARS.iter().flat_map(|g| g.names.iter().copied())
}
