"""Unit tests of the helper layer, run natively from plugin-sdk/python:
python3 -m unittest discover -s tests"""

import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import airlock_tool as airlock  # noqa: E402

airlock.plugin(name="kit-test", version="1.2.3")


@airlock.tool(
    name="probe",
    description="Reads a file.",
    parameters={
        "type": "object",
        "properties": {
            "file_path": {"type": "string"},
            "start_line": {"type": "integer", "minimum": 1},
            "mode": {"type": "string", "enum": ["a", "b"], "default": "a"},
            "items": {"type": "array", "items": {
                "type": "object", "properties": {"n": {"type": "number"}}, "required": ["n"]}},
        },
        "required": ["file_path"],
        "additionalProperties": False,
    },
    kind="read",
    files=[(".", "read")],
    validate=lambda args: _refuse_zero(args),
    describe_call="Read {file_path}",
)
def probe(args):
    path = airlock.resolve_in_workspace(args["file_path"])
    with open(path, encoding="utf-8") as handle:
        return airlock.text(handle.read()).with_markdown("read " + airlock.display_path(path))


def _refuse_zero(args):
    if args["file_path"] == "zero":
        raise airlock.InvalidParams("zero is refused")


@airlock.tool(name="echo", description="Echoes.", kind="think")
def echo(args):
    return {"got": args}


@airlock.tool(name="boom", description="Fails.", kind="think")
def boom(args):
    return 1 / 0


def invalid_message(args, tool="probe"):
    with unittest.TestCase().assertRaises(airlock.InvalidParams) as raised:
        airlock.call(tool, args)
    return str(raised.exception)


class ArgumentsTest(unittest.TestCase):
    def test_missing_fields_are_named(self):
        self.assertIn("missing field `file_path`", invalid_message({}))

    def test_wrong_types_name_the_field(self):
        message = invalid_message({"file_path": "a", "start_line": "x"})
        self.assertIn("field `start_line`: expected integer, got string", message)
        self.assertIn("field `start_line`", invalid_message({"file_path": "a", "start_line": True}))
        self.assertIn("field `items[1]`: missing field `n`",
                      invalid_message({"file_path": "a", "items": [{"n": 1}, {}]}))
        self.assertIn("field `items[0].n`: expected number",
                      invalid_message({"file_path": "a", "items": [{"n": "1"}]}))

    def test_bounds_enums_and_unknown_fields(self):
        self.assertIn("must be at least 1", invalid_message({"file_path": "a", "start_line": 0}))
        self.assertIn('"c" is not one of "a", "b"', invalid_message({"file_path": "a", "mode": "c"}))
        self.assertIn("unknown field `x`", invalid_message({"file_path": "a", "x": 1}))

    def test_bad_json_is_invalid_params(self):
        self.assertIn("not valid JSON", invalid_message("{not json"))
        self.assertIn("must be a JSON object", invalid_message("[1]"))

    def test_the_validate_hook_runs(self):
        self.assertEqual(invalid_message({"file_path": "zero"}), "zero is refused")

    def test_defaults_are_filled_in_and_empty_args_are_an_object(self):
        self.assertEqual(airlock.call("echo", "").json, {"got": {}})
        self.assertEqual(airlock._parse_args(airlock._TOOLS["probe"], '{"file_path": "a"}'),
                         {"file_path": "a", "mode": "a"})

    def test_unknown_tools_are_invalid_params(self):
        self.assertIn("no tool named 'nope'; its tools are: probe, echo, boom",
                      invalid_message({}, tool="nope"))

    def test_describe_call_never_fails(self):
        spec = airlock._TOOLS["probe"]
        self.assertEqual(airlock._do_describe_call(spec, '{"file_path": "x.txt"}'), "Read x.txt")
        self.assertEqual(airlock._do_describe_call(spec, "garbage"), "Probe")

    def test_modify_args_without_a_hook_is_invalid_params(self):
        with self.assertRaises(airlock.InvalidParams) as raised:
            airlock._guarded("probe", lambda spec: airlock._do_modify_args(spec, "{}", ""))
        self.assertIn("no editable proposal", str(raised.exception))

    def test_unexpected_exceptions_become_execution_errors(self):
        with self.assertRaises(airlock.ExecutionError) as raised:
            airlock.call("boom")
        self.assertIn("ZeroDivisionError", str(raised.exception))


class HostileInputTest(unittest.TestCase):
    """Regressions: odd input must give invalid-params, never an unencodable string or an
    uncaught exception (either would trap the component)."""

    def test_deep_nesting_is_invalid_params(self):
        deep = '{"file_path": "a", "items": ' + "[" * 100000 + "]" * 100000 + "}"
        self.assertIn("nest too deeply", invalid_message(deep))
        self.assertIn("nest too deeply", invalid_message('{"x": ' + "[" * 100000 + "]" * 100000 + "}",
                                                         tool="echo"))

    def test_lone_surrogates_are_invalid_params(self):
        self.assertIn("lone UTF-16 surrogate", invalid_message('{"file_path": "a\\ud800b"}'))
        self.assertIn("lone UTF-16 surrogate", invalid_message('{"\\udfff": 1}', tool="echo"))
        # A proper pair is fine.
        self.assertEqual(airlock.call("echo", '{"x": "\\ud83d\\ude00"}').json, {"got": {"x": "\U0001F600"}})

    def test_a_nul_in_a_path_is_invalid_params(self):
        with self.assertRaises(airlock.InvalidParams):
            airlock.resolve_in("/home/u/proj", "a\x00b")
        with tempfile.TemporaryDirectory() as root:
            with self.assertRaises(airlock.InvalidParams):
                airlock.call("probe", {"file_path": "a.txt\x00"}, workspace=root)

    def test_odd_oserrors_and_exceptions_still_become_tool_errors(self):
        spec = airlock._TOOLS["boom"]
        error = airlock._as_tool_error(FileNotFoundError(2, "No such file", b"/nowhere/x"), spec)
        self.assertIsInstance(error, airlock.ToolError)
        error = airlock._as_tool_error(OSError(9, "Bad file descriptor", 3), spec)
        self.assertIsInstance(error, airlock.ToolError)

        class Unprintable(Exception):
            def __str__(self):
                raise RuntimeError("no")

        error = airlock._as_tool_error(Unprintable(), spec)
        self.assertIsInstance(error, airlock.ExecutionError)
        self.assertIn("unprintable", error.message)

    def test_outgoing_strings_are_encodable(self):
        self.assertEqual(airlock._clean("ok \u00e9"), "ok \u00e9")
        self.assertEqual(airlock._clean("bad \udcff name"), "bad ? name")


class WorkspaceTest(unittest.TestCase):
    def test_resolves_relative_and_absolute_paths(self):
        root = "/home/u/proj"
        self.assertEqual(airlock.resolve_in(root, "src/./main.rs"), "/home/u/proj/src/main.rs")
        self.assertEqual(airlock.resolve_in(root, "."), root)
        self.assertEqual(airlock.resolve_in(root, "a/../b"), "/home/u/proj/b")
        self.assertEqual(airlock.resolve_in(root, "/home/u/proj/x/../y"), "/home/u/proj/y")

    def test_refuses_paths_outside(self):
        for path in ["../other", "/etc/passwd", "/home/u/project", "src/../../x", "/", "//etc"]:
            with self.assertRaises(airlock.PermissionDenied, msg=path):
                airlock.resolve_in("/home/u/proj", path)
        with self.assertRaises(airlock.InvalidParams):
            airlock.resolve_in("/home/u/proj", " ")

    def test_files_through_call(self):
        with tempfile.TemporaryDirectory() as root:
            with open(os.path.join(root, "a.txt"), "w", encoding="utf-8") as handle:
                handle.write("hello")
            result = airlock.call("probe", {"file_path": "a.txt"}, workspace=root)
            self.assertEqual(result.text, "hello")
            self.assertEqual(result.display, ("markdown", "read a.txt"))
            with self.assertRaises(airlock.NotFound) as raised:
                airlock.call("probe", {"file_path": "missing.txt"}, workspace=root)
            self.assertIn("'missing.txt' does not exist", str(raised.exception))
            with self.assertRaises(airlock.NotFound):
                airlock.call("probe", {"file_path": "no/such/dir/x"}, workspace=root)
            # A workspace this instance cannot see means a missing grant, as in the sandbox.
            hidden = os.path.join(root, "not-granted")
            with self.assertRaises(airlock.PermissionDenied) as raised:
                airlock.call("probe", {"file_path": "a.txt"}, workspace=hidden)
            self.assertIn("has not been granted access", str(raised.exception))
            with self.assertRaises(airlock.InvalidParams):
                airlock.call("probe", {"file_path": "."}, workspace=root)
            os.environ["AIRLOCK_WORKSPACE"] = root
            try:
                self.assertEqual(airlock.workspace_root(), airlock.normalize(root))
                self.assertEqual(airlock.call("probe", {"file_path": "a.txt"}).text, "hello")
            finally:
                del os.environ["AIRLOCK_WORKSPACE"]


class DescribeTest(unittest.TestCase):
    def test_describe(self):
        info = airlock.describe()
        self.assertEqual((info["name"], info["version"]), ("kit-test", "1.2.3"))
        probe_info = info["tools"][0]
        self.assertEqual(probe_info["display_name"], "Probe")
        self.assertEqual(probe_info["kind"], "read")
        self.assertEqual(probe_info["capabilities"]["files"], [(".", "read")])
        json.dumps(info)

    def test_bad_registrations_fail_early(self):
        with self.assertRaises(ValueError):
            airlock.tool(name="Bad-Name", description="x", kind="read")
        with self.assertRaises(ValueError):
            airlock.tool(name="ok", description="x", kind="reading")
        with self.assertRaises(ValueError):
            airlock.plugin(name="Bad Name")

    def test_results(self):
        self.assertEqual(airlock.json_result({"a": "é"}).parts, [("json", '{"a":"é"}')])
        self.assertEqual(airlock.text(3).text, "3")
        self.assertEqual(airlock.edit_confirmation("/w/a", None, "x"), ("edit", "/w/a", "", "x", True))


if __name__ == "__main__":
    unittest.main()
