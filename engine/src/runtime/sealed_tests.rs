//! Unit tests of `sealed.rs`: the copy is exactly what was hashed, and nothing changes it.

use std::fs::OpenOptions;
use std::io::{Seek, SeekFrom};

use super::*;

const KEY: [u8; 32] = [7; 32];

/// A file holding `bytes`, opened for reading at its start.
fn source(dir: &tempfile::TempDir, bytes: &[u8]) -> (PathBuf, File) {
    let path = dir.path().join("entry");
    std::fs::write(&path, bytes).unwrap();
    let file = File::open(&path).unwrap();
    (path, file)
}

/// What the sealed memory file holds, read through its own name.
fn contents(code: &SealedCode) -> Vec<u8> {
    std::fs::read(code.path().expect("the memory file is reachable by name")).unwrap()
}

#[test]
fn the_copy_holds_exactly_the_bytes_hashed_and_their_length() {
    let dir = tempfile::tempdir().unwrap();
    // Larger than one chunk, and not a multiple of it.
    let bytes: Vec<u8> = (0..(CHUNK * 3 + 4321)).map(|i| (i % 251) as u8).collect();
    let (_, mut file) = source(&dir, &bytes);
    let mut hasher = blake3::Hasher::new_keyed(&KEY);
    let code = SealedCode::copy(&mut file, 1 << 30, &mut hasher).unwrap();
    assert_eq!(contents(&code), bytes);
    let expected =
        blake3::Hasher::new_keyed(&KEY).update(&bytes).update(&(bytes.len() as u64).to_le_bytes()).finalize();
    assert_eq!(hasher.finalize(), expected);
}

#[test]
fn the_copy_is_sealed_against_writes_truncation_growth_and_unsealing() {
    let dir = tempfile::tempdir().unwrap();
    let (_, mut file) = source(&dir, b"native code");
    let code = SealedCode::copy(&mut file, 1 << 20, &mut blake3::Hasher::new_keyed(&KEY)).unwrap();
    let all = SealFlags::WRITE | SealFlags::SHRINK | SealFlags::GROW | SealFlags::SEAL;
    assert_eq!(code.seals() & all, all);
    let path = code.path().unwrap();
    // Even this process, through a writable description of the same file, changes nothing.
    let mut writer = OpenOptions::new().write(true).open(&path).unwrap();
    assert!(writer.write_all(b"forged").is_err(), "a sealed file took a write");
    assert!(writer.set_len(3).is_err(), "a sealed file was truncated");
    assert!(writer.set_len(1 << 20).is_err(), "a sealed file grew");
    let unseal = rustix::fs::fcntl_add_seals(&writer, SealFlags::empty());
    assert!(unseal.is_err(), "the seals could be changed");
    // A shared writable mapping is refused too.
    // SAFETY: a fresh mapping of a file this test owns, unmapped at once if it was made.
    #[allow(unsafe_code)]
    let mapped = unsafe {
        rustix::mm::mmap(
            std::ptr::null_mut(),
            11,
            rustix::mm::ProtFlags::READ | rustix::mm::ProtFlags::WRITE,
            rustix::mm::MapFlags::SHARED,
            &writer,
            0,
        )
    };
    assert!(mapped.is_err(), "a sealed file was mapped shared and writable");
    assert_eq!(contents(&code), b"native code");
}

#[test]
fn a_cache_file_rewritten_after_the_copy_leaves_the_copy_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let original = vec![0xAB; CHUNK + 17];
    let (path, mut file) = source(&dir, &original);
    let code = SealedCode::copy(&mut file, 1 << 30, &mut blake3::Hasher::new_keyed(&KEY)).unwrap();
    // Rewritten in place (same inode), then truncated and grown: nothing reaches the copy.
    let mut writer = OpenOptions::new().write(true).open(&path).unwrap();
    writer.seek(SeekFrom::Start(0)).unwrap();
    writer.write_all(&vec![0xCD; CHUNK + 17]).unwrap();
    writer.set_len(5).unwrap();
    writer.set_len(1 << 20).unwrap();
    assert_eq!(contents(&code), original);
}

#[test]
fn a_source_past_the_limit_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (_, mut file) = source(&dir, &[1; 100]);
    let refused = SealedCode::copy(&mut file, 99, &mut blake3::Hasher::new_keyed(&KEY));
    assert!(matches!(refused, Err(CopyError::TooLarge { limit: 99 })));
}

#[test]
fn the_code_is_deserialised_from_the_sealed_file() {
    let engine = wasmtime::Engine::new(&super::super::code_config::code_config()).unwrap();
    let component = Component::new(&engine, wat::parse_str("(component)").unwrap()).unwrap();
    let native = component.serialize().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (_, mut file) = source(&dir, &native);
    let code = SealedCode::copy(&mut file, 1 << 30, &mut blake3::Hasher::new_keyed(&KEY)).unwrap();
    code.deserialize(&engine).unwrap();
    // Code that is not wasmtime's is refused by its header check, not run.
    let (_, mut file) = source(&dir, b"\x7fELF not really");
    let code = SealedCode::copy(&mut file, 1 << 30, &mut blake3::Hasher::new_keyed(&KEY)).unwrap();
    assert!(code.deserialize(&engine).is_err());
}
