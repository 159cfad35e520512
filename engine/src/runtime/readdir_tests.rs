use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs::{self, File};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::symlink;
use std::path::Path;

use super::*;

/// Every entry of `dir` through an [`EntryStream`], name to type; errors as `Err`.
fn listing(dir: &Path) -> Vec<Result<(String, DescriptorType), ErrorCode>> {
    let opened = File::open(dir).unwrap_or_else(|e| panic!("{e}"));
    let mut stream = EntryStream::open(&opened).unwrap_or_else(|e| panic!("{e:?}"));
    let mut out = Vec::new();
    loop {
        match stream.next_entry() {
            Ok(Some(entry)) => out.push(Ok((entry.name, entry.type_))),
            Ok(None) => return out,
            Err(code) => out.push(Err(code)),
        }
    }
}

fn named(dir: &Path) -> BTreeMap<String, DescriptorType> {
    listing(dir).into_iter().map(|entry| entry.unwrap_or_else(|e| panic!("{e:?}"))).collect()
}

#[test]
fn entries_come_with_their_own_type_and_links_are_never_followed() {
    let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let outside = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let ws = root.path();
    fs::write(ws.join("file.txt"), "x").unwrap_or_else(|e| panic!("{e}"));
    fs::create_dir(ws.join("sub")).unwrap_or_else(|e| panic!("{e}"));
    fs::write(outside.path().join("secret"), "s").unwrap_or_else(|e| panic!("{e}"));
    symlink(outside.path(), ws.join("out_dir")).unwrap_or_else(|e| panic!("{e}"));
    symlink(outside.path().join("secret"), ws.join("out_file")).unwrap_or_else(|e| panic!("{e}"));
    symlink("nowhere", ws.join("dangling")).unwrap_or_else(|e| panic!("{e}"));
    let got = named(ws);
    let want: BTreeMap<String, DescriptorType> = [
        ("dangling", DescriptorType::SymbolicLink),
        ("file.txt", DescriptorType::RegularFile),
        ("out_dir", DescriptorType::SymbolicLink),
        ("out_file", DescriptorType::SymbolicLink),
        ("sub", DescriptorType::Directory),
    ]
    .into_iter()
    .map(|(name, kind)| (name.to_string(), kind))
    .collect();
    assert_eq!(got, want, "no `.` or `..`, links reported as links");
}

#[test]
fn odd_names_come_back_whole_and_a_name_that_is_not_utf8_is_an_error_for_that_entry_only() {
    let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let ws = root.path();
    for name in ["new\nline", " lead space", "tab\there", "ü.rs"] {
        fs::write(ws.join(name), "x").unwrap_or_else(|e| panic!("{e}"));
    }
    fs::write(ws.join(OsStr::from_bytes(b"bad\xff")), "x").unwrap_or_else(|e| panic!("{e}"));
    let entries = listing(ws);
    assert_eq!(entries.len(), 5);
    let errors: Vec<_> = entries.iter().filter_map(|e| e.as_ref().err()).collect();
    assert!(matches!(errors.as_slice(), [ErrorCode::IllegalByteSequence]), "{entries:?}");
    let mut names: Vec<_> = entries.into_iter().filter_map(Result::ok).map(|(name, _)| name).collect();
    names.sort();
    assert_eq!(names, [" lead space", "new\nline", "tab\there", "ü.rs"]);
}

#[test]
fn a_large_directory_is_streamed_in_batches_and_every_entry_comes_once() {
    let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let ws = root.path();
    let count = 20_000;
    for n in 0..count {
        File::create(ws.join(format!("f{n:05}"))).unwrap_or_else(|e| panic!("{e}"));
    }
    let opened = File::open(ws).unwrap_or_else(|e| panic!("{e}"));
    let mut stream = EntryStream::open(&opened).unwrap_or_else(|e| panic!("{e:?}"));
    let mut seen = std::collections::HashSet::new();
    // An entry created after the listing began may or may not show, but none shows twice,
    // and the ones there from the start all show.
    File::create(ws.join("late")).unwrap_or_else(|e| panic!("{e}"));
    while let Some(entry) = stream.next_entry().unwrap_or_else(|e| panic!("{e:?}")) {
        assert_eq!(entry.type_, DescriptorType::RegularFile);
        assert!(seen.insert(entry.name.clone()), "{} twice", entry.name);
    }
    seen.remove("late");
    assert_eq!(seen.len(), count);
}

#[test]
fn a_file_descriptor_cannot_be_listed() {
    let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = root.path().join("f");
    fs::write(&path, "x").unwrap_or_else(|e| panic!("{e}"));
    let file = File::open(&path).unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(EntryStream::open(&file), Err(ErrorCode::NotDirectory)));
}
