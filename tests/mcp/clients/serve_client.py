"""A client of `airlock mcp serve` written with the official MCP Python SDK (PyPI `mcp`), for
the end-to-end tests in `tests/e2e/mcp_serve/`. It prints JSON the Rust tests assert on.

Usage:
    serve_client.py [--mode M] [--url URL [--token T]] COMMAND ARGS... [-- SERVER_COMMAND...]

The server is either a command after `--` (stdio: the SDK starts it, in the current folder,
with this process's whole environment) or `--url` (streamable HTTP, with `Authorization:
Bearer T` when `--token` is given and not empty). `--mode` is the SDK's `Client(mode=…)`:
`legacy` (the initialize handshake; the default here, as real clients speak it today),
`auto`, or `2026-07-28`. `--handshake-version V` makes the legacy handshake offer V
(2025-06-18, say) instead of the SDK's newest.

Commands (each prints one JSON object per line on stdout):
    list                      {"protocol", "tools": [{name, description, input_schema, annotations}]}
    run SCRIPT                SCRIPT is JSON {"clients": {LABEL: {"elicit": E}}, "steps":
                              [{"client": LABEL, "tool": NAME, "args": {...}}]}; each client is
                              its own connection (its own MCP session), all open until the end.
                              E is "none" (elicitation not declared), "accept:WORD" (answer
                              with the choice containing WORD), "decline" or "cancel".
                              Prints {"protocols": {LABEL: v}, "results": [{client, is_error,
                              text, elicitations: [{message, schema, mode, answer}],
                              progress}]}; a call answered with a JSON-RPC error has
                              "error": {code, message} instead of "text".
    cancel TOOL ARGS MARKER   calls TOOL, cancels the call after `--after` seconds (default 1.5),
                              watching for a process whose command line contains MARKER until
                              then; waits for every such process to be gone, and lists the tools
                              on the same session to show it still serves. Prints {"finished"
                              (the text if the call ended first, else null), "cancel_took",
                              "marker_seen", "marker_gone_after", "tools_after"}.
    watch                     lists the tools, prints {"event": "ready", "tools"}, waits up to
                              `--timeout` seconds (default 30) for `notifications/tools/
                              list_changed` (on 2026-07-28 through `subscriptions/listen`), lists
                              again and prints {"event": "changed", "tools"}.

A failure to connect or a protocol error prints {"error": "..."} and exits with 2.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
import mcp.client.session
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
import mcp_types as types


def emit(value: dict[str, Any]) -> None:
    print(json.dumps(value), flush=True)


def tool_json(tool: types.Tool) -> dict[str, Any]:
    annotations = tool.annotations.model_dump(by_alias=True, exclude_none=True) if tool.annotations else None
    return {
        "name": tool.name,
        "description": tool.description,
        "input_schema": tool.input_schema,
        "annotations": annotations,
    }


def result_text(result: types.CallToolResult) -> str:
    parts = []
    for block in result.content:
        parts.append(block.text if isinstance(block, types.TextContent) else f"[{block.type}]")
    return "\n".join(parts)


def choose(schema: dict[str, Any], word: str) -> dict[str, Any]:
    """The form answer for `word`: each enum property gets its first choice containing it."""
    content: dict[str, Any] = {}
    for name, prop in (schema.get("properties") or {}).items():
        options: list[tuple[Any, str]] = []
        if "enum" in prop:
            titles = prop.get("enumNames") or prop["enum"]
            options = [(value, f"{value} {title}") for value, title in zip(prop["enum"], titles)]
        for option in prop.get("oneOf") or prop.get("anyOf") or []:
            if "const" in option:
                options.append((option["const"], f"{option['const']} {option.get('title', '')}"))
        if options:
            picked = [value for value, label in options if word.lower() in label.lower()]
            if picked:
                content[name] = picked[0]
        elif prop.get("type") == "boolean":
            content[name] = True
        elif prop.get("type") == "string" and name in (schema.get("required") or []):
            content[name] = word
    return content


class Elicitor:
    """An elicitation callback answering every request the same way, and recording each."""

    def __init__(self, how: str) -> None:
        self.how = how
        self.seen: list[dict[str, Any]] = []

    async def __call__(self, context: Any, params: Any) -> types.ElicitResult:
        schema = getattr(params, "requested_schema", None) or {}
        if hasattr(schema, "model_dump"):
            schema = schema.model_dump(by_alias=True, exclude_none=True)
        seen: dict[str, Any] = {"message": params.message, "schema": schema, "mode": getattr(params, "mode", None)}
        if self.how.startswith("accept:"):
            content = choose(schema, self.how.split(":", 1)[1])
            seen["answer"] = content
            self.seen.append(seen)
            return types.ElicitResult(action="accept", content=content)
        seen["answer"] = self.how
        self.seen.append(seen)
        return types.ElicitResult(action=self.how)  # "decline" or "cancel"


class Connection:
    """Opens SDK clients on the server the command line names."""

    def __init__(self, options: argparse.Namespace, server: list[str]) -> None:
        self.options = options
        self.server = server

    async def open(self, stack: AsyncExitStack, **kwargs: Any) -> Client:
        if self.options.url:
            headers = {"Authorization": f"Bearer {self.options.token}"} if self.options.token else {}
            http = await stack.enter_async_context(create_mcp_http_client(headers=headers))
            target: Any = streamable_http_client(self.options.url, http_client=http)
        else:
            target = StdioServerParameters(
                command=self.server[0], args=self.server[1:], env=dict(os.environ), cwd=os.getcwd()
            )
        return await stack.enter_async_context(Client(target, mode=self.options.mode, **kwargs))


async def command_list(connection: Connection, _args: argparse.Namespace) -> None:
    async with AsyncExitStack() as stack:
        client = await connection.open(stack)
        listed = await client.list_tools()
        emit({"protocol": client.protocol_version, "tools": [tool_json(t) for t in listed.tools]})


async def command_run(connection: Connection, args: argparse.Namespace) -> None:
    script = json.loads(args.script)
    async with AsyncExitStack() as stack:
        clients: dict[str, tuple[Client, Elicitor | None]] = {}
        for label, spec in script["clients"].items():
            how = spec.get("elicit", "none")
            elicitor = None if how == "none" else Elicitor(how)
            kwargs = {"elicitation_callback": elicitor} if elicitor else {}
            clients[label] = (await connection.open(stack, **kwargs), elicitor)
        results = []
        for step in script["steps"]:
            client, elicitor = clients[step["client"]]
            before = len(elicitor.seen) if elicitor else 0
            progress: list[str] = []

            async def on_progress(done: float, total: float | None, message: str | None) -> None:
                progress.append(message or str(done))

            outcome: dict[str, Any] = {"client": step["client"]}
            try:
                result = await client.call_tool(step["tool"], step.get("args", {}), progress_callback=on_progress)
                outcome |= {"is_error": bool(result.is_error), "text": result_text(result)}
            except MCPError as error:
                # A JSON-RPC error answer (an unknown tool, say): data for the test.
                outcome |= {"is_error": True, "error": {"code": error.code, "message": error.message}}
            outcome |= {"elicitations": elicitor.seen[before:] if elicitor else [], "progress": progress}
            results.append(outcome)
        emit(
            {
                "protocols": {label: client.protocol_version for label, (client, _) in clients.items()},
                "results": results,
            }
        )


def processes_with(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in cmdline and entry.name != str(os.getpid()):
            found.append(int(entry.name))
    return found


async def command_cancel(connection: Connection, args: argparse.Namespace) -> None:
    async with AsyncExitStack() as stack:
        client = await connection.open(stack)
        finished: types.CallToolResult | None = None
        marker_seen = False
        started = time.monotonic()
        async with anyio.create_task_group() as group:

            async def call() -> None:
                nonlocal finished
                finished = await client.call_tool(args.tool, json.loads(args.args))
                group.cancel_scope.cancel()

            group.start_soon(call)
            while time.monotonic() - started < args.after:
                marker_seen = marker_seen or bool(processes_with(args.marker))
                await anyio.sleep(0.05)
            cancelling = time.monotonic()
            # Leaving the scope cancelled makes the SDK send `notifications/cancelled`.
            group.cancel_scope.cancel()
        cancel_took = time.monotonic() - cancelling
        gone_after = None
        polled = time.monotonic()
        while time.monotonic() - polled < 10:
            if not processes_with(args.marker):
                gone_after = time.monotonic() - polled
                break
            await anyio.sleep(0.05)
        tools = await client.list_tools(cache_mode="bypass")
        emit(
            {
                "finished": result_text(finished) if finished else None,
                "cancel_took": cancel_took,
                "marker_seen": marker_seen,
                "marker_gone_after": gone_after,
                "tools_after": len(tools.tools),
            }
        )


async def command_watch(connection: Connection, args: argparse.Namespace) -> None:
    changed = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changed.set()

    async with AsyncExitStack() as stack:
        client = await connection.open(stack, message_handler=on_message)
        if client.protocol_version in ("2026-07-28",):
            subscription = await stack.enter_async_context(client.listen(tools_list_changed=True))

            async def forward() -> None:
                async for _event in subscription:
                    changed.set()
                    return

            group = await stack.enter_async_context(anyio.create_task_group())
            group.start_soon(forward)
        listed = await client.list_tools()
        emit({"event": "ready", "protocol": client.protocol_version, "tools": [t.name for t in listed.tools]})
        with anyio.fail_after(args.timeout):
            await changed.wait()
        listed = await client.list_tools(cache_mode="bypass")
        emit({"event": "changed", "tools": [t.name for t in listed.tools]})
        if client.protocol_version in ("2026-07-28",):
            group.cancel_scope.cancel()


def main() -> None:
    argv = sys.argv[1:]
    server: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, server = argv[:cut], argv[cut + 1 :]
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mode", default="legacy")
    parser.add_argument("--url")
    parser.add_argument("--token", default="")
    parser.add_argument("--handshake-version")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list")
    run = commands.add_parser("run")
    run.add_argument("script")
    cancel = commands.add_parser("cancel")
    cancel.add_argument("tool")
    cancel.add_argument("args")
    cancel.add_argument("marker")
    cancel.add_argument("--after", type=float, default=1.5)
    watch = commands.add_parser("watch")
    watch.add_argument("--timeout", type=float, default=30)
    args = parser.parse_args(argv)
    if not args.url and not server:
        parser.error("name the server: --url URL, or -- COMMAND ARGS...")
    if args.handshake_version:
        # The SDK always offers its newest handshake version and has no option to offer an
        # older one; a client that speaks only that older version is this constant changed.
        mcp.client.session.LATEST_HANDSHAKE_VERSION = args.handshake_version
    connection = Connection(args, server)
    handler = {"list": command_list, "run": command_run, "cancel": command_cancel, "watch": command_watch}
    try:
        anyio.run(handler[args.command], connection, args)
    except Exception as error:  # reported to the test as data: it asserts on refusals
        emit({"error": "; ".join(leaves(error)), "detail": repr(error)})
        sys.exit(2)


def leaves(error: BaseException) -> list[str]:
    """The messages of the exceptions a task group's `ExceptionGroup` wraps."""
    if isinstance(error, BaseExceptionGroup):
        return [message for inner in error.exceptions for message in leaves(inner)]
    return [f"{type(error).__name__}: {error}"]


if __name__ == "__main__":
    main()
