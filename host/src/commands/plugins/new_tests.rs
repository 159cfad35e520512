use std::path::Path;

use super::{Lang, NewArgs, check_name, project_files, run};

#[test]
fn names_are_checked_before_anything_is_written() {
    for bad in ["", "Demo", "1demo", "de mo", "demo!", "../demo", "read-file", "read_file"] {
        assert!(check_name(bad).is_err(), "{bad:?} was accepted");
    }
    for good in ["demo", "csv-query", "a", "tool_2"] {
        assert!(check_name(good).is_ok(), "{good:?} was refused");
    }
}

#[test]
fn every_language_gets_its_template_the_contract_and_its_kit_with_placeholders_filled() {
    for lang in [Lang::Rust, Lang::Python, Lang::Js, Lang::C] {
        let files = project_files(lang, "my-demo");
        let paths: Vec<&str> = files.iter().map(|(p, ..)| p.as_str()).collect();
        assert!(paths.contains(&"wit/tool.wit") && paths.contains(&"wit/deps/host/host.wit"), "{lang:?}: {paths:?}");
        assert!(paths.contains(&"README.md") && paths.contains(&"build.sh"), "{lang:?}: {paths:?}");
        let build = files.iter().find(|(p, ..)| p == "build.sh").map(|(_, executable, _)| *executable);
        assert_eq!(build, Some(true), "{lang:?}: build.sh is executable");
        for (path, _, bytes) in &files {
            let text = String::from_utf8_lossy(bytes);
            assert!(!text.contains("{{name}}") && !text.contains("{{tool}}"), "{lang:?}: {path} keeps a placeholder");
        }
        let readme =
            files.iter().find(|(p, ..)| p == "README.md").map(|(_, _, b)| String::from_utf8_lossy(b).into_owned());
        assert!(readme.unwrap_or_default().contains("my-demo"), "{lang:?}: the README names the plugin");
    }
    let rust = project_files(Lang::Rust, "my-demo");
    let lib = rust.iter().find(|(p, ..)| p == "src/lib.rs").map(|(_, _, b)| String::from_utf8_lossy(b).into_owned());
    assert!(lib.unwrap_or_default().contains("\"my_demo\""), "the tool name is the plugin name with `_`");
    assert!(rust.iter().any(|(p, ..)| p == "sdk/src/lib.rs"), "the Rust SDK comes along");
    let c = project_files(Lang::C, "my-demo");
    let adapter = c.iter().find(|(p, ..)| p == "wasi_snapshot_preview1.reactor.wasm").map(|(_, _, b)| b.len());
    assert!(adapter.is_some_and(|n| n > 10_000), "the C project gets the WASI adapter");
}

#[test]
fn a_project_is_written_whole_into_a_new_folder_and_never_over_one_in_use() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let target = dir.path().join("demo");
    let args = NewArgs { name: "demo".into(), lang: Lang::Python, dir: Some(target.clone()) };
    let mut out = Vec::new();
    run(&args, Path::new("/nonexistent-workspace"), &mut out).unwrap_or_else(|e| panic!("{e}"));
    let said = String::from_utf8_lossy(&out);
    assert!(said.contains("./build.sh") && said.contains("airlock plugins check demo.wasm"), "{said}");
    assert!(target.join("wit/tool.wit").is_file() && target.join("README.md").is_file());
    // Nothing staged is left beside it.
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, vec!["demo".to_string()]);
    // A second run into the same folder is refused and changes nothing.
    std::fs::write(target.join("README.md"), "mine").unwrap_or_else(|e| panic!("{e}"));
    assert!(run(&args, Path::new("/nonexistent-workspace"), &mut Vec::new()).is_err_and(|e| e.is_usage()));
    assert_eq!(std::fs::read_to_string(target.join("README.md")).unwrap_or_default(), "mine");
}

#[test]
fn a_folder_of_the_workspace_that_is_a_link_leading_out_takes_no_project() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let root = dir.path().canonicalize().unwrap_or_else(|e| panic!("{e}"));
    let (workspace, outside) = (root.join("ws"), root.join("outside"));
    std::fs::create_dir_all(&workspace).unwrap_or_else(|e| panic!("{e}"));
    std::fs::create_dir_all(&outside).unwrap_or_else(|e| panic!("{e}"));
    std::os::unix::fs::symlink(&outside, workspace.join("tools")).unwrap_or_else(|e| panic!("{e}"));
    let args = NewArgs { name: "demo".into(), lang: Lang::C, dir: Some(workspace.join("tools/demo")) };
    let refused = run(&args, &workspace, &mut Vec::new());
    assert!(refused.is_err(), "a project went through the link");
    assert_eq!(std::fs::read_dir(&outside).map(Iterator::count).unwrap_or(99), 0);
    // A folder outside the workspace reached through the user's own link is theirs.
    std::os::unix::fs::symlink(&outside, root.join("mine")).unwrap_or_else(|e| panic!("{e}"));
    let args = NewArgs { name: "demo".into(), lang: Lang::C, dir: Some(root.join("mine/demo")) };
    run(&args, &workspace, &mut Vec::new()).unwrap_or_else(|e| panic!("{e}"));
    assert!(outside.join("demo/build.sh").is_file());
}
