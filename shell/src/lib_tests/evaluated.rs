//! What bash evaluates again when the line runs: each construct of the class is read, and the
//! line says why it cannot be named whole; plain lines stay certain.

use super::super::*;

fn why(line: &str) -> String {
    let parsed = parse(line).unwrap_or_else(|e| panic!("{line:?} should parse: {e}"));
    parsed.uncertainty().unwrap_or_else(|| panic!("{line:?} should be uncertain; it lists {:?}", parsed.commands))
}

#[test]
fn plain_lines_are_certain() {
    for line in [
        "ls -la && git status",
        "echo $((1 + 2)) $((0x1f * 16#ff)) $[3]",
        "echo ${HOME} ${#a[@]} ${x:-default} ${x:1:2} ${x: -1} ${!prefix*} ${!a[@]} ${x@Q}",
        "for f in a b; do echo $f; done",
        "read -r line < f",
        "printf -v out '%s' x",
        "declare -a arr=(1 2); local x=1; export FOO=1; readonly R=1",
        "unset FOO; unset -f fn",
        "[ -v FOO ] && test -n x && [[ -n $x ]] && [[ 5 -eq 5 ]] && [[ -v a[0] ]]",
        "a[0]=1 b[@]=2",
        "env FOO=1 make",
        "GIT_AUTHOR_NAME=me git commit -m x",
        "let 1+2",
        "mapfile -t lines < f",
        "hash -r; hash ls",
        "getopts ab: opt",
        "alias; alias ls",
        "trap 'rm -f tmp' EXIT",
        "bash -c 'echo hi'",
    ] {
        let parsed = parse(line).unwrap_or_else(|e| panic!("{line:?}: {e}"));
        assert_eq!(parsed.uncertain, Vec::<String>::new(), "{line}");
    }
}

#[test]
fn subscripts_given_to_builtins_that_take_a_name_are_uncertain() {
    for line in [
        "printf -v 'a[$(rm x)]' 1",
        "printf -v'a[i]' 1",
        "printf -v \"$name\" 1",
        "printf -v'a[$(rm x)]' 1",
        "printf $opt 'a[i]' 1",
        "test $op 'a[$(rm x)]'",
        "read 'a[$(rm x)]' <<< 1",
        "read -a 'a[i]' <<< 1",
        "read -r -p prompt 'x[$(rm x)]'",
        "declare 'a[$(rm x)]=1'",
        "typeset 'a[i]=1'",
        "local \"$n=1\"",
        "export 'a[i]'",
        "readonly 'a[j]=2'",
        "unset 'a[$(rm x)]'",
        "unset -v 'a[i]'",
        "mapfile 'a[i]' < f",
        "readarray -t \"$n\" < f",
        "getopts ab 'a[i]'",
        "wait -n -p 'a[i]'",
        "test -v 'a[$(rm x)]'",
        "[ -v \"a[i]\" ]",
        "[[ -v a[i] ]]",
        "a[i]=1",
        "a[$j]=1 ls",
    ] {
        let reason = why(line);
        assert!(reason.contains("subscript") || reason.contains("known only"), "{line}: {reason}");
    }
}

#[test]
fn arithmetic_on_a_variable_is_uncertain() {
    for line in [
        "echo $((x))",
        "echo $(( x + 1 ))",
        "echo $[y]",
        "(( x ))",
        "((x++))",
        "let x",
        "let 'y=x+1'",
        "for ((i=0; i<n; i++)); do :; done",
        "[[ $x -eq 1 ]]",
        "[[ 1 -lt $x ]]",
        "[[ x -gt 2 ]]",
        "echo ${s:i}",
        "echo ${s:1:n}",
        "echo ${a[i]}",
        "echo ${#a[j]}",
        "echo ${a[$k]}",
        "echo $(( $(cat n) + 1 ))",
        "declare -i n=x",
        "local -i n",
        "declare -n ref=x",
    ] {
        let reason = why(line);
        assert!(
            reason.contains("arithmetic") || reason.contains("subscript") || reason.contains("attribute"),
            "{line}: {reason}"
        );
    }
}

#[test]
fn indirection_prompts_and_callbacks_are_uncertain() {
    for (line, says) in [
        ("echo ${!ref}", "named only when it runs"),
        ("echo \"${!ref}\"", "named only when it runs"),
        ("echo ${!ref:-x}", "named only when it runs"),
        ("echo ${x@P}", "prompt"),
        ("echo \"${x@P}\"", "prompt"),
        ("mapfile -C 'rm x' -c 1 a < f", "callback"),
        ("readarray -tC cb a < f", "callback"),
        ("hash -p /bin/rm ls", "another program"),
        ("enable -f ./x.so x", "shared library"),
        ("complete -C 'rm x' ls", "completion command"),
        ("compgen -C 'rm x' w", "completion command"),
        ("fc -s", "history"),
        ("bind -x '\"\\C-x\": rm x'", "binds"),
        ("alias ls='rm x'", "alias"),
        ("source ./x.sh", "commands of a file"),
        (". ./x.sh", "commands of a file"),
        ("builtin source ./x.sh", "commands of a file"),
        ("eval \"$C\"", "script known only"),
        ("eval $C", "script known only"),
        ("bash -c \"$C\"", "script known only"),
        ("sh -c $C", "script known only"),
        ("trap \"$C\" EXIT", "script known only"),
        ("su -c \"$C\" me", "script known only"),
        ("watch \"$C\"", "script known only"),
        ("flock /tmp/l -c \"$C\"", "script known only"),
        ("xargs -I{} sh -c 'rm {}'", "script known only"),
        ("$CMD x", "names its program only"),
        ("\"$HOME/bin/tool\" x", "names its program only"),
        ("find . -exec {} \\;", "names its program only"),
        ("parallel rm ::: a b", "from its input"),
    ] {
        let reason = why(line);
        assert!(reason.contains(says), "{line}: {reason}");
    }
}

#[test]
fn setting_a_variable_that_runs_code_is_uncertain_by_any_means() {
    for line in [
        "PS4='$(rm x)'; set -x; true",
        "PS4=x bash -xc true",
        "export PS4='$(rm x)'",
        "declare PS4",
        "read PS4 < f",
        "printf -v PS4 x",
        "for PS4 in a; do :; done",
        ": ${PS4:=x}",
        ": ${PS4=x}",
        "BASH_ENV=./x bash -c true",
        "ENV=./x sh -c true",
        "PROMPT_COMMAND='rm x' bash -i",
        "SHELLOPTS=xtrace bash -c true",
        "BASH_CMDS[ls]=/bin/rm; ls",
        "BASH_ALIASES[ls]='rm x'",
        "LD_PRELOAD=./x.so ls",
        "env LD_PRELOAD=./x.so ls",
        "sudo LD_LIBRARY_PATH=. ls",
        "GIT_CONFIG_COUNT=1 git status",
        "GIT_CONFIG_PARAMETERS=x git status",
        "GIT_EXTERNAL_DIFF=./x git diff",
        "GIT_DIR=./evil git status",
        "GIT_SSH_COMMAND='rm x' git fetch",
        "PAGER='rm x' man ls",
        "LESSOPEN='|rm x %s' less f",
        "EDITOR=./x git commit",
        "unset GIT_CONFIG_COUNT",
        "env 'BASH_FUNC_ls%%=() { rm x; }' bash -c ls",
    ] {
        let reason = why(line);
        assert!(reason.contains("run code") || reason.contains("known only"), "{line}: {reason}");
    }
}

#[test]
fn the_reason_names_at_most_three_constructs() {
    let reason = why("echo ${!a} ${!b} ${!c} ${!d} ${!e}");
    assert!(reason.ends_with("and 2 more"), "{reason}");
}
