"""Unit tests of the timing suites' pattern. Run: python3 -m unittest discover -s scripts/tests"""
import io
import os
import re
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from timing_suites import main, pattern, tagged_suites  # noqa: E402

SOURCE = '''
@Suite("Backups (and restore", .sqliteFiles, .tags(.timing))
struct BackupTests {
    @Test("a (display name) with \\"quotes\\" and .timing in it")
    func one() {}
}

@Suite("Not tagged: .tags(.timing) only in its name")
struct QuietTests {}

@Suite(
    "Event-loop stalls",
    .tags(.timing)
)
final class EventLoopStallTests {}
'''


class TaggedSuitesTests(unittest.TestCase):
    def test_only_suites_whose_attribute_names_the_tag(self):
        self.assertEqual(tagged_suites(SOURCE), (["BackupTests", "EventLoopStallTests"], []))

    def test_a_test_tagged_alone_is_reported_by_line(self):
        source = 'struct S {\n    @Test("t", .tags(.timing))\n    func t() {}\n}\n'
        self.assertEqual(tagged_suites(source), ([], [2]))

    def test_the_tag_name_must_end_there(self):
        self.assertEqual(tagged_suites('@Suite(.tags(.timingOther)) struct S {}'), ([], []))


class PatternTests(unittest.TestCase):
    def test_matches_the_suites_tests_and_nothing_with_a_longer_name(self):
        regex = re.compile(pattern(["ExecutableTests", "BackupTests"]))
        self.assertTrue(regex.search("StackMobHTTPTests.ExecutableTests/startsUp()"))
        self.assertTrue(regex.search("StackMobHTTPTests.BackupTests/scheduled(keep:)"))
        self.assertFalse(regex.search("StackMobHTTPTests.ExecutableEnvironmentTests/job()"))
        self.assertFalse(regex.search("StackMobHTTPTests.NoBackupTests/x()"))


class MainTests(unittest.TestCase):
    def run_main(self, files, *arguments):
        with tempfile.TemporaryDirectory() as root:
            os.makedirs(os.path.join(root, "Tests", "A"))
            for name, text in files.items():
                with open(os.path.join(root, "Tests", "A", name), "w", encoding="utf-8") as file:
                    file.write(text)
            out, err = io.StringIO(), io.StringIO()
            with redirect_stdout(out), redirect_stderr(err):
                status = main(["--root", root, *arguments])
            return status, out.getvalue(), err.getvalue()

    def test_prints_one_pattern(self):
        status, out, _ = self.run_main({"B.swift": SOURCE})
        self.assertEqual((status, out), (0, "\\.(BackupTests|EventLoopStallTests)/\n"))

    def test_a_tagged_test_fails_the_run(self):
        status, _, err = self.run_main({"B.swift": SOURCE, "T.swift": '@Test(.tags(.timing)) func t() {}\n'})
        self.assertEqual(status, 1)
        self.assertIn("Tests/A/T.swift:1", err)

    def test_no_tagged_suite_fails_the_run(self):
        self.assertEqual(self.run_main({"Q.swift": "struct Q {}\n"})[0], 1)


if __name__ == "__main__":
    unittest.main()
