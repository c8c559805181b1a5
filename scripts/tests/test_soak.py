"""Unit tests of the soak script's check of its samples. Run: python3 -m unittest discover -s scripts/tests"""
import argparse
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from soak import check  # noqa: E402

OPTIONS = argparse.Namespace(max_rss_growth=1.5, max_late_rss_growth=1.2, max_fd_growth=20, max_p99_growth=3.0)


def sample(rss, fds=50, p99=5.0):
    return {"rss": rss, "fds": fds, "p99": p99, "count": 100, "failed": 0}


class CheckTests(unittest.TestCase):
    def test_flat_memory_after_the_warm_up_passes(self):
        self.assertEqual(check([sample(100_000), sample(130_000), sample(135_000), sample(140_000)], OPTIONS), [])

    def test_memory_still_climbing_after_mid_run_fails_though_under_the_overall_bound(self):
        problems = check([sample(100_000), sample(105_000), sample(110_000), sample(140_000)], OPTIONS)
        self.assertEqual(len(problems), 1)
        self.assertIn("at mid-run", problems[0])

    def test_growth_past_the_overall_bound_fails(self):
        problems = check([sample(100_000), sample(140_000), sample(160_000)], OPTIONS)
        self.assertTrue(any("grew from 100000 KiB to 160000 KiB" in problem for problem in problems))

    def test_one_interval_is_not_enough(self):
        self.assertEqual(len(check([sample(100_000)], OPTIONS)), 1)


if __name__ == "__main__":
    unittest.main()
