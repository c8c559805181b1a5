"""Unit tests of body_memory.py: its bodies are valid JSON of exactly the size asked, and its
requests say so."""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import body_memory  # noqa: E402


class BodyMemoryTests(unittest.TestCase):
    def test_bodies_are_json_of_the_size_asked(self):
        for kind in ("array", "string"):
            for size in (100, 101, 4096, 65_537):
                payload = body_memory.body(kind, size)
                self.assertEqual(len(payload), size, (kind, size))
                value = json.loads(payload)
                self.assertEqual(list(value), ["a"])
                if kind == "array":
                    self.assertEqual(set(value["a"]), {1})
                    self.assertEqual(len(value["a"]), (size - 7) // 2)

    def test_a_request_declares_its_body(self):
        payload = body_memory.body("string", 1000)
        head, sent = body_memory.request(payload).split(b"\r\n\r\n", 1)
        self.assertEqual(sent, payload)
        self.assertIn(b"Content-Length: 1000", head)
        self.assertIn(body_memory.PUBLIC_KEY.encode(), head)


if __name__ == "__main__":
    unittest.main()
