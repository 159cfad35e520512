//! `airlock completions SHELL` and `airlock man` (issue 30, item 1): the bash script, loaded
//! into a real `bash`, completes subcommands and a subcommand's flags; the zsh and fish
//! scripts parse in their shells when these are installed; the manual page renders and
//! names every command.

use std::path::Path;
use std::process::Command;

use airlock_tests::{Finished, Session};

use crate::session;

/// `airlock ARGS` with nothing loaded: a temporary home that is never written to.
fn airlock(s: &Session, args: &[&str]) -> Finished {
    let mut command = s.bare_command();
    command.args(args);
    Session::run(command)
}

/// Whether `program` runs here (`program --version` exits 0).
fn installed(program: &str) -> bool {
    Command::new(program).arg("--version").output().is_ok_and(|o| o.status.success())
}

/// What the function `script` registers for `airlock` puts in `COMPREPLY` when the command
/// line is `words` with the cursor at the end of the last word, as bash calls it on TAB.
fn bash_complete(script: &Path, words: &[&str]) -> Vec<String> {
    let line = words.join(" ");
    let program = r#"
source "$1" || exit 90
spec=$(complete -p airlock) || exit 91
function=$(sed -n 's/.*-F \([^ ]*\).*/\1/p' <<<"$spec")
[ -n "$function" ] || exit 92
shift
COMP_WORDS=("$@")
COMP_CWORD=$(( $# - 1 ))
COMP_LINE="$*"
COMP_POINT=${#COMP_LINE}
previous=""
[ "$COMP_CWORD" -gt 0 ] && previous=${COMP_WORDS[COMP_CWORD-1]}
"$function" airlock "${COMP_WORDS[COMP_CWORD]}" "$previous"
printf '%s\n' "${COMPREPLY[@]}"
"#;
    let output = Command::new("bash")
        .args(["--norc", "--noprofile", "-c", program, "bash"])
        .arg(script)
        .args(words)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap_or_else(|e| panic!("cannot run bash: {e}"));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "bash failed on `{line}` ({:?}): {stderr}", output.status.code());
    String::from_utf8_lossy(&output.stdout).lines().filter(|l| !l.is_empty()).map(str::to_owned).collect()
}

#[test]
fn bash_completes_a_subcommand_and_its_flags() {
    let s = session();
    let done = airlock(&s, &["completions", "bash"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let script = s.workspace.join("airlock.bash");
    std::fs::write(&script, &done.stdout).unwrap_or_else(|e| panic!("write the script: {e}"));

    // `ins` is also the start of `inspect`: bash offers both, and `inst` completes alone.
    assert_eq!(bash_complete(&script, &["airlock", "plugins", "ins"]), ["inspect", "install"]);
    assert_eq!(bash_complete(&script, &["airlock", "plugins", "inst"]), ["install"]);
    assert_eq!(bash_complete(&script, &["airlock", "plugins", "install", "--sh"]), ["--sha256"]);
    // A word of two subcommands offers both.
    let both = bash_complete(&script, &["airlock", "plugins", "s"]);
    for expected in ["search", "show"] {
        assert!(both.iter().any(|w| w == expected), "`plugins s` should offer {expected}: {both:?}");
    }
    // The shells themselves are completed from the value list.
    assert!(bash_complete(&script, &["airlock", "completions", "fi"]).contains(&"fish".to_string()));
}

#[test]
fn an_unknown_shell_is_a_usage_error_listing_the_shells() {
    let s = session();
    let done = airlock(&s, &["completions", "tcsh"]);
    assert_eq!(done.code, Some(2), "{}", done.stderr);
    for shell in ["bash", "elvish", "fish", "powershell", "zsh"] {
        assert!(done.stderr.contains(shell), "the error should list {shell}: {}", done.stderr);
    }
    assert!(done.stdout.is_empty(), "nothing is printed on stdout: {}", done.stdout);
}

#[test]
fn every_shell_gets_a_script_and_zsh_and_fish_parse_theirs() {
    let s = session();
    for (shell, mark) in [
        ("bash", "complete -F"),
        ("zsh", "#compdef airlock"),
        ("fish", "complete -c airlock"),
        ("elvish", "edit:completion:arg-completer[airlock]"),
        ("powershell", "Register-ArgumentCompleter"),
    ] {
        let done = airlock(&s, &["completions", shell]);
        assert_eq!(done.code, Some(0), "{shell}: {}", done.stderr);
        assert!(done.stdout.contains(mark), "the {shell} script should contain {mark:?}");
        assert!(done.stdout.contains("install"), "the {shell} script should know `plugins install`");
        let script = s.workspace.join(format!("airlock.{shell}"));
        std::fs::write(&script, &done.stdout).unwrap_or_else(|e| panic!("write the script: {e}"));
        // `-n`: parse without running.
        let check = match shell {
            "zsh" if installed("zsh") => Some(Command::new("zsh").arg("-n").arg(&script).output()),
            "fish" if installed("fish") => Some(Command::new("fish").arg("--no-execute").arg(&script).output()),
            "bash" => Some(Command::new("bash").arg("-n").arg(&script).output()),
            "zsh" | "fish" => {
                eprintln!("skipped: {shell} is not installed, its script was not parsed");
                None
            }
            _ => None,
        };
        if let Some(output) = check {
            let output = output.unwrap_or_else(|e| panic!("cannot run {shell}: {e}"));
            assert!(
                output.status.success(),
                "{shell} cannot parse its script: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
    }
}

/// `page` rendered as text by `man -l -` (or `groff`), or `None` when neither is installed.
fn render(page: &str) -> Option<String> {
    let (program, args): (&str, &[&str]) = if installed("groff") {
        ("groff", &["-man", "-Tutf8"])
    } else if Command::new("man").arg("-w").arg("man").output().is_ok() {
        ("man", &["-l", "-"])
    } else {
        return None;
    };
    let mut child = Command::new(program)
        .args(args)
        .env("MANWIDTH", "100")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
    let mut stdin = child.stdin.take().unwrap_or_else(|| panic!("{program}: no stdin"));
    let text = page.to_owned();
    let writer = std::thread::spawn(move || std::io::Write::write_all(&mut stdin, text.as_bytes()));
    let output = child.wait_with_output().unwrap_or_else(|e| panic!("{program}: {e}"));
    writer.join().unwrap_or_else(|_| panic!("{program}: the writer panicked")).unwrap_or_else(|e| panic!("{e}"));
    assert!(output.status.success(), "{program} failed: {}", String::from_utf8_lossy(&output.stderr));
    // groff marks bold by overstriking in some setups: keep the letters only.
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    Some(strip_overstrike(&text))
}

/// `text` without terminal overstrikes (`x\bx`) and SGR escapes.
fn strip_overstrike(text: &str) -> String {
    let mut out: Vec<char> = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{8}' => {
                out.pop();
            }
            '\u{1b}' => {
                for next in chars.by_ref() {
                    if next.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
            _ => out.push(c),
        }
    }
    out.into_iter().collect()
}

#[test]
fn the_manual_page_renders_and_names_every_command() {
    let s = session();
    let done = airlock(&s, &["man"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert!(done.stdout.contains(".TH airlock 1"), "a roff page titled airlock(1): {}", &done.stdout[..200]);
    assert!(done.stdout.contains("airlock plugins install"), "the COMMANDS section names `plugins install`");
    let Some(text) = render(&done.stdout) else {
        eprintln!("skipped the rendering: neither groff nor man is installed");
        return;
    };
    for expected in ["NAME", "SYNOPSIS", "COMMANDS", "airlock plugins install", "airlock plugins search"] {
        assert!(text.contains(expected), "the rendered page should contain {expected:?}:\n{text}");
    }
}

#[test]
fn man_out_writes_a_page_per_subcommand() {
    let s = session();
    let dir = s.workspace.join("man1");
    let done = airlock(&s, &["man", "--out", dir.to_str().unwrap_or_default()]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    for page in ["airlock.1", "airlock-plugins.1", "airlock-plugins-install.1", "airlock-completions.1"] {
        let path = dir.join(page);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(text.contains(".TH"), "{page} is a roff page");
        assert!(done.stdout.contains(page), "the command says it wrote {page}: {}", done.stdout);
    }
    let install = std::fs::read_to_string(dir.join("airlock-plugins-install.1")).unwrap_or_default();
    assert!(install.contains("sha256"), "the install page documents --sha256");
    assert!(!dir.join("airlock-help.1").exists(), "no page for the help subcommand");
}
