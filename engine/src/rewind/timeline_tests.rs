use std::io::Write as _;

use super::*;

const HEADER: &str = r#"{"type":"session","version":1,"id":"s1","started":"2026-11-28T12:00:00.000Z","workspace":"/w","provider":"p","model":"m"}"#;

fn file(lines: &[&str]) -> tempfile::NamedTempFile {
    let mut file = tempfile::NamedTempFile::new().unwrap();
    writeln!(file, "{HEADER}").unwrap();
    for line in lines {
        writeln!(file, "{line}").unwrap();
    }
    file
}

fn prompt(n: u32, history: usize) -> String {
    format!(
        r#"{{"type":"prompt","turn":0,"prompt":{n},"at":"2026-11-28T12:0{n}:00.000Z","text":"prompt {n}","history":{history}}}"#
    )
}

fn user(text: &str) -> String {
    format!(r#"{{"type":"message","turn":0,"role":"user","parts":[{{"type":"text","text":"{text}"}}]}}"#)
}

fn calls(id: &str, prompt: u32, before: &str, after: &str) -> String {
    format!(
        r#"{{"type":"calls","turn":1,"calls":[{{"id":"{id}","name":"write_file","status":"success","checkpoint":{{"prompt":{prompt},"before":["{before}"],"after":"{after}"}}}},{{"id":"r{id}","name":"read_file","status":"success"}}]}}"#
    )
}

fn numbers(timeline: &Timeline) -> Vec<u32> {
    timeline.prompts.iter().map(|mark| mark.prompt.prompt).collect()
}

#[test]
fn prompts_and_the_checkpointed_calls_of_each_are_read_in_order() {
    let file = file(&[
        &prompt(1, 0),
        &user("one"),
        &calls("c1", 1, "b1", "a1"),
        &prompt(2, 2),
        &user("two"),
        &calls("c2", 2, "b2", "a2"),
        &calls("c3", 2, "b3", "a3"),
    ]);
    let timeline = Timeline::read(file.path()).unwrap();
    assert_eq!(numbers(&timeline), [1, 2]);
    assert_eq!(timeline.count, 2);
    // Only calls that took a checkpoint are writes.
    assert_eq!(timeline.writes.len(), 3);
    let second = timeline.prompt(2).unwrap();
    let of_second: Vec<_> = timeline.calls_of(second).map(|w| w.call.clone().unwrap()).collect();
    assert_eq!(of_second, ["c2", "c3"]);
    let first = timeline.prompt(1).unwrap();
    let after_first: Vec<_> = timeline.writes_after(first.line).map(|w| w.before[0].0.clone()).collect();
    assert_eq!(after_first, ["b1", "b2", "b3"]);
    assert_eq!(timeline.call("c2").unwrap().after.as_ref().unwrap().0, "a2");
    assert!(timeline.call("rc2").is_none(), "a call without a checkpoint is no write");
}

#[test]
fn a_conversation_rewind_drops_prompts_and_its_undo_puts_them_back() {
    let rewound = r#"{"type":"rewound","turn":2,"target":{"kind":"prompt","prompt":2},"what":"both","undo":"s1","after":"s1a","prompts":1,"history":[]}"#;
    let undo = r#"{"type":"rewound","turn":2,"target":{"kind":"undo"},"what":"both","undo":"s2","after":"s2a","prompts":3,"history":[]}"#;
    let mut lines = vec![prompt(1, 0), prompt(2, 2), prompt(3, 4), rewound.to_owned()];
    let file = file(&lines.iter().map(String::as_str).collect::<Vec<_>>());
    let timeline = Timeline::read(file.path()).unwrap();
    assert_eq!(numbers(&timeline), [1]);
    assert_eq!(timeline.count, 1);
    assert_eq!(timeline.rewinds.len(), 1);
    assert_eq!(timeline.rewinds[0].prompts_before, 3);
    // The rewind's own checkpoints are a write.
    assert_eq!(timeline.writes.last().unwrap().before[0].0, "s1");
    assert!(timeline.writes.last().unwrap().call.is_none());

    lines.push(undo.to_owned());
    let file = self::file(&lines.iter().map(String::as_str).collect::<Vec<_>>());
    let timeline = Timeline::read(file.path()).unwrap();
    assert_eq!(numbers(&timeline), [1, 2, 3]);
    assert_eq!(timeline.count, 3);
    assert!(timeline.rewinds.is_empty());
}

#[test]
fn the_prompt_after_a_conversation_rewind_takes_the_dropped_number() {
    let rewound = r#"{"type":"rewound","turn":2,"target":{"kind":"prompt","prompt":2},"what":"conversation","prompts":1,"history":[]}"#;
    let file = file(&[&prompt(1, 0), &prompt(2, 2), rewound, &prompt(2, 2), &prompt(3, 4)]);
    let timeline = Timeline::read(file.path()).unwrap();
    assert_eq!(numbers(&timeline), [1, 2, 3]);
    // The second prompt 2 is the conversation's, not the first one.
    assert_eq!(timeline.prompt(2).unwrap().line, 5);
    // A conversation-only rewind took no checkpoint: no write.
    assert!(timeline.writes.is_empty());
}

#[test]
fn a_code_rewind_keeps_the_prompts() {
    let rewound =
        r#"{"type":"rewound","turn":2,"target":{"kind":"prompt","prompt":1},"what":"code","undo":"s1","prompts":2}"#;
    let file = file(&[&prompt(1, 0), &prompt(2, 2), rewound]);
    let timeline = Timeline::read(file.path()).unwrap();
    assert_eq!(numbers(&timeline), [1, 2]);
    assert_eq!(timeline.count, 2);
    assert_eq!(timeline.rewinds.len(), 1);
}

#[test]
fn the_history_before_a_prompt_survives_a_later_compression() {
    let compressed = r#"{"type":"compressed","turn":3,"replaced":4,"history":[{"role":"user","parts":[{"type":"text","text":"summary"}]}]}"#;
    let file = file(&[&prompt(1, 0), &user("one"), &prompt(2, 1), &user("two"), compressed, &user("three")]);
    let timeline = Timeline::read(file.path()).unwrap();
    let at = history_before(file.path(), timeline.prompt(2).unwrap().line).unwrap();
    assert_eq!(at.kept.len(), 1);
    assert_eq!(at.kept[0].parts, [airlock_model::Part::Text { text: "one".into() }]);
    assert_eq!(at.next.unwrap().parts, [airlock_model::Part::Text { text: "two".into() }]);
    // Now: the summary and "three".
    assert_eq!(at.now, 2);
}

#[test]
fn a_torn_last_line_is_skipped() {
    let mut file = file(&[&prompt(1, 0)]);
    write!(file, r#"{{"type":"prompt","turn":0,"prom"#).unwrap();
    let timeline = Timeline::read(file.path()).unwrap();
    assert_eq!(numbers(&timeline), [1]);
}

#[test]
fn replay_takes_a_conversation_rewind_as_its_base() {
    let rewound = r#"{"type":"rewound","turn":2,"target":{"kind":"prompt","prompt":2},"what":"conversation","prompts":1,"history":[{"role":"user","parts":[{"type":"text","text":"one"}]}]}"#;
    let code_only =
        r#"{"type":"rewound","turn":2,"target":{"kind":"prompt","prompt":1},"what":"code","undo":"s","prompts":1}"#;
    let file = file(&[&prompt(1, 0), &user("one"), &prompt(2, 1), &user("two"), rewound, code_only, &user("again")]);
    let resumed = crate::session::replay(file.path()).unwrap();
    let texts: Vec<_> = resumed
        .history
        .iter()
        .map(|m| match &m.parts[0] {
            airlock_model::Part::Text { text } => text.clone(),
            _ => String::new(),
        })
        .collect();
    assert_eq!(texts, ["one", "again"]);
}

#[test]
fn undoing_a_conversation_rewind_after_a_new_prompt_drops_that_prompt() {
    let rewound = r#"{"type":"rewound","turn":5,"target":{"kind":"prompt","prompt":3},"what":"both","undo":"s1","after":"s1a","prompts":2,"history":[]}"#;
    let undo = r#"{"type":"rewound","turn":6,"target":{"kind":"undo"},"what":"both","undo":"s2","after":"s2a","prompts":5,"history":[]}"#;
    let mut lines: Vec<String> = Vec::new();
    for n in 1..=5 {
        lines.push(prompt(n, 2 * n as usize - 2));
        lines.push(calls(&format!("c{n}"), n, &format!("b{n}"), &format!("a{n}")));
    }
    lines.extend([rewound.to_owned(), prompt(3, 4), calls("c3bis", 3, "b3bis", "a3bis"), undo.to_owned()]);
    let file = file(&lines.iter().map(String::as_str).collect::<Vec<_>>());
    let timeline = Timeline::read(file.path()).unwrap();
    assert_eq!(numbers(&timeline), [1, 2, 3, 4, 5]);
    assert_eq!(timeline.count, 5);
    // Prompt 3 is the original one: a rewind to before it undoes the writes from its own on.
    let third = timeline.prompt(3).unwrap();
    assert_eq!(third.line, 6);
    let firsts: Vec<_> = timeline.writes_after(third.line).map(|w| w.before[0].0.clone()).take(3).collect();
    assert_eq!(firsts, ["b3", "b4", "b5"]);
}
