#!/usr/bin/env bash
# The benchmark lives in scripts/bench.py (see its --help); this name is kept for the docs and
# habits that use it.
exec python3 "$(dirname "${BASH_SOURCE[0]}")/bench.py" "$@"
