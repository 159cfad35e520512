//! A person's own images: `@image.png` in a `-p` prompt (under the workspace rules of `@`
//! mentions) and `--image PATH` (any file the user names) arrive as image parts of the user
//! message on each wire.

use airlock_tests::images::{self, sent_media};
use airlock_tests::{MockModel, Session, Turn};

use super::{WIRES, write_bytes};
use crate::session;

/// Where the session's `--image` file lives: the temporary home, outside the workspace.
fn outside(s: &Session, name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let path = s.airlock_home().parent().map(|home| home.join(name)).unwrap();
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn an_at_mention_and_the_image_flag_arrive_as_user_image_parts() {
    let (mentioned, flagged) = (images::png(40, 30), images::png(20, 10));
    for wire in WIRES {
        let s = session();
        write_bytes(&s, "pic.png", &mentioned);
        let other = outside(&s, "other.png", &flagged);
        let mock = MockModel::start(wire);
        mock.push_turn(Turn::text("two pictures"));
        let other = other.display().to_string();
        let done = s.airlock(&mock, &["-p", "compare @pic.png with this", "--image", &other]);
        assert_eq!(done.code, Some(0), "{wire:?}: {}", done.stderr);
        let request = &mock.requests()[0];
        let sent = sent_media(request);
        assert_eq!(sent.len(), 2, "{wire:?}: {sent:?}");
        assert_eq!((sent[0].data.as_slice(), sent[1].data.as_slice()), (&mentioned[..], &flagged[..]), "{wire:?}");
        for item in &sent {
            assert_eq!((item.mime_type.as_str(), item.place), ("image/png", "user"), "{wire:?}");
        }
        let kind = ["inlineData", "image_url", "image"][WIRES.iter().position(|w| *w == wire).unwrap()];
        assert_eq!(sent[0].kind, kind, "{wire:?}");
        assert!(request.to_string().contains("compare @pic.png with this"), "{wire:?}: the text goes too");
    }
}

#[test]
fn an_at_mention_outside_the_workspace_is_not_attached_and_the_prompt_still_goes() {
    let s = session();
    let escaped = outside(&s, "secret.png", &images::png(8, 8));
    let relative = format!("../{}", escaped.file_name().unwrap().to_string_lossy());
    std::os::unix::fs::symlink(&escaped, s.workspace.join("link.png")).unwrap();
    let mock = MockModel::start(airlock_tests::Wire::Anthropic);
    mock.push_turn(Turn::text("nothing attached"));
    let prompt = format!("see @link.png and @{relative}");
    let done = s.airlock(&mock, &["-p", &prompt]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert!(done.stderr.contains("@link.png not attached: it is outside the workspace"), "{}", done.stderr);
    assert_eq!(sent_media(&mock.requests()[0]), []);
}

#[test]
fn an_image_flag_that_cannot_be_read_is_a_usage_error_before_any_request() {
    let s = session();
    let mock = MockModel::start(airlock_tests::Wire::OpenAi);
    let missing = s.workspace.join("missing.png").display().to_string();
    let done = s.airlock(&mock, &["-p", "hi", "--image", &missing]);
    assert_eq!(done.code, Some(2), "{}", done.stderr);
    assert!(done.stderr.contains("--image: cannot read"), "{}", done.stderr);
    assert!(mock.requests().is_empty());
}
