use super::*;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn valid_skills_load_and_invalid_ones_are_left_out_with_why() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (home, ws) = (root.join("home"), root.join("work"));
    std::fs::create_dir_all(&ws).unwrap();
    write(&home.join("skills/pdf/SKILL.md"), "---\nname: pdf\ndescription: Fill PDF forms\nlicense: MIT\n---\nBODY\n");
    write(&ws.join(".airlock/skills/pdf/SKILL.md"), "---\nname: pdf\ndescription: theirs\n---\nx");
    write(&ws.join(".airlock/skills/review/SKILL.md"), "---\nname: review\ndescription: Reviews\n---\nx");
    write(&ws.join(".airlock/skills/bare/SKILL.md"), "no front matter");
    write(&ws.join(".airlock/skills/other/SKILL.md"), "---\nname: another\ndescription: d\n---\n");
    write(&ws.join(".airlock/skills/Bad_Name/SKILL.md"), "---\nname: Bad_Name\ndescription: d\n---\n");
    let long = "x".repeat(LONGEST_DESCRIPTION_CHARS + 1);
    // Longer than the format's 1024 but loaded, as Claude Code loads Anthropic's own
    // `claude-api` skill (1068 characters): its first 1024 are used.
    let wordy = "y".repeat(MAX_DESCRIPTION_CHARS + 44);
    write(&ws.join(".airlock/skills/wordy/SKILL.md"), &format!("---\nname: wordy\ndescription: {wordy}\n---\n"));
    write(&ws.join(".airlock/skills/long/SKILL.md"), &format!("---\nname: long\ndescription: {long}\n---\n"));
    write(&ws.join(".airlock/skills/nodesc/SKILL.md"), "---\nname: nodesc\n---\n");
    let skills = load(&home, &ws);
    let names: Vec<_> = skills.list.iter().map(|s| (s.name.as_str(), s.origin)).collect();
    assert_eq!(names, [("pdf", Origin::User), ("review", Origin::Workspace), ("wordy", Origin::Workspace)]);
    let wordy = &skills.list[2];
    assert_eq!(wordy.cut_from, Some(MAX_DESCRIPTION_CHARS + 44));
    assert_eq!(wordy.description.chars().count(), MAX_DESCRIPTION_CHARS + 1, "cut, with an ellipsis");
    assert!(wordy.description.ends_with('…'));
    assert_eq!(skills.list[0].dir, home.join("skills/pdf"));
    let problems = skills.problems.join("\n");
    for expected in [
        "bare: left out: its SKILL.md has no front matter",
        "other: left out: its name `another` is not its folder's name",
        "Bad_Name: left out: its name `Bad_Name` is not",
        "long: left out: its description has 8193 characters; at most 8192",
        "nodesc: left out: its front matter has no `description`",
        "skills/pdf: left out: a skill named `pdf` was found first",
    ] {
        assert!(problems.contains(expected), "{expected} not in {problems}");
    }
    let section = section(&skills);
    assert!(section.contains("- pdf: Fill PDF forms\n"), "{section}");
    assert!(section.contains("- review: Reviews (from this workspace)\n"), "{section}");
    assert!(!section.contains("BODY"), "{section}");
    assert_eq!(super::section(&Skills::default()), "");
}

#[test]
fn names_follow_the_agent_skills_rules() {
    for good in ["pdf", "pdf-forms", "a1", &"a".repeat(64)] {
        assert!(valid_name(good), "{good}");
    }
    for bad in ["", "-pdf", "pdf-", "pdf--forms", "PDF", "pdf_forms", "pdf.x", &"a".repeat(65)] {
        assert!(!valid_name(bad), "{bad}");
    }
}
