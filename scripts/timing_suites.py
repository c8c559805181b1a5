#!/usr/bin/env python3
"""The Swift suites tagged `.timing`, as one pattern for `swift test --filter` and `--skip`.

    python3 scripts/timing_suites.py           # the pattern, e.g. \\.(BackupTests|ExecutableTests)/
    python3 scripts/timing_suites.py --list    # each suite and its file, one a line

`swift test` selects tests by a regular expression over their ids (`Module.Suite/test()`), not by
tag, so scripts/test.sh asks this script which suites carry the tag: the tag in the source stays
the only list. A suite is tagged where its `@Suite(...)` attribute names `.timing` (in `.tags(...)`,
docs/testing.md, "Timing-sensitive suites"). A `@Test` tagged alone is an error: the serial run
takes whole suites. Standard library only.
"""
import argparse
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
TIMING = re.compile(r"\.timing\b")
ATTRIBUTE = re.compile(r"@(Suite|Test)\(")
DECLARATION = re.compile(r"\b(?:struct|enum|class|actor)\s+(\w+)")


def arguments_at(text, start):
    """The code between the parenthesis at `start` and its match, string literals left out (a
    display name's parentheses or words do not count), and the index after the match."""
    depth, index, code = 0, start, []
    while index < len(text):
        character = text[index]
        if character == '"':
            index += 1
            while index < len(text) and text[index] != '"':
                index += 2 if text[index] == "\\" else 1
        elif character == "(":
            depth += 1
        elif character == ")":
            depth -= 1
            if depth == 0:
                return "".join(code[1:]), index + 1
        if character != '"':
            code.append(character)
        index += 1
    raise ValueError("an attribute's parenthesis is never closed")


def tagged_suites(text):
    """(suite names, line numbers of `@Test`s tagged alone) in one Swift source."""
    suites, tests = [], []
    for match in ATTRIBUTE.finditer(text):
        arguments, end = arguments_at(text, match.end() - 1)
        if not TIMING.search(arguments):
            continue
        if match.group(1) == "Test":
            tests.append(text.count("\n", 0, match.start()) + 1)
            continue
        declaration = DECLARATION.search(text, end)
        if declaration is None:
            raise ValueError("a @Suite with no type after it")
        suites.append(declaration.group(1))
    return suites, tests


def scan(root):
    """[(suite, path)] of every tagged suite under root/Tests, and [path:line] of tagged tests."""
    suites, problems = [], []
    for directory, subdirectories, files in os.walk(os.path.join(root, "Tests")):
        subdirectories.sort()
        for name in sorted(files):
            if not name.endswith(".swift"):
                continue
            path = os.path.join(directory, name)
            with open(path, encoding="utf-8") as file:
                found, tests = tagged_suites(file.read())
            relative = os.path.relpath(path, root)
            suites += [(suite, relative) for suite in found]
            problems += [f"{relative}:{line}" for line in tests]
    return suites, problems


def pattern(names):
    """One regular expression matching the ids of every test in the named suites."""
    return r"\.(" + "|".join(sorted(set(names))) + ")/"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--list", action="store_true", help="each tagged suite and its file")
    parser.add_argument("--root", default=ROOT, help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    suites, problems = scan(options.root)
    for problem in problems:
        print(f"{problem}: a @Test tagged .timing alone; tag its suite", file=sys.stderr)
    if problems:
        return 1
    if not suites:
        print("timing_suites: no suite is tagged .timing", file=sys.stderr)
        return 1
    if options.list:
        for suite, path in suites:
            print(f"{suite}\t{path}")
    else:
        print(pattern(name for name, _ in suites))
    return 0


if __name__ == "__main__":
    sys.exit(main())
