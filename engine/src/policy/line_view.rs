//! What a command line runs, as the person answering a question about it is shown it: one model
//! the `--ask` text (`frontends::ask`) and the UI dialog (`frontends::tui::views`) both render, so
//! they cannot show different facts.
//!
//! - Every command of the line gets a row, the riskiest first ([`airlock_shell::risk`]), so a
//!   `rm` at the end of a long line is the first thing read; each row is cut at
//!   [`MAX_COMMAND_CHARS`] (the whole line is shown below it).
//! - The whole line follows, uncut: each run of four or more blanks becomes `␣×N`, a line break
//!   ends a row with `⏎`, and every other control or invisible character is made visible
//!   ([`crate::sanitize`]); renderers wrap long rows, never cut them.
//! - When airlock cannot name every command, the question says why and offers no "always"; it
//!   also says which programs the repository's git configuration makes git run.
//! - "Always" saves one rule per command the person was shown and no rule already allows
//!   (`python3 x.py && wc -l notes.txt` → `python3`, `wc`); a command no rule could cover (it
//!   writes through a redirection, sets variables, has a word known only at run time) means no
//!   "always" is offered, since the same line would be asked about again.

use crate::sanitize;
use airlock_shell::risk;
/// How risky a command of the line looks (the front ends show it).
pub use airlock_shell::risk::Risk;
use airlock_shell::{Command, Line};

/// Most characters of one command's row; the whole line is shown below the rows.
pub const MAX_COMMAND_CHARS: usize = 160;

/// One command of a line, as shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandView {
    /// Its text, whitespace runs collapsed, made safe, cut at [`MAX_COMMAND_CHARS`].
    pub text: String,
    /// Its program, made safe; empty when it is known only at run time.
    pub program: String,
    pub risk: Risk,
    /// What makes it that risky, in a few words ("deletes files").
    pub why: String,
    /// Whether a rule already allows it.
    pub allowed: bool,
}

/// A command line, as the person answering a question about it is shown it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LineView {
    /// Every command, riskiest first (then in the line's order).
    pub commands: Vec<CommandView>,
    /// The whole line, one row per line of it, made safe (see the module's contract).
    pub rows: Vec<String>,
    /// Why airlock cannot tell which commands the line runs, when it cannot.
    pub uncertain: Option<String>,
    /// What the repository's git configuration makes git run (`core.fsmonitor = …`).
    pub repo_programs: Vec<String>,
    /// The command prefixes "always" saves, one rule each; empty when it is not offered.
    pub always: Vec<String>,
    /// Why "always" is not offered, when it is not.
    pub no_always: Option<String>,
}

impl LineView {
    /// The view of `line` (its text `source`): `allowed` says whether a rule already allows a
    /// command; `uncertain` is why airlock cannot name every command; `repo_programs` what git's
    /// configuration runs.
    pub fn build(
        source: &str,
        line: &Line,
        allowed: impl Fn(&Command) -> bool,
        uncertain: Option<String>,
        repo_programs: Vec<String>,
    ) -> Self {
        let mut commands: Vec<(usize, CommandView)> = line
            .commands
            .iter()
            .enumerate()
            .map(|(index, command)| {
                let (risk, why) = risk::assess(command);
                let text = sanitize::line_bounded(&collapse(&command.text).replace('\n', "⏎"), MAX_COMMAND_CHARS);
                let program = command.program().map(sanitize::line).unwrap_or_default();
                let why = sanitize::line(&why);
                (index, CommandView { text, program, risk, why, allowed: allowed(command) })
            })
            .collect();
        commands.sort_by(|(a, left), (b, right)| right.risk.cmp(&left.risk).then(a.cmp(b)));
        let mut view = LineView {
            commands: commands.into_iter().map(|(_, c)| c).collect(),
            rows: rows(source),
            uncertain,
            repo_programs: repo_programs.iter().map(|p| sanitize::line(p)).collect(),
            always: Vec::new(),
            no_always: None,
        };
        view.offer_always(line, allowed);
        view
    }

    /// The riskiest command's risk (low for a line with none).
    pub fn risk(&self) -> Risk {
        self.commands.first().map_or(Risk::Low, |c| c.risk)
    }

    /// [`LineView::risk`] in the contract's terms.
    pub fn contract_risk(&self) -> crate::contract::Risk {
        match self.risk() {
            Risk::Low => crate::contract::Risk::Low,
            Risk::Medium => crate::contract::Risk::Medium,
            Risk::High => crate::contract::Risk::High,
        }
    }

    /// The riskiest command's program, what the question names (empty when it is known only at
    /// run time).
    pub fn riskiest_program(&self) -> String {
        self.commands.first().map(|c| c.program.clone()).unwrap_or_default()
    }

    fn offer_always(&mut self, line: &Line, allowed: impl Fn(&Command) -> bool) {
        if self.uncertain.is_some() {
            self.no_always = Some("airlock cannot name every command of this line".into());
            return;
        }
        // In the order the question lists them: the riskiest first.
        let mut commands: Vec<(usize, &Command)> = line.commands.iter().enumerate().collect();
        commands.sort_by_key(|(index, command)| (std::cmp::Reverse(risk::assess(command).0), *index));
        for (_, command) in commands.into_iter().filter(|(_, c)| !allowed(c)) {
            let why = if command.words.is_empty() {
                Some("it sets variables".to_string())
            } else if command.assignments {
                Some(format!("`{}` sets variables for its program", cut(&command.text)))
            } else if !command.is_literal() {
                Some(format!("`{}` has a word known only when it runs", cut(&command.text)))
            } else {
                command.beyond_its_name()
            };
            let prefix = command.rule_prefix();
            match (why, prefix) {
                (None, Some(prefix)) => {
                    if !self.always.contains(&prefix) {
                        self.always.push(prefix);
                    }
                }
                (why, _) => {
                    let why = why.unwrap_or_else(|| "a command has no program to remember".into());
                    self.no_always = Some(format!("no rule would cover it again: {}", sanitize::line(&why)));
                    self.always.clear();
                    return;
                }
            }
        }
    }
}

/// `text` as one safe line with its blank runs collapsed and marked: for a description or any
/// other text shown beside a command line.
pub fn shown(text: &str) -> String {
    sanitize::line(&collapse(text))
}

/// `text` with each run of four or more blanks (or one holding a tab) replaced by `␣×N`.
fn collapse(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(1 << 16));
    let mut run = String::new();
    let flush = |run: &mut String, out: &mut String| {
        if run.chars().count() >= 4 || run.contains('\t') {
            out.push_str(&format!("␣×{}", run.chars().count()));
        } else {
            out.push_str(run);
        }
        run.clear();
    };
    for c in text.chars() {
        if c == ' ' || c == '\t' {
            run.push(c);
        } else {
            flush(&mut run, &mut out);
            out.push(c);
        }
    }
    flush(&mut run, &mut out);
    out
}

/// The whole line, one row per line of it: collapsed, a `⏎` where it breaks, made safe, uncut.
fn rows(source: &str) -> Vec<String> {
    let lines: Vec<&str> = source.split('\n').collect();
    let last = lines.len().saturating_sub(1);
    lines
        .iter()
        .enumerate()
        .map(|(index, line)| {
            let mut row = sanitize::line_bounded(&collapse(line), airlock_shell::MAX_LINE);
            if index < last {
                row.push('⏎');
            }
            row
        })
        .collect()
}

/// At most 80 characters of a command, for messages.
fn cut(text: &str) -> String {
    let shown: String = text.chars().take(80).collect();
    if shown.len() < text.len() { format!("{shown}…") } else { shown }
}

#[cfg(test)]
#[path = "line_view_tests.rs"]
mod tests;
