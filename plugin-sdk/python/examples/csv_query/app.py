"""csv-query: an airlock plugin that queries CSV files of the workspace.

Build: ../../build.sh . csv_query.wasm   (from this folder; or build.sh examples/csv_query)
Test:  python3 -m unittest               (natively, no wasm needed)
"""

import csv
import io
import re

import airlock_tool as airlock

# componentize-py exports the class named `Tool` of this module: the kit's implementation
# of the contract for every tool registered below.
Tool = airlock.plugin(name="csv-query", version="0.1.0")

OPS = ["=", "!=", "<", ">", "<=", ">=", "contains"]
MAX_LIMIT = 1000
MAX_CELL = 80  # characters of one cell shown in the text table

PARAMETERS = {
    "type": "object",
    "properties": {
        "file_path": {
            "type": "string",
            "description": "The CSV file, relative to the workspace root. Its first row "
                           "must name the columns.",
        },
        "where": {
            "type": "array",
            "description": "Conditions a row must all meet. Values compare as numbers when "
                           "both sides are numbers, else as text; `contains` is a "
                           "case-insensitive substring test.",
            "items": {
                "type": "object",
                "properties": {
                    "column": {"type": "string", "description": "A column name."},
                    "op": {"type": "string", "enum": OPS},
                    "value": {"description": "The value to compare with (text or number)."},
                },
                "required": ["column", "op", "value"],
                "additionalProperties": False,
            },
        },
        "columns": {
            "type": "array",
            "items": {"type": "string"},
            "description": "The columns to return, in this order (default: all).",
        },
        "limit": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_LIMIT,
            "default": 50,
            "description": "At most this many matching rows are returned (default 50, "
                           "max 1000); all rows are still counted.",
        },
        "format": {
            "type": "string",
            "enum": ["table", "json"],
            "default": "table",
            "description": "`table`: a compact text table; `json`: a list of row objects.",
        },
        "delimiter": {
            "type": "string",
            "minLength": 1,
            "maxLength": 1,
            "default": ",",
            "description": "The field separator (default `,`; `;` or a tab for some files).",
        },
    },
    "required": ["file_path"],
    "additionalProperties": False,
}


def check_args(args):
    """Checks the schema cannot express (the kit has already checked types)."""
    for index, condition in enumerate(args.get("where", [])):
        value = condition["value"]
        if isinstance(value, (dict, list)) or value is None:
            raise airlock.InvalidParams(
                "where[%d].value must be a text or a number, got %r" % (index, value))
    if len(set(args.get("columns", []))) != len(args.get("columns", [])):
        raise airlock.InvalidParams("`columns` names a column twice")
    # The csv module refuses these (Python 3.13+, which componentize-py bundles, raises
    # ValueError: it would surface as an execution error instead of a hint to the model).
    if args.get("delimiter", ",") in ('"', "\r", "\n"):
        raise airlock.InvalidParams(
            "`delimiter` cannot be %r (a quote or a line break); use `,`, `;`, `|` or a tab"
            % args["delimiter"])


# A plain decimal number. float() alone also takes "1_000", "inf", "nan" and "Infinity",
# which would make the cell "1_2" equal to 12 and "Inf" equal to "inf".
NUMBER = re.compile(r"\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*")


def as_number(text):
    if not isinstance(text, str) or not NUMBER.fullmatch(text):
        return None
    return float(text)  # "1e999" is inf: a number, larger than every other


def matches(cell, op, value):
    """Whether `cell` (text) meets `op value`: as numbers when both are numbers."""
    if isinstance(value, bool):
        value = "true" if value else "false"
    wanted = value if isinstance(value, str) else repr(value) if isinstance(value, float) else str(value)
    if op == "contains":
        return wanted.lower() in cell.lower()
    left, right = as_number(cell), as_number(wanted)
    if left is None or right is None:
        left, right = cell, wanted
    return {
        "=": left == right,
        "!=": left != right,
        "<": left < right,
        ">": left > right,
        "<=": left <= right,
        ">=": left >= right,
    }[op]


def read_rows(path, delimiter):
    """The header and the data rows of a CSV file."""
    content = airlock.read_text(path)
    if content.startswith("\ufeff"):  # a byte-order mark, as some spreadsheets write
        content = content[1:]
    reader = csv.reader(io.StringIO(content, newline=""), delimiter=delimiter)
    try:
        header = next(reader)
    except StopIteration:
        raise airlock.InvalidParams(
            "'%s' is empty; it needs a header row naming the columns"
            % airlock.display_path(path)) from None
    except csv.Error as error:
        raise airlock.InvalidParams("'%s' is not valid CSV: %s" % (
            airlock.display_path(path), error)) from None
    return [name.strip() for name in header], reader


def unknown_column(name, header, where):
    return airlock.InvalidParams("unknown column '%s' in %s; the columns are: %s" % (
        name, where, ", ".join(header)))


def render_table(columns, rows):
    """A compact text table: a header line, then one line per row, cells separated by |."""
    def cell(text):
        text = text.replace("\r", " ").replace("\n", " ")
        return text if len(text) <= MAX_CELL else text[:MAX_CELL - 3] + "..."
    lines = [" | ".join(columns)]
    lines += [" | ".join(cell(row[name]) for name in columns) for row in rows]
    return "\n".join(lines)


@airlock.tool(
    name="csv_query",
    display_name="CsvQuery",
    description=(
        "Queries a CSV file of the workspace (first row = column names): keeps the rows "
        "meeting every `where` condition, returns the chosen `columns` of the first "
        "`limit` matches as a text table (or JSON rows) and says how many rows matched "
        "out of how many. Use it to look into data files instead of reading them whole."),
    parameters=PARAMETERS,
    kind="read",
    files=[(".", "read")],
    validate=check_args,
    describe_call=lambda args: "Query %s" % args["file_path"],
)
def csv_query(args):
    path = airlock.resolve_in_workspace(args["file_path"])
    header, reader = read_rows(path, args["delimiter"])
    shown = airlock.display_path(path)
    columns = args.get("columns") or header
    for name in columns:
        if name not in header:
            raise unknown_column(name, header, "`columns`")
    conditions = args.get("where", [])
    for condition in conditions:
        if condition["column"] not in header:
            raise unknown_column(condition["column"], header, "`where`")
    index = {name: position for position, name in reversed(list(enumerate(header)))}

    total = matched = 0
    kept = []
    try:
        for record in reader:
            if not record or record == [""]:
                continue  # blank line
            total += 1
            row = {name: record[index[name]] if index[name] < len(record) else ""
                   for name in header}
            if all(matches(row[c["column"]], c["op"], c["value"]) for c in conditions):
                matched += 1
                if len(kept) < args["limit"]:
                    kept.append({name: row[name] for name in columns})
    except csv.Error as error:
        raise airlock.InvalidParams("'%s' is not valid CSV near row %d: %s" % (
            shown, total + 2, error)) from None

    airlock.log.info("csv_query %s: %d of %d rows matched" % (shown, matched, total))
    summary = "%d of %d rows matched" % (matched, total)
    if matched > len(kept):
        summary += " (showing the first %d; raise `limit` or narrow `where` for more)" % len(kept)
    if args["format"] == "json":
        return airlock.json_result({"file": shown, "columns": columns, "rows": kept,
                                    "matched": matched, "total": total, "summary": summary})
    if not kept:
        return airlock.text("%s: %s" % (shown, summary))
    return airlock.text("%s\n%s: %s" % (render_table(columns, kept), shown, summary))
