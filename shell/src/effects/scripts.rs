//! Readers of the small languages some read-looking programs take in an argument: `sed` scripts
//! (the `e`, `w` and `W` commands, the `e` and `w` flags of `s`), `awk` programs (`system()`,
//! pipes, output redirection, `@load`), and `tar`'s operation letters. Each returns the argument
//! that writes or runs and what it does; anything they cannot read counts as doing so.

/// `sed`: `-i` edits in place, `-f` reads a script they cannot see, and a script's `e`, `w`, `W`
/// commands or `s///e`, `s///w` flags run a command or write a file (unless `--sandbox`).
pub(super) fn sed<'a>(args: &[&'a str]) -> Option<(&'a str, &'static str)> {
    let mut scripts: Vec<&'a str> = Vec::new();
    let mut operands = Vec::new();
    let mut sandbox = false;
    let mut words = args.iter().copied();
    while let Some(arg) = words.next() {
        if arg == "--" {
            operands.extend(words.by_ref());
            break;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (name, value) = long.split_once('=').map_or((long, None), |(n, v)| (n, Some(v)));
            match name {
                "in-place" => return Some((arg, "edits files in place")),
                "file" => return Some((arg, "reads its script from a file")),
                "sandbox" => sandbox = true,
                "expression" => scripts.extend(value.or_else(|| words.next())),
                "line-length" if value.is_none() => {
                    words.next();
                }
                _ => {}
            }
        } else if let Some(cluster) = arg.strip_prefix('-').filter(|c| !c.is_empty()) {
            for (offset, flag) in cluster.char_indices() {
                let rest = &cluster[offset + 1..];
                match flag {
                    // `-i[SUFFIX]`: the rest of the word is the suffix (`-ie` is `-i` with suffix `e`).
                    'i' => return Some((arg, "edits files in place")),
                    'f' => return Some((arg, "reads its script from a file")),
                    'e' | 'l' => {
                        let value = if rest.is_empty() { words.next() } else { Some(rest) };
                        if flag == 'e' {
                            scripts.extend(value);
                        }
                        break;
                    }
                    _ => {}
                }
            }
        } else {
            operands.push(arg);
        }
    }
    if scripts.is_empty() {
        scripts.extend(operands.first().copied());
    }
    if sandbox {
        return None;
    }
    scripts.into_iter().find_map(|script| sed_script(script).map(|what| (script, what)))
}

/// What a sed script does beyond printing, if anything: it is read command by command.
fn sed_script(script: &str) -> Option<&'static str> {
    let chars: Vec<char> = script.chars().collect();
    let mut at = 0;
    let to_line_end = |at: &mut usize| {
        while *at < chars.len() && chars[*at] != '\n' {
            *at += 1;
        }
    };
    while at < chars.len() {
        let c = chars[at];
        if c.is_whitespace() || matches!(c, ';' | '{' | '}' | '!' | ',' | '$' | '~' | '+') || c.is_ascii_digit() {
            at += 1;
            continue;
        }
        match c {
            '#' => to_line_end(&mut at),
            // An address `/re/` or `\cREc`, then its `I` or `M` flags.
            '/' | '\\' => {
                let delimiter = if c == '\\' {
                    at += 1;
                    *chars.get(at)?
                } else {
                    c
                };
                at = skip_delimited(&chars, at + 1, delimiter)?;
                while chars.get(at).is_some_and(|c| matches!(c, 'I' | 'M')) {
                    at += 1;
                }
                continue;
            }
            ':' | 'b' | 't' | 'T' | 'v' => {
                while at < chars.len() && !matches!(chars[at], ';' | '\n') {
                    at += 1;
                }
            }
            'a' | 'i' | 'c' | 'r' | 'R' => to_line_end(&mut at),
            'w' | 'W' => return Some("writes a file"),
            'e' => return Some("runs a command"),
            's' | 'y' => {
                let delimiter = *chars.get(at + 1)?;
                if delimiter == '\n' || delimiter == '\\' {
                    return Some("has a command airlock cannot read");
                }
                at = skip_delimited(&chars, at + 2, delimiter)?;
                at = skip_delimited(&chars, at, delimiter)?;
                if c == 's' {
                    while let Some(&flag) = chars.get(at) {
                        match flag {
                            'e' => return Some("runs a command"),
                            'w' => return Some("writes a file"),
                            'g' | 'p' | 'i' | 'I' | 'm' | 'M' => at += 1,
                            _ if flag.is_ascii_digit() => at += 1,
                            _ => break,
                        }
                    }
                }
                continue;
            }
            'q' | 'Q' | 'l' | 'L' | 'd' | 'D' | 'g' | 'G' | 'h' | 'H' | 'n' | 'N' | 'p' | 'P' | 'x' | 'z' | 'F'
            | '=' => {}
            _ => return Some("has a command airlock cannot read"),
        }
        at += 1;
    }
    None
}

/// The index after the next unescaped `delimiter` from `at`; None when there is none.
fn skip_delimited(chars: &[char], mut at: usize, delimiter: char) -> Option<usize> {
    while at < chars.len() {
        match chars[at] {
            '\\' => at += 2,
            c if c == delimiter => return Some(at + 1),
            '\n' => return None,
            _ => at += 1,
        }
    }
    None
}

/// `awk`: a program read from a file or that may call `system()`, open a pipe, redirect output or
/// load code; options that load code or write files.
pub(super) fn awk<'a>(args: &[&'a str]) -> Option<(&'a str, &'static str)> {
    let mut program: Option<&'a str> = None;
    let mut words = args.iter().copied();
    while let Some(arg) = words.next() {
        if arg == "--" {
            program = program.or(words.next());
            break;
        }
        let name = arg.split_once('=').map_or(arg, |(n, _)| n);
        match name {
            "-f" | "--file" => return Some((arg, "reads its program from a file")),
            "-E" | "--exec" => return Some((arg, "reads its program from a file")),
            "-i" | "--include" | "-l" | "--load" => return Some((arg, "loads code from a file")),
            "-o" | "--pretty-print" | "-p" | "--profile" | "-d" | "--dump-variables" => {
                return Some((arg, "writes a file"));
            }
            "-S" | "--sandbox" => return None,
            "-e" | "--source" => {
                program = if arg.contains('=') { arg.split_once('=').map(|(_, v)| v) } else { words.next() }
            }
            "-F" | "-v" | "-W" => {
                words.next();
            }
            _ if arg.starts_with('-') && arg.len() > 1 => {
                // `-F:`, `-vx=1`, `-Wexec`: attached values.
                if arg.starts_with("-W") && arg.contains("exec") {
                    return Some((arg, "reads its program from a file"));
                }
            }
            _ => {
                program = program.or(Some(arg));
                break;
            }
        }
    }
    let program = program?;
    const CALLS: &[&str] = &["system", "|", ">", "@load", "@include", "@namespace"];
    CALLS.iter().any(|call| program.contains(call)).then_some((program, "may run commands or write files"))
}

/// `tar`: any operation but listing (`-t`) or comparing (`-d`) writes files; some options run a
/// program (`--to-command`, `-I`, `--checkpoint-action`, `-F`).
pub(super) fn tar<'a>(args: &[&'a str]) -> Option<(&'a str, &'static str)> {
    const RUNS: &[&str] = &[
        "--to-command",
        "--use-compress-program",
        "--checkpoint-action",
        "--info-script",
        "--new-volume-script",
        "--rsh-command",
        "--rmt-command",
    ];
    const WRITES: &[&str] =
        &["--extract", "--get", "--create", "--append", "--update", "--delete", "--concatenate", "--catenate"];
    for (index, arg) in args.iter().enumerate() {
        let name = arg.split_once('=').map_or(*arg, |(n, _)| n);
        if RUNS.contains(&name) || (arg.starts_with('-') && !arg.starts_with("--") && arg.contains(['I', 'F'])) {
            return Some((arg, "runs a program"));
        }
        if WRITES.contains(&name) {
            return Some((arg, "writes files"));
        }
        // Short clusters (`-xzf`) and the old bundled first word (`tar xzf a.tar`).
        let cluster = match arg.strip_prefix('-') {
            Some(cluster) if !cluster.starts_with('-') => Some(cluster),
            None if index == 0 => Some(*arg),
            _ => None,
        };
        if let Some(cluster) = cluster
            && cluster.contains(['x', 'c', 'r', 'u', 'A'])
        {
            return Some((arg, "writes files"));
        }
    }
    None
}
