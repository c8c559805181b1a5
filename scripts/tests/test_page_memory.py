"""Unit tests of page_memory.py: its objects are about the size asked, its page request asks for
every one of them, in order, with the public key, and an answer that ended early is told from a
whole one."""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import page_memory  # noqa: E402


class PageMemoryTests(unittest.TestCase):
    def test_objects_are_about_the_size_asked(self):
        for size in (1_000, 2_000_000):
            text = json.dumps(page_memory.stored_object(7, size))
            self.assertLess(abs(len(text) - size), 40, size)
            self.assertEqual(json.loads(text)["huge_id"], "h00007")

    def test_the_page_asks_for_every_object_in_order(self):
        head = page_memory.page_request(100).decode()
        self.assertTrue(head.startswith("GET /huge HTTP/1.1\r\n"))
        self.assertIn("Range: objects=0-99\r\n", head)
        self.assertIn("X-StackMob-OrderBy: n:asc\r\n", head)
        self.assertIn(page_memory.PUBLIC_KEY, head)
        self.assertTrue(head.endswith("\r\n\r\n"))
        self.assertNotIn("X-StackMob-Select", head)
        self.assertIn("X-StackMob-Select: n\r\n", page_memory.page_request(100, "n").decode())

    def test_the_other_shapes_ask_for_the_same_objects(self):
        near = page_memory.page_request(100, shape="near").decode()
        self.assertTrue(near.startswith("GET /huge?loc[near]=0,0 HTTP/1.1\r\n"))
        self.assertNotIn("Range:", near)
        expand = page_memory.page_request(100, shape="expand").decode()
        self.assertTrue(expand.startswith("GET /holder/all?_expand=1 HTTP/1.1\r\n"))
        self.assertIn("X-StackMob-Select: items.huge_id\r\n", expand)
        self.assertIn("loc", page_memory.stored_object(3, 1_000, "near"))
        self.assertNotIn("loc", page_memory.stored_object(3, 1_000))
        self.assertLess(abs(len(json.dumps(page_memory.stored_object(3, 1_000, "near"))) - 1_000), 40)

    def test_an_answer_is_whole_by_its_length_or_its_last_chunk(self):
        head = b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n"
        self.assertTrue(page_memory.ended(head, len(head) + 10, b"xxxxx"))
        self.assertFalse(page_memory.ended(head, len(head) + 9, b"xxxxx"))
        chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        self.assertTrue(page_memory.ended(chunked, 5_000_000, b"0\r\n\r\n"))
        self.assertFalse(page_memory.ended(chunked, 5_000_000, b"xx\r\n"))
        refused = b"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 2\r\nRetry-After: 1\r\n\r\n"
        self.assertTrue(page_memory.ended(refused, len(refused) + 2, b"{}"))


if __name__ == "__main__":
    unittest.main()
