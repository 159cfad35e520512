"""Unit tests of the tool, run natively: python3 -m unittest"""

import unittest

import airlock_tool as airlock
import app


class CountTest(unittest.TestCase):
    def test_counts_a_text(self):
        result = airlock.call("{{tool}}", {"text": "one two\nTwo three two\n", "top": 1})
        self.assertEqual(result.json, {
            "lines": 2, "words": 5, "characters": 22, "top_words": [["two", 3]],
        })

    def test_the_function_is_a_plain_function(self):
        result = app.{{tool}}({"text": "a b", "top": 0})
        self.assertEqual(result.json["words"], 2)

    def test_empty_text_is_invalid_params(self):
        with self.assertRaises(airlock.InvalidParams) as raised:
            airlock.call("{{tool}}", {"text": "  "})
        self.assertIn("`text` is empty", str(raised.exception))

    def test_a_missing_or_mistyped_field_is_named(self):
        with self.assertRaises(airlock.InvalidParams) as raised:
            airlock.call("{{tool}}", {})
        self.assertIn("missing field `text`", str(raised.exception))
        with self.assertRaises(airlock.InvalidParams) as raised:
            airlock.call("{{tool}}", '{"text": "x", "top": "3"}')
        self.assertIn("field `top`", str(raised.exception))

    def test_describe(self):
        info = airlock.describe()
        self.assertEqual(info["name"], "{{name}}")
        self.assertEqual([t["name"] for t in info["tools"]], ["{{tool}}"])


if __name__ == "__main__":
    unittest.main()
