//! Unit tests of `cli.rs`.

use clap::CommandFactory;

use super::Cli;

/// Every flag and argument of every subcommand says what it is in `--help`.
#[test]
fn every_argument_has_help_text() {
    fn walk(command: &clap::Command, path: &str, missing: &mut Vec<String>) {
        for arg in command.get_arguments() {
            let id = arg.get_id().as_str();
            if id != "help" && id != "version" && arg.get_help().is_none() {
                missing.push(format!("{path} {id}"));
            }
        }
        for sub in command.get_subcommands() {
            if sub.get_about().is_none() {
                missing.push(format!("{path} {} (no about)", sub.get_name()));
            }
            walk(sub, &format!("{path} {}", sub.get_name()), missing);
        }
    }
    let mut missing = Vec::new();
    walk(&Cli::command(), "airlock", &mut missing);
    assert!(missing.is_empty(), "arguments without help text: {missing:?}");
}

/// An editor's `args` list puts the model flags after `acp`; they mean what they mean
/// before it.
#[test]
fn the_model_flags_are_taken_after_acp() {
    use clap::Parser as _;
    for line in [
        &["airlock", "acp", "--provider", "openai", "-m", "m1", "--base-url", "http://127.0.0.1:9/v1"][..],
        &["airlock", "--provider", "openai", "-m", "m1", "--base-url", "http://127.0.0.1:9/v1", "acp"][..],
    ] {
        let cli = Cli::try_parse_from(line).unwrap_or_else(|e| panic!("{line:?}: {e}"));
        assert_eq!(cli.provider.as_deref(), Some("openai"), "{line:?}");
        assert_eq!(cli.model.as_deref(), Some("m1"), "{line:?}");
        assert_eq!(cli.base_url.as_deref(), Some("http://127.0.0.1:9/v1"), "{line:?}");
    }
    let bad = Cli::try_parse_from(["airlock", "acp", "--base-url", "file:///etc/passwd"]);
    assert!(bad.is_err(), "a base URL that is not http(s) is refused after acp too");
}
