#!/usr/bin/env python3
"""Checks the relative links of the documentation: every link in README.md, docs/*.md and
config/README.md must name a file or folder that exists, and every `#anchor` must name a heading
(or an explicit anchor) of the document it points into, by GitHub's rules for heading anchors.

    python3 scripts/doc_links.py            # the repository's documents; exit 1 on a broken link
    python3 scripts/doc_links.py a.md b.md  # only these

Links with a scheme (https:, mailto:, …) are not followed, nor are links inside code. Standard
library only; part of the `scripts` tier of scripts/test.sh.
"""

import argparse
import os
import re
import sys
import unicodedata
import urllib.parse

# The documents checked when no file is named, relative to the repository's root.
DEFAULT_DOCUMENTS = ("README.md", "docs/*.md", "config/README.md")

# PROTOCOL.md, the wire contract, is written on another branch and arrives with its merge; until
# then a link to it is taken as present (its anchors are not checked). Exactly this one file
# name, at the repository's root: any other missing file is reported.
ALLOWED_MISSING = {"PROTOCOL.md"}

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
ATX_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
INLINE_CODE = re.compile(r"(`+)(.+?)\1")
# [text](target) and ![alt](target); the target may be <…> and may carry a "title".
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^>]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)")
REFERENCE_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
HTML_ANCHOR = re.compile(r"""<a\s[^>]*?(?:name|id)\s*=\s*["']([^"']+)["']""", re.IGNORECASE)
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def heading_text(raw):
    """The text GitHub renders for a heading's source: code spans keep their content, links
    keep their text, images, HTML tags and emphasis markers go."""
    parts = []
    pos = 0
    for match in INLINE_CODE.finditer(raw):
        parts.append(("text", raw[pos:match.start()]))
        parts.append(("code", match.group(2)))
        pos = match.end()
    parts.append(("text", raw[pos:]))
    out = []
    for kind, text in parts:
        if kind == "text":
            text = re.sub(r"!\[([^\]]*)\]\([^)]*\)", "", text)
            text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
            text = re.sub(r"<[^>]+>", "", text)
            text = text.replace("*", "")
            text = re.sub(r"(?<!\w)_+|_+(?!\w)", "", text)
        out.append(text)
    return "".join(out).strip()


def slug(text):
    """GitHub's anchor for a heading's text: lower case, every character that is not a letter,
    mark, number, connector (`_`), space or hyphen dropped, each space a hyphen."""
    kept = []
    for ch in text.lower():
        category = unicodedata.category(ch)
        if category[0] in "LMN" or category == "Pc" or ch in " -":
            kept.append(ch)
    return "".join(kept).replace(" ", "-")


def scan(text):
    """The anchors a document defines, and its links as (line number, target), outside code."""
    anchors = set()
    counts = {}
    links = []
    fence = None
    for number, line in enumerate(text.split("\n"), start=1):
        opening = FENCE.match(line)
        if fence is not None:
            if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence):
                fence = None
            continue
        if opening:
            fence = opening.group(1)
            continue
        for match in HTML_ANCHOR.finditer(line):
            anchors.add(match.group(1))
        heading = ATX_HEADING.match(line)
        if heading:
            base = slug(heading_text(heading.group(2) or ""))
            seen = counts.get(base, 0)
            counts[base] = seen + 1
            anchors.add(base if seen == 0 else f"{base}-{seen}")
        without_code = INLINE_CODE.sub(lambda m: " " * len(m.group(0)), line)
        for match in INLINE_LINK.finditer(without_code):
            links.append((number, match.group(1)))
        definition = REFERENCE_DEFINITION.match(without_code)
        if definition:
            links.append((number, definition.group(1)))
    return anchors, links


def check(paths, root):
    """The broken links of `paths`, as printable lines."""
    anchor_cache = {}

    def anchors_of(path):
        if path not in anchor_cache:
            with open(path, encoding="utf-8") as handle:
                anchor_cache[path] = scan(handle.read())[0]
        return anchor_cache[path]

    problems = []
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            _, links = scan(handle.read())
        shown = os.path.relpath(path, root)
        for number, target in links:
            target = target.strip("<>")
            if not target or SCHEME.match(target) or target.startswith("//"):
                continue
            file_part, _, anchor = target.partition("#")
            file_part = urllib.parse.unquote(file_part)
            anchor = urllib.parse.unquote(anchor)
            if file_part:
                resolved = os.path.normpath(os.path.join(os.path.dirname(path), file_part))
                if not os.path.exists(resolved):
                    relative = os.path.relpath(resolved, root)
                    if relative in ALLOWED_MISSING:
                        continue
                    problems.append(f"{shown}:{number}: {target}: no such file")
                    continue
            else:
                resolved = path
            if anchor and resolved.endswith(".md") and os.path.isfile(resolved):
                if anchor not in anchors_of(resolved):
                    problems.append(f"{shown}:{number}: {target}: no heading with anchor #{anchor}")
    return problems


def default_documents(root):
    import glob
    found = []
    for pattern in DEFAULT_DOCUMENTS:
        found.extend(sorted(glob.glob(os.path.join(root, pattern))))
    return found


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", help="documents to check (default: README.md, docs/*.md, config/README.md)")
    parser.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."),
                        help="the repository's root (default: this script's parent folder)")
    args = parser.parse_args(argv)
    root = os.path.abspath(args.root)
    paths = [os.path.abspath(f) for f in args.files] if args.files else default_documents(root)
    problems = check(paths, root)
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} broken link(s) in {len(paths)} document(s)")
        return 1
    print(f"doc_links: {len(paths)} documents, every relative link and anchor resolves")
    return 0


if __name__ == "__main__":
    sys.exit(main())
