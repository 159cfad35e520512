"""Unit tests of csv_query, run natively from this folder: python3 -m unittest"""

import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))  # the kit's airlock_tool.py

import airlock_tool as airlock  # noqa: E402
import app  # noqa: E402,F401  (registers csv_query)

PEOPLE = "name,age,city\nAda,36,London\nGrace,45,New York\nLinus,28,Helsinki\nKen,79,New Jersey\n"


class CsvQueryTest(unittest.TestCase):
    def setUp(self):
        self.workspace = tempfile.TemporaryDirectory()
        self.write("people.csv", PEOPLE)

    def tearDown(self):
        self.workspace.cleanup()

    def write(self, name, content):
        with open(os.path.join(self.workspace.name, name), "w", encoding="utf-8", newline="") as f:
            f.write(content)

    def query(self, **args):
        return airlock.call("csv_query", args, workspace=self.workspace.name)

    def error(self, kind, **args):
        with self.assertRaises(kind) as raised:
            self.query(**args)
        return str(raised.exception)

    def test_filters_selects_and_counts(self):
        result = self.query(file_path="people.csv", columns=["name", "city"],
                            where=[{"column": "age", "op": ">", "value": 30}])
        self.assertEqual(result.text, "name | city\nAda | London\nGrace | New York\n"
                                      "Ken | New Jersey\npeople.csv: 3 of 4 rows matched")

    def test_numbers_compare_as_numbers_and_text_as_text(self):
        rows = self.query(file_path="people.csv", format="json",
                          where=[{"column": "age", "op": "<", "value": "100"},
                                 {"column": "city", "op": "contains", "value": "NEW"}]).json
        self.assertEqual([row["name"] for row in rows["rows"]], ["Grace", "Ken"])
        self.assertEqual((rows["matched"], rows["total"]), (2, 4))
        rows = self.query(file_path="people.csv", format="json",
                          where=[{"column": "name", "op": ">=", "value": "K"}]).json
        self.assertEqual([row["name"] for row in rows["rows"]], ["Linus", "Ken"])

    def test_limit_says_more_matched(self):
        text = self.query(file_path="people.csv", limit=1).text
        self.assertIn("4 of 4 rows matched (showing the first 1;", text)

    def test_bom_semicolons_and_short_rows(self):
        self.write("semi.csv", "\ufeffa;b\n1;2\n3\n\n")
        rows = self.query(file_path="semi.csv", delimiter=";", format="json").json
        self.assertEqual(rows["rows"], [{"a": "1", "b": "2"}, {"a": "3", "b": ""}])

    def test_errors(self):
        self.assertIn("unknown column 'agee' in `where`; the columns are: name, age, city",
                      self.error(airlock.InvalidParams, file_path="people.csv",
                                 where=[{"column": "agee", "op": "=", "value": 1}]))
        self.assertIn("unknown column 'zip'",
                      self.error(airlock.InvalidParams, file_path="people.csv", columns=["zip"]))
        self.assertIn("field `where[0].op`",
                      self.error(airlock.InvalidParams, file_path="people.csv",
                                 where=[{"column": "age", "op": "~", "value": 1}]))
        self.assertIn("where[0].value must be a text or a number",
                      self.error(airlock.InvalidParams, file_path="people.csv",
                                 where=[{"column": "age", "op": "=", "value": [1]}]))
        self.assertIn("field `limit`: must be at most 1000",
                      self.error(airlock.InvalidParams, file_path="people.csv", limit=5000))
        self.assertIn("'nope.csv' does not exist",
                      self.error(airlock.NotFound, file_path="nope.csv"))
        self.assertIn("outside the workspace",
                      self.error(airlock.PermissionDenied, file_path="../people.csv"))
        self.write("empty.csv", "")
        self.assertIn("is empty", self.error(airlock.InvalidParams, file_path="empty.csv"))

    def test_a_quote_or_line_break_delimiter_is_invalid_params(self):
        # Regression: Python 3.13+ raises ValueError for these, an execution error before.
        for delimiter in ['"', "\n", "\r"]:
            message = self.error(airlock.InvalidParams, file_path="people.csv", delimiter=delimiter)
            self.assertIn("`delimiter` cannot be", message)

    def test_only_plain_decimals_compare_as_numbers(self):
        # Regression: float() took "1_2" as 12 and "Inf" as a number.
        self.write("codes.csv", "code\n1_2\n12\n12.0\ninf\nInf\n 7 \n1e999\n")
        rows = self.query(file_path="codes.csv", format="json",
                          where=[{"column": "code", "op": "=", "value": 12}]).json
        self.assertEqual([row["code"] for row in rows["rows"]], ["12", "12.0"])
        rows = self.query(file_path="codes.csv", format="json",
                          where=[{"column": "code", "op": "=", "value": "inf"}]).json
        self.assertEqual([row["code"] for row in rows["rows"]], ["inf"])
        rows = self.query(file_path="codes.csv", format="json",
                          where=[{"column": "code", "op": "<", "value": 8}]).json
        # "1_2" is text and compares as text ("1_2" < "8"); 1e999 is a (huge) number.
        self.assertEqual([row["code"] for row in rows["rows"]], ["1_2", " 7 "])


if __name__ == "__main__":
    unittest.main()
