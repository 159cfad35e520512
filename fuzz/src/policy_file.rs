//! The policy file reader (`policy.toml`, the user's or a repository's), its grants and
//! rules, and the writer `airlock plugins grant` and "allow always" use.
//!
//! Checks: a file that parses, written out again by [`Editor`] (every grant list and
//! limit, every rule), parses to the same grants and rules.

use std::path::Path;

use airlock_engine::capability::FileGrant;
use airlock_engine::policy::file::{Editor, PolicyFile, parse};
use airlock_engine::policy::rules::{Rule, RuleSource};

use crate::support;

pub fn run(data: &[u8]) {
    let path = Path::new("/fuzz/policy.toml");
    let Ok(file) = parse(path, data.to_vec(), RuleSource::Workspace) else { return };
    let again = support::with_folder(|folder| rewrite(&file, &folder.join("policy.toml")));
    assert_eq!(grants(&file), grants(&again), "grants changed when written out again");
    assert_eq!(rules(&file), rules(&again), "rules changed when written out again");
}

/// `file` written out by the editor into a new file at `path`, read back.
fn rewrite(file: &PolicyFile, path: &Path) -> PolicyFile {
    let mut editor = match Editor::open(path) {
        Ok(editor) => editor,
        Err(e) => panic!("cannot open a new policy file: {e}"),
    };
    for (name, table) in &file.grants {
        let grant = &table.grant;
        let lists = [
            ("files", table.sets.files, grant.files.iter().map(FileGrant::to_text).collect::<Vec<_>>()),
            ("network", table.sets.network, grant.network.iter().map(ToString::to_string).collect()),
            ("env", table.sets.env, grant.env.clone()),
            ("processes", table.sets.processes, grant.processes.clone()),
        ];
        for (key, set, values) in lists {
            if set {
                // An empty list still says "this list, and nothing in it".
                editor.add_to_list(name, key, &values);
                if values.is_empty() {
                    editor.add_to_list(name, key, &["placeholder".into()]);
                    editor.remove_from_list(name, key, &["placeholder".into()]);
                }
            }
        }
        let numbers = [
            ("memory_mb", grant.memory_mb.map(|v| v as u64)),
            ("timeout_secs", grant.timeout_secs),
            ("max_output_bytes", grant.max_output_bytes.map(|v| v as u64)),
        ];
        for (key, value) in numbers {
            if value.is_some() {
                editor.set_number(name, key, value);
            }
        }
        if table.sets.is_empty() && numbers.iter().all(|(_, v)| v.is_none()) {
            // An empty table still names the plugin.
            editor.set_number(name, "memory_mb", Some(1));
            editor.set_number(name, "memory_mb", None);
        }
    }
    for rule in &file.rules {
        let path = rule.path.as_ref().map(|glob| glob.text.as_str());
        editor.add_rule(
            rule.tool.as_deref().unwrap_or("*"),
            rule.command.as_deref(),
            path,
            rule.decision,
            rule.priority,
        );
    }
    match editor.save(RuleSource::Workspace) {
        Ok(file) => file,
        Err(e) => panic!("a policy that parsed does not parse once written out again: {e}"),
    }
}

/// The grants, comparable.
fn grants(file: &PolicyFile) -> Vec<(String, String)> {
    file.grants.iter().map(|(name, table)| (name.clone(), format!("{:?} {:?}", table.sets, table.grant))).collect()
}

/// The rules, comparable (where they were written aside).
fn rules(file: &PolicyFile) -> Vec<String> {
    file.rules
        .iter()
        .map(|Rule { tool, command, path, decision, priority, .. }| {
            format!("{tool:?} {command:?} {:?} {decision:?} {priority}", path.as_ref().map(|p| &p.text))
        })
        .collect()
}
