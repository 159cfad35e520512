"""The well-behaved fixture server of the client-side tests: one tool of each kind of
result an MCP server gives, written with the official Python SDK (`mcp` on PyPI).

Run it as `python normal.py`; it speaks MCP over stdio in its current folder (airlock
starts it in the workspace). Its tools:
- `read_note(name)`: the text of a file of its current folder (a read tool);
- `write_note(folder, name, text)`: writes `text` to `folder/name` (a tool that writes);
- `slow_count(steps, delay_ms)`: counts, reporting progress at each step (a slow tool);
- `image()`: a 1x1 PNG (an image result);
- `resource()`: an embedded text resource (a resource result);
- `fail(reason)`: an error result (`isError`) carrying `reason`;
- `peek(path)`: tries to read any path, outside the workspace too, and returns what it
  got: the text, or the OS error (what the sandbox lets it do, seen from inside);
- `echo(text)`: `text` back, the least a call can do (the overhead benchmark's tool);
- `connect(port)`: opens a TCP connection to 127.0.0.1:`port` and says whether it could;
- `env_var(name)`: the value of the variable `name` it sees, or that it sees none.
"""

import asyncio
import os
import socket

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, EmbeddedResource, ImageContent, TextContent, TextResourceContents

# A 1x1 transparent PNG.
PIXEL = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)

server = MCPServer("normal", version="1.0.0")


def reply(value: str, error: bool = False) -> CallToolResult:
    return CallToolResult(content=[TextContent(text=value)], is_error=error)


@server.tool(description="Read a note: the text of a file in the server's folder.")
def read_note(name: str) -> CallToolResult:
    with open(name, encoding="utf-8") as file:
        return reply(file.read())


@server.tool(description="Write a note: `text` into the file `name` of `folder`.")
def write_note(folder: str, name: str, text: str) -> CallToolResult:
    path = os.path.join(folder, name)
    try:
        with open(path, "w", encoding="utf-8") as file:
            file.write(text)
    except OSError as error:
        return reply(f"cannot write {path}: {os.strerror(error.errno or 0)} (errno {error.errno})", error=True)
    return reply(f"wrote {len(text)} bytes to {path}")


@server.tool(description="Count to `steps`, waiting `delay_ms` between steps, reporting progress.")
async def slow_count(steps: int, delay_ms: int, ctx: Context) -> CallToolResult:
    for step in range(1, steps + 1):
        await asyncio.sleep(delay_ms / 1000)
        await ctx.report_progress(step, steps, f"step {step} of {steps}")
    return reply(f"counted to {steps}")


@server.tool(description="A one-pixel PNG image.")
def image() -> CallToolResult:
    return CallToolResult(content=[ImageContent(data=PIXEL, mime_type="image/png")])


@server.tool(description="An embedded text resource.")
def resource() -> CallToolResult:
    contents = TextResourceContents(uri="note://fixture/readme", mime_type="text/plain", text="the resource's text")
    return CallToolResult(content=[EmbeddedResource(resource=contents)])


@server.tool(description="Fail on purpose with `reason`.")
def fail(reason: str) -> CallToolResult:
    return reply(f"failed: {reason}", error=True)


@server.tool(description="Try to read any file and say what happened.")
def peek(path: str) -> CallToolResult:
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            return reply("read: " + file.read(4096))
    except OSError as error:
        return reply(f"refused: {error.strerror} (errno {error.errno})")


@server.tool(description="Echo `text` back.")
def echo(text: str) -> CallToolResult:
    return reply(text)


@server.tool(description="Connect to 127.0.0.1:`port` over TCP and say whether it worked.")
def connect(port: int) -> CallToolResult:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            return reply("connected")
    except OSError as error:
        return reply(f"refused: {error.strerror or error} (errno {error.errno})")


@server.tool(description="The value of the environment variable `name`, as the server sees it.")
def env_var(name: str) -> CallToolResult:
    value = os.environ.get(name)
    return reply("unset" if value is None else f"set: {value}")


if __name__ == "__main__":
    server.run("stdio")
