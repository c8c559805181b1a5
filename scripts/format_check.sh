#!/usr/bin/env bash
# The house style, checked by the toolchain's swift-format against .swift-format (docs/testing.md,
# "The format check"). Exit 0: no finding; 1: the findings are listed. Nothing is rewritten.
#
#   scripts/format_check.sh
#
# .swift-format is JSON and holds no comments, so the reasons for its settings are here:
#   indentation 4 spaces     what every file uses.
#   lineLength 300           a ceiling, not a target: prose and comments wrap at 100, but code
#                            lines run to 299 characters (tables of arguments, long expectations).
# Rules turned off, because the code does not follow them on purpose:
#   OnlyOneTrailingClosureArgument  a labelled closure (`configure:`) before a trailing body
#                                   closure is how TestServer.run and its kin are called.
#   DoNotUseSemicolons              short bodies stay on one line: `{ defer { a = b }; return a }`.
#   OneVariableDeclarationPerLine   values that belong together are declared together.
#   OrderedImports                  `@testable import` sits with the module's other imports, and
#                                   an import under `#if canImport` goes where it is needed.
#   OneCasePerLine                  related enum cases share a line.
#
# Not --strict, and these categories are left out of the verdict: they are not rules that
# .swift-format can turn off but the pretty-printer's layout, compared with ours, and the code
# is laid out by hand (tables of test arguments with hanging rows, one-line bodies, aligned
# columns), so they would report layout, not faults:
#   Indentation, AddLines, RemoveLine, Spacing, SpacingCharacter   where the printer would
#                                   break, join or indent lines differently.
#   TrailingComma                   the code writes a multi-line literal's last comma or not.
#   TrailingWhitespace              left out until the two lines in Sources/ that have it are
#                                   fixed by their owners; then remove it from LAYOUT below.
# Every other finding (the rules above left on, and LineLength) fails the check.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

LAYOUT='\[(Indentation|AddLines|RemoveLine|Spacing|SpacingCharacter|TrailingComma|TrailingWhitespace)\]'

output=$(swift format lint --configuration .swift-format --recursive --parallel \
    Sources Tests Package.swift 2>&1) || {
    echo "$output" >&2
    echo "format_check: swift format lint failed" >&2
    exit 1
}
findings=$(echo "$output" | grep -Ev "$LAYOUT" | grep -E '(warning|error):' || true)
if [ -n "$findings" ]; then
    echo "$findings" >&2
    echo "format_check: $(echo "$findings" | wc -l) finding(s); .swift-format and this script's comments say why each rule is on" >&2
    exit 1
fi
echo "format_check: no finding (swift format $(swift format --version), .swift-format)"
