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
