//! Unit tests of `files.rs`.

use super::*;
use std::os::unix::fs::symlink;

fn tree() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join("ws/sub")).unwrap();
    std::fs::create_dir_all(root.join("outside")).unwrap();
    std::fs::write(root.join("ws/sub/file.txt"), "inside").unwrap();
    std::fs::write(root.join("outside/secret.txt"), "secret").unwrap();
    (dir, root)
}

#[test]
fn reads_a_regular_file_inside_and_refuses_links_anywhere_on_the_path() {
    let (_dir, root) = tree();
    let ws = open_dir(&root.join("ws")).unwrap();
    assert_eq!(read_file_in(&ws, Path::new("sub/file.txt"), 100).unwrap(), b"inside");
    symlink(root.join("outside/secret.txt"), root.join("ws/abs_link")).unwrap();
    symlink("../outside/secret.txt", root.join("ws/rel_link")).unwrap();
    symlink("../outside", root.join("ws/dir_link")).unwrap();
    symlink("sub/file.txt", root.join("ws/inner_link")).unwrap();
    for path in ["abs_link", "rel_link", "dir_link/secret.txt", "inner_link"] {
        let error = read_file_in(&ws, Path::new(path), 100).unwrap_err();
        assert!(matches!(error, FileError::Link), "{path}: {error:?}");
    }
    for path in ["../outside/secret.txt", "sub/../../outside/secret.txt", "/etc/passwd"] {
        let error = read_file_in(&ws, Path::new(path), 100).unwrap_err();
        assert!(matches!(error, FileError::BadPath), "{path}: {error:?}");
    }
    // A link among the folders of an absolute path is refused too.
    let error = read_file(&root.join("ws/dir_link/secret.txt"), 100).unwrap_err();
    assert!(matches!(error, FileError::Link), "{error:?}");
}

#[test]
fn refuses_fifos_devices_folders_and_oversized_files_without_blocking() {
    let (_dir, root) = tree();
    let ws = open_dir(&root.join("ws")).unwrap();
    rustix::fs::mkfifoat(rustix::fs::CWD, root.join("ws/fifo"), Mode::from_raw_mode(0o600)).unwrap();
    let error = read_file_in(&ws, Path::new("fifo"), 100).unwrap_err();
    assert!(matches!(error, FileError::NotRegular("FIFO")), "{error:?}");
    assert!(matches!(read_file_in(&ws, Path::new("sub"), 100).unwrap_err(), FileError::NotRegular("folder")));
    assert!(matches!(read_file(Path::new("/dev/zero"), 100).unwrap_err(), FileError::NotRegular(_)));
    std::fs::write(root.join("ws/big"), vec![b'x'; 101]).unwrap();
    assert!(matches!(read_file_in(&ws, Path::new("big"), 100).unwrap_err(), FileError::TooLarge { .. }));
    // A sparse file is refused by its size, before any byte is read.
    let sparse = File::create(root.join("ws/sparse")).unwrap();
    sparse.set_len(2 << 30).unwrap();
    assert!(matches!(
        read_file_in(&ws, Path::new("sparse"), 1 << 20).unwrap_err(),
        FileError::TooLarge { size, .. } if size == 2 << 30
    ));
}

#[test]
fn lists_a_folder_and_hashes_a_file_as_a_bounded_stream() {
    let (_dir, root) = tree();
    let ws = open_dir(&root.join("ws")).unwrap();
    std::fs::write(root.join("ws/a"), "abc").unwrap();
    let mut names = ws.entries().unwrap();
    names.sort();
    assert_eq!(names, ["a", "sub"]);
    let (file, stat) = ws.open_regular(OsStr::new("a")).unwrap();
    assert_eq!(
        sha256_bounded(&file, &stat, 3).unwrap(),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    assert!(matches!(sha256_bounded(&file, &stat, 2).unwrap_err(), FileError::TooLarge { .. }));
    // /proc files say they are empty and read on: the stream is cut at the limit.
    let (file, stat) = open_user_file(Path::new("/proc/self/pagemap")).unwrap();
    assert!(matches!(sha256_bounded(&file, &stat, 1 << 20), Err(FileError::TooLarge { .. } | FileError::Io(_))));
    // The user's own links are followed, but only to regular files.
    symlink(root.join("ws/a"), root.join("user_link")).unwrap();
    assert_eq!(read_user_file(&root.join("user_link"), 10).unwrap(), b"abc");
    symlink("/dev/zero", root.join("zero_link")).unwrap();
    assert!(matches!(read_user_file(&root.join("zero_link"), 10).unwrap_err(), FileError::NotRegular(_)));
}

#[test]
fn a_file_that_reads_past_its_size_is_cut_at_the_limit() {
    // `pagemap` is a regular file of size 0 that reads on for the whole address space.
    let path = PathBuf::from(format!("/proc/{}/pagemap", std::process::id()));
    let stat = rustix::fs::stat(&path).unwrap();
    assert_eq!((FileType::from_raw_mode(stat.st_mode), stat.st_size), (FileType::RegularFile, 0));
    // (pagemap refuses reads that are not a multiple of 8 bytes: either way, it stops.)
    let error = read_file(&path, 4096).unwrap_err();
    assert!(matches!(error, FileError::TooLarge { size: 4097, .. } | FileError::Io(_)), "{error:?}");
    let (file, stat) = open_user_file(&path).unwrap();
    assert_eq!(read_prefix(file, &stat, 4096).unwrap().0.len(), 4096);
}

#[test]
fn canonical_lenient_resolves_every_spelling_of_a_folder_alike() {
    let (_dir, root) = tree();
    symlink(root.join("ws"), root.join("ws_link")).unwrap();
    symlink(root.join("ws/sub"), root.join("outside/sub_link")).unwrap();
    let want = root.join("ws");
    for spelling in [
        root.join("ws"),
        root.join("ws_link"),
        root.join("ws/sub/.."),
        root.join("ws/./sub/../"),
        root.join("outside/sub_link/.."),
        root.join("outside/../ws_link"),
    ] {
        assert_eq!(canonical_lenient(&spelling), want, "{}", spelling.display());
    }
    assert_eq!(canonical_lenient(&root.join("ws_link/new/../new2/x")), root.join("ws/new2/x"));
}

#[test]
fn a_handle_keeps_naming_the_folder_it_opened_after_a_swap() {
    let (_dir, root) = tree();
    let sub = open_dir(&root.join("ws/sub")).unwrap();
    std::fs::rename(root.join("ws/sub"), root.join("ws/moved")).unwrap();
    symlink("../outside", root.join("ws/sub")).unwrap();
    // Opening by the handle's path (as wasmtime's preopens do) finds the folder we hold.
    let names: Vec<_> = std::fs::read_dir(sub.wasi_path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, ["file.txt"]);
    assert_eq!(read_file_in(&sub, Path::new("file.txt"), 100).unwrap(), b"inside");
    assert!(matches!(open_dir(&root.join("ws/sub")).unwrap_err(), FileError::Link));
}
