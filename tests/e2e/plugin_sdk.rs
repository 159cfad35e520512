//! The SDK as a plugin author meets it (issue 8, item 11): the plugin of
//! `plugin-sdk/rust/README.md` — the SDK's `examples/hello.rs`, kept equal to the README's own code
//! blocks — builds with the dependency line the README gives, from a folder outside the
//! checkout and from one inside it, and the component it builds loads and runs in the real
//! binary.

use std::path::{Path, PathBuf};
use std::process::Command;

use airlock_tests::kits::root;
use airlock_tests::{MockModel, Turn, Wire, call, function_responses};
use serde_json::{Value, json};

use crate::session;

/// Where the README's dependency line points; the test puts the real path there.
const SDK_PLACEHOLDER: &str = "/path/to/airlock/plugin-sdk/rust";

/// The fenced code blocks of `language` in `markdown`, in order.
fn blocks(markdown: &str, language: &str) -> Vec<String> {
    let fence = format!("```{language}");
    let mut found = Vec::new();
    let mut current: Option<String> = None;
    for line in markdown.lines() {
        match &mut current {
            None if line.trim_end() == fence => current = Some(String::new()),
            Some(text) if line.trim_end() == "```" => {
                found.push(std::mem::take(text));
                current = None;
            }
            Some(text) => {
                text.push_str(line);
                text.push('\n');
            }
            None => {}
        }
    }
    found
}

/// Writes the README's plugin into `dir` (one crate with both of its tools) and builds it
/// as the README says; returns the component.
fn build_readme_plugin(dir: &Path) -> PathBuf {
    let _slot = crate::shared();
    let readme =
        std::fs::read_to_string(root().join("plugin-sdk/rust/README.md")).unwrap_or_else(|e| panic!("README: {e}"));
    let manifest = blocks(&readme, "toml").into_iter().next().unwrap_or_else(|| panic!("no toml block"));
    assert!(manifest.contains(SDK_PLACEHOLDER), "the README's dependency line changed: {manifest}");
    let sdk = root().join("plugin-sdk/rust").canonicalize().unwrap_or_else(|e| panic!("plugin-sdk/rust: {e}"));
    let manifest = manifest.replace(SDK_PLACEHOLDER, &sdk.display().to_string());
    let rust = blocks(&readme, "rust");
    assert!(rust.len() >= 2, "the README has its two examples");
    // "in the same crate as `Hello` (`export_tools!(Hello, AppendLine)`)", as the README says.
    let hello = rust[0].replace("export_tools!(Hello);", "export_tools!(Hello, AppendLine);");
    assert_ne!(hello, rust[0], "the README's export line changed");
    // The SDK's `examples/hello.rs` (compiled by the SDK's own `cargo test`) is that crate,
    // character for character; it is what gets built here.
    let example = root().join("plugin-sdk/rust/examples/hello.rs");
    let source = std::fs::read_to_string(&example).unwrap_or_else(|e| panic!("{}: {e}", example.display()));
    assert!(
        source == format!("{hello}\n{}", rust[1]),
        "plugin-sdk/rust/examples/hello.rs must be the README's plugin: its first Rust block (exporting both \
         tools), a blank line, its second Rust block"
    );

    std::fs::create_dir_all(dir.join("src")).unwrap_or_else(|e| panic!("mkdir: {e}"));
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap_or_else(|e| panic!("write: {e}"));
    std::fs::write(dir.join("src/lib.rs"), source).unwrap_or_else(|e| panic!("write: {e}"));
    // The built-in tools' lock file pins the SDK's dependencies, so the build needs no
    // network (their crates are already in cargo's cache).
    std::fs::copy(root().join("plugins/Cargo.lock"), dir.join("Cargo.lock")).unwrap_or_else(|e| panic!("lock: {e}"));

    let target = root().join("target").join("wasm");
    let mut cargo = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cargo.args(["build", "--release", "--offline", "--target", "wasm32-wasip2"]).current_dir(dir);
    airlock_tests::kits::without_outer_cargo_env(&mut cargo);
    cargo.env("CARGO_TARGET_DIR", &target);
    let output = cargo.output().unwrap_or_else(|e| panic!("cannot run cargo: {e}"));
    assert!(
        output.status.success(),
        "the README's plugin does not build in {}:\n{}",
        dir.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    target.join("wasm32-wasip2/release/hello.wasm")
}

/// Installs `component` as the README says and has the model call both of its tools.
fn runs_in_airlock(component: &Path) {
    let s = session();
    s.install_plugin(&component.display().to_string());
    let listed = s.airlock(&MockModel::start(Wire::OpenAi), &["tools", "list", "--json"]);
    assert_eq!(listed.code, Some(0), "{}", listed.stderr);
    let tools: Value = serde_json::from_str(&listed.stdout).unwrap_or_else(|e| panic!("{e}: {}", listed.stdout));
    let names: Vec<&str> = tools["tools"].as_array().into_iter().flatten().filter_map(|t| t["name"].as_str()).collect();
    assert!(names.contains(&"hello") && names.contains(&"append_line"), "{names:?}");

    // As the README says: the user grants what `append_line` requests.
    let granted = s.airlock(&MockModel::start(Wire::OpenAi), &["plugins", "grant", "hello", "--write", "."]);
    assert_eq!(granted.code, Some(0), "{}", granted.stderr);
    s.write("notes.txt", "first");
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![
        call("hello", json!({"name": "World"})),
        call("append_line", json!({"file_path": "notes.txt", "line": "second"})),
    ]));
    mock.push_turn(Turn::text("done"));
    let done = s.airlock(&mock, &["-p", "greet and append", "--approval-mode", "auto-edit"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let responses = function_responses(&mock.requests()[1]);
    let text = serde_json::to_string(&responses).unwrap_or_default();
    assert!(text.contains("Hello, World!"), "{text}");
    assert!(text.contains("Appended a line to notes.txt"), "{text}");
    assert_eq!(s.read("notes.txt").as_deref(), Some("first\nsecond\n"));
}

#[test]
fn the_readme_plugin_builds_inside_and_outside_the_checkout_and_runs() {
    // Below the checkout's own workspace root: without the README's `[workspace]` line,
    // cargo refuses ("believes it's in a workspace when it's not").
    let inside = tempfile::tempdir_in(root().join("target")).unwrap_or_else(|e| panic!("tempdir: {e}"));
    assert!(build_readme_plugin(&inside.path().join("hello")).is_file());
    // Anywhere else. One test, built one after the other: both builds write `hello.wasm`
    // into the one target folder.
    let outside = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
    assert!(!outside.path().starts_with(root()), "the temporary folder must lie outside the checkout");
    let component = build_readme_plugin(&outside.path().join("hello"));
    runs_in_airlock(&component);
}

/// The files below `dir`, as paths relative to it, sorted.
fn files_below(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        for entry in std::fs::read_dir(&folder).unwrap_or_else(|e| panic!("{}: {e}", folder.display())).flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if let Ok(relative) = path.strip_prefix(dir) {
                found.push(relative.to_path_buf());
            }
        }
    }
    found.sort();
    found
}

#[test]
fn the_sdk_carries_the_released_contract_byte_for_byte() {
    let released = root().join("wit/since_v0.2.0");
    let carried = root().join("plugin-sdk/wit");
    let files = files_below(&released);
    assert!(files.iter().any(|f| f.ends_with("tool.wit")), "{files:?}");
    assert_eq!(files, files_below(&carried), "plugin-sdk/wit must hold exactly the files of wit/since_v0.2.0");
    for file in files {
        let read = |dir: &Path| std::fs::read(dir.join(&file)).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        assert!(
            read(&released) == read(&carried),
            "plugin-sdk/wit/{} differs from the released contract",
            file.display()
        );
    }
}
