"""Unit tests of durability_cost.py: the site it deploys, and one writer's synced files."""
import os
import sys
import tempfile
import threading
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import durability_cost  # noqa: E402


class DurabilityCostTests(unittest.TestCase):
    def test_the_site_has_its_301_files(self):
        with tempfile.TemporaryDirectory() as root:
            site = os.path.join(root, "site")
            durability_cost.make_site(site)
            files = [os.path.join(folder, name) for folder, _, names in os.walk(site) for name in names]
            self.assertEqual(len(files), 301)
            self.assertTrue(os.path.exists(os.path.join(site, "index.html")))
            self.assertGreater(sum(os.path.getsize(path) for path in files), 5_000_000)

    def test_a_writer_counts_its_files_and_leaves_none(self):
        with tempfile.TemporaryDirectory() as directory:
            stop = threading.Event()
            counts = [0]
            timer = threading.Timer(0.3, stop.set)
            timer.start()
            durability_cost.synced_writes(directory, 0, stop, counts)
            self.assertGreater(counts[0], 0)
            self.assertEqual(os.listdir(directory), [])


if __name__ == "__main__":
    unittest.main()
