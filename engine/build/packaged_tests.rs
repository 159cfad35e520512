use super::*;

/// A packaged `builtins/` folder holding `files`, with a `SHA256SUMS` naming each one's digest.
fn packaged(files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut sums = String::new();
    for (name, bytes) in files {
        fs::write(dir.path().join(name), bytes).unwrap();
        sums.push_str(&format!("{}  {name}\n", hex::encode(Sha256::digest(bytes))));
    }
    fs::write(dir.path().join(SUMS), sums).unwrap();
    dir
}

#[test]
fn embeds_the_listed_bytes_when_every_digest_matches() {
    let dir = packaged(&[("read_file.wasm", b"\0asm one"), ("glob.wasm", b"\0asm two")]);
    let out = tempfile::tempdir().unwrap();
    let found = checked_builtins(dir.path(), &["read_file", "glob"], out.path()).unwrap();
    assert_eq!(found, out.path());
    assert_eq!(fs::read(out.path().join("read_file.wasm")).unwrap(), b"\0asm one");
    assert_eq!(fs::read(out.path().join("glob.wasm")).unwrap(), b"\0asm two");
}

#[test]
fn refuses_a_built_in_whose_bytes_changed_naming_it_and_both_digests() {
    let dir = packaged(&[("read_file.wasm", b"\0asm one"), ("glob.wasm", b"\0asm two")]);
    fs::write(dir.path().join("glob.wasm"), b"\0asm tWo").unwrap();
    let out = tempfile::tempdir().unwrap();
    let error = checked_builtins(dir.path(), &["read_file", "glob"], out.path()).unwrap_err();
    assert!(error.contains("glob.wasm"), "{error}");
    assert!(error.contains(&hex::encode(Sha256::digest(b"\0asm two"))), "{error}");
    assert!(error.contains(&hex::encode(Sha256::digest(b"\0asm tWo"))), "{error}");
    assert!(!out.path().join("glob.wasm").exists(), "a changed built-in was copied for embedding");
}

#[test]
fn refuses_a_missing_built_in_naming_it() {
    let dir = packaged(&[("read_file.wasm", b"\0asm one"), ("glob.wasm", b"\0asm two")]);
    fs::remove_file(dir.path().join("glob.wasm")).unwrap();
    let out = tempfile::tempdir().unwrap();
    let error = checked_builtins(dir.path(), &["read_file", "glob"], out.path()).unwrap_err();
    assert!(error.contains("glob.wasm"), "{error}");
}

#[test]
fn refuses_a_built_in_the_sums_do_not_list() {
    let dir = packaged(&[("read_file.wasm", b"\0asm one")]);
    fs::write(dir.path().join("glob.wasm"), b"\0asm two").unwrap();
    let out = tempfile::tempdir().unwrap();
    let error = checked_builtins(dir.path(), &["read_file", "glob"], out.path()).unwrap_err();
    assert!(error.contains("glob.wasm is not listed"), "{error}");
}

#[test]
fn refuses_a_package_without_sums_saying_how_to_make_one() {
    let dir = packaged(&[("read_file.wasm", b"\0asm one")]);
    fs::remove_file(dir.path().join(SUMS)).unwrap();
    let out = tempfile::tempdir().unwrap();
    let error = checked_builtins(dir.path(), &["read_file"], out.path()).unwrap_err();
    assert!(error.contains("SHA256SUMS") && error.contains("dist/package.sh"), "{error}");
}

#[test]
fn refuses_sums_that_are_not_sha256sum_lines() {
    for bad in ["abc  read_file.wasm", &format!("{}read_file.wasm", "a".repeat(64)), &format!("{}  ", "A".repeat(64))] {
        let dir = packaged(&[("read_file.wasm", b"\0asm one")]);
        fs::write(dir.path().join(SUMS), bad).unwrap();
        let out = tempfile::tempdir().unwrap();
        let error = checked_builtins(dir.path(), &["read_file"], out.path()).unwrap_err();
        assert!(error.contains("line 1"), "{bad:?}: {error}");
    }
}

#[test]
fn reads_binary_mode_lines_as_sha256sum_writes_them() {
    let dir = packaged(&[]);
    let digest = hex::encode(Sha256::digest(b"\0asm one"));
    fs::write(dir.path().join("read_file.wasm"), b"\0asm one").unwrap();
    fs::write(dir.path().join(SUMS), format!("{digest} *read_file.wasm\n")).unwrap();
    let out = tempfile::tempdir().unwrap();
    checked_builtins(dir.path(), &["read_file"], out.path()).unwrap();
}
