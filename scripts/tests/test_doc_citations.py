"""scripts/doc_citations.py: which tokens cite PROTOCOL.md, and that a citation with no heading fails.

Run: python3 -m unittest discover -s scripts/tests

The fixtures spell the section sign as an escape and build decision numbers from pieces, so that
this file, which the checker scans too, holds no citation of a section PROTOCOL.md lacks.
"""
import io
import os
import sys
import tempfile
import textwrap
import unittest
from contextlib import redirect_stderr, redirect_stdout

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import doc_citations  # noqa: E402

S = "\u00a7"


def d(number):
    """A decision token, `D<number>`, without writing one in this file."""
    return "D" + str(number)


PROTOCOL = textwrap.dedent(f"""\
    # Protocol

    ## 5. Queries
    ### 5.5 Expansion
    ### 5.6 Pagination
    ## 6. Relationships
    ### 6.2 Create and append
    ### 6.3 Append existing
    ### 6.4 Remove
    ## 15. Decisions
    ### {d(17)} — Partial content
    <a id="{d(30)}"></a>
    """)


def labels(text, path="Sources/A.swift"):
    return [citation.label for citation in doc_citations.citations_in(text, path)]


class RepositoryTests(unittest.TestCase):
    """The checker run over a small repository of its own."""

    def run_checker(self, files):
        with tempfile.TemporaryDirectory() as root:
            for relative, text in {"PROTOCOL.md": PROTOCOL, **files}.items():
                os.makedirs(os.path.dirname(os.path.join(root, relative)) or root, exist_ok=True)
                with open(os.path.join(root, relative), "w", encoding="utf-8") as f:
                    f.write(text)
            out, err = io.StringIO(), io.StringIO()
            with redirect_stdout(out), redirect_stderr(err):
                status = doc_citations.main(["--root", root])
            return status, out.getvalue(), err.getvalue()

    def test_citations_of_headings_and_anchors_pass(self):
        status, out, err = self.run_checker({
            "Sources/Query.swift": f"/// Expansion (PROTOCOL {S}5.5, {d(17)}); see {S}6.2–6.4 and {S}5.\n",
            "README.md": f"Ids are split after decoding ({d(30)}), pages per PROTOCOL {d(17)}.\n",
        })
        self.assertEqual((status, err), (0, ""))
        self.assertIn("8 citations of PROTOCOL.md, all resolved", out)

    def test_a_missing_section_or_decision_is_reported_with_file_and_line_and_fails(self):
        status, _, err = self.run_checker({
            "Sources/Query.swift": "import Foundation\n\n"
                                   f"/// Paging (PROTOCOL {S}5.9), ids ({d(99)}).\n",
            "config/README.md": f"Push ({S}11).\n",
        })
        self.assertEqual(status, 1)
        self.assertIn(f"Sources/Query.swift:3: {S}5.9 is not a section of PROTOCOL.md", err)
        self.assertIn(f"Sources/Query.swift:3: {d(99)} is not a decision of PROTOCOL.md", err)
        self.assertIn(f"config/README.md:1: {S}11 is not a section of PROTOCOL.md", err)
        self.assertIn("3 of 3 citations", err)

    def test_a_range_is_checked_through_every_subsection_it_spans(self):
        status, _, err = self.run_checker({"Tests/T.swift": f"// Related objects ({S}6.2–6.5).\n"})
        self.assertEqual(status, 1)
        self.assertIn(f"{S}6.5 is not a section", err)
        self.assertNotIn(f"{S}6.3 is not", err)

    def test_without_protocol_md_every_citation_fails(self):
        with tempfile.TemporaryDirectory() as root:
            os.makedirs(os.path.join(root, "Sources"))
            with open(os.path.join(root, "Sources", "A.swift"), "w") as f:
                f.write(f"/// (PROTOCOL {S}5.5)\n")
            with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()) as err:
                self.assertEqual(doc_citations.main(["--root", root]), 1)
            self.assertIn("PROTOCOL.md does not exist", err.getvalue())

    def test_binary_files_and_unscanned_places_are_left_alone(self):
        status, out, _ = self.run_checker({
            "docs/console/shot.png": "\0PNG (" + d(99) + ")",
            "migrations/v001.sql": f"-- ({d(99)}) {S}9.9\n",
        })
        self.assertEqual(status, 0)
        self.assertIn("0 citations", out)


class TokenTests(unittest.TestCase):
    """What is, and is not, a citation on one line."""

    def test_the_citation_forms_the_code_uses(self):
        self.assertEqual(labels(f"/// (PROTOCOL {S}3.2 step 6, {d(19)})."), [f"{S}3.2", d(19)])
        self.assertEqual(labels(f"// Lists ({S}4.3, {d(4)}); any other error"), [f"{S}4.3", d(4)])
        self.assertEqual(labels(f"order (PROTOCOL {d(18)}): one for every"), [d(18)])
        self.assertEqual(labels(f"@Suite(\"Push token registry (PROTOCOL {S}11.1–{S}11.3, {d(12)})\")"),
                         [f"{S}11.1", f"{S}11.3", f"{S}11.2", d(12)])
        self.assertEqual(labels(f"@Test(\"access ({d(12)}): public key registers\")"), [d(12)])

    def test_a_parenthesis_opened_on_the_line_before_still_counts(self):
        self.assertEqual(labels(f"/// Java, also on POST and PUT, {d(36)}) or the `_expand` query (JS)."), [d(36)])

    def test_decisions_in_comments_and_markdown_prose_count(self):
        self.assertEqual(labels(f"    /// {d(8)}: the exact text, with the period."), [d(8)])
        self.assertEqual(labels(f"    /// The listing element of {d(12)}: `{{\"type\"}}`."), [d(12)])
        self.assertEqual(labels(f"# collide once {d(32)} dropped it", "scripts/x.py"), [d(32)])
        self.assertEqual(labels(f"The URL layout of {d(32)} is fixed.", "docs/guide.md"), [d(32)])

    def test_rfc_sections_are_not_ours(self):
        self.assertEqual(labels(f"/// A `Range: bytes=…` header (RFC 9110 {S}14.1.2)."), [])
        self.assertEqual(labels(f"/// The RFC 5849 HMAC-SHA1 signature ({S}3.4.1, {S}3.4.2) as the SDKs compute it"), [])
        self.assertEqual(labels(f"/// A parsed header (RFC 5849 {S}3.5.1, PROTOCOL {S}3.3)."), [f"{S}3.3"])
        self.assertEqual(labels(f"/// Base64 (RFC 4648 {S}4: the standard alphabet); the data of a field ({S}7)"), [])

    def test_unrelated_tokens_are_ignored(self):
        for line in [
            f"if (0x{d(8)}00...0xDBFF).contains(scalar) {{",     # a hex literal
            f"let color = \"#{d(1)}{d(1)}{d(1)}\"",               # a colour
            f"let query = \"SELECT t.{d(1)} FROM t WHERE ({d(1)}.id = ?)\"",  # SQL: dotted names
            f"case {d(2)}: return x",                            # code, not prose
            f"let value = f({d(2)}Key, {d(3)}x)",                # identifiers
            f"/// bytes C3 {d(8)} 00 of the dump",              # a hex dump in a comment
            f"/// MD5, H264, `{d(17)}` and a path like docs/{d(3)}/x",
            f"/// \"{d(17)}\" in quotes, {d(100)} and {d(0)}7 are no decisions",
            "let commit = \"d84b12c\"",
        ]:
            self.assertEqual(labels(line), [], line)

    def test_a_decision_range_counts_each_decision(self):
        self.assertEqual(labels(f"/// Users and signatures ({d(7)}–{d(9)})."), [d(7), d(8), d(9)])


class AnchorTests(unittest.TestCase):
    def test_headings_and_anchors(self):
        sections, decisions = doc_citations.anchors(PROTOCOL)
        self.assertEqual(sections, {"5", "5.5", "5.6", "6", "6.2", "6.3", "6.4", "15"})
        self.assertEqual(decisions, {"17", "30"})


class ThisRepositoryTests(unittest.TestCase):
    def test_every_citation_in_this_repository_resolves(self):
        every, unresolved = doc_citations.check(doc_citations.ROOT)
        self.assertGreater(len(every), 100)
        self.assertEqual(unresolved, [])


if __name__ == "__main__":
    unittest.main()
