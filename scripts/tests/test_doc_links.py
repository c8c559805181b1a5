"""Unit tests of the documentation's link check. Run: python3 -m unittest discover -s scripts/tests"""
import io
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from doc_links import check, default_documents, main, slug, heading_text  # noqa: E402


class SlugTests(unittest.TestCase):
    """GitHub's anchors, on headings this repository has."""

    def test_punctuation_goes_and_spaces_become_hyphens(self):
        self.assertEqual(slug(heading_text("OAuth 1.0 (private key)")), "oauth-10-private-key")
        self.assertEqual(slug(heading_text("2026-11-25 10:05: PostgreSQL's read path")),
                         "2026-11-25-1005-postgresqls-read-path")

    def test_code_keeps_its_underscores_and_loses_its_dots(self):
        heading = "`limits.auth_failures_per_address`, `limits.auth_failure_window_seconds`"
        self.assertEqual(slug(heading_text(heading)),
                         "limitsauth_failures_per_address-limitsauth_failure_window_seconds")
        self.assertEqual(slug(heading_text("Push (`environments.<env>.push`)")), "push-environmentsenvpush")

    def test_symbols_go_letters_stay(self):
        self.assertEqual(slug(heading_text("Expansion ≥ 2× café")), "expansion--2-café")


class CheckTests(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.root = self.directory.name
        os.makedirs(os.path.join(self.root, "docs"))
        self.write("docs/guide.md", "# Guide\n\n## Users and login\n\n## Keys\n\n## Keys\n\n"
                   "```sh\n# not a heading\n```\n")

    def tearDown(self):
        self.directory.cleanup()

    def write(self, name, text):
        with open(os.path.join(self.root, name), "w", encoding="utf-8") as handle:
            handle.write(text)
        return os.path.join(self.root, name)

    def problems(self, text):
        return check([self.write("README.md", text)], self.root)

    def test_good_links_pass(self):
        self.assertEqual(self.problems(
            "# Top\n\n[guide](docs/guide.md) [users](docs/guide.md#users-and-login) "
            "[second keys](docs/guide.md#keys-1) [here](#top) [folder](docs) "
            "[web](https://example.com/#nothing) [mail](mailto:a@example.com)\n"), [])

    def test_a_missing_file_is_reported(self):
        problems = self.problems("See [ops](docs/operations.md).\n")
        self.assertEqual(len(problems), 1)
        self.assertIn("README.md:1: docs/operations.md: no such file", problems[0])

    def test_a_missing_anchor_is_reported(self):
        problems = self.problems("# Top\n\nText.\n[users](docs/guide.md#users) and [gone](#quick-start)\n")
        self.assertEqual(len(problems), 2)
        self.assertIn("README.md:4: docs/guide.md#users: no heading with anchor #users", problems[0])
        self.assertIn("#quick-start", problems[1])

    def test_a_heading_inside_a_code_block_is_no_anchor(self):
        self.assertEqual(len(self.problems("[x](docs/guide.md#not-a-heading)\n")), 1)

    def test_links_inside_code_are_not_followed(self):
        self.assertEqual(self.problems("`[x](gone.md)`\n\n```\n[y](gone.md)\n```\n"), [])

    def test_protocol_md_alone_may_be_missing(self):
        self.assertEqual(self.problems("[wire](PROTOCOL.md#3-signatures)\n"), [])
        self.assertEqual(len(self.problems("[wire](PROTOCOLS.md)\n")), 1)
        self.assertEqual(len(self.problems("[wire](docs/PROTOCOL.md)\n")), 1)

    def test_main_exits_1_and_lists_the_broken_links(self):
        self.write("README.md", "[gone](docs/gone.md)\n")
        output = io.StringIO()
        with redirect_stdout(output):
            status = main(["--root", self.root])
        self.assertEqual(status, 1)
        self.assertIn("docs/gone.md: no such file", output.getvalue())
        self.assertEqual(default_documents(self.root),
                         [os.path.join(self.root, "README.md"), os.path.join(self.root, "docs/guide.md")])


if __name__ == "__main__":
    unittest.main()
