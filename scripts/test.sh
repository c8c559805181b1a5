#!/usr/bin/env bash
# The test command, in tiers a developer can run alone (docs/testing.md describes each check):
#
#   scripts/test.sh              # all: fast, postgresql, hummingbird, scripts, slow, in that order
#   scripts/test.sh fast         # the Swift suite on SQLite (swift test)
#   scripts/test.sh postgresql   # the same suite again on a throw-away PostgreSQL cluster
#   scripts/test.sh hummingbird  # the same suite again on Hummingbird's HTTP/1.1 channel
#   scripts/test.sh scripts      # the scripts' unit tests, the documentation's checks, the format
#   scripts/test.sh slow         # crash consistency, HTTP fuzz, soak, console in a browser,
#                                # CI-mode timing, several instances on PostgreSQL, HAProxy
#   scripts/test.sh fast scripts # several tiers, in the order given
#
# Every tier stops at its first failure, and so does the whole run (set -e): the exit status is
# that of the first command that failed. .ci/run calls this script with no argument.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

# The debug binary `swift test` builds; the slow checks start it as a separate process.
BINARY=.build/debug/stackmob-server

# How many tests Swift Testing runs at once: unbounded by default, which on a small machine is
# hundreds of servers starting together, and a test client's connection then waits out its
# five-second connect timeout behind them (docs/testing.md, "How many tests at once"). Four a
# core keeps every core busy; set the variable to choose another width.
SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH="${SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH:-$(($(nproc) * 4))}"
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH

usage() {
    sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

# The suites tagged .timing (wall-clock bounds, or load of their own: docs/testing.md,
# "Timing-sensitive suites"), as one pattern over test ids; swift test selects by id, not by tag.
timing_suites() {
    python3 scripts/timing_suites.py
}

# The Swift suite on SQLite, in two runs: every other suite in parallel, then the timing-sensitive
# ones one at a time with nothing beside them, so that their bounds measure the server and not the
# rest of the suite. `swift test` alone still runs everything, in parallel.
tier_fast() {
    local timing
    timing=$(timing_suites)
    swift test --skip "$timing"
    swift test --skip-build --filter "$timing" --no-parallel
}

# The same suite on PostgreSQL, in the same two runs: pg_cluster.py starts a throw-away cluster,
# hands its URL to the command as STACKMOB_TEST_POSTGRESQL_URL and removes it afterwards (set that
# variable yourself to use an existing database). --skip-build: it reuses what the fast tier built.
tier_postgresql() {
    local timing
    timing=$(timing_suites)
    python3 scripts/pg_cluster.py run -- bash -c \
        'swift test --skip-build --skip "$1" && swift test --skip-build --filter "$1" --no-parallel' \
        timing "$timing"
}

# The same suite with every listener on Hummingbird's HTTP1Channel (listen.http1_channel), so
# that the channel kept one setting away keeps the guards and answers of the server's own; in the
# same two runs.
tier_hummingbird() {
    local timing
    timing=$(timing_suites)
    STACKMOB_TEST_HTTP1_CHANNEL=hummingbird swift test --skip-build --skip "$timing"
    STACKMOB_TEST_HTTP1_CHANNEL=hummingbird swift test --skip-build --filter "$timing" --no-parallel
}

# The scripts' unit tests, then the documentation: every relative link and anchor resolves
# (doc_links.py), and every PROTOCOL citation in the code names a section that exists
# (doc_citations.py); then the Swift sources against .swift-format (format_check.sh).
tier_scripts() {
    python3 -m unittest discover -s scripts/tests
    python3 scripts/doc_links.py
    python3 scripts/doc_citations.py
    scripts/format_check.sh
}

# The checks that start the real binary, each for seconds to minutes. Run alone, the tier builds
# the binary first if no earlier tier did.
tier_slow() {
    if [ ! -x "$BINARY" ]; then
        swift build
    fi
    # Killed five times under concurrent writes: nothing acknowledged may be lost or torn.
    python3 scripts/crash_consistency.py --binary "$BINARY" --rounds 5
    # 2,000 malformed and hostile requests: no 5xx, none left unanswered, memory bounded.
    python3 scripts/http_fuzz.py --binary "$BINARY" --requests 2000 --seed 1
    # Two minutes of mixed load: memory, descriptors and p99 stay flat.
    python3 scripts/soak.py --binary "$BINARY" --minutes 2 --interval 30 --rate 100
    # The web console in headless Chromium (chromium, chromium-driver and selenium).
    python3 scripts/console_browser_test.py --binary "$BINARY"
    # CI mode: start with a 1,000-object fixture and three resets, within time bounds.
    python3 scripts/ci_mode_timing.py --binary "$BINARY"
    # Three instances on one PostgreSQL database: what they must share, they share.
    python3 scripts/pg_cluster.py run -- python3 scripts/multi_instance.py --binary "$BINARY"
    # deploy/haproxy.cfg in front of an instance: Set-Cookie and Date keep their case.
    python3 scripts/haproxy_headers.py --binary "$BINARY"
}

tiers=("$@")
if [ "${#tiers[@]}" -eq 0 ]; then
    tiers=(all)
fi

for tier in "${tiers[@]}"; do
    case "$tier" in
        fast | postgresql | hummingbird | scripts | slow)
            echo "== scripts/test.sh: $tier" >&2
            "tier_$tier"
            ;;
        all)
            for each in fast postgresql hummingbird scripts slow; do
                echo "== scripts/test.sh: $each" >&2
                "tier_$each"
            done
            ;;
        -h | --help | help)
            usage
            ;;
        *)
            echo "scripts/test.sh: unknown tier '$tier'" >&2
            usage >&2
            exit 64
            ;;
    esac
done
