"""The Python-SDK baseline of the `airlock mcp serve` benchmark: an MCP server written with the
official SDK (PyPI `mcp`, `MCPServer`) over stdio, with one tool doing what airlock's
`read_file` does in the measured call: read a text file of the current folder and return its
content. It checks the path stays inside the folder (as any honest server would) and nothing
more: no sandbox, no approval, no output cap. `tests/mcp/bench/serve_bench.py` measures it and
airlock side by side.
"""

from pathlib import Path

from mcp.server.mcpserver import MCPServer

ROOT = Path.cwd().resolve()

server = MCPServer("read-baseline")


@server.tool()
def read_file(file_path: str) -> str:
    """Reads a text file of the current folder and returns its content."""
    path = (ROOT / file_path).resolve()
    if not path.is_relative_to(ROOT):
        raise ValueError(f"{file_path} is outside the folder")
    return path.read_text()


if __name__ == "__main__":
    server.run("stdio")
