use std::path::{Path, PathBuf};

use super::helper::Failure;
use super::*;

#[test]
fn spec_survives_json() {
    let spec = Spec {
        argv: vec!["bash".into(), "-c".into(), "echo 'quoted \" text'\n".into()],
        cwd: PathBuf::from("/work/space"),
        env: vec![("PATH".into(), "/usr/bin".into()), ("EMPTY".into(), String::new())],
        read_write: vec![PathBuf::from("/work/space")],
        read_only: vec![PathBuf::from("/opt/sdk")],
        hidden: vec![PathBuf::from("/home/u/.ssh")],
        network: true,
        view: true,
    };
    let back: Spec = serde_json::from_str(&serde_json::to_string(&spec).expect("json")).expect("spec");
    assert_eq!(format!("{back:?}"), format!("{spec:?}"));
}

#[test]
fn support_reads_as_one_line() {
    let full = Support { landlock_abi: Some(7), seccomp: true };
    assert_eq!(full.to_string(), "Landlock ABI 7 + seccomp");
    let none = Support { landlock_abi: None, seccomp: true };
    assert!(none.to_string().starts_with("NO file-system sandbox: this kernel has no Landlock"));
    assert!(!Support { landlock_abi: None, seccomp: false }.to_string().contains('\n'));
}

#[test]
fn support_is_probed_on_this_machine() {
    let first = support();
    assert_eq!(first, support(), "probed once");
    // The machines this project runs on have Landlock; a probe that fails would hide it.
    assert!(first.landlock_abi.is_some_and(|abi| abi >= 1), "{first}");
    assert!(first.seccomp);
}

#[test]
fn seccomp_programs_build_for_every_network_mode() {
    let modes = [Network::None, Network::Loopback, Network::Full];
    let programs: Vec<_> = modes.iter().map(|mode| syscalls::programs(*mode, true).expect("filters")).collect();
    for program in programs.iter().flatten() {
        assert!(!program.is_empty() && program.len() < 4096);
    }
    assert_ne!(programs[0][0], programs[1][0], "a network namespace allows IP sockets");
    assert_ne!(programs[1][0], programs[2][0], "the machine's network changes the socket rule");
    let grouped = syscalls::programs(Network::Full, false).expect("filters");
    assert_ne!(grouped[0], programs[2][0], "without the view the process group is kept");
}

#[test]
fn a_spec_without_network_gets_its_own_loopback_only_in_the_view() {
    let spec = |network, view| Spec { network, view, ..Spec::default() };
    assert_eq!(spec(false, false).network_mode(), Network::None);
    assert_eq!(spec(false, true).network_mode(), Network::Loopback);
    assert_eq!(spec(true, false).network_mode(), Network::Full);
    assert_eq!(spec(true, true).network_mode(), Network::Full);
}

#[test]
fn a_granted_folder_holding_a_secret_is_granted_around_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let home = dir.path().canonicalize().expect("canonical");
    for folder in [".ssh", ".cargo/bin", ".cargo/registry", "src"] {
        std::fs::create_dir_all(home.join(folder)).expect("folder");
    }
    std::fs::write(home.join(".cargo/credentials.toml"), "token").expect("file");
    std::fs::write(home.join("notes"), "n").expect("file");
    std::os::unix::fs::symlink(home.join(".ssh"), home.join("keys")).expect("link");
    let hidden = vec![home.join(".ssh"), home.join(".cargo/credentials.toml")];
    let beneath = filesystem::Beneath::except(std::slice::from_ref(&home), &hidden);
    let mut covered = beneath.covered.clone();
    covered.sort();
    let expected: Vec<PathBuf> =
        [".cargo/bin", ".cargo/registry", "notes", "src"].iter().map(|p| home.join(p)).collect();
    assert_eq!(covered, expected, "everything but the secrets, and no link");
    assert_eq!(beneath.expanded, vec![home.clone(), home.join(".cargo")]);
    // A root inside a hidden path is dropped; one beside it is kept whole.
    let inside = filesystem::Beneath::except(&[home.join(".ssh")], &hidden);
    assert!(inside.covered.is_empty() && inside.expanded.is_empty());
    let beside = filesystem::Beneath::except(&[home.join("src")], &hidden);
    assert_eq!(beside.covered, vec![home.join("src")]);
}

#[cfg(target_arch = "x86_64")]
#[test]
fn seccomp_denies_x32_calls_right_after_the_arch_check() {
    let programs = syscalls::programs(Network::None, false).expect("filters");
    let guard = &programs[0][3..6];
    assert_eq!((guard[0].code, guard[0].k), (0x20, 0), "load the call number");
    assert_eq!((guard[1].code, guard[1].k), (0x35, 0x4000_0000), "x32 bit");
    assert_eq!((guard[2].code, guard[2].k), (0x06, 0x0005_0001), "EPERM");
}

#[test]
fn failures_map_to_shell_exit_codes() {
    assert_eq!(helper::exit_code_of(&Failure::NotFound("x".into())), 127);
    assert_eq!(helper::exit_code_of(&Failure::Exec("x".into(), std::io::ErrorKind::NotFound.into())), 127);
    assert_eq!(helper::exit_code_of(&Failure::Exec("x".into(), std::io::ErrorKind::PermissionDenied.into())), 126);
    assert_eq!(helper::exit_code_of(&Failure::Usage), 126);
    assert_eq!(helper::exit_code_of(&Failure::Landlock("x".into())), 126);
}

#[test]
fn programs_are_found_in_the_spec_path_only() {
    let dir = tempfile::tempdir().expect("temp dir");
    let spec = |argv: &str, path: &str| Spec {
        argv: vec![argv.into()],
        cwd: dir.path().to_path_buf(),
        env: vec![("PATH".into(), path.into())],
        ..Spec::default()
    };
    assert_eq!(helper::resolve(&spec("sh", "/nowhere:/bin")).expect("sh"), Path::new("/bin/sh"));
    assert!(matches!(helper::resolve(&spec("sh", "/nowhere")), Err(Failure::NotFound(_))));
    std::fs::write(dir.path().join("data"), "not a program").expect("file");
    assert!(matches!(helper::resolve(&spec("data", ".")), Err(Failure::NotFound(_))), "not executable");
    assert_eq!(helper::resolve(&spec("./data", "")).expect("with a slash"), Path::new("./data"));
    assert!(matches!(helper::resolve(&spec("./missing", "")), Err(Failure::NotFound(_))));
    let mut no_cwd = spec("sh", "/bin");
    no_cwd.cwd = dir.path().join("gone");
    assert!(matches!(helper::resolve(&no_cwd), Err(Failure::Cwd { .. })));
    assert!(matches!(helper::resolve(&Spec::default()), Err(Failure::NoProgram)));
}

#[test]
fn run_helper_is_inert_for_other_commands() {
    // The test binary's own arguments are not `__sandbox`.
    assert!(run_helper_if_asked().is_none());
}
