#!/usr/bin/env bash
# HTTP benchmark of a release build of stackmob-server, driven by wrk.
#
#   scripts/bench.sh
#
# Builds the release binary (scratch path .build-release, so it never touches a debug .build),
# starts it on a temporary data directory, seeds 10,000 objects into schema `bench` and runs one
# wrk scenario per function below, then prints a table:
#   scenario | requests/s | p99 (ms) | ratio to the HEAD / ceiling
#
# Environment:
#   BENCH_PORT         port to listen on (default 18090; without it the next free port is used
#                      when 18090 is taken)
#   BENCH_DURATION     seconds per scenario (default 10)
#   BENCH_THREADS      wrk threads (default 2)
#   BENCH_CONNECTIONS  wrk connections (default 32)
#   BENCH_OBJECTS      objects seeded into `bench` (default 10000, in batches of 100)
#   BENCH_SYNCHRONOUS  optional: "full" or "normal", passed as STACKMOB_STORAGE__SYNCHRONOUS
#                      (unset = the server's default, "full": every write is fsynced)
#   BENCH_SKIP_BUILD=1 reuse the existing release binary
#   BENCH_KEEP=1       keep the temporary directory (server log, Lua scripts, wrk output)
#
# Adding a scenario: write a function `scenario_<name>` that writes its Lua script with
# `write_lua` and calls `run_wrk <name> "<label>"`, then add <name> to SCENARIOS.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
export LC_ALL=C # decimal points in printf and awk

DEFAULT_PORT=18090
DURATION="${BENCH_DURATION:-10}"
THREADS="${BENCH_THREADS:-2}"
CONNECTIONS="${BENCH_CONNECTIONS:-32}"
OBJECTS="${BENCH_OBJECTS:-10000}"
BATCH=100
SCRATCH=.build-release
PRODUCT=stackmob-server
ACCEPT='application/vnd.stackmob+json; version=0'

SCENARIOS=(head get_one create update)

log() { printf '[bench] %s\n' "$*" >&2; }
die() {
    printf '[bench] ERROR: %s\n' "$*" >&2
    exit 1
}

# ---------------------------------------------------------------------------------------------
# Set-up: tools, build, server
# ---------------------------------------------------------------------------------------------

ensure_wrk() {
    command -v wrk > /dev/null && return 0
    local sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo > /dev/null || die "wrk is missing and sudo is not available to install it"
        sudo=(sudo)
    fi
    log "installing wrk"
    if ! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y wrk; then
        "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
        "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y wrk
    fi
    command -v wrk > /dev/null || die "wrk is still missing after apt-get install"
}

build() {
    if [ "${BENCH_SKIP_BUILD:-0}" != 1 ]; then
        log "building the release binary (swift build -c release --scratch-path $SCRATCH)"
        swift build -c release --scratch-path "$SCRATCH" --product "$PRODUCT"
    fi
    BIN="$(swift build -c release --scratch-path "$SCRATCH" --show-bin-path)/$PRODUCT"
    [ -x "$BIN" ] || die "no binary at $BIN (run without BENCH_SKIP_BUILD=1)"
}

port_in_use() { (exec 3<> "/dev/tcp/127.0.0.1/$1") 2> /dev/null; }

choose_port() {
    if [ -n "${BENCH_PORT:-}" ]; then
        PORT="$BENCH_PORT"
        ! port_in_use "$PORT" || die "port $PORT (BENCH_PORT) is already in use"
        return 0
    fi
    PORT=$DEFAULT_PORT
    while port_in_use "$PORT"; do
        PORT=$((PORT + 1))
        [ "$PORT" -lt $((DEFAULT_PORT + 100)) ] || die "no free port in $DEFAULT_PORT-$PORT; set BENCH_PORT"
    done
}

WORK=""
SERVER_PID=""
cleanup() {
    local status=$?
    if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2> /dev/null; then
        kill "$SERVER_PID" 2> /dev/null || true
        for _ in $(seq 50); do kill -0 "$SERVER_PID" 2> /dev/null || break; sleep 0.1; done
        kill -9 "$SERVER_PID" 2> /dev/null || true
        wait "$SERVER_PID" 2> /dev/null || true
    fi
    if [ -n "$WORK" ] && [ -d "$WORK" ]; then
        if [ "$status" -ne 0 ] && [ -s "$WORK/server.log" ]; then
            log "last lines of the server log:"
            tail -n 20 "$WORK/server.log" >&2 || true
        fi
        if [ "${BENCH_KEEP:-0}" = 1 ] || [ "$status" -ne 0 ]; then
            log "kept $WORK"
        else
            rm -rf "$WORK"
        fi
    fi
    exit "$status"
}

start_server() {
    choose_port
    BASE="http://127.0.0.1:$PORT"
    local env=()
    [ -z "${BENCH_SYNCHRONOUS:-}" ] || env+=("STACKMOB_STORAGE__SYNCHRONOUS=$BENCH_SYNCHRONOUS")
    log "starting $BIN on port $PORT, data in $WORK/data"
    env "${env[@]}" "$BIN" serve --host 127.0.0.1 --port "$PORT" --data-dir "$WORK/data" \
        --log-level warning > "$WORK/server.log" 2>&1 &
    SERVER_PID=$!
    local i
    for i in $(seq 600); do
        kill -0 "$SERVER_PID" 2> /dev/null || die "the server exited during start-up"
        if curl -fsS -o /dev/null -I "$BASE/" 2> /dev/null; then
            log "server answers HEAD / after ~$((i / 10)) s"
            return 0
        fi
        sleep 0.1
    done
    die "the server did not answer HEAD / within 60 s"
}

# The development public key: from the start-up log line
#   … sm.environment=development … sm.public_key=<uuid> … API keys
# That line is logged at level notice, so with --log-level warning it is not printed; the key is
# then read from keys.json, which the server writes to the data directory before it listens.
read_public_key() {
    KEY="$(grep 'sm.environment=development' "$WORK/server.log" | grep 'API keys' \
        | grep -o 'sm\.public_key=[0-9A-Fa-f-]*' | head -n 1 | cut -d= -f2 || true)"
    if [ -z "$KEY" ] && [ -f "$WORK/data/keys.json" ]; then
        KEY="$(tr -d '[:space:]' < "$WORK/data/keys.json" | grep -o '"development":{[^}]*}' \
            | grep -o '"public_key":"[^"]*"' | cut -d'"' -f4 || true)"
    fi
    [ -n "$KEY" ] || die "could not find the development public key in the log or keys.json"
    log "development public key $KEY"
}

api() { # METHOD PATH [BODY] → body in $WORK/api.out, prints the status code
    local method=$1 path=$2 args=()
    [ $# -lt 3 ] || args=(-H 'Content-Type: application/json' --data-binary "$3")
    curl -sS -o "$WORK/api.out" -w '%{http_code}' -X "$method" "$BASE$path" \
        -H "Accept: $ACCEPT" -H "X-StackMob-API-Key: $KEY" "${args[@]}"
}

object_id() { printf 'obj%05d' "$1"; }

# Objects obj00001 … obj<N> (the primary key bench_id is supplied, so the ids are known in Lua
# without reading a file); bulk POSTs of $BATCH.
seed() {
    log "seeding $OBJECTS objects into schema bench"
    : > "$WORK/ids.txt"
    local first last i body status count
    for ((first = 1; first <= OBJECTS; first += BATCH)); do
        last=$((first + BATCH - 1))
        [ "$last" -le "$OBJECTS" ] || last=$OBJECTS
        body="["
        for ((i = first; i <= last; i++)); do
            [ "$i" -eq "$first" ] || body+=","
            body+="{\"bench_id\":\"$(object_id "$i")\",\"name\":\"seed $i\",\"n\":$i}"
        done
        body+="]"
        status="$(api POST /bench "$body")"
        [ "$status" = 200 ] || die "bulk POST /bench ($first-$last) answered $status: $(head -c 500 "$WORK/api.out")"
        grep -q '"failed":\[\]' "$WORK/api.out" || die "bulk POST /bench ($first-$last) had failures: $(head -c 500 "$WORK/api.out")"
        grep -o 'obj[0-9]\{5\}' "$WORK/api.out" >> "$WORK/ids.txt" || true
    done
    count="$(sort -u "$WORK/ids.txt" | wc -l)"
    [ "$count" -eq "$OBJECTS" ] || die "seeding reported $count distinct ids, expected $OBJECTS"
    status="$(api GET "/bench/$(object_id "$OBJECTS")")"
    [ "$status" = 200 ] || die "GET of a seeded object answered $status: $(head -c 500 "$WORK/api.out")"
}

# ---------------------------------------------------------------------------------------------
# wrk plumbing
# ---------------------------------------------------------------------------------------------

# write_lua NAME: the common prelude (headers, per-thread random seed, done() printing one
# machine-readable line) followed by the scenario's own Lua, read from standard input. The
# scenario's Lua may define `prepare()` (run once per thread in init) and `request()`.
write_lua() {
    local file="$WORK/$1.lua"
    cat > "$file" << EOF
-- generated by scripts/bench.sh, scenario $1
local objects = $OBJECTS
wrk.headers["Accept"] = "$ACCEPT"
wrk.headers["X-StackMob-API-Key"] = "$KEY"

local function object_id(i) return string.format("obj%05d", i) end
local function random_id() return object_id(math.random(1, objects)) end

local thread_count = 0
function setup(thread)
  thread_count = thread_count + 1
  thread:set("thread_index", thread_count)
end

function init(args)
  math.randomseed(os.time() * 1000 + (thread_index or 0))
  if prepare then prepare() end
end

function done(summary, latency, requests)
  local seconds = summary.duration / 1e6
  local e = summary.errors
  io.write(string.format(
    "BENCH_RESULT scenario=$1 requests=%d seconds=%.3f rps=%.2f p50_ms=%.3f p99_ms=%.3f max_ms=%.3f status_errors=%d connect_errors=%d read_errors=%d write_errors=%d timeouts=%d\n",
    summary.requests, seconds, summary.requests / seconds,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000,
    e.status, e.connect, e.read, e.write, e.timeout))
end

EOF
    cat >> "$file"
}

declare -A LABEL RPS P99 # by scenario name
ORDER=()                  # scenario names in the order they ran

result_field() { # LINE KEY: the value of KEY=value in a BENCH_RESULT line
    printf '%s\n' "$1" | tr ' ' '\n' | grep "^$2=" | cut -d= -f2
}

# run_wrk NAME LABEL: runs wrk with $WORK/NAME.lua and records requests/s and p99.
run_wrk() {
    local name=$1 label=$2 out="$WORK/$1.out" line non2xx
    log "scenario $name ($label): wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s"
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency -s "$WORK/$name.lua" "$BASE/" > "$out" 2>&1 \
        || { cat "$out" >&2; die "wrk failed for scenario $name"; }
    cat "$out" >&2
    line="$(grep '^BENCH_RESULT ' "$out" | tail -n 1)"
    [ -n "$line" ] || die "scenario $name: no BENCH_RESULT line in the wrk output"
    field() { result_field "$line" "$1"; }
    non2xx="$(grep -o 'Non-2xx or 3xx responses: *[0-9]*' "$out" | grep -o '[0-9]*$' || true)"
    if [ -n "$non2xx" ] && [ "$non2xx" != 0 ] || [ "$(field status_errors)" != 0 ]; then
        die "scenario $name: ${non2xx:-$(field status_errors)} non-2xx responses (wrk output above, server log in $WORK/server.log)"
    fi
    [ "$(field requests)" -gt 0 ] || die "scenario $name: no request completed"
    local socket_errors=$(($(field connect_errors) + $(field read_errors) + $(field write_errors) + $(field timeouts)))
    [ "$socket_errors" -eq 0 ] || log "WARNING: scenario $name had $socket_errors socket errors/timeouts"
    LABEL[$name]="$label"
    RPS[$name]="$(field rps)"
    P99[$name]="$(field p99_ms)"
    ORDER+=("$name")
}

# check_once METHOD PATH [BODY]: one request by curl, so a scenario whose request is refused
# fails with the server's error text rather than a bare count.
check_once() {
    local status
    status="$(api "$@")"
    case "$status" in
        2??) ;;
        *) die "$1 $2 answered $status: $(head -c 500 "$WORK/api.out")" ;;
    esac
}

# ---------------------------------------------------------------------------------------------
# Scenarios
# ---------------------------------------------------------------------------------------------

# (a) HEAD / — no datastore work: the HTTP ceiling the other scenarios are compared with.
scenario_head() {
    check_once HEAD /
    write_lua head << 'EOF'
wrk.method = "HEAD"
wrk.path = "/"
EOF
    run_wrk head "HEAD /"
}

# (b) GET /bench/<random seeded id>
scenario_get_one() {
    check_once GET "/bench/$(object_id 1)"
    write_lua get_one << 'EOF'
local requests_by_id = {}
function prepare()
  for i = 1, objects do requests_by_id[i] = wrk.format("GET", "/bench/" .. object_id(i)) end
end
function request() return requests_by_id[math.random(1, objects)] end
EOF
    run_wrk get_one "GET /bench/<id>"
}

# (c) POST /bench — create a small object (the server generates the id)
scenario_create() {
    check_once POST /bench '{"name":"x","n":1}'
    write_lua create << 'EOF'
wrk.method = "POST"
wrk.path = "/bench"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"name":"x","n":1}'
EOF
    run_wrk create "POST /bench"
}

# (d) PUT /bench/<random seeded id> — update one field
scenario_update() {
    check_once PUT "/bench/$(object_id 1)" '{"n":2}'
    write_lua update << 'EOF'
wrk.headers["Content-Type"] = "application/json"
local requests_by_id = {}
function prepare()
  for i = 1, objects do requests_by_id[i] = wrk.format("PUT", "/bench/" .. object_id(i), nil, '{"n":2}') end
end
function request() return requests_by_id[math.random(1, objects)] end
EOF
    run_wrk update "PUT /bench/<id>"
}

# ---------------------------------------------------------------------------------------------

print_table() {
    local ceiling="${RPS[head]:-}" name ratio
    printf '\n'
    printf '%-10s | %-18s | %12s | %9s | %s\n' scenario request "requests/s" "p99 (ms)" "ratio to HEAD /"
    printf '%s\n' "-----------+--------------------+--------------+-----------+----------------"
    for name in "${ORDER[@]}"; do
        if [ -n "$ceiling" ]; then
            ratio="$(awk -v a="${RPS[$name]}" -v b="$ceiling" 'BEGIN { printf "%.3f", a / b }')"
        else
            ratio="n/a"
        fi
        printf '%-10s | %-18s | %12.0f | %9.2f | %s\n' "$name" "${LABEL[$name]}" "${RPS[$name]}" "${P99[$name]}" "$ratio"
    done
    printf '\n(wrk -t%s -c%s -d%ss, %s seeded objects, %s cores, storage.synchronous=%s)\n' \
        "$THREADS" "$CONNECTIONS" "$DURATION" "$OBJECTS" "$(nproc 2> /dev/null || echo '?')" "${BENCH_SYNCHRONOUS:-default}"
}

main() {
    ensure_wrk
    command -v curl > /dev/null || die "curl is required"
    build
    WORK="$(mktemp -d "${TMPDIR:-/tmp}/stackmob-bench.XXXXXX")"
    trap cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    start_server
    read_public_key
    seed
    local scenario
    for scenario in "${SCENARIOS[@]}"; do
        "scenario_$scenario"
    done
    print_table
}

main "$@"
