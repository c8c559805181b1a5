#!/usr/bin/env bash
# The test command, in tiers a developer can run alone (docs/testing.md describes each check):
#
#   scripts/test.sh              # all: fast, postgresql, hummingbird, scripts, slow, in that order
#   scripts/test.sh fast         # the Swift suite on SQLite (swift test)
#   scripts/test.sh postgresql   # the same suite again on a throw-away PostgreSQL cluster
#   scripts/test.sh hummingbird  # the same suite again on Hummingbird's HTTP/1.1 channel
#   scripts/test.sh scripts      # the scripts' unit tests and the documentation's checks
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

usage() {
    sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

# The Swift suite on SQLite.
tier_fast() {
    swift test
}

# The same suite on PostgreSQL: pg_cluster.py starts a throw-away cluster, hands its URL to the
# command as STACKMOB_TEST_POSTGRESQL_URL and removes it afterwards (set that variable yourself
# to use an existing database). --skip-build: it reuses what the fast tier built.
tier_postgresql() {
    python3 scripts/pg_cluster.py run -- swift test --skip-build
}

# The same suite with every listener on Hummingbird's HTTP1Channel (listen.http1_channel), so
# that the channel kept one setting away keeps the guards and answers of the server's own.
tier_hummingbird() {
    STACKMOB_TEST_HTTP1_CHANNEL=hummingbird swift test --skip-build
}

# The scripts' unit tests, then the documentation: every relative link and anchor resolves
# (doc_links.py), and every PROTOCOL citation in the code names a section that exists
# (doc_citations.py).
tier_scripts() {
    python3 -m unittest discover -s scripts/tests
    python3 scripts/doc_links.py
    python3 scripts/doc_citations.py
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
