"""Unit tests of the crash-consistency checker: each kind of loss it must report, and the
outcomes it must accept. Run: python3 -m unittest discover -s scripts/tests"""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from crash_consistency import Ledger  # noqa: E402


def stored(objects=None, counters=None, posts=None, authors=None, bulk=None):
    return {"cc_object": objects or {}, "cc_counter": counters or {}, "cc_post": posts or {}, "cc_author": authors or {},
            "cc_bulk": bulk or {}}


class LedgerTests(unittest.TestCase):
    def test_everything_acknowledged_and_stored_passes(self):
        ledger = Ledger()
        ledger.created("a", 1, acked=True)
        ledger.updated("a", 2, acked=True)
        ledger.appended("a", "t1", acked=True)
        ledger.incrementing("c")
        ledger.incremented("c")
        ledger.upserted("p", "u", acked=True)
        ledger.bulk_created(["b1", "b2"], acked=True)
        found = stored(objects={"a": {"value": 2, "tags": ["t1"]}}, counters={"c": {"n": 1}}, posts={"p": {}}, authors={"u": {}},
                       bulk={"b1": {}, "b2": {}})
        self.assertEqual(ledger.check(found), [])

    def test_lost_writes_are_reported(self):
        ledger = Ledger()
        ledger.created("a", 1, acked=True)
        ledger.created("b", 1, acked=True)
        ledger.updated("b", 2, acked=True)
        ledger.appended("b", "t1", acked=True)
        ledger.incrementing("c")
        ledger.incremented("c")
        ledger.upserted("p", "u", acked=True)
        ledger.bulk_created(["b1"], acked=True)
        problems = ledger.check(stored(objects={"b": {"value": 1, "tags": []}}))
        self.assertEqual(len(problems), 6, problems)
        self.assertTrue(any("acknowledged object a is missing" in p for p in problems))
        self.assertTrue(any("object b holds 1" in p for p in problems))
        self.assertTrue(any("lost appended ['t1']" in p for p in problems))
        self.assertTrue(any("counter c is 0, expected 1 to 1" in p for p in problems))
        self.assertTrue(any("nested upsert p is missing" in p for p in problems))
        self.assertTrue(any("bulk-created object b1 is missing" in p for p in problems))

    def test_writes_in_flight_may_or_may_not_be_stored(self):
        for value, counter in [(1, 0), (2, 1)]:
            ledger = Ledger()
            ledger.created("a", 1, acked=True)
            ledger.updated("a", 2, acked=False)
            ledger.incrementing("c")
            ledger.created("x", 9, acked=False)
            ledger.upserted("p", "u", acked=False)
            self.assertEqual(ledger.check(stored(objects={"a": {"value": value}}, counters={"c": {"n": counter}})), [])
            self.assertEqual(ledger.values["a"], (value, []))
            self.assertNotIn("x", ledger.values)

    def test_a_half_written_graph_and_values_never_sent_are_reported(self):
        ledger = Ledger()
        ledger.upserted("p", "u", acked=False)
        ledger.created("a", 1, acked=True)
        ledger.incrementing("c")
        problems = ledger.check(stored(objects={"a": {"value": 7, "tags": ["zz"]}}, posts={"p": {}}, counters={"c": {"n": 2}}))
        self.assertTrue(any("half written" in p for p in problems), problems)
        self.assertTrue(any("holds 7" in p for p in problems), problems)
        self.assertTrue(any("never sent" in p for p in problems), problems)
        self.assertTrue(any("counter c is 2, expected 0 to 1" in p for p in problems), problems)


if __name__ == "__main__":
    unittest.main()
