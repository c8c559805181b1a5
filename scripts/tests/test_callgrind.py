"""Unit tests of reading callgrind's dumps (benchlib/callgrind.py)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from benchlib import callgrind  # noqa: E402

# A dump as callgrind writes it with --compress-strings=no --compress-pos=no: `main` costs 10
# instructions of its own and calls `swift_retain` (7, its inclusive cost, not main's own).
DUMP = """# callgrind format
version: 1
positions: line
events: Ir
summary: 25

ob=/bin/server
fl=main.swift
fn=main
10 4
11 6
cfn=swift_retain
calls=2 0
12 7
fn=swift_retain
0 7
fn=$s12StackMobHTTP17JSONWriterV5writeyyF
0 8
totals: 25
"""


class ParseTests(unittest.TestCase):
    def test_own_cost_excludes_calls(self):
        total, own = callgrind.parse(DUMP.splitlines(keepends=True))
        self.assertEqual(total, 25)
        self.assertEqual(own["main"], 10)
        self.assertEqual(own["swift_retain"], 7)
        self.assertEqual(own["$s12StackMobHTTP17JSONWriterV5writeyyF"], 8)

    def test_groups(self):
        _, own = callgrind.parse(DUMP.splitlines(keepends=True))
        groups = callgrind.top_groups(own)
        self.assertEqual(groups["reference counting"], 7)
        self.assertEqual(groups["StackMob"], 8)
        self.assertEqual(groups["other"], 10)

    def test_group_order_first_match_wins(self):
        self.assertEqual(callgrind.group_of("swift_task_switch"), "tasks and executors")
        self.assertEqual(callgrind.group_of("_swift_getGenericMetadata"), "generic metadata")
        self.assertEqual(callgrind.group_of("sqlite3VdbeExec"), "SQLite")
        self.assertEqual(callgrind.group_of("$s7NIOCore10ByteBufferV5write"), "NIO")
        self.assertEqual(callgrind.group_of(None), "other")


if __name__ == "__main__":
    unittest.main()
