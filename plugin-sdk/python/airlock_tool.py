"""airlock_tool: write airlock tools in Python.

A tool is a plain function plus its schema::

    import airlock_tool as airlock

    # componentize-py exports the class named `Tool` of the app module: the kit's
    # implementation of the `airlock:tool/tool` interface for every tool below.
    Tool = airlock.plugin(name="csv-query", version="0.1.0")

    @airlock.tool(
        name="csv_query",
        description="Queries a CSV file of the workspace.",
        parameters={"type": "object", "properties": {"file_path": {"type": "string"}},
                    "required": ["file_path"]},
        kind="read",
        files=[(".", "read")],
    )
    def csv_query(args: dict):
        path = airlock.resolve_in_workspace(args["file_path"])
        ...
        return airlock.text("...")

The kit implements the whole contract (`describe`, `validate`, `describe-call`, `confirm`,
`modify-args`, `execute`) around the functions: it dispatches by tool name, parses the
model's JSON arguments and checks them against the schema (a missing or mistyped field
becomes an `invalid-params` error naming it), fills in the schema's top-level defaults,
and turns the exceptions below (and `OSError`s from file access) into the contract's
`tool-error`s, so a bad call never traps the instance.

This module imports in plain CPython without the generated bindings: there the
host imports are replaced by native stand-ins (logging, the workspace root from
`set_workspace_root`, `$AIRLOCK_WORKSPACE` or the current folder), and `call(...)` runs a
tool the way the host would, for unit tests (`python3 -m unittest`).
"""

import json
import logging
import os
import posixpath
import re
import sys

__all__ = [
    "plugin", "tool", "Tool", "call", "describe",
    "ToolError", "InvalidParams", "NotFound", "PermissionDenied", "Timeout", "ExecutionError",
    "Cancelled",
    "Output", "text", "json_result", "media",
    "edit_confirmation", "exec_confirmation", "info_confirmation",
    "workspace_root", "set_workspace_root", "resolve_in_workspace", "resolve_in", "display_path",
    "normalize", "read_text", "read_bytes", "io_error", "within_grant",
    "log", "emit", "call_id", "in_wasm",
]

# The generated bindings exist only inside the component (componentize-py runs the app
# in its WASI build of CPython, at build time for pre-initialisation and at run time).
_IN_WASM = sys.platform == "wasi"


def in_wasm():
    """True inside the component, False in native CPython (unit tests)."""
    return _IN_WASM


# Standard modules loaded at build time inside the component (see below).
PRELOADED = (
    "encodings.ascii", "encodings.cp1252", "encodings.latin_1", "encodings.utf_16",
    "encodings.utf_8_sig", "encodings.idna", "heapq", "bisect", "copy", "math", "string",
    "textwrap", "difflib", "fnmatch", "glob", "datetime", "_strptime", "calendar", "decimal",
    "fractions", "statistics", "base64", "binascii", "hashlib", "struct", "zlib", "html",
    "urllib.parse", "unicodedata", "dataclasses", "pprint", "csv", "tomllib", "shlex",
)


class _Bindings:
    """The generated bindings (inside the component only)."""

    _loaded = None

    @classmethod
    def get(cls):
        if cls._loaded is None:
            from componentize_py_types import Err
            # The contract's `types` (named after its package: wasi:http has `types` too).
            from wit_world.imports import airlock_tool_types as types
            from wit_world.imports import context, output
            from wit_world.imports import log as host_log

            cls._loaded = (types, host_log, context, output, Err)
        return cls._loaded


class _Outside:
    """The bindings that reach outside: `wasi:http` and `airlock:host/process` (inside the
    component only)."""

    _loaded = None

    @classmethod
    def get(cls):
        if cls._loaded is None:
            from wit_world.imports import outgoing_handler, process, streams
            from wit_world.imports import wasi_http_types as http_types

            cls._loaded = (outgoing_handler, http_types, streams, process)
        return cls._loaded


if _IN_WASM:
    # componentize-py keeps only the modules that are loaded while it pre-initialises the
    # app at build time: a module first imported at run time (the bindings, `statistics`,
    # the codec behind `bytes.decode("cp1252")`) is missing then. Load the bindings and the
    # common codecs and the standard modules that others import lazily inside functions
    # (`Counter.most_common(n)` imports heapq, `datetime.strptime` _strptime, ...) now; an
    # app imports everything else it uses at its top.
    _Bindings.get()
    _Outside.get()
    for _module in PRELOADED:
        try:
            __import__(_module)
        except ImportError:
            pass


# ---------------------------------------------------------------------------------------
# Errors


class ToolError(Exception):
    """A failed call. The message is told to the model: say what to do differently."""

    kind = "execution"

    def __init__(self, message):
        super().__init__(message)
        self.message = str(message)

    def __str__(self):
        return self.message


class InvalidParams(ToolError):
    """The arguments are wrong."""

    kind = "invalid-params"


class NotFound(ToolError):
    """Something the call refers to does not exist."""

    kind = "not-found"


class PermissionDenied(ToolError):
    """The call needs something it may not touch (outside the workspace, not granted)."""

    kind = "permission-denied"


class Timeout(ToolError):
    """The call ran out of time."""

    kind = "timeout"


class ExecutionError(ToolError):
    """The call ran and failed."""

    kind = "execution"


class Cancelled(ToolError):
    """The call was cancelled."""

    kind = "cancelled"


# ---------------------------------------------------------------------------------------
# Results


class Output:
    """The result of a successful call: what the model is told (`parts`, each
    `("text", str)`, `("json", str)` or `("media", mime_type, bytes)`), and optionally
    what the user is shown (`display`: `("markdown", str)` or
    `("diff", path, original, proposed)`)."""

    def __init__(self, parts=None, display=None):
        self.parts = list(parts or [])
        self.display = display

    def with_text(self, value):
        self.parts.append(("text", str(value)))
        return self

    def with_json(self, value):
        self.parts.append(("json", _dump(value)))
        return self

    def with_markdown(self, markdown):
        """Shows the user `markdown` instead of a summary of the model's content."""
        self.display = ("markdown", str(markdown))
        return self

    def with_diff(self, path, original, proposed):
        """Shows the user a diff of a file the call changed."""
        self.display = ("diff", str(path), original, proposed)
        return self

    @property
    def text(self):
        """All text and JSON parts joined by newlines (handy in tests)."""
        return "\n".join(part[1] for part in self.parts if part[0] in ("text", "json"))

    @property
    def json(self):
        """The first JSON part, parsed (handy in tests)."""
        for part in self.parts:
            if part[0] == "json":
                return json.loads(part[1])
        raise ValueError("this output has no JSON part")

    def __repr__(self):
        return "Output(parts=%r, display=%r)" % (self.parts, self.display)


def _dump(value):
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def text(value):
    """A result that tells the model `value` as plain text."""
    return Output([("text", str(value))])


def json_result(value):
    """A result that tells the model `value` (anything `json.dumps` takes) as JSON."""
    return Output([("json", _dump(value))])


def media(mime_type, data):
    """A result with binary content, such as an image (`image/png`)."""
    return Output([("media", str(mime_type), bytes(data))])


# ---------------------------------------------------------------------------------------
# Confirmations (what `confirm` hooks return)


def edit_confirmation(path, original, proposed):
    """A proposed change to one file; `original` None means the file is new."""
    return ("edit", str(path), original or "", proposed, original is None)


def exec_confirmation(command, root_command=None, directory="", risk="medium"):
    """A command about to run; `risk` is "low", "medium" or "high"."""
    if risk not in ("low", "medium", "high"):
        raise ValueError("risk must be low, medium or high")
    root = root_command if root_command is not None else (command.split() or [""])[0]
    return ("exec", command, root, directory or workspace_root(), risk)


def info_confirmation(prompt, urls=()):
    """Anything else the user should agree to."""
    return ("info", str(prompt), [str(url) for url in urls])


# ---------------------------------------------------------------------------------------
# HTTP and programs

#: Bytes of a response body `http_request` reads unless given `max_body`.
DEFAULT_MAX_BODY = 8 << 20


class Response:
    """An HTTP response: `status`, `headers` (lower-case names, in order), `body` (bytes,
    at most the request's cap) and `truncated` (the body went on past it)."""

    def __init__(self, status, headers, body, truncated=False):
        self.status = status
        self.headers = list(headers)
        self.body = body
        self.truncated = truncated

    def header(self, name):
        """The first value of header `name` (any case), or None."""
        name = name.lower()
        return next((value for key, value in self.headers if key == name), None)

    def text(self):
        """The body as text (invalid UTF-8 replaced)."""
        return self.body.decode("utf-8", "replace")


def _split_url(url):
    from urllib.parse import urlsplit

    parts = urlsplit(str(url))
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc or "@" in parts.netloc:
        raise InvalidParams("%r is not an http:// or https:// URL with a host" % (url,))
    path = (parts.path or "/") + ("?" + parts.query if parts.query else "")
    return parts.scheme.lower(), parts.netloc, path


def _http_error(url, code):
    """A `wasi:http` error code (its class name) as the tool error the model is told."""
    if code == "ErrorCode_HttpRequestDenied":
        return PermissionDenied("%s: the request was denied: no network grant allows this destination" % url)
    if code == "ErrorCode_DestinationIpProhibited":
        return PermissionDenied(
            "%s: the host is at an address that is not public (loopback, private, link-local), "
            "which is reached only when the user's grant names that address" % url)
    if code in ("ErrorCode_DnsError", "ErrorCode_DestinationNotFound"):
        return ExecutionError("%s: the host name could not be resolved" % url)
    if code == "ErrorCode_ConnectionRefused":
        return ExecutionError("%s: the connection was refused" % url)
    return ExecutionError("%s: the request failed (%s)" % (url, code))


def _wasi_http(method, scheme, authority, path, headers, body, max_body, url):
    outgoing_handler, http_types, streams, _ = _Outside.get()
    _, _, _, _, Err = _Bindings.get()
    fields = http_types.Fields()
    for name, value in headers:
        fields.append(name, str(value).encode())
    request = http_types.OutgoingRequest(fields)
    known = {"GET": http_types.Method_Get(), "HEAD": http_types.Method_Head(),
             "POST": http_types.Method_Post(), "PUT": http_types.Method_Put(),
             "DELETE": http_types.Method_Delete(), "PATCH": http_types.Method_Patch(),
             "OPTIONS": http_types.Method_Options()}
    request.set_method(known.get(method.upper()) or http_types.Method_Other(method))
    request.set_scheme(http_types.Scheme_Https() if scheme == "https" else http_types.Scheme_Http())
    request.set_authority(authority)
    request.set_path_with_query(path)
    outgoing_body = request.body()
    try:
        pending = outgoing_handler.handle(request, None)
    except Err as error:
        raise _http_error(url, type(error.value).__name__) from None
    if body:
        stream = outgoing_body.write()
        for at in range(0, len(body), 4096):
            stream.blocking_write_and_flush(body[at:at + 4096])
    http_types.OutgoingBody.finish(outgoing_body, None)
    pending.subscribe().block()
    outcome = pending.get()
    if outcome is None or not hasattr(outcome, "value") or isinstance(outcome, Err):
        raise ExecutionError("%s: the response was lost" % url)
    if isinstance(outcome.value, Err):
        raise _http_error(url, type(outcome.value.value).__name__)
    response = outcome.value.value
    status = response.status()
    received = [(name.lower(), value.decode("utf-8", "replace")) for name, value in response.headers().entries()]
    incoming = response.consume()
    stream = incoming.stream()
    chunks, total, truncated = [], 0, False
    while True:
        room = max_body - total
        if room <= 0:
            truncated = True
            break
        try:
            chunk = stream.blocking_read(min(room, 65536))
        except Err as error:
            if isinstance(error.value, streams.StreamError_Closed):
                break
            code = http_types.http_error_code(error.value.value)
            raise _http_error(url, type(code).__name__ if code else "the body could not be read") from None
        chunks.append(chunk)
        total += len(chunk)
    return Response(status, received, b"".join(chunks), truncated)


def http_request(url, method="GET", headers=None, body=None, max_body=DEFAULT_MAX_BODY):
    """Sends one request through the host's `wasi:http` and returns its `Response`.

    The host sends it only to a destination the tool requests (`network=["https://api.example.com"]`)
    and the user granted; otherwise it raises `PermissionDenied`, which the model is told.
    Redirects come back as they are, never followed. Natively (unit tests) there is no host:
    it raises `ExecutionError`.
    """
    scheme, authority, path = _split_url(url)
    if isinstance(body, str):
        body = body.encode()
    if not _IN_WASM:
        raise ExecutionError("%s was not sent: HTTP goes through wasi:http, inside a component only" % url)
    return _wasi_http(method, scheme, authority, path, list((headers or {}).items()), body, max_body, url)


def http_get(url, headers=None, max_body=DEFAULT_MAX_BODY):
    """`http_request(url)`: a GET."""
    return http_request(url, "GET", headers, None, max_body)


class Completed:
    """A finished program: `code` (None when a signal ended it), `signal`, `timed_out`,
    `stdout` and `stderr` (text)."""

    def __init__(self, code, signal, timed_out, stdout, stderr):
        self.code, self.signal, self.timed_out = code, signal, timed_out
        self.stdout, self.stderr = stdout, stderr


def run_process(argv=None, shell=None, directory="", env=None, stdin=None, timeout_ms=0):
    """Runs a program through `airlock:host/process` (contract 0.2.0) and waits for its end:
    `run_process(argv=["git", "--version"])` or `run_process(shell="git status | head")`.

    The host starts only what the tool requests (`processes=["git"]`) and the user granted,
    in `directory` (default: the workspace root), with only `env` variables the tool was
    granted; a refusal raises `PermissionDenied` (or `InvalidParams`, `ExecutionError`) with
    the host's reason. Natively (unit tests) there is no host: it raises `ExecutionError`.
    """
    if (argv is None) == (shell is None):
        raise InvalidParams("run_process: give argv or shell")
    if not _IN_WASM:
        raise ExecutionError("not run: programs start through airlock:host/process, inside a component only")
    _, _, _, process = _Outside.get()
    _, _, _, _, Err = _Bindings.get()
    command = process.Command_Shell(shell) if shell is not None else process.Command_Argv("\0".join(argv))
    if isinstance(stdin, str):
        stdin = stdin.encode()
    options = process.SpawnOptions(
        command=command, directory=directory,
        env="\0".join("%s=%s" % item for item in (env or {}).items()),
        stdin=stdin, timeout_ms=int(timeout_ms), background=False)
    try:
        child = process.spawn(options)
    except Err as error:
        refusal = error.value
        if isinstance(refusal, process.SpawnError_Denied):
            raise PermissionDenied(refusal.value) from None
        if isinstance(refusal, process.SpawnError_Invalid):
            raise InvalidParams(refusal.value) from None
        raise ExecutionError(refusal.value) from None
    out, err = [], []
    while True:
        event = child.next(1000)
        if isinstance(event, process.Event_Stdout):
            out.append(event.value)
        elif isinstance(event, process.Event_Stderr):
            err.append(event.value)
        elif isinstance(event, process.Event_Exited):
            status = event.value
            return Completed(status.code, status.signal, status.timed_out,
                             b"".join(out).decode("utf-8", "replace"), b"".join(err).decode("utf-8", "replace"))


# ---------------------------------------------------------------------------------------
# Host services: log, output, context


class _Log:
    """Logging into the host's log (never the terminal). Natively: the `logging` module,
    logger `airlock_tool`."""

    _native = logging.getLogger("airlock_tool")

    def _write(self, level, message):
        message = str(message)
        if _IN_WASM:
            _, host_log, _, _, _ = _Bindings.get()
            host_log.log(getattr(host_log.Level, level.upper()), message)
        else:
            native = {"trace": logging.DEBUG, "warn": logging.WARNING}.get(level)
            self._native.log(native or getattr(logging, level.upper()), message)

    def trace(self, message):
        self._write("trace", message)

    def debug(self, message):
        self._write("debug", message)

    def info(self, message):
        self._write("info", message)

    def warn(self, message):
        self._write("warn", message)

    warning = warn

    def error(self, message):
        self._write("error", message)


log = _Log()


def emit(chunk):
    """Sends live output to the user (only shown for tools with `streams_output=True`)."""
    if _IN_WASM:
        _, _, _, output, _ = _Bindings.get()
        output.emit(str(chunk))
    else:
        logging.getLogger("airlock_tool.output").info("%s", chunk)


def call_id():
    """The id of the current call, for log lines ("native" outside the component)."""
    if _IN_WASM:
        _, _, context, _, _ = _Bindings.get()
        return context.call_id()
    return "native"


# ---------------------------------------------------------------------------------------
# Workspace paths

_native_root = None


def set_workspace_root(path):
    """Native mode only: the folder tests treat as the workspace (None: back to
    `$AIRLOCK_WORKSPACE`, else the current folder). Ignored inside the component, where
    the host says what the workspace is."""
    global _native_root
    _native_root = None if path is None else os.path.abspath(os.fspath(path))


def workspace_root():
    """The workspace root as an absolute, normalised path."""
    if _IN_WASM:
        _, _, context, _, _ = _Bindings.get()
        return normalize(context.workspace_root())
    root = _native_root or os.environ.get("AIRLOCK_WORKSPACE") or os.getcwd()
    return normalize(os.path.abspath(root))


def normalize(path):
    """Removes `.` and resolves `..` lexically (without touching the file system); `..`
    never climbs above `/`."""
    path = os.fspath(path)
    if not path:
        return "."
    out = posixpath.normpath(path)
    if out.startswith("//"):
        out = "/" + out.lstrip("/")
    return out


def _inside(path, root):
    return path == root or path.startswith(root.rstrip("/") + "/")


def resolve_in(root, path):
    """`resolve_in_workspace` against an explicit root."""
    if not isinstance(path, str) or not path.strip():
        raise InvalidParams(
            "the path is empty; give a path relative to the workspace root or an absolute "
            "path inside it")
    if "\x00" in path:
        raise InvalidParams("the path contains a NUL character; give a plain file path")
    root = normalize(root)
    resolved = normalize(posixpath.join(root, path))
    if not _inside(resolved, root):
        raise PermissionDenied(
            "path '%s' is outside the workspace %s; use a path inside it" % (path, root))
    return resolved


def resolve_in_workspace(path):
    """Turns a path from the model (absolute, or relative to the workspace root) into an
    absolute path with `.` and `..` removed. Refuses an empty path (`InvalidParams`) and
    anything outside the workspace (`PermissionDenied`). The host preopens the workspace
    at its real absolute path, so `open()` works on the result."""
    return resolve_in(workspace_root(), path)


def display_path(path):
    """`path` relative to the workspace root for messages (`.` for the root itself), or
    unchanged when it lies outside."""
    path = normalize(path)
    root = workspace_root()
    if path == root:
        return "."
    if _inside(path, root):
        return path[len(root.rstrip("/")) + 1:]
    return path


def within_grant(path):
    """Whether some folder above `path` inside the workspace is visible to this instance.
    Inside the sandbox a path the host did not grant looks like a missing file; this tells
    a missing file (its folder is visible) from a missing grant."""
    root = workspace_root()
    current = normalize(path)
    while True:
        parent = posixpath.dirname(current)
        if parent == current or not _inside(parent, root):
            return False
        if os.path.exists(parent):
            return True
        current = parent


def _not_granted(path):
    return PermissionDenied(
        "cannot access '%s': this tool has not been granted access to it (or only read "
        "access); the user can grant it with `airlock plugins grant`" % display_path(path))


def io_error(path, error):
    """An `OSError` on `path` as a tool error whose message says what to do next."""
    shown = display_path(path) if path else "the file"
    if isinstance(error, FileNotFoundError):
        if path and not within_grant(path):
            return _not_granted(path)
        return NotFound("'%s' does not exist; check the path" % shown)
    if isinstance(error, PermissionError):
        return _not_granted(path or "")
    if isinstance(error, NotADirectoryError):
        return InvalidParams("'%s' or one of its parents is not a directory" % shown)
    if isinstance(error, IsADirectoryError):
        return InvalidParams("'%s' is a directory, not a file" % shown)
    return ExecutionError("cannot access '%s': %s" % (shown, error.strerror or error))


def read_bytes(path):
    """The content of a file (an absolute path, e.g. from `resolve_in_workspace`)."""
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as error:
        raise io_error(path, error) from None


def read_text(path, encoding="utf-8"):
    """The content of a text file; a missing file is `NotFound`, a directory or a file
    that is not valid text is `InvalidParams`."""
    if os.path.isdir(path):
        raise InvalidParams("'%s' is a directory, not a file" % display_path(path))
    data = read_bytes(path)
    try:
        return data.decode(encoding)
    except UnicodeDecodeError:
        raise InvalidParams("'%s' is not a %s text file" % (display_path(path), encoding)) from None


# ---------------------------------------------------------------------------------------
# Argument checking: the basics of JSON Schema

_JSON_TYPES = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
    "null": lambda v: v is None,
}


def _type_name(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _short(value):
    shown = json.dumps(value, ensure_ascii=False)
    return shown if len(shown) <= 40 else shown[:37] + "..."


def _check(value, schema, path):
    """The first way `value` breaks `schema`, as (field path, message), or None. Covers
    type, enum, const, required, properties, additionalProperties: false, items,
    min/maxItems, min/maxLength, pattern, minimum/maximum and exclusive bounds."""
    if not isinstance(schema, dict):
        return None
    types = schema.get("type")
    if types is not None:
        names = [types] if isinstance(types, str) else list(types)
        if not any(_JSON_TYPES.get(name, lambda v: True)(value) for name in names):
            return path, "expected %s, got %s %s" % (
                " or ".join(names), _type_name(value), _short(value))
    if "enum" in schema and value not in schema["enum"]:
        return path, "%s is not one of %s" % (
            _short(value), ", ".join(_short(choice) for choice in schema["enum"]))
    if "const" in schema and value != schema["const"]:
        return path, "must be %s" % _short(schema["const"])
    if isinstance(value, dict):
        for name in schema.get("required", []):
            if name not in value:
                return path, "missing field `%s`" % name
        properties = schema.get("properties", {})
        for name, item in value.items():
            where = "%s.%s" % (path, name) if path else name
            if name in properties:
                found = _check(item, properties[name], where)
                if found:
                    return found
            elif schema.get("additionalProperties") is False:
                return path, "unknown field `%s`, expected one of: %s" % (
                    name, ", ".join("`%s`" % known for known in properties))
    if isinstance(value, list):
        if "minItems" in schema and len(value) < schema["minItems"]:
            return path, "needs at least %d items" % schema["minItems"]
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            return path, "takes at most %d items" % schema["maxItems"]
        items = schema.get("items")
        if isinstance(items, dict):
            for index, item in enumerate(value):
                found = _check(item, items, "%s[%d]" % (path, index))
                if found:
                    return found
    if isinstance(value, str):
        if "minLength" in schema and len(value) < schema["minLength"]:
            return path, "must be at least %d characters long" % schema["minLength"]
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            return path, "must be at most %d characters long" % schema["maxLength"]
        if "pattern" in schema and not re.search(schema["pattern"], value):
            return path, "must match the pattern %s" % schema["pattern"]
    if _JSON_TYPES["number"](value):
        if "minimum" in schema and value < schema["minimum"]:
            return path, "must be at least %s" % schema["minimum"]
        if "maximum" in schema and value > schema["maximum"]:
            return path, "must be at most %s" % schema["maximum"]
        if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
            return path, "must be greater than %s" % schema["exclusiveMinimum"]
        if "exclusiveMaximum" in schema and value >= schema["exclusiveMaximum"]:
            return path, "must be less than %s" % schema["exclusiveMaximum"]
    return None


def _parse_args(spec, args):
    """The model's JSON arguments as a dict, checked against the tool's schema, with the
    schema's top-level defaults filled in."""
    prefix = "invalid arguments for %s: " % spec.name
    suffix = ". Call the tool again with arguments that match its schema."
    if isinstance(args, (str, bytes)):
        source = args.strip() if isinstance(args, str) else args.decode("utf-8", "replace")
        try:
            value = json.loads(source or "{}")
        except ValueError as error:
            raise InvalidParams("%sthe arguments are not valid JSON (%s)%s" % (
                prefix, error.msg if hasattr(error, "msg") else error, suffix)) from None
        except RecursionError:
            raise InvalidParams("%sthe arguments nest too deeply%s" % (prefix, suffix)) from None
    else:
        value = json.loads(json.dumps(args))  # a private copy, JSON types only
    if not isinstance(value, dict):
        raise InvalidParams("%sthe arguments must be a JSON object, got %s%s" % (
            prefix, _type_name(value), suffix))
    try:
        # json.loads lets "\ud800" escapes through as lone surrogates: a str that cannot
        # be encoded, so echoing it in a result or an error would trap the instance.
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidParams("%sa string holds a lone UTF-16 surrogate (\\uD800-\\uDFFF)%s" % (
            prefix, suffix)) from None
    except RecursionError:
        raise InvalidParams("%sthe arguments nest too deeply%s" % (prefix, suffix)) from None
    try:
        found = _check(value, spec.parameters, "")
    except RecursionError:
        raise InvalidParams("%sthe arguments nest too deeply%s" % (prefix, suffix)) from None
    if found:
        where, message = found
        raise InvalidParams("%s%s%s%s" % (
            prefix, "field `%s`: " % where if where else "", message, suffix))
    for name, prop in spec.parameters.get("properties", {}).items():
        if name not in value and isinstance(prop, dict) and "default" in prop:
            value[name] = json.loads(json.dumps(prop["default"]))
    return value


# ---------------------------------------------------------------------------------------
# Registration

_TOOL_NAME = re.compile(r"^[a-z][a-z0-9_]{0,62}$")
_PLUGIN_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,62}$")
_KINDS = ("read", "edit", "delete", "move", "search", "execute", "fetch", "think", "other")
_TOOLS = {}
_PLUGIN = {}


class _Spec:
    def __init__(self, function, **fields):
        self.function = function
        self.__dict__.update(fields)


def _camel(name):
    return "".join(word[:1].upper() + word[1:] for word in name.split("_") if word)


def tool(name, description, parameters=None, *, kind, display_name=None, files=(),
         network=(), env=(), processes=(), parallel_safe=True, streams_output=False,
         validate=None, describe_call=None, confirm=None, modify_args=None):
    """Registers `function(args: dict)` as the tool `name` (what the model calls,
    `^[a-z][a-z0-9_]{0,62}$`).

    - `description`: for the model: what it does, what it returns, its limits.
    - `parameters`: the JSON Schema of the arguments (a dict, `{"type": "object", ...}`).
    - `kind`: "read", "edit", "delete", "move", "search", "execute", "fetch", "think" or
      "other"; read, search, fetch and think never ask for approval.
    - capabilities: `files=[(".", "read"), ("out", "read-write")]`,
      `network=["https://api.example.com"]`, `env=["TOKEN"]`, `processes=["git status"]`.
    - `parallel_safe` (say False for tools that change files), `streams_output`
      (True if it calls `emit`).
    - hooks, each called with the checked `args` dict: `validate(args)` raises for
      arguments the schema cannot rule out (runs before approval, confirm and execute);
      `describe_call(args) -> str` (or a format string such as "Query {file_path}");
      `confirm(args) -> None or edit_confirmation(...)/exec_confirmation(...)/
      info_confirmation(...)`; `modify_args(args, proposed) -> dict` for edit tools.

    The function returns an `Output` (`text(...)`, `json_result(...)`), a `str` (text) or
    any other JSON value (sent as JSON), and raises `ToolError`s (`InvalidParams`,
    `NotFound`, `PermissionDenied`, `ExecutionError`, ...); an `OSError` becomes the
    matching tool error, anything else an `execution` error."""
    if not _TOOL_NAME.match(name or ""):
        raise ValueError("tool name %r must match ^[a-z][a-z0-9_]{0,62}$" % (name,))
    if kind not in _KINDS:
        raise ValueError("tool %s: kind %r must be one of %s" % (name, kind, ", ".join(_KINDS)))
    if parameters is None:
        parameters = {"type": "object", "properties": {}}
    if not isinstance(parameters, dict) or parameters.get("type") != "object":
        raise ValueError('tool %s: parameters must be a JSON Schema dict with "type": "object"'
                         % name)
    requests = []
    for entry in files:
        path, access = (entry, "read") if isinstance(entry, str) else entry
        if access not in ("read", "read-write"):
            raise ValueError("tool %s: file access %r must be read or read-write" % (name, access))
        requests.append((str(path), access))

    def register(function):
        if name in _TOOLS:
            raise ValueError("two tools are named %s" % name)
        _TOOLS[name] = _Spec(
            function, name=name, description=description, parameters=parameters,
            display_name=display_name or _camel(name), kind=kind, files=requests,
            network=[str(rule) for rule in network], env=[str(var) for var in env],
            processes=[str(prefix) for prefix in processes], parallel_safe=bool(parallel_safe),
            streams_output=bool(streams_output), validate=validate,
            describe_call=describe_call, confirm=confirm, modify_args=modify_args)
        return function

    return register


def plugin(name, version="0.1.0"):
    """Names the plugin (used in grants: `^[a-z][a-z0-9_-]{0,62}$`) and its version, and
    returns the class that implements the contract. Assign it to `Tool` in the app
    module: `Tool = airlock_tool.plugin(name="demo", version="0.1.0")`."""
    if not _PLUGIN_NAME.match(name or ""):
        raise ValueError("plugin name %r must match ^[a-z][a-z0-9_-]{0,62}$" % (name,))
    _PLUGIN["name"] = name
    _PLUGIN["version"] = str(version)
    return Tool


def _find(name):
    spec = _TOOLS.get(name)
    if spec is None:
        raise InvalidParams("this plugin has no tool named '%s'; its tools are: %s" % (
            name, ", ".join(_TOOLS)))
    return spec


# ---------------------------------------------------------------------------------------
# The entrypoints, in Python terms (raising ToolError)


def _as_tool_error(error, spec):
    if isinstance(error, ToolError):
        return error
    if isinstance(error, OSError):
        filename = getattr(error, "filename", None)
        if isinstance(filename, bytes):
            filename = os.fsdecode(filename)
        try:
            return io_error(filename if isinstance(filename, str) else None, error)
        except Exception:  # noqa: BLE001 - an odd OSError must not trap the instance
            return ExecutionError("tool %s failed: %s" % (spec.name, _safe_str(error)))
    if isinstance(error, RecursionError):
        return ExecutionError("tool %s failed: the input nests too deeply" % spec.name)
    log.error("tool %s failed: %s: %s" % (spec.name, type(error).__name__, _safe_str(error)))
    return ExecutionError("tool %s failed unexpectedly: %s: %s" % (
        spec.name, type(error).__name__, _safe_str(error)))


def _safe_str(value):
    """str(value), never raising (an exception's __str__ may fail)."""
    try:
        return str(value)
    except Exception:  # noqa: BLE001
        return "<unprintable %s>" % type(value).__name__


def _clean(value):
    """A string the canonical ABI can carry: lone surrogates (file names decoded with
    surrogateescape, "\\ud800" escapes) would trap the instance when lowered to UTF-8."""
    value = value if isinstance(value, str) else _safe_str(value)
    try:
        value.encode("utf-8")
        return value
    except UnicodeEncodeError:
        return value.encode("utf-8", "replace").decode("utf-8")


def _run_validate(spec, args):
    parsed = _parse_args(spec, args)
    if spec.validate is not None:
        spec.validate(parsed)
    return parsed


def _do_describe_call(spec, args):
    try:
        parsed = _parse_args(spec, args)
        if spec.describe_call is None:
            return spec.display_name
        if isinstance(spec.describe_call, str):
            return spec.describe_call.format(**parsed)
        return str(spec.describe_call(parsed))
    except Exception:
        return spec.display_name


def _do_confirm(spec, args):
    parsed = _run_validate(spec, args)
    return None if spec.confirm is None else spec.confirm(parsed)


def _do_modify_args(spec, args, proposed):
    if spec.modify_args is None:
        raise InvalidParams("tool %s has no editable proposal, so its arguments cannot be "
                            "rebuilt from an edited one" % spec.name)
    new_args = spec.modify_args(_parse_args(spec, args), proposed)
    return new_args if isinstance(new_args, str) else _dump(new_args)


def _do_execute(spec, args):
    parsed = _run_validate(spec, args)
    result = spec.function(parsed)
    if isinstance(result, Output):
        return result
    if result is None:
        return text("done")
    if isinstance(result, str):
        return text(result)
    return json_result(result)


def _guarded(spec_name, action):
    """Runs `action(spec)` and turns every exception into a ToolError."""
    spec = _find(spec_name)
    try:
        return action(spec)
    except ToolError:
        raise
    except Exception as error:  # noqa: BLE001 - every failure becomes a tool error
        raise _as_tool_error(error, spec) from error


def call(name, args=None, workspace=None):
    """Runs tool `name` the way the host's `execute` does (parse and check the arguments,
    the `validate` hook, the function, result conversion) and returns its `Output`, or
    raises its `ToolError`. `args` is a dict or JSON text; `workspace` sets the workspace
    root for this call (native mode). For unit tests."""
    previous = _native_root
    if workspace is not None:
        set_workspace_root(workspace)
    try:
        return _guarded(name, lambda spec: _do_execute(spec, args if args is not None else {}))
    finally:
        if workspace is not None:
            set_workspace_root(previous)


def describe():
    """The plugin's self-description as plain data (what `describe` returns)."""
    if "name" not in _PLUGIN:
        raise RuntimeError('call airlock_tool.plugin(name="...") in the app module')
    return {
        "name": _PLUGIN["name"],
        "version": _PLUGIN["version"],
        "tools": [{
            "name": spec.name,
            "display_name": spec.display_name,
            "description": spec.description,
            "parameters": spec.parameters,
            "kind": spec.kind,
            "streams_output": spec.streams_output,
            "parallel_safe": spec.parallel_safe,
            "capabilities": {"files": spec.files, "network": spec.network, "env": spec.env,
                             "processes": spec.processes},
        } for spec in _TOOLS.values()],
    }


# ---------------------------------------------------------------------------------------
# The contract: conversions to and from the generated bindings


def _wit_error(error):
    types, _, _, _, Err = _Bindings.get()
    variant = {
        "invalid-params": types.ToolError_InvalidParams,
        "not-found": types.ToolError_NotFound,
        "permission-denied": types.ToolError_PermissionDenied,
        "timeout": types.ToolError_Timeout,
        "cancelled": types.ToolError_Cancelled,
    }.get(error.kind, types.ToolError_Execution)
    return Err(variant(_clean(error.message)))


def _wit_output(output):
    types = _Bindings.get()[0]
    parts = []
    for part in output.parts:
        if part[0] == "text":
            parts.append(types.ContentPart_Text(_clean(part[1])))
        elif part[0] == "json":
            parts.append(types.ContentPart_Json(_clean(part[1])))
        else:
            parts.append(types.ContentPart_Media(types.Media(_clean(part[1]), bytes(part[2]))))
    display = None
    if output.display and output.display[0] == "markdown":
        display = types.Display_Markdown(_clean(output.display[1]))
    elif output.display:
        _, path, original, proposed = output.display
        display = types.Display_Diff(types.FileDiff(
            _clean(path), _clean(original or ""), _clean(proposed or "")))
    return types.ToolOutput(parts, display)


def _wit_confirmation(confirmation):
    types = _Bindings.get()[0]
    if confirmation is None:
        return None
    tag = confirmation[0]
    if tag == "edit":
        _, path, original, proposed, is_new = confirmation
        return types.Confirmation_Edit(types.EditConfirmation(
            _clean(path), _clean(original), _clean(proposed), bool(is_new)))
    if tag == "exec":
        _, command, root, directory, risk = confirmation
        return types.Confirmation_Exec(types.ExecConfirmation(
            _clean(command), _clean(root), _clean(directory), getattr(types.Risk, risk.upper())))
    _, prompt, urls = confirmation
    return types.Confirmation_Info(types.InfoConfirmation(
        _clean(prompt), [_clean(url) for url in urls]))


class Tool:
    """The `airlock:tool/tool` interface for every registered tool (componentize-py
    instantiates the app module's `Tool` class and calls these methods)."""

    def describe(self):
        types = _Bindings.get()[0]
        info = describe()
        return types.PluginInfo(info["name"], info["version"], [
            types.ToolInfo(
                entry["name"], entry["display_name"], entry["description"],
                json.dumps(entry["parameters"], ensure_ascii=False),
                getattr(types.Kind, entry["kind"].upper()), entry["streams_output"],
                entry["parallel_safe"],
                types.Capabilities(
                    [types.FileRequest(path, types.Access.READ if access == "read"
                                       else types.Access.READ_WRITE)
                     for path, access in entry["capabilities"]["files"]],
                    entry["capabilities"]["network"], entry["capabilities"]["env"],
                    entry["capabilities"]["processes"]))
            for entry in info["tools"]])

    @staticmethod
    def _wit(name, action):
        try:
            return _guarded(name, action)
        except ToolError as error:
            raise _wit_error(error) from None

    def validate(self, tool, args):
        self._wit(tool, lambda spec: _run_validate(spec, args))

    def describe_call(self, tool, args):
        spec = _TOOLS.get(tool)
        return tool if spec is None else _clean(_do_describe_call(spec, args))

    def confirm(self, tool, args):
        return _wit_confirmation(self._wit(tool, lambda spec: _do_confirm(spec, args)))

    def modify_args(self, tool, args, proposed):
        return _clean(self._wit(tool, lambda spec: _do_modify_args(spec, args, proposed)))

    def execute(self, tool, args):
        return _wit_output(self._wit(tool, lambda spec: _do_execute(spec, args)))
