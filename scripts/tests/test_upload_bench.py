"""Unit tests of upload_bench.py's rounds: the sides alternate, each round on a fresh side, and
the table gives each side's medians."""
import argparse
import contextlib
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import upload_bench  # noqa: E402


class UploadRoundsTests(unittest.TestCase):
    def test_sides_alternate_and_the_medians_are_reported(self):
        events = []
        rates = {"a": iter([10.0, 30.0, 20.0]), "b": iter([5.0, 1.0, 3.0])}

        def side(label):
            @contextlib.contextmanager
            def fresh(content):
                self.assertEqual(len(content), upload_bench.UPLOAD_SIZE)
                events.append(f"start {label}")
                yield label
                events.append(f"stop {label}")
            return fresh

        def timed(label, size, duration):
            events.append(f"upload {label}")
            rate = next(rates[label])
            return rate, rate * size / 1e6, 1

        original = upload_bench.timed_uploads
        upload_bench.timed_uploads = timed
        try:
            table = upload_bench.upload_rounds([("a", side("a")), ("b", side("b"))],
                                               argparse.Namespace(rounds=3, duration=1))
        finally:
            upload_bench.timed_uploads = original
        self.assertEqual(events, ["start a", "upload a", "stop a", "start b", "upload b", "stop b"] * 3)
        self.assertEqual(table["a"]["upload 1 MB (req/s)"], 20.0)
        self.assertEqual(table["b"]["upload 1 MB (req/s)"], 3.0)
        self.assertEqual(table["b"]["upload 1 MB (MB/s)"], round(3.0 * upload_bench.UPLOAD_SIZE / 1e6, 1))
        self.assertEqual(table["a"]["upload failures"], 3)


if __name__ == "__main__":
    unittest.main()
