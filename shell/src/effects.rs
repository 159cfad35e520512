//! Arguments that make a command write a file or run a program beyond what its name says, program
//! by program: `find -delete`, `sed -i` and `sed 'w file'`, `git log --output`, `rg --pre`,
//! `sort -o`, `awk 'system(…)'`, `curl -o`, `tar -x`, `make CC=…` (OpenAI Codex's
//! `is_safe_command.rs` and `is_dangerous_command.rs` list the first of them). A prefix that allows
//! the command (`find`, `git log`) does not cover such an argument: the command is asked about
//! instead, or refused where nobody can be asked; a deny rule still matches it.
//!
//! The readers here err on "beyond": an option they cannot place (`sed` with a command they do not
//! know, `awk` with a `>` that may be a comparison) counts as writing or running.

mod scripts;

use super::{Command, base_name};

/// Programs whose second word is a subcommand (`git status`, `cargo test`): "always allow"
/// remembers the subcommand with the program.
pub fn has_subcommands(program: &str) -> bool {
    const PROGRAMS: &[&str] = &[
        "git",
        "cargo",
        "npm",
        "pnpm",
        "yarn",
        "bun",
        "deno",
        "go",
        "docker",
        "podman",
        "kubectl",
        "helm",
        "pip",
        "pip3",
        "uv",
        "poetry",
        "pipenv",
        "conda",
        "mamba",
        "apt",
        "apt-get",
        "dnf",
        "yum",
        "brew",
        "systemctl",
        "gh",
        "rustup",
        "dotnet",
        "mvn",
        "gradle",
        "make",
        "just",
        "bundle",
        "gem",
        "rake",
        "terraform",
        "nix",
        "zig",
        "swift",
        "flutter",
        "dart",
        "composer",
        "mix",
        "stack",
        "cabal",
        "opam",
        "dune",
        "gcloud",
        "aws",
        "az",
    ];
    PROGRAMS.contains(&program)
}

/// Why `command` writes or runs more than its name says, if it does.
pub fn beyond_its_name(command: &Command) -> Option<String> {
    let program = base_name(command.program()?);
    let args: Vec<&str> = command.words.iter().skip(1).map(|w| w.literal().unwrap_or("")).collect();
    let any = |names: &[&str]| args.iter().copied().find(|a| names.contains(a));
    let long = |names: &[&str]| {
        args.iter()
            .copied()
            .find(|a| names.iter().any(|n| a == n || a.strip_prefix(n).is_some_and(|r| r.starts_with('='))))
    };
    let said = |arg: &str, what: &str| Some(format!("`{program} {arg}` {what}"));
    match program {
        "find" => {
            let arg =
                any(&["-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls"])?;
            let what = match arg {
                "-delete" => "deletes files",
                "-exec" | "-execdir" | "-ok" | "-okdir" => "runs a command",
                _ => "writes a file",
            };
            said(arg, what)
        }
        "sed" | "gsed" => scripts::sed(&args).map(|(arg, what)| format!("`{program} {arg}` {what}")),
        "awk" | "gawk" | "mawk" | "nawk" => scripts::awk(&args).map(|(arg, what)| format!("`{program} {arg}` {what}")),
        "rg" => ripgrep(&args).and_then(|arg| said(arg, "runs another program on what it searches")),
        "sort" => {
            if let Some(arg) = long(&["--compress-program"]) {
                return said(arg, "runs a program");
            }
            long(&["--output"])
                .or_else(|| short_with_value(&args, 'o', "kotST"))
                .and_then(|arg| said(arg, "writes a file"))
        }
        "tee" => args
            .iter()
            .copied()
            .find(|a| !a.starts_with('-') && !matches!(*a, "/dev/null" | "/dev/stdout" | "/dev/stderr"))
            .and_then(|a| said(a, "writes a file")),
        "uniq" => {
            let operands: Vec<&str> = operands(&args, "fsw");
            operands.get(1).and_then(|out| said(out, "writes a file"))
        }
        "base64" | "base32" | "basenc" => long(&["--output"])
            .or_else(|| short_with_value(&args, 'o', "ow"))
            .and_then(|arg| said(arg, "writes a file")),
        "less" | "more" | "most" | "pg" => {
            if let Some(arg) = long(&["--log-file", "--LOG-FILE"]).or_else(|| short_with_value(&args, 'o', "")) {
                return said(arg, "writes a file");
            }
            if let Some(arg) = short_with_value(&args, 'O', "") {
                return said(arg, "writes a file");
            }
            if let Some(arg) = long(&["--lesskey-file", "--lesskey-src", "--lesskey-content"]).or_else(|| any(&["-k"]))
            {
                return said(arg, "reads key bindings that can run commands");
            }
            args.iter().copied().find(|a| a.starts_with('+')).and_then(|a| said(a, "runs a command when it starts"))
        }
        "man" => long(&["--pager", "--html", "--browser", "--config-file"])
            .or_else(|| args.iter().copied().find(|a| ["-P", "-H", "-C"].iter().any(|o| a.starts_with(o))))
            .and_then(|arg| said(arg, "names a program it runs")),
        "curl" => curl(&args).and_then(|(arg, what)| said(arg, what)),
        "wget" => wget(&args).and_then(|(arg, what)| said(arg, what)),
        "tar" => scripts::tar(&args).and_then(|(arg, what)| said(arg, what)),
        "unzip" => (!args.iter().any(|a| ["-l", "-t", "-p", "-c", "-v", "-Z", "-z"].iter().any(|o| a.starts_with(o))))
            .then(|| format!("`{program}` writes files")),
        "zip" => long(&["--unzip-command"]).or_else(|| any(&["-TT"])).and_then(|arg| said(arg, "runs a program")),
        "rsync" => long(&["--rsh", "--rsync-path"])
            .or_else(|| short_with_value(&args, 'e', ""))
            .and_then(|arg| said(arg, "runs a program")),
        "ssh" | "scp" | "sftp" => ssh(program, &args).and_then(|arg| said(arg, "runs a local program")),
        "git" => git(command),
        "npm" | "npx" | "pnpm" | "yarn" => long(&["--script-shell", "--shell", "--node-options", "--call"])
            .or_else(|| any(&["-c"]))
            .and_then(|arg| said(arg, "runs a program it names")),
        "cargo" => long(&["--config"]).and_then(|arg| said(arg, "can name programs cargo runs (`target.*.runner`)")),
        "make" | "gmake" => long(&["--eval", "--file", "--makefile"])
            .or_else(|| any(&["-E", "-f"]))
            .or_else(|| args.iter().copied().find(|a| !a.starts_with('-') && a.contains('=')))
            .and_then(|arg| said(arg, "changes what make runs")),
        "dd" => args.iter().copied().find(|a| a.starts_with("of=")).and_then(|arg| said(arg, "writes a file")),
        "time" | "strace" => long(&["--output"])
            .or_else(|| short_with_value(&args, 'o', "eEpubIPasoXOSUf"))
            .and_then(|arg| said(arg, "writes a file")),
        "script" => Some(format!("`{program}` writes its log file")),
        "file" => long(&["--compile"]).or_else(|| any(&["-C"])).and_then(|arg| said(arg, "writes a file")),
        "yq" => long(&["--inplace"]).or_else(|| any(&["-i"])).and_then(|arg| said(arg, "edits a file in place")),
        "sdiff" | "diff3" => {
            if let Some(arg) = long(&["--diff-program"]) {
                return said(arg, "runs a program");
            }
            long(&["--output"]).or_else(|| any(&["-o"])).and_then(|arg| said(arg, "writes a file"))
        }
        "vi" | "vim" | "nvim" | "view" | "ex" | "gvim" => args
            .iter()
            .copied()
            .find(|a| a.starts_with('+') || ["-c", "--cmd", "-S", "-s", "-w", "-W"].contains(a))
            .and_then(|arg| said(arg, "runs editor commands")),
        "sqlite3" => args
            .iter()
            .copied()
            .find(|a| [".shell", ".system", ".output", ".once", ".import"].iter().any(|d| a.contains(d)))
            .and_then(|arg| said(arg, "runs commands or writes files")),
        "openssl" => any(&["-out", "-keyout"]).and_then(|arg| said(arg, "writes a file")),
        _ => None,
    }
}

/// The first argument that gives the short option `flag` a value, in a cluster or alone
/// (`-o file`, `-uo file`, `-ofile`); `with_value` are the options whose value ends the cluster.
fn short_with_value<'a>(args: &[&'a str], flag: char, with_value: &str) -> Option<&'a str> {
    for arg in args {
        if *arg == "--" {
            return None;
        }
        let Some(cluster) = arg.strip_prefix('-').filter(|c| !c.is_empty() && !c.starts_with('-')) else { continue };
        for c in cluster.chars() {
            if c == flag {
                return Some(arg);
            }
            if with_value.contains(c) {
                break;
            }
        }
    }
    None
}

/// The operands among `args`: words that are not options, nor the values of the short options
/// in `with_value`.
fn operands<'a>(args: &[&'a str], with_value: &str) -> Vec<&'a str> {
    let mut operands = Vec::new();
    let mut skip = false;
    for arg in args {
        if skip {
            skip = false;
        } else if let Some(option) = arg.strip_prefix('-').filter(|o| !o.is_empty()) {
            skip = option.len() == 1 && with_value.contains(option);
        } else {
            operands.push(*arg);
        }
    }
    operands
}

/// ripgrep's options that run another program (Codex's `is_safe_ripgrep`).
fn ripgrep<'a>(args: &[&'a str]) -> Option<&'a str> {
    let mut words = args.iter().copied();
    while let Some(arg) = words.next() {
        if arg == "--" {
            break;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (name, inline) = long.split_once('=').map_or((long, false), |(name, _)| (name, true));
            if matches!(name, "pre" | "hostname-bin" | "search-zip") {
                return Some(arg);
            }
            let takes = [
                "after-context",
                "before-context",
                "context",
                "context-separator",
                "encoding",
                "engine",
                "field-context-separator",
                "field-match-separator",
                "file",
                "glob",
                "iglob",
                "ignore-file",
                "max-columns",
                "max-count",
                "max-depth",
                "max-filesize",
                "path-separator",
                "pre-glob",
                "regexp",
                "replace",
                "sort",
                "sortr",
                "threads",
                "type",
                "type-not",
                "type-add",
                "type-clear",
                "colors",
                "color",
                "hyperlink-format",
                "dfa-size-limit",
                "regex-size-limit",
            ];
            if !inline && takes.contains(&name) {
                words.next();
            }
        } else if let Some(short) = arg.strip_prefix('-') {
            for flag in short.chars() {
                if flag == 'z' {
                    return Some(arg);
                }
                if "ABCEMefgjmrtTd".contains(flag) {
                    if short.ends_with(flag) {
                        words.next();
                    }
                    break;
                }
            }
        }
    }
    None
}

fn curl<'a>(args: &[&'a str]) -> Option<(&'a str, &'static str)> {
    const WRITES: &[&str] = &[
        "--output",
        "--remote-name",
        "--remote-name-all",
        "--output-dir",
        "--dump-header",
        "--cookie-jar",
        "--trace",
        "--trace-ascii",
        "--libcurl",
        "--etag-save",
        "--hsts",
        "--alt-svc",
        "--stderr",
    ];
    for arg in args {
        let name = arg.split_once('=').map_or(*arg, |(n, _)| n);
        if WRITES.contains(&name) {
            return Some((arg, "writes a file"));
        }
        if name == "--config" {
            return Some((arg, "reads options from a file"));
        }
        if let Some(cluster) = arg.strip_prefix('-').filter(|c| !c.starts_with('-')) {
            for c in cluster.chars() {
                match c {
                    'o' | 'O' | 'D' | 'c' => return Some((arg, "writes a file")),
                    'K' => return Some((arg, "reads options from a file")),
                    // These take a value: the rest of the word is it.
                    'd' | 'H' | 'X' | 'u' | 'x' | 'A' | 'e' | 'F' | 'T' | 'U' | 'b' | 'm' | 'w' | 'y' | 'Y' | 'z' => {
                        break;
                    }
                    _ => {}
                }
            }
        }
    }
    None
}

fn wget<'a>(args: &[&'a str]) -> Option<(&'a str, &'static str)> {
    if let Some(arg) = args.iter().find(|a| **a == "-e" || a.starts_with("--execute")) {
        return Some((arg, "runs wgetrc commands"));
    }
    let short_to_stdout = |a: &str| a.starts_with('-') && !a.starts_with("--") && a.ends_with("O-");
    let to_stdout =
        args.windows(2).any(|w| w[0].starts_with('-') && !w[0].starts_with("--") && w[0].ends_with('O') && w[1] == "-")
            || args.iter().any(|a| short_to_stdout(a) || matches!(*a, "--output-document=-" | "--spider"));
    let logs = args
        .iter()
        .find(|a| matches!(**a, "-o" | "-a") || a.starts_with("--output-file") || a.starts_with("--append-output"));
    match (to_stdout, logs) {
        (_, Some(arg)) => Some((arg, "writes a log file")),
        (false, None) => Some(("…", "writes the files it downloads")),
        (true, None) => None,
    }
}

fn ssh<'a>(program: &str, args: &[&'a str]) -> Option<&'a str> {
    const COMMANDS: &[&str] = &["proxycommand", "localcommand", "permitlocalcommand", "knownhostscommand", "match"];
    for (at, arg) in args.iter().enumerate() {
        let option = match *arg {
            "-o" => args.get(at + 1).copied().unwrap_or(""),
            _ => arg.strip_prefix("-o").unwrap_or(""),
        };
        let name = option.split(['=', ' ']).next().unwrap_or("").to_ascii_lowercase();
        if COMMANDS.contains(&name.as_str()) || arg.starts_with("-F") || (program != "ssh" && arg.starts_with("-S")) {
            return Some(arg);
        }
    }
    None
}

/// git's options that write a file or run a program, and its subcommands' forms that do.
fn git(command: &Command) -> Option<String> {
    let words = &command.words;
    let invocation = super::git::invocation(words);
    for (option, _, _) in &invocation.globals {
        if matches!(option.as_str(), "-c" | "--config-env" | "--exec-path") {
            return Some(format!("`git {option}` can name a program git runs"));
        }
    }
    let at = invocation.subcommand?;
    let subcommand = words[at].literal()?;
    let args: Vec<&str> = words.iter().skip(at + 1).map(|w| w.literal().unwrap_or("")).collect();
    let long = |full: &str| args.iter().copied().find(|a| super::git::long_option(a, full).is_some());
    let said = |arg: &str, what: &str| Some(format!("`git {subcommand} {arg}` {what}"));
    match subcommand {
        "log" | "diff" | "show" | "whatchanged" | "range-diff" | "format-patch" | "archive" => {
            if let Some(arg) = long("--output").or_else(|| args.iter().copied().find(|a| a.starts_with("-o"))) {
                return said(arg, "writes a file");
            }
            if let Some(arg) = long("--ext-diff").or_else(|| long("--textconv")) {
                return said(arg, "runs a diff program the configuration names");
            }
            (subcommand == "format-patch" && !args.contains(&"--stdout"))
                .then(|| "`git format-patch` writes patch files".to_string())
        }
        "grep" => long("--open-files-in-pager")
            .or_else(|| args.iter().copied().find(|a| a.starts_with("-O")))
            .and_then(|arg| said(arg, "runs a pager")),
        "difftool" | "mergetool" => Some(format!("`git {subcommand}` runs the tool the configuration names")),
        "config" => {
            let reads = [
                "--get",
                "--get-all",
                "--get-regexp",
                "--list",
                "-l",
                "--get-urlmatch",
                "--show-origin",
                "get",
                "list",
            ];
            let operands = args.iter().filter(|a| !a.starts_with('-')).count();
            let read_only = args.iter().any(|a| reads.contains(a)) || operands <= 1;
            (!read_only).then(|| "`git config` changes settings, which can name programs git runs".to_string())
        }
        "branch" => {
            const LISTS: &[&str] = &[
                "--list",
                "-l",
                "--show-current",
                "-a",
                "--all",
                "-r",
                "--remotes",
                "-v",
                "-vv",
                "--verbose",
                "--color",
                "--no-color",
                "--column",
                "--no-column",
                "--merged",
                "--no-merged",
                "--contains",
                "--no-contains",
                "--points-at",
                "-i",
                "--ignore-case",
                "--omit-empty",
            ];
            let changes = args.iter().copied().find(|a| {
                !(LISTS.contains(a)
                    || a.starts_with("--format=")
                    || a.starts_with("--sort=")
                    || a.starts_with("--abbrev"))
            });
            let listing =
                args.iter().any(|a| matches!(*a, "--list" | "-l" | "--merged" | "--contains" | "--points-at"));
            changes.filter(|_| !listing).and_then(|arg| said(arg, "creates, renames or deletes a branch"))
        }
        _ => None,
    }
}
