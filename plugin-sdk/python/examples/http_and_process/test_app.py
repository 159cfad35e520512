"""Unit tests of http_and_process, run natively from this folder: python3 -m unittest

Natively there is no host: a request or a program is refused with a clear error, and the
parts that need no host (the URL check, the confirmation) are tested as they are."""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))  # the kit's airlock_tool.py

import airlock_tool as airlock  # noqa: E402
import app  # noqa: E402  (registers http_get and run_echo)


class HttpAndProcessTest(unittest.TestCase):
    def test_a_bad_url_is_invalid_params(self):
        for url in ["ftp://example.com/", "example.com", "http://user@example.com/"]:
            with self.assertRaises(airlock.InvalidParams, msg=url):
                airlock.http_get(url)

    def test_natively_nothing_is_sent(self):
        with self.assertRaises(airlock.ExecutionError) as raised:
            airlock.http_get("http://127.0.0.1:9/hello")
        self.assertIn("wasi:http", str(raised.exception))
        with self.assertRaises(airlock.ExecutionError):
            airlock.run_process(argv=["echo", "hi"])

    def test_the_confirmation_shows_the_command_line(self):
        self.assertEqual(app.echo_line(["a", "b"]), "echo a b")
        with self.assertRaises(airlock.InvalidParams):
            airlock.run_process()


if __name__ == "__main__":
    unittest.main()
