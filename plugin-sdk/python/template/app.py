"""{{name}}: an airlock plugin written in Python.

Build:  ./build.sh                  -> {{name}}.wasm
Test:   python3 -m unittest         (natively, no wasm needed)
Check:  airlock plugins check {{name}}.wasm
"""

import re
from collections import Counter

import airlock_tool as airlock

# componentize-py exports the class named `Tool` of this module: the kit's implementation
# of the airlock contract for every tool registered below with @airlock.tool.
Tool = airlock.plugin(name="{{name}}", version="0.1.0")

# Reaching the network or running a program: `airlock.http_get(url)` (request the host with
# `network=["https://api.example.com"]`) and `airlock.run_process(argv=["git", "--version"])`
# (request `processes=["git"]`); a refusal is raised as PermissionDenied for the model. Both
# are shown in the kit's examples/http_and_process.

WORD = re.compile(r"[^\W_]+(?:['\u2019-][^\W_]+)*")


@airlock.tool(
    name="{{tool}}",
    description=(
        "Counts the lines, words and characters of a text and lists its most frequent "
        "words. Use it instead of counting by hand."),
    parameters={
        "type": "object",
        "properties": {
            "text": {"type": "string", "description": "The text to count."},
            "top": {
                "type": "integer",
                "minimum": 0,
                "maximum": 20,
                "default": 3,
                "description": "How many of the most frequent words to list (default 3).",
            },
        },
        "required": ["text"],
        "additionalProperties": False,
    },
    kind="think",  # touches nothing: no capabilities, never needs approval
    describe_call=lambda args: "Count the words of %d characters" % len(args["text"]),
)
def {{tool}}(args):
    text = args["text"]
    if not text.strip():
        raise airlock.InvalidParams("`text` is empty; pass the text to count")
    words = [word.lower() for word in WORD.findall(text)]
    airlock.log.info("counting %d characters" % len(text))
    return airlock.json_result({
        "lines": len(text.splitlines()),
        "words": len(words),
        "characters": len(text),
        "top_words": Counter(words).most_common(args["top"]),
    })
