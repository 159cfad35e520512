"""http-and-process: the Python kit's example of reaching outside the sandbox, each through
what the user grants.

- `http_get` GETs a URL through wasi:http (`airlock.http_get`). It requests
  `http://127.0.0.1:*` (any port on this machine's loopback address) so the kit's tests can
  play the web with a local server; a real tool requests its API's host instead
  (`network=["https://api.github.com"]`).
- `run_echo` runs `echo` through airlock:host/process (`airlock.run_process`), asking the
  user first with an exec confirmation. It requests the command prefix `echo` and read
  access to the workspace, where the program runs.

Without the grant neither reaches anything: the host's refusal is raised as
`PermissionDenied`, which the model is told.

Build: ../../build.sh . http-and-process.wasm   (from this folder)
Test:  python3 -m unittest                      (natively, no wasm needed)
"""

import airlock_tool as airlock

Tool = airlock.plugin(name="http-and-process", version="0.1.0")

#: Bytes of a body the model is shown.
MAX_BODY = 64 << 10


@airlock.tool(
    name="http_get",
    display_name="HttpGet",
    description="GETs a URL and returns the status line and the body (at most 64 KiB).",
    parameters={
        "type": "object",
        "properties": {"url": {"type": "string", "description": "The http:// or https:// URL to GET."}},
        "required": ["url"],
        "additionalProperties": False,
    },
    kind="fetch",
    network=["http://127.0.0.1:*"],
    describe_call=lambda args: "GET %s" % args["url"],
)
def http_get(args):
    response = airlock.http_get(args["url"], max_body=MAX_BODY)
    cut = "\n[body cut at 64 KiB]" if response.truncated else ""
    return airlock.text("HTTP %d\n\n%s%s" % (response.status, response.text(), cut))


def echo_line(words):
    """The command line a call runs, as the user is shown it."""
    return " ".join(["echo"] + list(words))


@airlock.tool(
    name="run_echo",
    display_name="RunEcho",
    description="Runs `echo` with the given words and returns what it printed.",
    parameters={
        "type": "object",
        "properties": {"words": {"type": "array", "items": {"type": "string"},
                                 "description": "The words echo prints."}},
        "required": ["words"],
        "additionalProperties": False,
    },
    kind="execute",
    files=[(".", "read")],
    processes=["echo"],
    describe_call=lambda args: "Run %s" % echo_line(args["words"]),
    confirm=lambda args: airlock.exec_confirmation(echo_line(args["words"]), "echo", risk="low"),
)
def run_echo(args):
    # An argv, not a shell line: the words are never read as shell syntax.
    done = airlock.run_process(argv=["echo"] + list(args["words"]))
    if done.code != 0:
        raise airlock.ExecutionError("echo failed (code %s): %s" % (done.code, done.stderr))
    return airlock.text(done.stdout)
