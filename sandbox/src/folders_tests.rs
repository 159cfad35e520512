use std::fs;

use super::*;

/// A home folder laid out as a developer's: toolchains, caches, secrets, and a workspace.
struct Home {
    _root: tempfile::TempDir,
    home: PathBuf,
    workspace: PathBuf,
    airlock: PathBuf,
}

impl Home {
    fn new() -> Self {
        let root = tempfile::tempdir().expect("temp dir");
        let home = root.path().canonicalize().expect("canonical").join("u");
        for folder in [
            ".cargo/bin",
            ".cargo/registry",
            ".rustup/toolchains",
            ".pyenv/shims",
            ".nvm/versions/node/v20/bin",
            ".nvm/versions/node/v20/lib",
            ".ssh",
            ".aws",
            ".config/gcloud",
            ".npm/_cacache",
            ".airlock",
            "bin",
            "work/project/node_modules/.bin",
        ] {
            fs::create_dir_all(home.join(folder)).expect("folder");
        }
        for file in
            [".ssh/id_ed25519", ".aws/credentials", ".netrc", ".cargo/credentials.toml", ".gitconfig", ".bash_history"]
        {
            fs::write(home.join(file), "secret").expect("file");
        }
        let workspace = home.join("work/project");
        let airlock = home.join(".airlock");
        Self { _root: root, home, workspace, airlock }
    }

    fn env(&self, extra: &[(&str, &str)]) -> HostEnv {
        let path = format!(
            "{h}/.cargo/bin:{h}/.nvm/versions/node/v20/bin:relative/bin:{w}/node_modules/.bin:{h}:/nonexistent:/usr/bin",
            h = self.home.display(),
            w = self.workspace.display()
        );
        let home = self.home.display().to_string();
        let mut pairs: Vec<(&str, String)> = vec![("HOME", home), ("PATH", path)];
        pairs.extend(extra.iter().map(|(k, v)| (*k, (*v).to_owned())));
        let pairs: Vec<(&str, &str)> = pairs.iter().map(|(k, v)| (*k, v.as_str())).collect();
        HostEnv::from_pairs(&pairs)
    }

    fn view(&self, env: &HostEnv, settings: &Settings) -> CommandView {
        CommandView::detect(env, settings, std::slice::from_ref(&self.airlock), &self.workspace)
    }
}

#[test]
fn secrets_that_exist_are_hidden_and_airlock_home_always_is() {
    let home = Home::new();
    let view = home.view(&home.env(&[]), &Settings::default());
    for secret in [".ssh", ".aws", ".config/gcloud", ".netrc", ".cargo/credentials.toml", ".bash_history", ".airlock"] {
        assert!(view.hidden.contains(&home.home.join(secret)), "{secret} is not hidden: {:?}", view.hidden);
    }
    assert!(!view.hidden.contains(&home.home.join(".kube")), "a secret that does not exist is left out");
    assert!(view.is_hidden(&home.home.join(".ssh/id_ed25519")));
    assert!(!view.is_hidden(&home.home.join(".gitconfig")));
}

#[test]
fn the_user_adds_and_removes_secrets_but_never_unhides_airlock_home() {
    let home = Home::new();
    fs::write(home.home.join("token.txt"), "t").expect("file");
    let settings = Settings {
        hide: vec!["~/token.txt".into()],
        unhide: vec!["~/.netrc".into(), "~/.airlock".into()],
        ..Settings::default()
    };
    let view = home.view(&home.env(&[]), &settings);
    assert!(view.is_hidden(&home.home.join("token.txt")));
    assert!(!view.is_hidden(&home.home.join(".netrc")));
    assert!(view.is_hidden(&home.airlock), "airlock's own folders stay hidden");
}

#[test]
fn secrets_moved_by_their_variables_are_hidden_too() {
    let home = Home::new();
    let elsewhere = home.home.join("elsewhere");
    fs::create_dir_all(elsewhere.join("gnupg")).expect("folder");
    fs::write(elsewhere.join("creds"), "c").expect("file");
    let gnupg = elsewhere.join("gnupg").display().to_string();
    let creds = elsewhere.join("creds").display().to_string();
    let env = home.env(&[("GNUPGHOME", &gnupg), ("AWS_SHARED_CREDENTIALS_FILE", &creds)]);
    let view = home.view(&env, &Settings::default());
    assert!(view.is_hidden(&elsewhere.join("gnupg")));
    assert!(view.is_hidden(&elsewhere.join("creds")));
}

#[test]
fn a_workspace_inside_a_secret_folder_keeps_its_folder() {
    let home = Home::new();
    let workspace = home.home.join(".ssh/project");
    fs::create_dir_all(&workspace).expect("folder");
    let view =
        CommandView::detect(&home.env(&[]), &Settings::default(), std::slice::from_ref(&home.airlock), &workspace);
    assert!(!view.is_hidden(&workspace), "the user chose to work there");
    assert!(view.is_hidden(&home.home.join(".aws")));
}

#[test]
fn toolchains_and_path_folders_are_readable_but_not_the_home_or_the_workspace() {
    let home = Home::new();
    let view = home.view(&home.env(&[]), &Settings::default());
    for readable in [".cargo", ".rustup", ".pyenv", ".nvm", ".cargo/bin", ".nvm/versions/node/v20", ".gitconfig"] {
        assert!(view.read.contains(&home.home.join(readable)), "{readable} is not readable: {:?}", view.read);
    }
    assert!(!view.read.contains(&home.home), "the home folder itself is not a toolchain");
    assert!(!view.read.iter().any(|p| p.starts_with(&home.workspace)));
    assert!(!view.read.iter().any(|p| view.is_hidden(p)));
}

#[test]
fn path_keeps_the_users_folders_first_and_drops_relative_missing_home_and_workspace_ones() {
    let home = Home::new();
    let view = home.view(&home.env(&[]), &Settings::default());
    let folders: Vec<&str> = view.path.split(':').collect();
    let h = home.home.display().to_string();
    assert_eq!(folders[0], format!("{h}/.cargo/bin"));
    assert_eq!(folders[1], format!("{h}/.nvm/versions/node/v20/bin"));
    assert_eq!(folders[2], "/usr/bin");
    assert!(!folders.iter().any(|f| f.starts_with("relative") || *f == "/nonexistent" || *f == h));
    assert!(!folders.iter().any(|f| f.contains("node_modules")), "a repository's folder never joins PATH");
    for system in crate::SYSTEM_PATH.split(':') {
        assert_eq!(folders.iter().filter(|f| **f == system).count(), 1, "{system} once");
    }
}

#[test]
fn caches_that_exist_are_writable_and_the_user_can_replace_the_list() {
    let home = Home::new();
    let view = home.view(&home.env(&[]), &Settings::default());
    assert!(view.write.contains(&home.home.join(".cargo/registry")));
    assert!(view.write.contains(&home.home.join(".npm")));
    assert!(!view.write.contains(&home.home.join(".cache/pip")), "missing caches are not made");
    let settings = Settings { caches: Some(vec!["~/.npm".into()]), ..Settings::default() };
    let view = home.view(&home.env(&[]), &settings);
    assert_eq!(view.write, vec![home.home.join(".npm")]);
}

#[test]
fn toolchain_variables_pass_and_credentials_never_do() {
    let home = Home::new();
    let env = home.env(&[
        ("RUSTUP_HOME", "/opt/rustup"),
        ("GITHUB_TOKEN", "ghp_x"),
        ("AWS_SECRET_ACCESS_KEY", "k"),
        ("SSH_AUTH_SOCK", "/tmp/agent"),
        ("MY_TOOL_ROOT", "/opt/tool"),
        ("OPENAI_API_KEY", "sk"),
    ]);
    let settings = Settings { env: vec!["MY_TOOL_ROOT".into(), "GITHUB_TOKEN".into()], ..Settings::default() };
    let view = home.view(&env, &settings);
    let names: Vec<&str> = view.env.iter().map(|(k, _)| k.as_str()).collect();
    assert!(names.contains(&"RUSTUP_HOME") && names.contains(&"MY_TOOL_ROOT"), "{names:?}");
    for secret in ["GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "SSH_AUTH_SOCK", "OPENAI_API_KEY", "PATH", "HOME"] {
        assert!(!names.contains(&secret), "{secret} passed");
    }
}

#[test]
fn settings_refuse_credentials_and_relative_paths() {
    let token = Settings { env: vec!["NPM_TOKEN".into()], ..Settings::default() };
    assert!(token.check().is_err_and(|e| e.contains("NPM_TOKEN") && e.contains("credential")));
    let odd = Settings { env: vec!["A=B".into()], ..Settings::default() };
    assert!(odd.check().is_err());
    let relative = Settings { read: vec!["data".into()], ..Settings::default() };
    assert!(relative.check().is_err_and(|e| e.contains("data")));
    let fine =
        Settings { read: vec!["~/data".into(), "/srv/x".into()], env: vec!["MY_ROOT".into()], ..Settings::default() };
    assert!(fine.check().is_ok());
}

#[test]
fn names_that_look_like_credentials() {
    for name in
        ["GITHUB_TOKEN", "aws_secret_access_key", "SSH_AUTH_SOCK", "NPM_CONFIG__AUTH", "DB_PASSWORD", "GPG_PASSPHRASE"]
    {
        assert!(looks_like_credential(name), "{name}");
    }
    for name in ["CARGO_HOME", "PATH", "JAVA_HOME", "LANG", "GOFLAGS"] {
        assert!(!looks_like_credential(name), "{name}");
    }
}
