//! The command gate on lines built from a grammar of bash, each line with what it may run
//! known by construction: the programs of every simple command, wherever it sits (lists,
//! pipelines, subshells, groups, control structures, functions, command and process
//! substitutions in words, strings, assignments, redirections, heredocs and arithmetic),
//! the scripts of `bash -c`, `eval`, `su -c` and `trap`, and the commands wrappers run
//! (`sudo`, `env`, `timeout`, `xargs`, `find -exec`, …), each program spelled in one of
//! the ways bash reads as that program (`rm`, `/usr/bin/rm`, `'rm'`, `r\m`, `$'rm'`, …).
//!
//! Checks, for a deny rule naming one program of the grammar's and an allow rule or grant
//! naming one or two:
//! - when the line may run the denied program, the gate refuses it even though the line was
//!   approved, and the question's verdict refuses it in every mode;
//! - when the gate lets the line start under granted prefixes alone, or the verdict allows
//!   it without asking, every program it may run is granted or allowed, and no redirection
//!   writes outside the workspace.
//!
//! What the line may run is over-approximated only where the gate reads syntax, not flow
//! (a command after `exec`, the body of a loop whose condition fails): it lists those too.

use arbitrary::Unstructured;

use airlock_engine::policy::{ApprovalMode, Verdict};

use crate::judge;

/// Programs a line may run (besides wrappers).
const PROGRAMS: &[&str] = &["rm", "ls", "git", "echo", "cat", "touch", "curl", "chmod"];
/// Arguments: (as written, the value when it is known before the line runs).
const ARGS: &[(&str, Option<&str>)] = &[
    ("-rf", Some("-rf")),
    ("x", Some("x")),
    ("-la", Some("-la")),
    ("status", Some("status")),
    ("push", Some("push")),
    ("origin", Some("origin")),
    ("'a b'", Some("a b")),
    ("\"q\"", Some("q")),
    ("--", Some("--")),
    ("p\\ush", Some("push")),
    ("'pu'sh", Some("push")),
    ("$HOME", None),
    ("*.rs", None),
    ("{a,b}", None),
    ("~", None),
];
/// Deepest nesting generated.
const MAX_DEPTH: usize = 4;

/// One simple command the line may run: its program and its arguments (`None` where the
/// value is known only when the line runs).
#[derive(Debug, Clone)]
struct Run {
    program: String,
    args: Vec<Option<String>>,
}

/// A line being built.
struct Builder<'a, 'b> {
    u: &'b mut Unstructured<'a>,
    runs: Vec<Run>,
    writes_outside: bool,
}

pub fn run(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let denied = pick(&mut u, PROGRAMS.len() + 2);
    let denied = match denied {
        i if i < PROGRAMS.len() => PROGRAMS[i],
        i if i == PROGRAMS.len() => "git push",
        _ => "sudo",
    };
    let allowed: Vec<&str> = (0..1 + pick(&mut u, 2)).map(|_| PROGRAMS[pick(&mut u, PROGRAMS.len())]).collect();
    let mut builder = Builder { u: &mut u, runs: Vec::new(), writes_outside: false };
    let mut line = builder.list(0, Context::default());
    if builder.u.ratio(1, 8).unwrap_or(false) {
        line.push_str(&builder.heredoc());
    }
    let Builder { runs, writes_outside, .. } = builder;

    judge::in_workspace(|workspace| {
        let runs_denied = runs.iter().any(|run| denies(denied, run));
        let gate = judge::gate(workspace, &line, &[denied], &[], true);
        if runs_denied {
            assert!(
                gate.is_err(),
                "the gate lets {line:?} start, which may run {runs:?}, past a rule denying `{denied}`"
            );
        }
        for mode in [ApprovalMode::Yolo, ApprovalMode::Default] {
            let judged = judge::verdict(workspace, &line, mode, &[(denied, "deny")]);
            // A line airlock cannot name whole is asked about in every mode (never allowed
            // by the mode or a rule, never remembered); any other that may run it is refused.
            let uncertain = judged.view.as_ref().is_some_and(|view| view.uncertain.is_some());
            let verdict = judged.verdict;
            if runs_denied {
                assert!(
                    matches!(verdict, Verdict::Deny(_)) || (verdict == Verdict::Ask && uncertain),
                    "in {mode:?} the verdict on {line:?}, which may run {runs:?}, is {verdict:?} under a rule denying `{denied}`"
                );
            }
        }

        let everything_allowed = runs.iter().all(|run| allowed.contains(&run.program.as_str())) && !writes_outside;
        let gate = judge::gate(workspace, &line, &[], &allowed, false);
        if !everything_allowed {
            assert!(
                gate.is_err(),
                "the gate lets {line:?} start on the grant of {allowed:?}, but it may run {runs:?}{}",
                if writes_outside { " and writes outside the workspace" } else { "" }
            );
        }
        let rules: Vec<(&str, &str)> = allowed.iter().map(|program| (*program, "allow")).collect();
        let verdict = judge::verdict(workspace, &line, ApprovalMode::Default, &rules).verdict;
        if !everything_allowed {
            assert!(
                verdict != Verdict::Allow,
                "the verdict allows {line:?} on rules allowing {allowed:?}, but it may run {runs:?}{}",
                if writes_outside { " and writes outside the workspace" } else { "" }
            );
        }
    });
}

/// Whether the deny prefix `denied` (`rm`, `git push`, `sudo`) covers `run`.
fn denies(denied: &str, run: &Run) -> bool {
    let mut words = denied.split(' ');
    if words.next() != Some(run.program.as_str()) {
        return false;
    }
    match words.next() {
        None => true,
        // A word known only at run time may be the denied one.
        Some(sub) => run.args.first().is_some_and(|arg| arg.as_deref().is_none_or(|a| a == sub)),
    }
}

/// An index below `n`, drawn from the input (0 once it is used up).
fn pick(u: &mut Unstructured<'_>, n: usize) -> usize {
    u.choose_index(n).unwrap_or(0)
}

/// Where a piece of the line goes.
#[derive(Debug, Clone, Copy, Default)]
struct Context {
    /// Inside backticks: only simple and wrapped commands (backticks change what
    /// backslashes mean, and cannot nest unescaped).
    in_backticks: bool,
    /// Inside a heredoc's body: one line only.
    one_line: bool,
    /// Right after `|`, where `!`, `time` and `coproc` are not reserved words.
    after_pipe: bool,
}

impl Builder<'_, '_> {
    fn pick(&mut self, n: usize) -> usize {
        pick(self.u, n)
    }

    /// Commands joined by list and pipeline operators.
    fn list(&mut self, depth: usize, context: Context) -> String {
        let count = 1 + self.pick(3);
        let mut out = String::new();
        for index in 0..count {
            let mut here = Context { after_pipe: false, ..context };
            if index > 0 {
                let separators: &[&str] = if context.one_line {
                    &["; ", " && ", " || ", " | ", " & "]
                } else {
                    &["; ", " && ", " || ", " | ", " & ", "\n"]
                };
                let separator = separators[self.pick(separators.len())];
                here.after_pipe = separator == " | ";
                out.push_str(separator);
            }
            out.push_str(&self.command(depth, here));
        }
        out
    }

    /// One command: simple, wrapped, compound, or with a substitution.
    fn command(&mut self, depth: usize, context: Context) -> String {
        if depth >= MAX_DEPTH {
            return self.simple(context);
        }
        if context.in_backticks {
            return if self.pick(3) == 0 { self.wrapped(depth, context, true) } else { self.simple(context) };
        }
        let inner = depth + 1;
        let nested = Context { after_pipe: false, ..context };
        match self.pick(31) {
            0..=7 => self.simple(context),
            8 | 9 => self.wrapped(depth, context, true),
            10 => format!("( {} )", self.list(inner, nested)),
            11 => format!("{{ {}; }}", self.list(inner, nested)),
            12 => format!("if {}; then {}; fi", self.list(inner, nested), self.list(inner, nested)),
            13 => format!(
                "if {}; then {}; else {}; fi",
                self.list(inner, nested),
                self.list(inner, nested),
                self.list(inner, nested)
            ),
            14 => format!("while {}; do {}; done", self.list(inner, nested), self.list(inner, nested)),
            15 => format!("for v in a b; do {}; done", self.list(inner, nested)),
            16 => format!("case a in a) {};; esac", self.list(inner, nested)),
            17 if !context.after_pipe => format!("f() {{ {}; }}; f", self.list(inner, nested)),
            18 if !context.after_pipe => format!("! {}", self.simple(context)),
            19 => {
                let echo = self.simple_named("echo", context);
                format!("{echo} {}", self.substitution(inner, nested, true))
            }
            20 => format!("v={}", self.substitution(inner, nested, false)),
            21 => format!("{}{}", self.simple(context), self.redirect(inner, nested)),
            22 => self.script(inner, nested),
            23 => format!("echo \"a {} b\"", self.substitution(inner, nested, false)),
            24 => format!("echo ${{never_set:-{}}}", self.substitution(inner, nested, false)),
            25 => format!("[[ -n {} ]]", self.substitution(inner, nested, false)),
            26 => format!("echo $(( 1 + {} ))", self.substitution(inner, nested, false)),
            27 => format!("a=( {} )", self.substitution(inner, nested, false)),
            28 => format!("A=1 {}", self.simple(context)),
            29 => format!("cat < <({})", self.list(inner, nested)),
            _ => self.simple(context),
        }
    }

    /// A simple command of one of the grammar's programs.
    fn simple(&mut self, context: Context) -> String {
        let program = PROGRAMS[self.pick(PROGRAMS.len())];
        self.simple_named(program, context)
    }

    /// `program` spelled one of the ways bash reads as it, with a few arguments.
    fn simple_named(&mut self, program: &str, context: Context) -> String {
        let (spelled, also) = self.spelling(program, context);
        let mut words = vec![spelled];
        let mut args = Vec::new();
        for _ in 0..self.pick(3) {
            let (written, value) = ARGS[self.pick(ARGS.len())];
            words.push(written.to_string());
            args.push(value.map(str::to_string));
        }
        self.runs.push(Run { program: program.to_string(), args });
        self.runs.extend(also);
        words.join(" ")
    }

    /// `program` as written, and what writing it so runs besides.
    fn spelling(&mut self, program: &str, context: Context) -> (String, Vec<Run>) {
        let (first, rest) = program.split_at(1);
        let echo = || vec![Run { program: "echo".into(), args: vec![Some(program.to_string())] }];
        match self.pick(13) {
            0..=3 => (program.to_string(), Vec::new()),
            4 => (format!("/usr/bin/{program}"), Vec::new()),
            5 => (format!("'{program}'"), Vec::new()),
            6 => (format!("\"{program}\""), Vec::new()),
            7 => (format!("\\{program}"), Vec::new()),
            8 => (format!("{first}''{rest}"), Vec::new()),
            9 => (format!("{first}\\{rest}"), Vec::new()),
            10 => (format!("$'{program}'"), Vec::new()),
            11 => (format!("${{never_set:-{program}}}"), Vec::new()),
            _ if context.in_backticks => (format!("$(echo {program})"), echo()),
            _ => (format!("`echo {program}`"), echo()),
        }
    }

    /// A command run through a wrapper, which runs too. Builtins and reserved words
    /// (`exec`, `time`, …) only come `outermost`: another program cannot run them.
    fn wrapped(&mut self, depth: usize, context: Context, outermost: bool) -> String {
        const WRAPPERS: &[(&str, &[&str])] = &[
            ("sudo ", &["sudo"]),
            ("sudo -u root ", &["sudo"]),
            ("doas ", &["doas"]),
            ("env ", &["env"]),
            ("env -i ", &["env"]),
            ("env A=1 ", &["env"]),
            ("env -- ", &["env"]),
            ("nice ", &["nice"]),
            ("nice -n 5 ", &["nice"]),
            ("nohup ", &["nohup"]),
            ("timeout 5 ", &["timeout"]),
            ("timeout -s KILL 5 ", &["timeout"]),
            ("stdbuf -o0 ", &["stdbuf"]),
            ("ionice -c 3 ", &["ionice"]),
            ("setsid ", &["setsid"]),
            ("xargs ", &["xargs"]),
            ("busybox ", &["busybox"]),
            ("flock lock ", &["flock"]),
            ("watch -x ", &["watch"]),
            ("sudo env nice ", &["sudo", "env", "nice"]),
            // Builtins and reserved words from here on.
            ("exec ", &[]),
            ("command ", &[]),
            ("time ", &[]),
            ("time -p ", &[]),
            ("coproc ", &[]),
        ];
        const PROGRAMS_ONLY: usize = 20;
        let choices = if !outermost || context.after_pipe { PROGRAMS_ONLY } else { WRAPPERS.len() };
        if self.pick(6) == 0 {
            // `find` runs the command itself, with `{}` as a word known only at run time.
            self.runs.push(Run { program: "find".into(), args: Vec::new() });
            let program = PROGRAMS[self.pick(PROGRAMS.len())];
            let (spelled, also) = self.spelling(program, context);
            self.runs.push(Run { program: program.to_string(), args: vec![None] });
            self.runs.extend(also);
            let end = if self.pick(2) == 0 { "\\;" } else { "+" };
            return format!("find . -exec {spelled} {{}} {end}");
        }
        let (prefix, programs) = WRAPPERS[self.pick(choices)];
        for program in programs {
            self.runs.push(Run { program: program.to_string(), args: Vec::new() });
        }
        let inner = if depth + 1 < MAX_DEPTH && self.pick(4) == 0 {
            self.wrapped(depth + 1, context, false)
        } else {
            self.simple(Context { after_pipe: false, ..context })
        };
        format!("{prefix}{inner}")
    }

    /// A command substitution holding a list, or a process substitution where `process`
    /// (a word of its own: not in quotes, assignments or arithmetic).
    fn substitution(&mut self, depth: usize, context: Context, process: bool) -> String {
        match self.pick(4) {
            0 => {
                let inner = self.list(depth, Context { in_backticks: true, ..context });
                format!("`{inner}`")
            }
            1 if process => format!("<({})", self.list(depth, context)),
            2 => format!("\"$({})\"", self.list(depth, context)),
            _ => format!("$({})", self.list(depth, context)),
        }
    }

    /// A redirection: inside the workspace, outside it, or to a file named at run time.
    fn redirect(&mut self, depth: usize, context: Context) -> String {
        match self.pick(7) {
            0 => " > out.txt".into(),
            1 => " 2>&1".into(),
            2 => " < in.txt".into(),
            3 => " >> /dev/null".into(),
            4 => {
                self.writes_outside = true;
                " > ../outside.txt".into()
            }
            5 => {
                self.writes_outside = true;
                " >> /etc/outside".into()
            }
            _ => {
                // The file is named by what the substitution prints: it may be anywhere.
                self.writes_outside = true;
                format!(" > {}", self.substitution(depth, context, false))
            }
        }
    }

    /// A script another program runs: `bash -c`, `eval`, `su -c`, `trap`.
    fn script(&mut self, depth: usize, context: Context) -> String {
        const RUNNERS: &[(&str, &str, Option<&str>)] = &[
            ("bash -c ", "", Some("bash")),
            ("sh -c ", "", Some("sh")),
            ("bash -ec ", "", Some("bash")),
            ("bash --norc -c ", "", Some("bash")),
            ("sh -c -- ", "", Some("sh")),
            ("dash -c ", " sh a", Some("dash")),
            ("eval ", "", None),
            ("eval -- ", "", None),
            ("su -c ", "", Some("su")),
            ("trap ", " EXIT", None),
        ];
        let (runner, after, program) = RUNNERS[self.pick(RUNNERS.len())];
        if let Some(program) = program {
            self.runs.push(Run { program: program.into(), args: Vec::new() });
        }
        let script = self.list(depth, Context { in_backticks: false, one_line: context.one_line, after_pipe: false });
        let quoted = if self.pick(2) == 0 {
            format!("'{}'", script.replace('\'', "'\\''"))
        } else {
            let mut quoted = String::from("\"");
            for c in script.chars() {
                if matches!(c, '"' | '\\' | '$' | '`') {
                    quoted.push('\\');
                }
                quoted.push(c);
            }
            quoted.push('"');
            quoted
        };
        format!("{runner}{quoted}{after}")
    }

    /// A heredoc at the end of the line: an expanding one runs its substitutions, a quoted
    /// one runs nothing.
    fn heredoc(&mut self) -> String {
        let one_line = Context { one_line: true, ..Context::default() };
        self.runs.push(Run { program: "cat".into(), args: Vec::new() });
        if self.pick(2) == 0 {
            let inner = self.list(1, one_line);
            format!("\ncat <<EOF\nline $({inner})\nEOF")
        } else {
            let mut unrun = Builder { u: &mut *self.u, runs: Vec::new(), writes_outside: false };
            let inner = unrun.list(1, one_line);
            format!("\ncat <<'EOF'\nline $({inner})\nEOF")
        }
    }
}
