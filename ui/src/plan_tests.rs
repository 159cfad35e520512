use super::*;

fn step(text: &str, status: StepStatus) -> Step {
    Step { text: text.into(), status }
}

fn text(lines: &[Line<'static>]) -> String {
    lines.iter().map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect::<String>() + "\n").collect()
}

#[test]
fn the_plan_panel_shows_the_steps_around_the_current_one() {
    use StepStatus::*;
    let short = [step("Read the code", Completed), step("Fix the bug", InProgress), step("Run the tests", Pending)];
    let long: Vec<Step> = (1..=10)
        .map(|i| {
            step(
                &format!("step {i} with a description long enough to be cut at forty columns"),
                match i {
                    1..=6 => Completed,
                    7 => InProgress,
                    _ => Pending,
                },
            )
        })
        .collect();
    let mut out = String::new();
    out.push_str(&text(&lines(&short, 80, &Theme::PLAIN)));
    out.push_str("--\n");
    out.push_str(&text(&lines(&long, 40, &Theme::PLAIN)));
    insta::assert_snapshot!("plan_panel", out);
    for line in lines(&long, 40, &Theme::PLAIN) {
        let shown: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
        assert!(UnicodeWidthStr::width(shown.as_str()) <= 40, "{shown}");
    }
}

#[test]
fn a_finished_or_empty_plan_shows_nothing() {
    let done = [step("a", StepStatus::Completed), step("b", StepStatus::Cancelled)];
    assert!(lines(&done, 80, &Theme::PLAIN).is_empty());
    assert!(lines(&[], 80, &Theme::PLAIN).is_empty());
}
