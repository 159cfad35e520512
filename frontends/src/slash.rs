//! A prompt that starts with `/`: `/NAME ARGS` runs the custom command NAME (its expansion
//! is the turn sent), `//text` sends `/text` as written, and a `/NAME` no command has is
//! sent as typed with a notice naming the commands there are. Used by `airlock -p`; the
//! interactive UI runs its built-ins first and then the same expansion.

use airlock_door::Session;

/// What a prompt sends, and the notices to show (sanitised, one line each).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    pub text: String,
    pub notices: Vec<String>,
}

/// Whether `name` could name a custom command (so `/usr/bin/x fails` is not taken for one).
pub fn is_command_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'))
}

/// The command name and arguments of `prompt`, when it starts with `/NAME`.
pub fn split(prompt: &str) -> Option<(&str, &str)> {
    let rest = prompt.trim_start().strip_prefix('/')?;
    let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
    let name = &rest[..end];
    is_command_name(name).then(|| (name, rest[end..].trim()))
}

/// What `prompt` sends in `session`.
pub fn prompt(session: &Session, prompt: String) -> Prompt {
    if let Some(literal) = prompt.trim_start().strip_prefix("//") {
        return Prompt { text: format!("/{literal}"), notices: Vec::new() };
    }
    let Some((name, args)) = split(&prompt) else {
        return Prompt { text: prompt, notices: Vec::new() };
    };
    match session.expand_command(name, args) {
        Ok(expanded) => Prompt { text: expanded.prompt, notices: expanded.notices },
        Err(unknown) => {
            let notice = format!("{unknown}; the prompt is sent as typed (`//` sends a leading `/`)");
            Prompt { text: prompt, notices: vec![airlock_protocol::shown::line(&notice)] }
        }
    }
}
