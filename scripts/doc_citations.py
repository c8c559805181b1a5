#!/usr/bin/env python3
"""Checks that every citation of PROTOCOL.md names a section or decision the document has.

    python3 scripts/doc_citations.py            # exit 0: every citation resolves; 1: lists the others
    python3 scripts/doc_citations.py --list     # every citation found, resolved or not

The code, the tests and the other documents cite the wire contract as `PROTOCOL §5.5`, `(§12.2)`,
`§6.2–6.4`, `(D17)` or `PROTOCOL D18`. This script reads Sources/, Tests/, README.md, docs/,
config/, scripts/ and PROTOCOL.md itself (its own cross-references) and reports, as
`path:line: …`, each citation whose number is not a heading of PROTOCOL.md.

What counts as a citation:
* `§<n>[.<n>…]`, optionally a range `§6.2–6.4` or `§11.1–§11.3` (every subsection between the
  two ends is checked), unless the nearest document named before it on the same line is an RFC:
  `RFC 9110 §14.1.2` and `The RFC 5849 HMAC-SHA1 signature (§3.4.1, §3.4.2)` cite the RFC, while
  `RFC 5849 §3.5.1, PROTOCOL §3.3` cites both. A `§` with no document named before it is ours.
* `D<n>` (1 to 99, no leading zero) standing alone: not part of a word or an identifier, a hex
  literal (`0xD1`), a path or a dotted name (`t.D1`, `D1.id`), not right after a quote or a
  backtick (a string or a code span), and not one byte of a hex dump (`C3 D8 00`). Such a token
  is a citation only where the protocol is clearly meant:
  - after `PROTOCOL` and any citations listed with it (`PROTOCOL §3.2, D7, D19`);
  - inside parentheses, on the line or closed on it (`(D17)`, `(§4.3, D4)`, `(idempotent, D20)`,
    and `…, D36) or …` where the parenthesis opened on the line before);
  - in prose: a Markdown line, or the comment part of a line (`//` in Swift, C and JSON with
    comments, `#` in Python, shell and YAML, `--` in SQL), e.g. `/// D8: the exact text`.
  So `D2` in code or in an SQL string is never taken for a decision.

What PROTOCOL.md provides: its headings, `## 5. Queries`, `### 5.5 Expansion`, `### D17 — …`,
and explicit anchors `<a id="D17"></a>` or `<a id="s5.5"></a>`.
"""
import argparse
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
SCANNED = ["Sources", "Tests", "README.md", "docs", "config", "scripts", "PROTOCOL.md"]
SKIPPED_DIRECTORIES = {".build", ".git", "__pycache__", "node_modules"}

SECTION = re.compile(r"§\s?(\d+(?:\.\d+)*)(?:\s?[–-]\s?§?(\d+(?:\.\d+)*))?")
DECISION = re.compile(r"(?<![\w\-./#$@'\"`])D([1-9]\d?)(?:[–-]D([1-9]\d?))?(?![\w\-]|\.\w)")
DOCUMENT = re.compile(r"\bRFC\s?\d+|\bPROTOCOL\b")
# What may stand between `PROTOCOL` and a decision it introduces: other citations of the list.
CITATION_LIST = re.compile(r"PROTOCOL\s+(?:(?:§\s?[\d.]+(?:\s?[–-]\s?§?[\d.]+)?|D\d+)(?:\s+step\s+\d+)?\s*[,;]?\s*)*$")
HEX_BYTE = re.compile(r"^[0-9A-F]{2}$")

HEADING_SECTION = re.compile(r"^#{1,6}\s+(\d+(?:\.\d+)*)\.?(?:\s|$)")
HEADING_DECISION = re.compile(r"^#{1,6}\s+(D\d+)\b")
ANCHOR = re.compile(r"<a\s+(?:id|name)=\"(?:§|s)?(D?\d+(?:\.\d+)*)\"", re.IGNORECASE)

COMMENT_MARKERS = {
    ".swift": "//", ".c": "//", ".h": "//", ".m": "//", ".js": "//", ".json": "//", ".jsonc": "//",
    ".py": "#", ".sh": "#", ".yml": "#", ".yaml": "#", ".cfg": "#", ".toml": "#", ".sql": "--",
}


class Citation:
    """One cited number: `kind` is "§" or "D", `number` as written ("5.5", "17")."""

    def __init__(self, path, line, kind, number):
        self.path, self.line, self.kind, self.number = path, line, kind, number

    @property
    def label(self):
        return f"§{self.number}" if self.kind == "§" else f"D{self.number}"

    def __repr__(self):
        return f"{self.path}:{self.line}: {self.label}"


def anchors(protocol_text):
    """The section numbers and decision numbers PROTOCOL.md can be cited by."""
    sections, decisions = set(), set()
    for line in protocol_text.splitlines():
        if (match := HEADING_SECTION.match(line)):
            sections.add(match.group(1))
        if (match := HEADING_DECISION.match(line)):
            decisions.add(match.group(1)[1:])
        for anchor in ANCHOR.findall(line):
            (decisions if anchor.upper().startswith("D") else sections).add(anchor.lstrip("Dd"))
    return sections, decisions


def section_range(first, last):
    """The sections a range cites: both ends, and those between when they share a parent."""
    numbers = [first, last]
    head_first, _, tail_first = first.rpartition(".")
    head_last, _, tail_last = last.rpartition(".")
    if head_first == head_last and tail_first.isdigit() and tail_last.isdigit():
        prefix = head_first + "." if head_first else ""
        numbers += [prefix + str(n) for n in range(int(tail_first) + 1, int(tail_last))]
    return numbers


def comment_start(line, extension):
    """Where the comment part of a line begins, or None; a Markdown line is prose throughout."""
    if extension == ".md":
        return 0
    marker = COMMENT_MARKERS.get(extension)
    if marker is None:
        return None
    # At the start or after a blank, so that `http://…` and `a#b` are not comments.
    match = re.search(r"(?:^|(?<=\s))" + re.escape(marker), line)
    return match.start() if match else None


def in_parentheses(line, start, end):
    before, after = line[:start], line[end:]
    if before.count("(") > before.count(")"):
        return True
    return after.count(")") > after.count("(")


def in_hex_dump(line, start, end):
    words_before, words_after = line[:start].split(), line[end:].split()
    return any(HEX_BYTE.match(word.strip("`'\"()[]{},;:.")) for word in words_before[-1:] + words_after[:1])


def is_ours(line, position):
    """Whether a `§` at `position` cites PROTOCOL.md rather than an RFC named before it."""
    named = DOCUMENT.findall(line[:position])
    return not named or named[-1] == "PROTOCOL"


def citations_in(text, path):
    """Every citation of PROTOCOL.md in one file's text."""
    extension = os.path.splitext(path)[1].lower()
    defines = os.path.basename(path) == "PROTOCOL.md"
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        if defines and (HEADING_SECTION.match(line) or HEADING_DECISION.match(line)):
            continue  # a heading of PROTOCOL.md is what citations name, not a citation
        if "§" in line:
            for match in SECTION.finditer(line):
                if not is_ours(line, match.start()):
                    continue
                first, last = match.group(1), match.group(2)
                for cited in section_range(first, last) if last else [first]:
                    found.append(Citation(path, number, "§", cited))
        if "D" in line:
            comment = comment_start(line, extension)
            for match in DECISION.finditer(line):
                start, end = match.span()
                if in_hex_dump(line, start, end):
                    continue
                cited = (CITATION_LIST.search(line[:start]) is not None or in_parentheses(line, start, end)
                         or (comment is not None and start >= comment))
                if not cited:
                    continue
                first, last = int(match.group(1)), int(match.group(2) or match.group(1))
                for decision in range(first, max(first, last) + 1):
                    found.append(Citation(path, number, "D", str(decision)))
    return found


def files_under(root):
    """The text files of the scanned places, as paths relative to `root`."""
    for entry in SCANNED:
        full = os.path.join(root, entry)
        if os.path.isfile(full):
            yield entry
        elif os.path.isdir(full):
            for directory, subdirectories, names in os.walk(full):
                subdirectories[:] = sorted(d for d in subdirectories if d not in SKIPPED_DIRECTORIES)
                for name in sorted(names):
                    yield os.path.relpath(os.path.join(directory, name), root)


def read_text(path):
    """The file's text, or None for a binary file."""
    with open(path, "rb") as f:
        data = f.read()
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def check(root):
    """(every citation, those that resolve to no heading or anchor of PROTOCOL.md)."""
    protocol = os.path.join(root, "PROTOCOL.md")
    protocol_text = read_text(protocol) if os.path.isfile(protocol) else ""
    sections, decisions = anchors(protocol_text or "")
    every, unresolved = [], []
    for relative in files_under(root):
        text = read_text(os.path.join(root, relative))
        if text is None:
            continue
        for citation in citations_in(text, relative):
            every.append(citation)
            known = sections if citation.kind == "§" else decisions
            if citation.number not in known:
                unresolved.append(citation)
    return every, unresolved


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=ROOT, help="the repository to check (default: this one)")
    parser.add_argument("--list", action="store_true", help="print every citation found, resolved or not")
    options = parser.parse_args(argv)
    every, unresolved = check(options.root)
    if options.list:
        for citation in every:
            print(citation)
    if not os.path.isfile(os.path.join(options.root, "PROTOCOL.md")):
        print(f"{os.path.join(options.root, 'PROTOCOL.md')} does not exist", file=sys.stderr)
    for citation in unresolved:
        kind = "section" if citation.kind == "§" else "decision"
        print(f"{citation.path}:{citation.line}: {citation.label} is not a {kind} of PROTOCOL.md", file=sys.stderr)
    if unresolved:
        print(f"{len(unresolved)} of {len(every)} citations of PROTOCOL.md do not resolve", file=sys.stderr)
        return 1
    print(f"{len(every)} citations of PROTOCOL.md, all resolved")
    return 0


if __name__ == "__main__":
    sys.exit(main())
