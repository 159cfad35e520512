"""A fixture server that floods whoever starts it, written with the official Python SDK's
low-level server. `python flood.py MODE`, MODE one of:
- `tools`: a tool list of 100 000 tools (about 10 MB of JSON);
- `descriptions`: 50 tools with descriptions of 1 MB each;
- `output`: answers `initialize`, then answers `tools/list` with endless junk on stdout (no
  newline, no end);
- `stderr`: a normal tool `ok`, while writing endless lines to stderr.
airlock must bound what it reads, report the server once, and go on.
"""

import os
import sys
import threading

import anyio
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.types import CallToolResult, ListToolsResult, TextContent, Tool

MODE = sys.argv[1] if len(sys.argv) > 1 else "tools"
EMPTY = {"type": "object", "properties": {}}


def tools() -> list[Tool]:
    if MODE == "tools":
        return [Tool(name=f"tool_{i}", description=f"Tool number {i}.", input_schema=EMPTY) for i in range(100_000)]
    if MODE == "descriptions":
        return [Tool(name=f"tool_{i}", description="d" * (1 << 20), input_schema=EMPTY) for i in range(50)]
    return [Tool(name="ok", description="A plain tool that works.", input_schema=EMPTY)]


async def list_tools(ctx, params) -> ListToolsResult:
    if MODE == "output":
        # The answer never comes: endless bytes where a JSON-RPC line should be.
        # Straight to file descriptor 1, the protocol's pipe, past the SDK's own stdout.
        chunk = b"A" * 65536
        while True:
            os.write(1, chunk)
    return ListToolsResult(tools=tools())


async def call_tool(ctx, params) -> CallToolResult:
    return CallToolResult(content=[TextContent(text=f"flood ran {params.name}")])


def stderr_flood() -> None:
    line = b"flood.py: noise " + b"N" * 1000 + b"\n"
    while True:
        sys.stderr.buffer.write(line)


server = Server("flood", version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    if MODE == "stderr":
        threading.Thread(target=stderr_flood, daemon=True).start()
    anyio.run(main)
