//! Holds the engine's modules to their own graph, which the crate graph cannot see: reads
//! every `engine/src/**/*.rs`, finds which top-level modules each top-level module uses
//! (`crate::NAME`, `crate::{a, b::c}` groups, `pub use`, and `super::` chains that climb to
//! the crate root) and which airlock crates below it names (`airlock_NAME`), and checks that
//! graph against the table under "## Which module may use which" in `lib.rs`'s `//!` doc —
//! the one source of truth — and that it has no cycle. Which crate may use which is the
//! compiler's (each crate's `Cargo.toml`); this test keeps only what is inside this one.
//!
//! Test code is left out (files declared `#[cfg(test)] mod …;` and inline
//! `#[cfg(test)] mod … { … }` blocks): tests may drive a module through its users. Every
//! file under `engine/src` must be reached from `lib.rs`, so no file escapes the check by
//! not being found.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The heading of the table's section in `lib.rs`.
const TABLE_HEADING: &str = "## Which module may use which";

/// One line of the table: the modules and the crates below one module may use.
#[derive(Debug, Default)]
struct Allowed {
    uses: BTreeSet<String>,
}

/// The airlock crates below the engine, as code names them (`airlock_files`): the
/// `airlock-*` dependencies of its `Cargo.toml`.
fn crates_below(manifest: &str) -> BTreeSet<String> {
    let manifest: toml::Table = manifest.parse().unwrap();
    let dependencies = manifest["dependencies"].as_table().unwrap();
    dependencies.keys().filter(|name| name.starts_with("airlock-")).map(|name| name.replace('-', "_")).collect()
}

/// Parses `//! - \`name\`: \`a\`, \`airlock_b\`` lines of the section.
fn parse_table(lib: &str) -> Result<BTreeMap<String, Allowed>, String> {
    let doc: Vec<&str> = lib.lines().map_while(|line| line.strip_prefix("//!")).map(str::trim).collect();
    let start = doc
        .iter()
        .position(|line| *line == TABLE_HEADING)
        .ok_or_else(|| format!("lib.rs has no `//! {TABLE_HEADING}` section"))?;
    let mut table = BTreeMap::new();
    for line in doc[start + 1..].iter().take_while(|line| !line.starts_with('#')) {
        let Some(entry) = line.strip_prefix("- `") else { continue };
        let (name, rest) = entry.split_once('`').ok_or_else(|| format!("bad table line: {line}"))?;
        let (_, uses) = rest.split_once(':').ok_or_else(|| format!("table line without `:`: {line}"))?;
        let uses = uses.split('`').skip(1).step_by(2).map(str::to_string).collect();
        let allowed = Allowed { uses };
        if table.insert(name.to_string(), allowed).is_some() {
            return Err(format!("`{name}` has two lines in the table"));
        }
    }
    Ok(table)
}

/// A source file and the top-level module it belongs to.
#[derive(Debug)]
struct SourceFile {
    /// Relative to `engine/src`.
    path: PathBuf,
    /// The top-level module, `None` for `lib.rs` itself.
    top: Option<String>,
    /// How many modules deep the file's module lies (`lib.rs`: 0, `agent/mod.rs`: 1).
    depth: usize,
    test_only: bool,
}

/// Walks the module tree from `lib.rs`, following `mod name;` declarations
/// (with `#[path]`), and marks what is declared under `#[cfg(test)]`.
fn module_files(src: &Path) -> Vec<SourceFile> {
    let mut files = Vec::new();
    let mut queue = vec![SourceFile { path: "lib.rs".into(), top: None, depth: 0, test_only: false }];
    while let Some(file) = queue.pop() {
        let text = std::fs::read_to_string(src.join(&file.path)).unwrap();
        let here = file.path.parent().unwrap_or(Path::new("")).to_path_buf();
        let name = file.path.file_stem().unwrap().to_string_lossy().into_owned();
        let children = if file.depth == 0 || name == "mod" { here.clone() } else { here.join(&name) };
        for declared in mod_declarations(&text) {
            let path = match &declared.path_attr {
                Some(path) => here.join(path),
                None if src.join(children.join(format!("{}.rs", declared.name))).is_file() => {
                    children.join(format!("{}.rs", declared.name))
                }
                None => children.join(&declared.name).join("mod.rs"),
            };
            let top = file.top.clone().or_else(|| Some(declared.name.clone()));
            let test_only = file.test_only || declared.test_only;
            queue.push(SourceFile { path, top, depth: file.depth + 1, test_only });
        }
        files.push(file);
    }
    files
}

#[derive(Debug)]
struct ModDeclaration {
    name: String,
    path_attr: Option<String>,
    test_only: bool,
}

/// The `mod name;` lines of a file, with the attributes just above each.
fn mod_declarations(text: &str) -> Vec<ModDeclaration> {
    let mut found = Vec::new();
    let mut attributes: Vec<&str> = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with("#[") {
            attributes.push(line);
            continue;
        }
        let item = ["pub(crate) ", "pub(super) ", "pub "].iter().fold(line, |l, p| l.strip_prefix(p).unwrap_or(l));
        if let Some(name) = item.strip_prefix("mod ").and_then(|rest| rest.strip_suffix(';')) {
            let path_attr = attributes
                .iter()
                .find_map(|a| a.strip_prefix("#[path = \"").and_then(|rest| rest.strip_suffix("\"]")))
                .map(str::to_string);
            let test_only = attributes.iter().any(|a| a.starts_with("#[cfg(test)]"));
            found.push(ModDeclaration { name: name.trim().to_string(), path_attr, test_only });
        }
        if !line.starts_with("///") {
            attributes.clear();
        }
    }
    found
}

/// `text` with comments blanked and string and char literals emptied, so only code is left.
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let rest = &chars[i..];
        if rest.starts_with(&['/', '/']) {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if rest.starts_with(&['/', '*']) {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i..].starts_with(&['/', '*']) {
                    depth += 1;
                    i += 2;
                } else if chars[i..].starts_with(&['*', '/']) {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else if rest[0] == 'r' && matches!(rest.get(1), Some('"' | '#')) && starts_raw_string(&chars[..i]) {
            let hashes = rest[1..].iter().take_while(|c| **c == '#').count();
            if rest.get(1 + hashes) != Some(&'"') {
                out.push('r');
                i += 1;
                continue;
            }
            i += 2 + hashes;
            while i < chars.len() && !(chars[i] == '"' && chars[i + 1..].iter().take(hashes).all(|c| *c == '#')) {
                i += 1;
            }
            i += 1 + hashes;
            out.push_str("\"\"");
        } else if rest[0] == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if rest[0] == '\'' && (rest.get(2) == Some(&'\'') || rest.get(1) == Some(&'\\')) {
            // A char literal ('x', '\n', '\'', '\u{1F600}'), not a lifetime.
            i += if rest[1] == '\\' { 3 } else { 2 };
            while i < chars.len() && chars[i] != '\'' {
                i += 1;
            }
            i += 1;
            out.push_str("' '");
        } else {
            out.push(rest[0]);
            i += 1;
        }
    }
    out
}

/// Whether an `r` after `before` starts a raw string (`r"`, `br"`), not ends a name.
fn starts_raw_string(before: &[char]) -> bool {
    match before {
        [] => true,
        [.., previous] if !is_ident(*previous) => true,
        [.., previous, 'b'] => !is_ident(*previous),
        ['b'] => true,
        _ => false,
    }
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Removes `#[cfg(test)] mod name { … }` blocks from code (comments already blanked).
fn without_test_blocks(code: &str) -> String {
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "#[cfg(test)]".len()..];
        let item = after.trim_start();
        let is_block = item.starts_with("mod ") && item.find('{').is_some_and(|b| item.find(';').is_none_or(|s| b < s));
        if !is_block {
            out.push_str("#[cfg(test)]");
            rest = after;
            continue;
        }
        let open = after.len() - item.len() + item.find('{').unwrap_or(0);
        let mut depth = 0;
        let mut end = after.len();
        for (index, c) in after[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + index + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// The identifier at the start of `text` (after spaces), if any.
fn leading_ident(text: &str) -> Option<&str> {
    let text = text.trim_start();
    let end = text.find(|c: char| !is_ident(c)).unwrap_or(text.len());
    (end > 0).then(|| &text[..end])
}

/// The top-level modules `code` names: after `crate::` (each top-level item of a
/// `crate::{…}` group counts), and after a `super::` chain that climbs from a module
/// `depth` deep to the root. Inline `mod x { … }` blocks add a level for `super`. And the
/// crates of `crates` it names, as whole words (a path, a `use`, an alias).
fn used_modules(code: &str, depth: usize, crates: &BTreeSet<String>) -> BTreeSet<String> {
    let mut used = BTreeSet::new();
    let mut inline_mods: Vec<usize> = Vec::new();
    let mut braces = 0usize;
    let bytes = code.as_bytes();
    let mut i = 0;
    while i < code.len() {
        let rest = &code[i..];
        let at_word = i == 0 || !is_ident(bytes[i - 1] as char);
        if rest.starts_with('{') {
            braces += 1;
        } else if rest.starts_with('}') {
            if inline_mods.last() == Some(&braces) {
                inline_mods.pop();
            }
            braces = braces.saturating_sub(1);
        } else if at_word && rest.starts_with("mod ") {
            let name = leading_ident(&rest[4..]).unwrap_or("");
            if rest[4..].trim_start()[name.len()..].trim_start().starts_with('{') {
                inline_mods.push(braces + 1);
            }
        } else if let Some(name) = at_word.then(|| crate_at(rest, crates)).flatten() {
            used.insert(name.to_string());
            i += name.len();
            continue;
        } else if at_word && rest.starts_with("crate::") {
            used.extend(path_heads(&rest["crate::".len()..]));
        } else if at_word && rest.starts_with("super::") {
            let mut climbed = 0;
            let mut tail = rest;
            while let Some(next) = tail.strip_prefix("super::") {
                climbed += 1;
                tail = next;
            }
            if climbed >= depth + inline_mods.len() {
                used.extend(path_heads(tail));
            }
            i += rest.len() - tail.len();
            continue;
        }
        i += rest.chars().next().map_or(1, char::len_utf8);
    }
    used.retain(|name| name != "self" && name != "super");
    used
}

/// The crate of `crates` that `text` starts with as a whole word, if any.
fn crate_at<'a>(text: &str, crates: &'a BTreeSet<String>) -> Option<&'a str> {
    crates
        .iter()
        .map(String::as_str)
        .find(|name| text.strip_prefix(name).is_some_and(|after| !after.starts_with(is_ident)))
}

/// The first names of a path's rest: `a::b` gives `a`; `{a, b::c, d::{e}}` gives a, b, d.
fn path_heads(rest: &str) -> Vec<String> {
    let rest = rest.trim_start();
    let Some(group) = rest.strip_prefix('{') else {
        return leading_ident(rest).map(str::to_string).into_iter().collect();
    };
    let mut heads = Vec::new();
    let mut depth = 0;
    let mut item_start = true;
    for (index, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => item_start = true,
            c if item_start && !c.is_whitespace() => {
                heads.extend(leading_ident(&group[index..]).map(str::to_string));
                item_start = false;
            }
            _ => {}
        }
    }
    heads
}

/// Top-level module → the modules it uses → the files that use each.
type Graph = BTreeMap<String, BTreeMap<String, BTreeSet<PathBuf>>>;

fn crate_graph(src: &Path, crates: &BTreeSet<String>) -> (Graph, Vec<SourceFile>) {
    let files = module_files(src);
    let tops: BTreeSet<String> = files.iter().filter_map(|f| f.top.clone()).collect();
    let mut graph = Graph::new();
    for file in files.iter().filter(|f| !f.test_only) {
        let Some(top) = &file.top else { continue };
        let code = without_test_blocks(&code_only(&std::fs::read_to_string(src.join(&file.path)).unwrap()));
        let uses = graph.entry(top.clone()).or_default();
        for used in used_modules(&code, file.depth, crates) {
            if used != *top && (tops.contains(&used) || crates.contains(&used)) {
                uses.entry(used).or_default().insert(file.path.clone());
            }
        }
    }
    (graph, files)
}

/// A cycle in `graph` as `a → b → … → a`, if there is one.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut cycle = path[at..].to_vec();
            cycle.push(node.to_string());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph.keys().find_map(|node| visit(node, graph, &mut Vec::new(), &mut done))
}

/// Everything wrong with `graph` against `table`, one message per problem.
fn problems(graph: &Graph, table: &BTreeMap<String, Allowed>, crates: &BTreeSet<String>) -> Vec<String> {
    let mut problems = Vec::new();
    for (module, uses) in graph {
        let Some(allowed) = table.get(module) else {
            problems.push(format!("`{module}` has no line in lib.rs's table ({TABLE_HEADING})"));
            continue;
        };
        for (used, files) in uses {
            if !allowed.uses.contains(used) {
                problems.push(format!("`{module}` may not use `{used}` (lib.rs's table), but {files:?} do"));
            }
        }
    }
    for (module, allowed) in table {
        if !graph.contains_key(module) {
            problems.push(format!("the table has a line for `{module}`, which is not a module of the crate"));
        }
        for used in allowed.uses.iter().filter(|used| !crates.contains(*used)) {
            if !table.contains_key(used) {
                problems
                    .push(format!("`{module}`'s line names `{used}`, neither a crate below nor a module with a line"));
            }
        }
    }
    let edges: BTreeMap<String, BTreeSet<String>> =
        graph.iter().map(|(module, uses)| (module.clone(), uses.keys().cloned().collect())).collect();
    if let Some(cycle) = find_cycle(&edges) {
        problems.push(format!("dependency circle: {}", cycle.join(" → ")));
    }
    problems
}

#[test]
fn modules_use_only_what_lib_rs_allows_and_form_no_circle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let table = parse_table(&std::fs::read_to_string(src.join("lib.rs")).unwrap()).unwrap();
    let crates = crates_below(&std::fs::read_to_string(src.join("../Cargo.toml")).unwrap());
    assert!(crates.contains("airlock_files") && crates.contains("airlock_model"), "{crates:?}");
    let (graph, files) = crate_graph(&src, &crates);
    let problems = problems(&graph, &table, &crates);
    assert!(problems.is_empty(), "the module graph breaks lib.rs's rules:\n{}", problems.join("\n"));
    // Every file is part of the walk: none escapes the check by not being found.
    let reached: BTreeSet<&Path> = files.iter().map(|f| f.path.as_path()).collect();
    let mut on_disk = Vec::new();
    let mut folders = vec![src.clone()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                on_disk.push(path.strip_prefix(&src).unwrap().to_path_buf());
            }
        }
    }
    let unreached: Vec<_> = on_disk.iter().filter(|p| !reached.contains(p.as_path())).collect();
    assert!(unreached.is_empty(), "files not reached from lib.rs: {unreached:?}");
    assert!(graph.len() > 10 && files.len() > 50, "the walk found too little: {graph:?}");
}

#[test]
fn finds_uses_in_groups_pub_use_super_chains_and_crates_but_not_in_comments_strings_or_tests() {
    let code = code_only(
        "use crate::{agent, model::{A, B}, self};\npub use crate::policy::X;\n\
         // crate::cli in a comment\nlet s = \"crate::frontends\"; let c = '\"'; let r = r#\"crate::session\"#;\n\
         fn f() { super::super::events::Event; }\nmod inner { fn g() { super::super::runtime::X; } }\n\
         let e = '\\''; let b = br\"\\\"; use crate::scheduler;\n\
         use airlock_files as files; let m = airlock_model::Message; let n = my_airlock_files;\n\
         let h = airlock_home; let x = airlock_modelx::Y;\n\
         // airlock_sandbox in a comment\nlet t = \"airlock_shell::x\";\n\
         #[cfg(test)]\nmod tests { use crate::testing; use airlock_process::Child; }",
    );
    let crates: BTreeSet<String> =
        ["airlock_files", "airlock_model", "airlock_process", "airlock_sandbox", "airlock_shell"]
            .map(String::from)
            .into();
    let used = used_modules(&without_test_blocks(&code), 2, &crates);
    let expected: BTreeSet<String> =
        ["agent", "model", "policy", "events", "scheduler", "airlock_files", "airlock_model"].map(String::from).into();
    assert_eq!(used, expected, "from {code}");
    // One level deeper, the same `super::super` stays inside the crate's module.
    assert!(!used_modules(&code, 3, &crates).contains("events"));
}

#[test]
fn a_circle_or_an_unlisted_use_is_reported_with_its_files() {
    let table = parse_table(
        "//! intro\n//! ## Which module may use which\n//!\n//! - `a`: `b`, `airlock_low`\n//! - `b`: `c`\n\
         //! - `c`: (none)\n",
    )
    .unwrap();
    // Each edge is (from, to, file).
    let graph = |edges: &[(&str, &str, &str)]| {
        let mut graph = Graph::new();
        for name in ["a", "b", "c"] {
            graph.entry(name.to_string()).or_default();
        }
        for (from, to, file) in edges {
            graph.entry(from.to_string()).or_default().entry(to.to_string()).or_default().insert(PathBuf::from(file));
        }
        graph
    };
    let crates = BTreeSet::from(["airlock_low".to_string()]);
    let none = Vec::<String>::new();
    let allowed = [("a", "b", "a/x.rs"), ("b", "c", "b/x.rs"), ("a", "airlock_low", "a/y.rs")];
    assert_eq!(problems(&graph(&allowed), &table, &crates), none);
    let circle = problems(&graph(&[("a", "b", "a/x.rs"), ("b", "c", "b/x.rs"), ("c", "a", "c/x.rs")]), &table, &crates);
    assert!(circle.iter().any(|p| p == "dependency circle: a → b → c → a"), "{circle:?}");
    assert!(circle.iter().any(|p| p.contains("`c` may not use `a`") && p.contains("c/x.rs")), "{circle:?}");
    // A crate below is allowed per module too: `c`'s line does not name it.
    let crate_use = problems(&graph(&[("c", "airlock_low", "c/z.rs")]), &table, &crates);
    assert!(
        crate_use.iter().any(|p| p.contains("`c` may not use `airlock_low`") && p.contains("c/z.rs")),
        "{crate_use:?}"
    );
    // A crate below needs no line of its own; a module does, and a crate that is not below
    // is neither.
    let unknown =
        parse_table("//! ## Which module may use which\n//! - `a`: `airlock_low`, `gone`, `airlock_gone`\n").unwrap();
    let report = problems(&graph(&[]), &unknown, &crates);
    assert!(report.iter().any(|p| p.contains("names `gone`, neither")), "{report:?}");
    assert!(report.iter().any(|p| p.contains("names `airlock_gone`, neither")), "{report:?}");
    assert!(!report.iter().any(|p| p.contains("`airlock_low`")), "{report:?}");
}
