//! `/proc/self/mountinfo`, read for what the view needs: each mount's mount point and the
//! per-mount flags a remount must carry over (the kernel refuses a remount that would clear
//! a flag locked when the mounts were copied into a less privileged namespace).

use std::path::PathBuf;

use rustix::mount::MountFlags;

/// One mount: where it is, and its per-mount flags other than read-only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Mount {
    pub point: PathBuf,
    pub flags: MountFlags,
}

/// The mounts of `text` (the contents of a mountinfo file), in its order (parents first).
/// Lines that do not read as mountinfo are skipped.
pub(super) fn parse(text: &str) -> Vec<Mount> {
    text.lines().filter_map(parse_line).collect()
}

/// `36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue`: the
/// fifth field is the mount point, the sixth the per-mount options.
fn parse_line(line: &str) -> Option<Mount> {
    let mut fields = line.split(' ');
    let point = fields.nth(4)?;
    let options = fields.next()?;
    if !point.starts_with('/') {
        return None;
    }
    let flags = options.split(',').fold(MountFlags::empty(), |flags, option| {
        flags
            | match option {
                "nosuid" => MountFlags::NOSUID,
                "nodev" => MountFlags::NODEV,
                "noexec" => MountFlags::NOEXEC,
                "noatime" => MountFlags::NOATIME,
                "nodiratime" => MountFlags::NODIRATIME,
                "relatime" => MountFlags::RELATIME,
                "strictatime" => MountFlags::STRICTATIME,
                "nosymfollow" => MountFlags::NOSYMFOLLOW,
                _ => MountFlags::empty(),
            }
    });
    Some(Mount { point: PathBuf::from(unescape(point)), flags })
}

/// Mount points escape space, tab, newline and backslash as `\ooo` octal.
fn unescape(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let octal =
            bytes.get(i + 1..i + 4).filter(|d| bytes[i] == b'\\' && d.iter().all(|b| (b'0'..=b'7').contains(b)));
        match octal {
            Some(digits) => {
                let value = digits.iter().fold(0u32, |n, d| n * 8 + u32::from(d - b'0'));
                out.push(u8::try_from(value).unwrap_or(b'?'));
                i += 4;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    #[test]
    fn mount_points_and_their_flags_are_read() {
        let text = "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n\
                    22 27 0:21 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw\n\
                    28 27 0:25 / /mnt/with\\040space ro,nosuid,nodev,noatime - tmpfs x ro\n\
                    garbage\n";
        let mounts = parse(text);
        assert_eq!(mounts.len(), 3);
        assert_eq!(mounts[0], Mount { point: "/".into(), flags: MountFlags::RELATIME });
        assert_eq!(mounts[1].flags, MountFlags::NOSUID | MountFlags::NODEV | MountFlags::NOEXEC | MountFlags::RELATIME);
        assert_eq!(mounts[2].point, PathBuf::from("/mnt/with space"));
        assert!(mounts[2].flags.contains(MountFlags::NOATIME));
        assert!(!mounts[2].flags.contains(MountFlags::RDONLY), "read-only is the view's to set");
    }

    #[test]
    fn escapes_that_are_not_octal_stay_as_written() {
        assert_eq!(unescape(r"/a\bc\0"), r"/a\bc\0");
        assert_eq!(unescape(r"/tab\011end\134x"), "/tab\tend\\x");
    }

    #[test]
    fn this_machines_mountinfo_reads_whole() {
        let text = std::fs::read_to_string("/proc/self/mountinfo").expect("mountinfo");
        let mounts = parse(&text);
        assert_eq!(mounts.len(), text.lines().count(), "every line read");
        assert!(mounts.iter().any(|m| m.point == Path::new("/")));
    }
}
