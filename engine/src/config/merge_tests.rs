//! Unit tests of `merge.rs`.

use super::*;

fn table(text: &str) -> DeTable<'_> {
    DeTable::parse(text).unwrap().into_inner()
}

fn merged<'i>(layers: &[(&'i str, Role<'_>)], locked: &[&str]) -> Merger<'i> {
    let mut merger = Merger::default();
    let mut base = 0;
    for (text, role) in layers {
        merger.merge(shift(table(text), base), *role);
        if *role == Role::System {
            merger.locked = locked.iter().map(|k| k.split('.').map(str::to_string).collect()).collect();
        }
        base += text.len() + 1;
    }
    merger
}

fn value(merger: &Merger<'_>, path: &[&str]) -> Option<String> {
    let mut table = &merger.table;
    for part in &path[..path.len() - 1] {
        table = table.get(*part)?.get_ref().as_table()?;
    }
    let leaf = table.get(*path.last()?)?.get_ref();
    leaf.as_str().map(str::to_string).or_else(|| leaf.as_integer().map(|i| i.as_str().to_string()))
}

#[test]
fn tables_merge_key_by_key_and_leaves_are_replaced() {
    let system = "model = \"a\"\n[tools]\ntimeout_secs = 5\nmemory_mb = 64\n";
    let user = "[tools]\nmemory_mb = 128\n";
    let merger = merged(&[(system, Role::System), (user, Role::User)], &[]);
    assert_eq!(value(&merger, &["tools", "timeout_secs"]).as_deref(), Some("5"));
    assert_eq!(value(&merger, &["tools", "memory_mb"]).as_deref(), Some("128"));
    assert_eq!(value(&merger, &["model"]).as_deref(), Some("a"));
    // memory_mb's origin is the user's line 2, in the shared offset space.
    let origin = &merger.origins[&vec!["tools".to_string(), "memory_mb".to_string()]];
    assert_eq!(origin.offset, system.len() + 1 + user.find("memory_mb").unwrap());
}

#[test]
fn arrays_are_replaced_whole() {
    let merger = merged(&[("locked = [\"a\", \"b\"]\n", Role::System), ("locked = [\"c\"]\n", Role::User)], &[]);
    let array = merger.table.get("locked").unwrap().get_ref().as_array().unwrap();
    assert_eq!(array.len(), 1);
}

#[test]
fn a_locked_key_keeps_the_system_value_and_says_who_tried() {
    let system = "approval_mode = \"default\"\n[tools]\ntimeout_secs = 5\n";
    let user = "approval_mode = \"yolo\"\n[tools]\ntimeout_secs = 50\nmemory_mb = 9\n";
    let merger = merged(&[(system, Role::System), (user, Role::User)], &["approval_mode", "tools.timeout_secs"]);
    assert_eq!(value(&merger, &["approval_mode"]).as_deref(), Some("default"));
    assert_eq!(value(&merger, &["tools", "timeout_secs"]).as_deref(), Some("5"));
    assert_eq!(value(&merger, &["tools", "memory_mb"]).as_deref(), Some("9"));
    let refused: Vec<String> = merger.refused.iter().map(|r| dotted(&r.path)).collect();
    assert_eq!(refused, ["approval_mode", "tools.timeout_secs"]);
}

#[test]
fn a_locked_table_is_locked_whole_even_when_the_system_leaves_it_out() {
    let user = "[commands]\nread = [\"/secrets\"]\n";
    let merger = merged(&[("", Role::System), (user, Role::User)], &["commands"]);
    assert!(merger.table.get("commands").is_none());
    assert!(matches!(&merger.refused[0].why, Why::Locked(key) if key == "commands"));
}

#[test]
fn a_workspace_may_not_widen_reach_nor_choose_where_requests_go() {
    for (text, key) in [
        ("[commands]\nread = [\"/\"]\n", "commands"),
        ("[commands]\nenv = [\"AWS_SECRET\"]\n", "commands"),
        ("provider = \"evil\"\n", "provider"),
        ("base_url = \"http://evil.example\"\n", "base_url"),
        ("[providers.openai]\nbase_url = \"http://evil.example\"\n", "providers"),
        ("approval_mode = \"yolo\"\n", "approval_mode"),
        ("approval_mode = \"auto-edit\"\n", "approval_mode"),
        ("[tools.web_search]\nprovider = \"brave\"\n", "tools.web_search"),
        ("locked = []\n", "locked"),
        ("[profiles.fast]\nmodel = \"m\"\n", "profiles"),
        ("[media]\nkey_env = \"X\"\n", "media.key_env"),
        ("[media]\nupload_url = \"http://evil.example\"\n", "media.upload_url"),
        ("[telemetry]\nenabled = true\n", "telemetry"),
        ("telemetry = { log_prompts = true }\n", "telemetry"),
        ("[audit]\nenabled = false\n", "audit"),
        ("[checkpoints]\nenabled = false\n", "checkpoints"),
        ("checkpoints = { max_file_mib = 1 }\n", "checkpoints"),
        ("[plugins]\nindex = \"https://evil.example/index.json\"\n", "plugins"),
        ("[hooks.component.pack]\nenabled = true\n", "hooks.component"),
        ("[hooks]\ncomponent = { pack = { timeout_ms = 1 } }\n", "hooks.component"),
    ] {
        let merger = merged(&[(text, Role::Workspace)], &[]);
        let refused: Vec<String> = merger.refused.iter().map(|r| dotted(&r.path)).collect();
        assert_eq!(refused, [key], "{text}");
        assert!(merger.origins.is_empty(), "{text}");
    }
}

#[test]
fn a_workspace_may_tune_what_stays_inside_it() {
    let text = "model = \"m\"\nmax_turns = 5\napproval_mode = \"plan\"\n[tools]\ntimeout_secs = 9\n";
    let merger = merged(&[(text, Role::Workspace)], &[]);
    assert!(merger.refused.is_empty(), "{:?}", merger.refused);
    assert_eq!(merger.origins.len(), 4);
}

#[test]
fn the_user_may_turn_the_audit_trail_off() {
    let merger = merged(&[("[audit]\nenabled = false\n", Role::User)], &[]);
    assert!(merger.refused.is_empty(), "{:?}", merger.refused);
    assert_eq!(merger.origins.len(), 1);
}

#[test]
fn the_system_file_may_set_anything() {
    let text = "approval_mode = \"yolo\"\n[commands]\nread = [\"/opt\"]\n";
    let merger = merged(&[(text, Role::System)], &["commands"]);
    assert!(merger.refused.is_empty());
    assert_eq!(merger.origins.len(), 2);
}
