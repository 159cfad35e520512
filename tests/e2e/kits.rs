//! Tools in any WASI language (issue 13): every language kit's example is built from
//! source by the kit's own `build.sh`, installed with `airlock plugins install`, and called
//! by the scripted model in the real binary. Each reads workspace files, so each is also
//! called before the user grants it the workspace: it then reads nothing, and says why.
//! The toolchains come from the kits' pinned manifests ([`airlock_tests::kits`]); the
//! Python and JavaScript components are compiled once per run (the tests share one compile
//! cache).

use std::path::PathBuf;

use airlock_tests::kits::{self, root};
use airlock_tests::{MockModel, Session, Turn, Wire, call, function_responses};
use serde_json::{Value, json};

use crate::session;

/// One kit's example.
struct Example {
    /// The kit's folder in `plugin-sdk/`.
    lang: &'static str,
    /// The example's folder in the kit's `examples/`.
    example: &'static str,
    /// The plugin's name, for `plugins grant`.
    plugin: &'static str,
    tool: &'static str,
    /// The workspace's files.
    files: &'static [(&'static str, &'static str)],
    args: Value,
    /// What the model must be told, granted.
    expect: &'static [&'static str],
}

/// The example's component, built from source.
fn build(example: &Example) -> PathBuf {
    let _slot = crate::shared();
    let kit = root().join("plugin-sdk").join(example.lang);
    let project = kit.join("examples").join(example.example);
    let inputs = [kit.clone(), root().join("plugin-sdk/wit")];
    kits::build(&format!("{}-{}", example.lang, example.example), &kit.join("build.sh"), &project, &inputs)
}

/// What the model was told of the one call of the run that `mock` served.
fn told(mock: &MockModel) -> String {
    let requests = mock.requests();
    let responses = requests.get(1).map(function_responses).unwrap_or_default();
    serde_json::to_string(&responses).unwrap_or_default()
}

fn runs_end_to_end(example: &Example) {
    let component = build(example);
    let s = session();
    for (path, content) in example.files {
        s.write(path, content);
    }
    let installed = {
        let mut command = s.bare_command();
        command.args(["plugins", "install"]).arg(&component);
        Session::run(command)
    };
    assert_eq!(installed.code, Some(0), "{}", installed.stderr);
    assert!(installed.stdout.contains(&format!("installed {}", example.plugin)), "{}", installed.stdout);

    // Not granted yet: the call reads nothing, and the model learns why.
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![call(example.tool, example.args.clone())]));
    mock.push_turn(Turn::text("noted"));
    let denied = s.airlock(&mock, &["-p", "use the tool"]);
    assert_eq!(denied.code, Some(0), "{}", denied.stderr);
    let text = told(&mock);
    for expected in example.expect {
        assert!(!text.contains(expected), "{}: read the workspace without a grant: {text}", example.tool);
    }
    let lower = text.to_lowercase();
    assert!(
        lower.contains("grant")
            || lower.contains("permission")
            || lower.contains("not found")
            || lower.contains("denied"),
        "{}: the model was not told why nothing was read: {text}",
        example.tool
    );

    // Granted the workspace, read-only, as `plugins check` said.
    let mut grant = s.bare_command();
    grant.args(["plugins", "grant", example.plugin, "--read", "."]).arg("--workspace").arg(&s.workspace);
    let granted = Session::run(grant);
    assert_eq!(granted.code, Some(0), "{}", granted.stderr);
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![call(example.tool, example.args.clone())]));
    mock.push_turn(Turn::text("done"));
    let done = s.airlock(&mock, &["-p", "use the tool"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let text = told(&mock);
    for expected in example.expect {
        assert!(text.contains(expected), "{}: the model was not told {expected:?}: {text}", example.tool);
    }
    // The terminal shows the model's answer, never what the tool wrote to its log.
    assert_eq!(done.stdout.trim(), "done", "{}", done.stdout);

    // Arguments the tool rejects come back as an error the model can act on.
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![call(example.tool, json!({"no_such_argument": 1}))]));
    mock.push_turn(Turn::text("ok"));
    let bad = s.airlock(&mock, &["-p", "use the tool badly"]);
    assert_eq!(bad.code, Some(0), "{}", bad.stderr);
    let text = told(&mock).to_lowercase();
    assert!(text.contains("error") || text.contains("invalid"), "{}: {text}", example.tool);
}

#[test]
fn the_rust_kits_word_count_runs_end_to_end() {
    runs_end_to_end(&Example {
        lang: "rust",
        example: "word_count",
        plugin: "word-count",
        tool: "word_count",
        files: &[("poem.txt", "one two three\nfour five\n"), ("notes/a.md", "# Title\n\nsome words here\n")],
        args: json!({"paths": ["poem.txt", "notes/a.md"]}),
        expect: &["poem.txt", "       2        5", "total"],
    });
}

#[test]
fn the_c_kits_checksum_runs_end_to_end() {
    runs_end_to_end(&Example {
        lang: "c",
        example: "checksum",
        plugin: "checksum",
        tool: "checksum",
        files: &[("hello.txt", "hello world\n"), ("empty.txt", "")],
        args: json!({"paths": ["hello.txt", "empty.txt"], "algorithm": "both"}),
        // As `sha256sum` and `zlib.crc32` say.
        expect: &[
            "af083b2d a948904f2f0f479b8f8197694b30184b0d2ed1c1cd2a1ec0fb85d299a192a447  hello.txt",
            "00000000 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  empty.txt",
        ],
    });
}

#[test]
fn the_c_kits_native_tests_pass() {
    let script = root().join("plugin-sdk/c/tests/run.sh");
    kits::run("plugin-sdk/c/tests/run.sh", std::process::Command::new("bash").arg(script));
}

#[test]
fn the_javascript_kits_markdown_toc_runs_end_to_end() {
    runs_end_to_end(&Example {
        lang: "js",
        example: "markdown_toc",
        plugin: "markdown-toc",
        tool: "markdown_toc",
        files: &[(
            "guide.md",
            "# Guide\n\nintro\n\n## Install it\n\n```sh\n# not a heading\n```\n\nUsage\n-----\n\n### Flags & options\n\n## Install it\n",
        )],
        args: json!({"file_path": "guide.md", "max_depth": 3}),
        expect: &["Guide (line 1)", "Install it (line 5)", "Usage (line 11)", "#flags--options", "#install-it-1"],
    });
}

#[test]
fn the_javascript_kits_own_tests_pass() {
    let kit = root().join("plugin-sdk/js");
    let out = kits::run(
        "node --test (plugin-sdk/js)",
        std::process::Command::new("node").args(["--test", "test/", "examples/"]).current_dir(&kit),
    );
    assert!(out.contains("# fail 0") && !out.contains("# pass 0"), "{out}");
}

#[test]
fn the_python_kits_csv_query_runs_end_to_end() {
    runs_end_to_end(&Example {
        lang: "python",
        example: "csv_query",
        plugin: "csv-query",
        tool: "csv_query",
        files: &[(
            "people.csv",
            "name,age,city\nAda,36,London\nGrace,45,New York\nKen,29,New Jersey\nLinus,54,Helsinki\n",
        )],
        args: json!({"file_path": "people.csv", "where": [{"column": "city", "op": "contains", "value": "New"}], "columns": ["name", "age"]}),
        expect: &["Grace", "Ken", "2 of 4 rows matched"],
    });
}

#[test]
fn the_python_kits_own_tests_pass() {
    let kit = root().join("plugin-sdk/python");
    for (folder, tests) in
        [(kit.clone(), "tests"), (kit.join("examples/csv_query"), "."), (kit.join("examples/http_and_process"), ".")]
    {
        let mut command = std::process::Command::new("python3");
        command
            .args(["-m", "unittest", "discover", "-v", "-s", tests])
            .current_dir(&folder)
            .env("PYTHONDONTWRITEBYTECODE", "1");
        let output = command.output().unwrap_or_else(|e| panic!("python3: {e}"));
        let report = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success() && report.contains("OK"), "{}: {report}", folder.display());
        assert!(!report.contains("Ran 0 tests"), "{}: {report}", folder.display());
    }
}
