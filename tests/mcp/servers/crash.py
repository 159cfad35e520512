"""A fixture server that crashes at start: it loads the SDK, says why on stderr and exits 3
before reading a byte of the protocol. airlock must report it once and go on."""

import sys

import mcp  # noqa: F401  (the crash comes after the SDK loaded, as a real server's would)

sys.stderr.write("crash.py: cannot start: the fixture's database is missing\n")
sys.exit(3)
