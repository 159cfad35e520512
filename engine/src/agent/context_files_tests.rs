//! Unit tests of `context_files.rs`.

use super::*;

#[test]
fn folders_run_from_home_through_the_workspace_down_to_the_current_one() {
    let home = Path::new("/h/.airlock");
    let memory = Path::new("/h/.airlock/memory");
    let workspace = Path::new("/w");
    assert_eq!(
        folders(home, workspace, Some(Path::new("/w/a/b"))),
        [home, memory, workspace, Path::new("/w/a"), Path::new("/w/a/b")]
    );
    assert_eq!(folders(home, workspace, Some(Path::new("/elsewhere"))), [home, memory, workspace]);
    assert_eq!(folders(home, workspace, Some(workspace)), [home, memory, workspace]);
    assert_eq!(folders(home, workspace, None), [home, memory, workspace]);
    assert_eq!(MEMORY_FOLDER, crate::paths::MEMORY_DIR, "the memory tool writes where the loader reads");
}

#[test]
fn loads_files_in_order_and_cuts_them_at_the_caps() {
    let root = tempfile::tempdir().unwrap();
    let dirs: Vec<PathBuf> = ["home", "ws", "ws/sub", "ws/sub/empty"].iter().map(|d| root.path().join(d)).collect();
    for dir in &dirs {
        std::fs::create_dir_all(dir).unwrap();
    }
    std::fs::write(dirs[0].join(FILE_NAME), "home rules").unwrap();
    std::fs::write(dirs[1].join(FILE_NAME), "é".repeat(MAX_FILE_BYTES)).unwrap();
    std::fs::write(dirs[2].join(FILE_NAME), "x".repeat(MAX_FILE_BYTES + 10)).unwrap();
    let files = load(&dirs[0], &dirs[1], &dirs, &[FILE_NAME.to_owned()]);
    assert_eq!(files.len(), 3);
    assert_eq!((files[0].content.as_str(), files[0].cut.as_deref()), ("home rules", None));
    assert_eq!(files[1].size, 2 * MAX_FILE_BYTES);
    assert_eq!(files[1].content.len(), MAX_FILE_BYTES);
    assert!(files[1].cut.as_deref().unwrap().contains("one context file may hold"));
    let total: usize = files.iter().map(|f| f.content.len()).sum();
    assert_eq!(total, MAX_TOTAL_BYTES);
    assert!(files[2].cut.as_deref().unwrap().contains("all context files together"));

    let prompt = section(&files);
    let home = prompt.find("home rules").unwrap();
    let sub = prompt.find(&dirs[2].join(FILE_NAME).display().to_string()).unwrap();
    assert!(home < sub);
    assert!(prompt.contains("[… cut at"));
    assert_eq!(section(&[]), "");
}

#[test]
fn a_workspace_context_file_never_leads_out_of_it_and_never_blocks_or_floods() {
    let root = tempfile::tempdir().unwrap();
    let root = root.path().canonicalize().unwrap();
    let (home, ws) = (root.join("home"), root.join("ws"));
    for dir in [&home, &ws, &ws.join("a"), &ws.join("b"), &ws.join("c"), &ws.join("d"), &ws.join("e")] {
        std::fs::create_dir_all(dir).unwrap();
    }
    std::fs::write(root.join("secret"), "TOP-SECRET").unwrap();
    std::os::unix::fs::symlink(root.join("secret"), ws.join(FILE_NAME)).unwrap();
    std::os::unix::fs::symlink("../../secret", ws.join("a").join(FILE_NAME)).unwrap();
    std::os::unix::fs::symlink("/proc/self/environ", ws.join("b").join(FILE_NAME)).unwrap();
    rustix::fs::mkfifoat(rustix::fs::CWD, ws.join("c").join(FILE_NAME), rustix::fs::Mode::from_raw_mode(0o600))
        .unwrap();
    std::fs::File::create(ws.join("d").join(FILE_NAME)).unwrap().set_len(4 << 30).unwrap();
    std::os::unix::fs::symlink("/dev/zero", ws.join("e").join(FILE_NAME)).unwrap();
    let folders: Vec<PathBuf> = [&home, &ws, &ws.join("a"), &ws.join("b"), &ws.join("c"), &ws.join("d"), &ws.join("e")]
        .into_iter()
        .cloned()
        .collect();
    let files = load(&home, &ws, &folders, &[FILE_NAME.to_owned()]);
    let prompt = section(&files);
    assert!(!prompt.contains("TOP-SECRET"), "{prompt}");
    let cuts: Vec<&str> = files.iter().filter_map(|f| f.cut.as_deref()).collect();
    assert_eq!(cuts.iter().filter(|c| c.contains("symbolic link")).count(), 4, "{cuts:?}");
    assert!(cuts.iter().any(|c| c.contains("FIFO")), "{cuts:?}");
    // The sparse file is read only up to the cap, and says how large it claims to be.
    let sparse = files.iter().find(|f| f.path.starts_with(ws.join("d"))).unwrap();
    assert_eq!(sparse.size, 4 << 30);
    assert_eq!(sparse.content.len(), MAX_FILE_BYTES);
}

#[test]
fn the_users_own_context_file_may_be_a_link_but_is_still_bounded() {
    let root = tempfile::tempdir().unwrap();
    let root = root.path().canonicalize().unwrap();
    let (home, ws) = (root.join("home"), root.join("ws"));
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(root.join("mine.md"), "my rules").unwrap();
    std::os::unix::fs::symlink(root.join("mine.md"), home.join(FILE_NAME)).unwrap();
    let files = load(&home, &ws, &[home.clone(), ws.clone()], &[FILE_NAME.to_owned()]);
    assert_eq!(files.len(), 1);
    assert_eq!(files[0].content, "my rules");
    std::fs::remove_file(home.join(FILE_NAME)).unwrap();
    std::os::unix::fs::symlink("/dev/zero", home.join(FILE_NAME)).unwrap();
    let files = load(&home, &ws, &[home.clone(), ws.clone()], &[FILE_NAME.to_owned()]);
    assert!(files[0].cut.as_deref().unwrap().contains("character device"), "{files:?}");
}

#[test]
fn every_configured_name_is_read_in_each_folder_in_the_listed_order() {
    let root = tempfile::tempdir().unwrap();
    let root = root.path().canonicalize().unwrap();
    let (home, ws) = (root.join("home"), root.join("ws"));
    std::fs::create_dir_all(home.join(MEMORY_FOLDER)).unwrap();
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(ws.join("AGENTS.md"), "agents rules").unwrap();
    std::fs::write(ws.join(FILE_NAME), "airlock rules").unwrap();
    std::fs::write(home.join(MEMORY_FOLDER).join("AGENTS.md"), "not the memory file").unwrap();
    let folders = folders(&home, &ws, None);
    let names: Vec<String> = DEFAULT_FILE_NAMES.iter().map(|n| (*n).to_owned()).collect();
    let files = load(&home, &ws, &folders, &names);
    let contents: Vec<&str> = files.iter().map(|f| f.content.as_str()).collect();
    assert_eq!(contents, ["airlock rules", "agents rules"]);
    let gemini = load(&home, &ws, &folders, &["GEMINI.md".to_owned(), "AGENTS.md".to_owned()]);
    assert_eq!(gemini.iter().map(|f| f.content.as_str()).collect::<Vec<_>>(), ["agents rules"]);
    // The memory folder holds only airlock's own file, whatever the names.
    assert_eq!(candidates(&home, &folders, &names)[2], home.join(MEMORY_FOLDER).join(FILE_NAME));
    assert_eq!(candidates(&home, &folders, &names).len(), 5);
}
