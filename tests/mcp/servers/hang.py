"""A fixture server that hangs: it reads what it is sent and never answers, not even
`initialize`. airlock must give up after the server's start-up timeout, report it once,
and end the process with the session."""

import sys
import time

while sys.stdin.buffer.read(1):
    pass
# stdin closed: still no answer, and no exit (only a signal ends it).
while True:
    time.sleep(3600)
