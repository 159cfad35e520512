//! Arguments that make a read-looking command write a file or run a program (OpenAI Codex's
//! command-safety tests list the first of these): no prefix covers them.

use super::super::*;

/// The line's first command (wrappers list what they run after it).
fn first(line: &str) -> Command {
    parse(line).unwrap_or_else(|e| panic!("{line}: {e}")).commands.remove(0)
}

fn beyond(line: &str) -> Option<String> {
    first(line).beyond_its_name()
}

#[test]
fn read_looking_commands_that_write_or_run_are_named() {
    for (line, says) in [
        ("find . -delete", "deletes files"),
        ("find . -name x -exec rm {} ;", "runs a command"),
        ("find . -execdir python3 {} ;", "runs a command"),
        ("find . -ok rm {} ;", "runs a command"),
        ("find . -okdir rm {} ;", "runs a command"),
        ("find . -fls /etc/passwd", "writes a file"),
        ("find . -fprint /etc/passwd", "writes a file"),
        ("find . -fprint0 out", "writes a file"),
        ("find . -fprintf out '%p'", "writes a file"),
        ("sed -i s/a/b/ f", "edits files in place"),
        ("sed -i.bak s/a/b/ f", "edits files in place"),
        ("sed -ni 1p f", "edits files in place"),
        ("sed -ie s/a/b/ f", "edits files in place"),
        ("sed --in-place=.bak s/a/b/ f", "edits files in place"),
        ("sed -f script.sed f", "reads its script from a file"),
        ("sed -n 'e touch x' f", "runs a command"),
        ("sed -n '1e touch x' f", "runs a command"),
        ("sed -n '$w out' f", "writes a file"),
        ("sed -n '/x/W out' f", "writes a file"),
        ("sed -n 1p -e 'w out' f", "writes a file"),
        ("sed -n -e 1p -ew\\ out f", "writes a file"),
        ("sed 's/a/b/w out' f", "writes a file"),
        ("sed 's|a|b|gw out' f", "writes a file"),
        ("sed 's/x/touch y/e' f", "runs a command"),
        ("sed '1{s/a/b/;e id\n}' f", "runs a command"),
        ("sed 'K' f", "cannot read"),
        ("awk 'BEGIN { system(\"id\") }'", "may run commands"),
        ("awk '{ print | \"sh\" }' f", "may run commands"),
        ("awk '{ print > \"out\" }' f", "may run commands"),
        ("awk '\"date\" | getline d' f", "may run commands"),
        ("gawk -f prog.awk f", "reads its program"),
        ("gawk -l ./ext.so 'BEGIN{}'", "loads code"),
        ("gawk -e '@load \"x\"'", "may run commands"),
        ("rg --pre ./pwned x", "runs another program"),
        ("rg --pre=pwned x", "runs another program"),
        ("rg --hostname-bin=pwned x", "runs another program"),
        ("rg --search-zip x", "runs another program"),
        ("rg -nz x", "runs another program"),
        ("sort -o out f", "writes a file"),
        ("sort -uo out f", "writes a file"),
        ("sort --output=out f", "writes a file"),
        ("sort --compress-program=gzip f", "runs a program"),
        ("tee out", "writes a file"),
        ("uniq in out", "writes a file"),
        ("base64 -o out f", "writes a file"),
        ("base64 --output=out f", "writes a file"),
        ("less -o log f", "writes a file"),
        ("less '+!touch x' f", "runs a command"),
        ("man -P 'sh -c id' ls", "names a program"),
        ("curl -o out https://x", "writes a file"),
        ("curl -sSLo out https://x", "writes a file"),
        ("curl -K cfg https://x", "reads options"),
        ("wget https://x", "writes the files"),
        ("wget -e 'output_document=x' -O - https://x", "wgetrc"),
        ("tar xzf a.tar", "writes files"),
        ("tar -xf a.tar", "writes files"),
        ("tar -tf a.tar --to-command=sh", "runs a program"),
        ("tar -I 'sh -c id' -tf a.tar", "runs a program"),
        ("unzip a.zip", "writes files"),
        ("rsync -e 'sh -c id' a b", "runs a program"),
        ("ssh -o ProxyCommand='id' h", "local program"),
        ("ssh -oLocalCommand=id h", "local program"),
        ("git log --output=/tmp/out -n 1", "writes a file"),
        ("git diff --output /tmp/out", "writes a file"),
        ("git show --output=/tmp/out HEAD", "writes a file"),
        ("git diff --ext-diff", "runs a diff program"),
        ("git diff --no-ext-diff --ext", "runs a diff program"),
        ("git log --textconv -p", "runs a diff program"),
        ("git format-patch -1", "writes patch files"),
        ("git grep -O x", "runs a pager"),
        ("git -c core.pager=cat log", "can name a program"),
        ("git --config-env=core.pager=P log", "can name a program"),
        ("git --exec-path=. status", "can name a program"),
        ("git branch new-branch", "creates, renames or deletes"),
        ("git branch -d feature", "creates, renames or deletes"),
        ("git branch -D feature", "creates, renames or deletes"),
        ("git config core.pager x", "changes settings"),
        ("npm test --script-shell=./x", "runs a program"),
        ("cargo build --config 'target.x.runner=\"sh\"'", "can name programs"),
        ("make CC=./evil", "changes what make runs"),
        ("make --eval='x:;id' x", "changes what make runs"),
        ("dd if=a of=b", "writes a file"),
        ("time -o out ls", "writes a file"),
        ("strace -o out ls", "writes a file"),
        ("vim -c '!id' f", "runs editor commands"),
        ("sqlite3 db '.shell id'", "runs commands"),
    ] {
        let why = beyond(line).unwrap_or_else(|| panic!("{line}: nothing beyond its name"));
        assert!(why.contains(says), "{line}: {why}");
        let command = first(line);
        assert!(!command.covered_by(command.program().unwrap_or("x")), "{line}");
    }
}

#[test]
fn the_same_programs_reading_are_covered() {
    for line in [
        "find . -name '*.rs' -type f",
        "sed -n 1,5p f",
        "sed -n '1p' f",
        "sed 's/hello/world/g' f",
        "sed -E 's#a/b#c#2; 3d' f",
        "sed -n '/start/,/end/p' f",
        "sed --sandbox 'w x' f",
        "awk '{ print $1 }' f",
        "awk -F: -v x=1 '{ print $1 }' f",
        "awk -S '{ system(\"id\") }' f",
        "rg -n x src",
        "rg -e -z x",
        "rg -g '*.zip' x",
        "sort -u -k 2 f",
        "sort -t o -k1 f",
        "tee /dev/null",
        "uniq -c f",
        "less f",
        "man ls",
        "curl -sSL https://x",
        "wget -qO- https://x",
        "tar -tzf a.tar",
        "unzip -l a.zip",
        "git log -p -1",
        "git diff --no-ext-diff --stat",
        "git show -p HEAD",
        "git format-patch --stdout -1",
        "git branch",
        "git branch --show-current",
        "git branch -a -v",
        "git branch --list 'feat*'",
        "git config --get user.name",
        "git config user.name",
        "npm test",
        "cargo test --workspace",
        "make test",
        "dd if=a",
    ] {
        assert_eq!(beyond(line), None, "{line}");
        let command = first(line);
        assert!(command.covered_by(command.program().unwrap_or("x")), "{line}");
    }
}
