#!/usr/bin/env bash
# HTTP benchmark of a release build of stackmob-server, driven by wrk.
#
#   scripts/bench.sh
#
# Builds the release binary (scratch path .build-release, so it never touches a debug .build),
# starts it on a temporary data directory with indexes on catalog.category and catalog.price,
# seeds 10,000 objects into schema `bench` and 100,000 into schema `catalog` (timed), prints
# SQLite's plans for the catalog queries, runs one wrk scenario per function below, then prints
# a table:
#   scenario | request | requests/s | p99 (ms) | ratio to the HEAD / ceiling
# A query scenario whose probe is refused with 400 "… not supported …" (a query feature the
# build does not have yet, e.g. geo) is listed as "SKIPPED: <reason>"; any other non-2xx fails.
#
# Environment:
#   BENCH_PORT         port to listen on (default 18090; without it the next free port is used
#                      when 18090 is taken)
#   BENCH_DURATION     seconds per scenario (default 10)
#   BENCH_THREADS      wrk threads (default 2)
#   BENCH_CONNECTIONS  wrk connections (default 32)
#   BENCH_OBJECTS      objects seeded into `bench` (default 10000, in batches of 100)
#   BENCH_CATALOG_OBJECTS  objects seeded into `catalog` (default 100000, in batches of 500;
#                      the count probe expects a multiple of 100 so every category is the same size)
#   BENCH_SCENARIOS    space-separated subset of the scenarios to run (default: all, in the order
#                      of SCENARIOS below); `bench` is seeded only for get_one/update, `catalog`
#                      only for page/count/near/within, `article` (200 articles, each with 5
#                      tags, each tag with an owner) only for expand; `memo` and `memo_open`
#                      only for unowned/owned
#   BENCH_INDEXES      JSON passed as STACKMOB_ENVIRONMENTS__DEVELOPMENT__INDEXES (default
#                      {"catalog":[["category","price"]]}, a composite index); empty = no configured indexes, and then
#                      a query plan without an index is only a warning
#   BENCH_SYNCHRONOUS  optional: "full" or "normal", passed as STACKMOB_STORAGE__SYNCHRONOUS
#                      (unset = the server's default, "full": every write is fsynced)
#   BENCH_MEMO_OBJECTS objects seeded into `memo` and `memo_open` for the owned/unowned scenarios
#                      (default 100000, owned round-robin by 1,000 users, inserted with sqlite3)
#   BENCH_SIGNED       MAC-signed requests prepared per owned/unowned scenario (default 200000;
#                      each is sent once: a nonce may not be replayed; needs python3)
#   BENCH_SKIP_BUILD=1 reuse the existing release binary
#   BENCH_KEEP=1       keep the temporary directory (server log, Lua scripts, wrk output)
#
# Adding a scenario: write a function `scenario_<name>` that probes once with
# `check_once … || return 0`, writes its Lua script with `write_lua` and calls
# `run_wrk <name> "<label>"`, then add <name> to SCENARIOS.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
export LC_ALL=C # decimal points in printf and awk

DEFAULT_PORT=18090
DURATION="${BENCH_DURATION:-10}"
THREADS="${BENCH_THREADS:-2}"
CONNECTIONS="${BENCH_CONNECTIONS:-32}"
OBJECTS="${BENCH_OBJECTS:-10000}"
BATCH=100
CATALOG_OBJECTS="${BENCH_CATALOG_OBJECTS:-100000}"
CATALOG_BATCH=500
DEFAULT_INDEXES='{"catalog":[["category","price"]]}'
INDEXES="${BENCH_INDEXES-$DEFAULT_INDEXES}" # set but empty: no configured indexes
SCRATCH=.build-release
PRODUCT=stackmob-server
ACCEPT='application/vnd.stackmob+json; version=0'

SCENARIOS=(head get_one create update page count near within expand upsert unowned owned)
MEMO_OBJECTS="${BENCH_MEMO_OBJECTS:-100000}"
SIGNED="${BENCH_SIGNED:-200000}"
# Read permission `owner` on memo (PROTOCOL §12); memo_open holds the same rows and is open.
PERMISSIONS='{"memo":{"read":"owner"}}'

log() { printf '[bench] %s\n' "$*" >&2; }
die() {
    printf '[bench] ERROR: %s\n' "$*" >&2
    exit 1
}

# ---------------------------------------------------------------------------------------------
# Set-up: tools, build, server
# ---------------------------------------------------------------------------------------------

ensure_tool() { # COMMAND: installs the apt package of the same name when the command is missing
    local tool=$1
    command -v "$tool" > /dev/null && return 0
    local sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo > /dev/null || die "$tool is missing and sudo is not available to install it"
        sudo=(sudo)
    fi
    log "installing $tool"
    if ! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y "$tool"; then
        "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
        "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y "$tool"
    fi
    command -v "$tool" > /dev/null || die "$tool is still missing after apt-get install"
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
    [ -z "$INDEXES" ] || env+=("STACKMOB_ENVIRONMENTS__DEVELOPMENT__INDEXES=$INDEXES")
    env+=("STACKMOB_ENVIRONMENTS__DEVELOPMENT__PERMISSIONS=$PERMISSIONS")
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

# api [-H HEADER]… METHOD PATH [BODY]: body in $WORK/api.out, response headers in
# $WORK/api.headers, prints the status code. BODY "@file" sends the file. -g: the brackets of
# query parameters (`loc[near]`) are not curl globs.
api() {
    local args=()
    while [ "${1:-}" = -H ]; do
        args+=(-H "$2")
        shift 2
    done
    local method=$1 path=$2
    [ $# -lt 3 ] || args+=(-H 'Content-Type: application/json' --data-binary "$3")
    curl -sS -g -o "$WORK/api.out" -D "$WORK/api.headers" -w '%{http_code}' -X "$method" "$BASE$path" \
        -H "Accept: $ACCEPT" -H "X-StackMob-API-Key: $KEY" "${args[@]}"
}

response_header() { # NAME: the value of a header of the last api response
    grep -i "^$1:" "$WORK/api.headers" | head -n 1 | cut -d: -f2- | tr -d '\r' | sed 's/^ *//' || true
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

# Objects c000001 … c<N> of schema `catalog`: category i % 100 (indexed), price (indexed), name
# and a geopoint `loc` spread deterministically over latitudes -60…60 and all longitudes. Bulk
# POSTs of $CATALOG_BATCH; awk writes the bodies first, so the timing is the server's work (plus
# one curl per batch).
CATALOG_SEED_SECONDS=""
seed_catalog() {
    log "seeding $CATALOG_OBJECTS objects into schema catalog (batches of $CATALOG_BATCH)"
    mkdir -p "$WORK/catalog"
    awk -v n="$CATALOG_OBJECTS" -v batch="$CATALOG_BATCH" -v dir="$WORK/catalog" 'BEGIN {
        for (first = 1; first <= n; first += batch) {
            file = sprintf("%s/%07d.json", dir, first)
            last = first + batch - 1
            if (last > n) last = n
            printf "[" > file
            for (i = first; i <= last; i++)
                printf "%s{\"catalog_id\":\"c%06d\",\"category\":%d,\"price\":%.2f,\"name\":\"item %d\",\"loc\":{\"lat\":%.2f,\"lon\":%.2f}}",
                    (i == first ? "" : ","), i, i % 100, ((i * 7919) % 100000) / 100 + 0.5, i,
                    ((i * 37) % 12000) / 100 - 60, ((i * 73) % 36000) / 100 - 180 > file
            printf "]" > file
            close(file)
        }
    }'
    local start file status total
    start="$(date +%s.%N)"
    for file in "$WORK"/catalog/*.json; do
        status="$(api POST /catalog "@$file")"
        [ "$status" = 200 ] || die "bulk POST /catalog ($(basename "$file")) answered $status: $(head -c 500 "$WORK/api.out")"
        grep -q '"failed":\[\]' "$WORK/api.out" || die "bulk POST /catalog ($(basename "$file")) had failures: $(head -c 500 "$WORK/api.out")"
    done
    CATALOG_SEED_SECONDS="$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')"
    printf 'Seeded %s catalog objects in %s s (%s objects/s, bulk POSTs of %s)\n' "$CATALOG_OBJECTS" \
        "$CATALOG_SEED_SECONDS" "$(awk -v n="$CATALOG_OBJECTS" -v s="$CATALOG_SEED_SECONDS" 'BEGIN { if (s > 0) printf "%.0f", n / s; else printf "n/a" }')" "$CATALOG_BATCH"
    # The count the SDKs make: Range objects=0-0 → 206 and the total in Content-Range.
    status="$(api -H 'Range: objects=0-0' GET /catalog)"
    total="$(response_header Content-Range)"
    [ "$status" = 206 ] && [ "$total" = "objects 0-0/$CATALOG_OBJECTS" ] \
        || die "after seeding, a count of catalog answered $status with Content-Range '$total', expected 206 and 'objects 0-0/$CATALOG_OBJECTS'"
}

# Relationships (PROTOCOL §6): persons p01…p50; tags t01…t50, tag tNN owned by person pNN; articles
# a001…a200, each with 5 tags and an author, through POSTs with X-StackMob-Relations.
seed_articles() {
    log "seeding 50 persons, 50 tags and 200 articles with relationships"
    local i k body status
    body="["
    for ((i = 1; i <= 50; i++)); do
        [ "$i" -eq 1 ] || body+=","
        body+="$(printf '{"person_id":"p%02d","name":"person %d"}' "$i" "$i")"
    done
    status="$(api POST /person "$body]")"
    [ "$status" = 200 ] || die "bulk POST /person answered $status: $(head -c 500 "$WORK/api.out")"
    for ((i = 1; i <= 50; i++)); do
        status="$(api -H 'X-StackMob-Relations: owner=person' POST /tag "$(printf '{"tag_id":"t%02d","label":"tag %d","owner":"p%02d"}' "$i" "$i" "$i")")"
        [ "$status" = 201 ] || die "POST /tag answered $status: $(head -c 500 "$WORK/api.out")"
    done
    for ((i = 1; i <= 200; i++)); do
        body="$(printf '{"article_id":"a%03d","title":"article %d","author":"p%02d","tags":[' "$i" "$i" $(((i % 50) + 1)))"
        for ((k = 0; k < 5; k++)); do
            [ "$k" -eq 0 ] || body+=","
            body+="$(printf '"t%02d"' $((((i + k * 7) % 50) + 1)))"
        done
        status="$(api -H 'X-StackMob-Relations: author=person&tags=tag' POST /article "$body]}")"
        [ "$status" = 201 ] || die "POST /article answered $status: $(head -c 500 "$WORK/api.out")"
    done
}

# SQLite's plans for the catalog queries, from the sqlite3 command line on the server's database
# (WAL mode: reading it while the server runs is fine). The SQL is what SQLiteTransaction and
# SQLiteFilterCompiler build for these requests, with the bound values inlined.
print_query_plans() {
    local db="$WORK/data/development.sqlite"
    [ -f "$db" ] || die "no database at $db"
    printf '\nQuery plans (sqlite3 EXPLAIN QUERY PLAN on %s)\n' "$db"
    printf 'indexes on catalog: %s\n' \
        "$(sqlite3 "$db" "SELECT group_concat(name, ', ') FROM (SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'catalog' ORDER BY name)")"
    explain_query page 'USING (COVERING )?INDEX' required \
        'SELECT * FROM "catalog" WHERE "category" = 7 ORDER BY "price" ASC, "catalog_id" ASC LIMIT 20 OFFSET 0'
    explain_query count 'USING (COVERING )?INDEX' required \
        'SELECT *, (SELECT COUNT(*) FROM "catalog" WHERE "category" = 7) AS "_sm_total" FROM "catalog" WHERE "category" = 7 ORDER BY "price" ASC, "catalog_id" ASC LIMIT 1 OFFSET 0'
    # Geo (PROTOCOL §5.8): an R*Tree _sm_geo_<schema> narrows to the box, the stored doubles decide.
    # `near` adds an ORDER BY on sm_distance(), a function of the server that sqlite3 does not
    # have, over the same R*Tree pre-filter (the radius's bounding box), so only `within` is shown.
    if [ -n "$(sqlite3 "$db" "SELECT name FROM sqlite_master WHERE name = '_sm_geo_catalog'")" ]; then
        explain_query within 'VIRTUAL TABLE' expected \
            'SELECT * FROM "catalog" WHERE (rowid IN (SELECT id FROM "_sm_geo_catalog" WHERE max_lat >= 9.0 AND min_lat <= 11.0 AND max_lon >= 19.0 AND min_lon <= 21.0) AND json_extract("loc", '"'"'$.lat'"'"') BETWEEN 9.0 AND 11.0 AND json_extract("loc", '"'"'$.lon'"'"') BETWEEN 19.0 AND 21.0) ORDER BY "createddate" DESC, "catalog_id" ASC LIMIT 20 OFFSET 0'
    else
        printf '\nnear/within: no plan: the database has no spatial index _sm_geo_catalog (this build has no geo queries)\n'
    fi
    printf '\n'
}

# explain_query NAME PATTERN required|expected SQL: prints the plan; a plan without PATTERN fails
# the script when required (a warning when no indexes are configured), else warns.
explain_query() {
    local name=$1 pattern=$2 level=$3 sql=$4 db="$WORK/data/development.sqlite" plan
    plan="$(sqlite3 "$db" "EXPLAIN QUERY PLAN $sql" 2>&1)" || die "sqlite3 could not explain the $name query: $plan"
    printf '\n%s: %s\n' "$name" "$sql"
    printf '%s\n' "$plan" | sed 's/^/    /'
    grep -Eq "$pattern" <<< "$plan" && return 0
    if [ "$level" = required ] && [ -n "$INDEXES" ]; then
        die "the plan of the $name query does not show '$pattern' (indexes: $INDEXES)"
    fi
    log "WARNING: the plan of the $name query does not show '$pattern'"
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

declare -A LABEL RPS P99 SKIPPED # by scenario name
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

# check_once [-H HEADER]… METHOD PATH [BODY]: one request by curl, so a scenario whose request
# is refused fails with the server's error text rather than a bare count. The status is left in
# CHECK_STATUS, the response in $WORK/api.out and $WORK/api.headers.
# A 400 whose error says "not supported" (a query feature this build does not have yet) marks the
# calling scenario SKIPPED and returns 1: call it as `check_once … || return 0`.
CHECK_STATUS=""
check_once() {
    local status request=("$@")
    while [ "${request[0]}" = -H ]; do request=("${request[@]:2}"); done
    status="$(api "$@")"
    CHECK_STATUS="$status"
    case "$status" in
        2??) ;;
        400)
            grep -q 'not supported' "$WORK/api.out" || die "${request[0]} ${request[1]} answered $status: $(head -c 500 "$WORK/api.out")"
            local name="${FUNCNAME[1]#scenario_}" reason
            reason="$(sed -n 's/^{ *"error" *: *"\(.*\)" *}$/\1/p' "$WORK/api.out")"
            SKIPPED[$name]="${reason:-$(head -c 200 "$WORK/api.out")}"
            LABEL[$name]="${request[0]} ${request[1]}"
            ORDER+=("$name")
            log "scenario $name SKIPPED: ${request[0]} ${request[1]} answered 400: ${SKIPPED[$name]}"
            return 1
            ;;
        *) die "${request[0]} ${request[1]} answered $status: $(head -c 500 "$WORK/api.out")" ;;
    esac
}

# expect_page NAME STATUS OBJECTS CONTENT-RANGE: checks the response of the last check_once
# (CONTENT-RANGE "" = no check of the header).
expect_page() {
    local name=$1 status=$2 objects=$3 range=$4 count
    count="$(grep -o '"catalog_id":' "$WORK/api.out" | wc -l)"
    [ "$CHECK_STATUS" = "$status" ] && [ "$count" -eq "$objects" ] \
        || die "scenario $name: expected $status with $objects objects, got $CHECK_STATUS with $count: $(head -c 300 "$WORK/api.out")"
    [ -z "$range" ] || [ "$(response_header Content-Range)" = "$range" ] \
        || die "scenario $name: expected Content-Range '$range', got '$(response_header Content-Range)'"
}

# ---------------------------------------------------------------------------------------------
# Scenarios
# ---------------------------------------------------------------------------------------------

# (a) HEAD / — no datastore work: the HTTP ceiling the other scenarios are compared with.
scenario_head() {
    check_once HEAD / || return 0
    write_lua head << 'EOF'
wrk.method = "HEAD"
wrk.path = "/"
EOF
    run_wrk head "HEAD /"
}

# (b) GET /bench/<random seeded id>
scenario_get_one() {
    check_once GET "/bench/$(object_id 1)" || return 0
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
    check_once POST /bench '{"name":"x","n":1}' || return 0
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
    check_once PUT "/bench/$(object_id 1)" '{"n":2}' || return 0
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

# write_category_lua NAME RANGE: GET /catalog?category=<random 0..99> sorted by price, with RANGE.
write_category_lua() {
    write_lua "$1" << EOF
wrk.headers["X-StackMob-OrderBy"] = "price:asc"
wrk.headers["Range"] = "$2"
local requests_by_category = {}
function prepare()
  for c = 0, 99 do requests_by_category[c] = wrk.format("GET", "/catalog?category=" .. c) end
end
function request() return requests_by_category[math.random(0, 99)] end
EOF
}

# (e) GET /catalog?category=<random 0..99>, ordered by price, first 20: a page of one category
# (1,000 objects each) through the category index. 206 + Content-Range objects 0-19/1000.
scenario_page() {
    check_once -H 'X-StackMob-OrderBy: price:asc' -H 'Range: objects=0-19' GET '/catalog?category=7' || return 0
    expect_page page 206 20 "objects 0-19/$((CATALOG_OBJECTS / 100))"
    [ "$(grep -o '"category":[0-9]*' "$WORK/api.out" | sort -u)" = '"category":7' ] \
        || die "scenario page: objects of another category: $(head -c 300 "$WORK/api.out")"
    grep -o '"price":[0-9.eE+-]*' "$WORK/api.out" | cut -d: -f2 | sort -c -g \
        || die "scenario page: not sorted by price: $(head -c 300 "$WORK/api.out")"
    write_category_lua page "objects=0-19"
    run_wrk page "GET /catalog?category=<c> OrderBy price:asc, Range 0-19"
}

# (f) the count the SDKs make of that query: the same filter and order with Range objects=0-0
# → 206 and the total in Content-Range (objects 0-0/1000). (With the default order, newest
# first, a filtered count would also want an index on (category, createddate).)
scenario_count() {
    check_once -H 'Range: objects=0-0' -H 'X-StackMob-OrderBy: price:asc' GET '/catalog?category=7' || return 0
    expect_page count 206 1 "objects 0-0/$((CATALOG_OBJECTS / 100))"
    write_category_lua count "objects=0-0"
    run_wrk count "GET /catalog?category=<c> OrderBy price:asc, Range 0-0"
}

# (g) geo: the 20 nearest objects within 0.01 radians (~64 km) of a random point. The probe asks
# at the location of c000001 (lat -59.63, lon -179.27), which must come first, at distance 0.
scenario_near() {
    check_once -H 'Range: objects=0-19' GET '/catalog?loc[near]=-59.63,-179.27,0.01' || return 0
    grep -q '^\[{"catalog_id":"c000001"' "$WORK/api.out" \
        || die "scenario near: c000001 is not the first result at its own location: $(head -c 300 "$WORK/api.out")"
    grep -q '"distance":' "$WORK/api.out" || die "scenario near: no distance in the results: $(head -c 300 "$WORK/api.out")"
    write_lua near << 'EOF'
wrk.headers["Range"] = "objects=0-19"
local paths = {}
function prepare()
  for k = 1, 1000 do
    local lat = math.random() * 120 - 60
    local lon = math.random() * 360 - 180
    paths[k] = wrk.format("GET", string.format("/catalog?loc[near]=%.4f,%.4f,0.01", lat, lon))
  end
end
function request() return paths[math.random(1, #paths)] end
EOF
    run_wrk near "GET /catalog?loc[near]=<lat>,<lon>,0.01, Range 0-19"
}

# (h) geo: objects in a random 2°×2° box (SW corner, then NE corner, latitude first), first 20.
# The probe's box contains c000001 (lat -59.63, lon -179.27).
scenario_within() {
    check_once -H 'Range: objects=0-19' GET '/catalog?loc[within]=-60,-179.5,-58,-177.5' || return 0
    [ "$CHECK_STATUS" = 206 ] || grep -q '"catalog_id":"c000001"' "$WORK/api.out" \
        || die "scenario within: c000001 is missing from a box that contains it: $(head -c 300 "$WORK/api.out")"
    write_lua within << 'EOF'
wrk.headers["Range"] = "objects=0-19"
local paths = {}
function prepare()
  for k = 1, 1000 do
    local lat = math.random() * 118 - 59
    local lon = math.random() * 358 - 179
    paths[k] = wrk.format("GET", string.format("/catalog?loc[within]=%.4f,%.4f,%.4f,%.4f", lat - 1, lon - 1, lat + 1, lon + 1))
  end
end
function request() return paths[math.random(1, #paths)] end
EOF
    run_wrk within "GET /catalog?loc[within]=<2x2 box>, Range 0-19"
}

# (i) relationships: a page of 20 articles expanded two levels deep (author; tags, each with its
# owner): three statements (the page, then one per level per target schema), whatever the page.
scenario_expand() {
    check_once -H 'X-StackMob-Expand: 2' -H 'Range: objects=0-19' GET /article || return 0
    [ "$(grep -o '"article_id":' "$WORK/api.out" | wc -l)" -eq 20 ] && grep -q '"owner":{' "$WORK/api.out" \
        || die "scenario expand: expected 20 articles with tag owners expanded: $(head -c 300 "$WORK/api.out")"
    write_lua expand << 'EOF'
wrk.method = "GET"
wrk.path = "/article"
wrk.headers["X-StackMob-Expand"] = "2"
wrk.headers["Range"] = "objects=0-19"
EOF
    run_wrk expand "GET /article Expand 2, Range 0-19"
}

# (j) nested upsert: POST /post with X-StackMob-Relations creating a post and its nested author
# (both with generated ids) in one transaction.
scenario_upsert() {
    check_once -H 'X-StackMob-Relations: author=person' POST /post '{"title":"x","author":{"name":"n"}}' || return 0
    [ "$CHECK_STATUS" = 201 ] && grep -q '"author":"[0-9a-f]\{32\}"' "$WORK/api.out" \
        || die "scenario upsert: expected 201 with the author's id: $(head -c 300 "$WORK/api.out")"
    write_lua upsert << 'EOF'
wrk.method = "POST"
wrk.path = "/post"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["X-StackMob-Relations"] = "author=person"
wrk.body = '{"title":"x","author":{"name":"n"}}'
EOF
    run_wrk upsert "POST /post Relations author=person (nested)"
}

# ---------------------------------------------------------------------------------------------

# Access control (PROTOCOL §12): $MEMO_OBJECTS objects in `memo` (read: owner) and the same rows
# in `memo_open` (open), owned round-robin by 1,000 users user/u0000 … user/u0999, so that each
# user owns MEMO_OBJECTS/1000. The schemas are created by one POST each; the rows are inserted
# with sqlite3 (the API sets sm_owner only from the caller, and 2 x 100,000 rows take a second
# this way). Then user u0001 signs up and logs in: MEMO_TOKEN and MEMO_MAC_KEY sign the requests.
seed_memos() {
    log "seeding $MEMO_OBJECTS objects into memo and memo_open (sqlite3), owned by 1,000 users"
    local schema status db="$WORK/data/development.sqlite" start seconds
    for schema in memo memo_open; do
        status="$(api POST "/$schema" "{\"${schema}_id\":\"probe\",\"title\":\"probe\"}")"
        [ "$status" = 201 ] || die "POST /$schema answered $status: $(head -c 500 "$WORK/api.out")"
    done
    start="$(date +%s.%N)"
    for schema in memo memo_open; do
        sqlite3 "$db" "PRAGMA busy_timeout = 10000; BEGIN; DELETE FROM \"$schema\";
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $MEMO_OBJECTS)
            INSERT INTO \"$schema\" (\"${schema}_id\", createddate, lastmoddate, sm_owner, title)
            SELECT printf('m%07d', i), 1700000000000 + i, 1700000000000 + i, printf('user/u%04d', i % 1000), 'memo ' || i FROM n;
            COMMIT;" > /dev/null || die "sqlite3 could not seed $schema"
    done
    seconds="$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')"
    log "inserted 2 x $MEMO_OBJECTS rows in $seconds s"
    status="$(api POST /user '{"username":"u0001","password":"bench-password"}')"
    [ "$status" = 201 ] || die "POST /user answered $status: $(head -c 500 "$WORK/api.out")"
    status="$(curl -sS -o "$WORK/api.out" -w '%{http_code}' -X POST "$BASE/user/accessToken" -H "Accept: $ACCEPT" \
        -H "X-StackMob-API-Key: $KEY" -H 'Content-Type: application/x-www-form-urlencoded' \
        --data 'username=u0001&password=bench-password&token_type=mac&mac_algorithm=hmac-sha-1')"
    [ "$status" = 200 ] || die "login answered $status: $(head -c 500 "$WORK/api.out")"
    MEMO_TOKEN="$(grep -o '"access_token":"[^"]*"' "$WORK/api.out" | cut -d'"' -f4)"
    MEMO_MAC_KEY="$(grep -o '"mac_key":"[^"]*"' "$WORK/api.out" | cut -d'"' -f4)"
    [ -n "$MEMO_TOKEN" ] && [ -n "$MEMO_MAC_KEY" ] || die "no access_token/mac_key in the login answer"
}

# sign_requests NAME PATH COUNT: COUNT distinct MAC Authorization headers (PROTOCOL §3.2) for
# GET PATH as u0001, one per line in $WORK/NAME.sig (python3's hmac: a shell loop over openssl
# would take minutes). A nonce may not be replayed, so each request needs its own.
sign_requests() {
    python3 - "$MEMO_TOKEN" "$MEMO_MAC_KEY" "$2" "$PORT" "$3" > "$WORK/$1.sig" << 'PY'
import base64, hashlib, hmac, sys, time
token, key, path, port, count = sys.argv[1], sys.argv[2].encode(), sys.argv[3], sys.argv[4], int(sys.argv[5])
ts = int(time.time())
for i in range(count):
    nonce = "n%d" % i
    message = "%d\n%s\nGET\n%s\n127.0.0.1\n%s\n\n" % (ts, nonce, path, port)
    mac = base64.b64encode(hmac.new(key, message.encode(), hashlib.sha1).digest()).decode()
    print('MAC id="%s",ts="%d",nonce="%s",mac="%s"' % (token, ts, nonce, mac))
PY
}

# scenario_memo NAME SCHEMA TOTAL LEVEL: GET /SCHEMA, Range 0-19, default order (newest first),
# signed by u0001; one probe (206, 20 objects, Content-Range total TOTAL, and for memo only
# u0001's objects), then wrk, each request with a signature of its own.
scenario_memo() {
    local name=$1 schema=$2 total=$3 status count
    sign_requests "$name" "/$schema" $((SIGNED + 1))
    status="$(api -H "Authorization: $(head -n 1 "$WORK/$name.sig")" -H 'Range: objects=0-19' GET "/$schema")"
    count="$(grep -o "\"${schema}_id\":" "$WORK/api.out" | wc -l)"
    [ "$status" = 206 ] && [ "$count" -eq 20 ] && [ "$(response_header Content-Range)" = "objects 0-19/$total" ] \
        || die "scenario $name: expected 206, 20 objects, Content-Range objects 0-19/$total; got $status, $count, '$(response_header Content-Range)': $(head -c 300 "$WORK/api.out")"
    if [ "$schema" = memo ] && grep -o '"sm_owner":"[^"]*"' "$WORK/api.out" | grep -qvx '"sm_owner":"user/u0001"'; then
        die "scenario $name: an object of another owner was listed: $(head -c 300 "$WORK/api.out")"
    fi
    write_lua "$name" << LUA
wrk.headers["Range"] = "objects=0-19"
local requests = {}
local sent = 0
function prepare()
  local n = 0
  for line in io.lines("$WORK/$name.sig") do
    n = n + 1
    -- Line 1 was the probe; each thread takes every $THREADS-th of the others.
    if n > 1 and (n % $THREADS) == (thread_index - 1) then
      -- wrk.format uses the headers given instead of wrk.headers, not on top of them.
      local headers = { ["Authorization"] = line }
      for name, value in pairs(wrk.headers) do headers[name] = value end
      requests[#requests + 1] = wrk.format("GET", "/$schema", headers)
    end
  end
end
function request()
  sent = sent + 1
  -- Past the prepared signatures the last one is replayed: the server answers 401 and the
  -- scenario fails (raise BENCH_SIGNED).
  return requests[math.min(sent, #requests)]
end
LUA
    run_wrk "$name" "GET /$schema as a user ($4), Range 0-19"
}

# (k) the unrestricted list, signed by a user like (l), for the ratio: 20 of $MEMO_OBJECTS.
scenario_unowned() {
    scenario_memo unowned memo_open "$MEMO_OBJECTS" "open"
}

# (l) the owner-restricted list: read permission `owner`, so the server adds sm_owner = ? to the
# SQL (every schema table has an index on sm_owner): 20 of the caller's MEMO_OBJECTS/1000.
scenario_owned() {
    scenario_memo owned memo "$((MEMO_OBJECTS / 1000))" "read: owner"
}

print_table() {
    local ceiling="${RPS[head]:-}" name ratio width=7
    for name in "${ORDER[@]}"; do
        [ "${#LABEL[$name]}" -le "$width" ] || width=${#LABEL[$name]}
    done
    printf '\n'
    printf "%-10s | %-${width}s | %12s | %9s | %s\n" scenario request "requests/s" "p99 (ms)" "ratio to HEAD /"
    printf '%s+%s+%s\n' "-----------" "$(printf '%*s' $((width + 2)) '' | tr ' ' -)" "--------------+-----------+----------------"
    for name in "${ORDER[@]}"; do
        if [ -n "${SKIPPED[$name]:-}" ]; then
            printf "%-10s | %-${width}s | SKIPPED: %s\n" "$name" "${LABEL[$name]}" "${SKIPPED[$name]}"
            continue
        fi
        if [ -n "$ceiling" ]; then
            ratio="$(awk -v a="${RPS[$name]}" -v b="$ceiling" 'BEGIN { printf "%.3f", a / b }')"
        else
            ratio="n/a"
        fi
        printf "%-10s | %-${width}s | %12.0f | %9.2f | %s\n" "$name" "${LABEL[$name]}" "${RPS[$name]}" "${P99[$name]}" "$ratio"
    done
    local seeded=()
    [ "$SEED_BENCH" = 0 ] || seeded+=("$OBJECTS in bench")
    [ "$SEED_CATALOG" = 0 ] || seeded+=("$CATALOG_OBJECTS in catalog (seeded in $CATALOG_SEED_SECONDS s)")
    [ "$SEED_ARTICLES" = 0 ] || seeded+=("200 articles with 5 tags each and 50 tag owners")
    [ "$SEED_MEMOS" = 0 ] || seeded+=("$MEMO_OBJECTS in memo and in memo_open (1000 owners)")
    if [ -n "${RPS[owned]:-}" ] && [ -n "${RPS[unowned]:-}" ]; then
        printf '\nowner-restricted list: %s of the unrestricted requests/s (time ratio %s; goal: within 2)\n' \
            "$(awk -v a="${RPS[owned]}" -v b="${RPS[unowned]}" 'BEGIN { printf "%.2f", a / b }')" \
            "$(awk -v a="${RPS[owned]}" -v b="${RPS[unowned]}" 'BEGIN { printf "%.2f", b / a }')"
    fi
    printf '\n(wrk -t%s -c%s -d%ss, %s cores, storage.synchronous=%s; seeded: %s; indexes: %s)\n' \
        "$THREADS" "$CONNECTIONS" "$DURATION" "$(nproc 2> /dev/null || echo '?')" "${BENCH_SYNCHRONOUS:-default}" \
        "$(IFS=,; printf '%s' "${seeded[*]:-none}" | sed 's/,/, /g')" "${INDEXES:-none configured}"
}

# BENCH_SCENARIOS → RUN (names checked against SCENARIOS, in the order given), and which schemas
# to seed.
SEED_BENCH=0
SEED_CATALOG=0
SEED_ARTICLES=0
SEED_MEMOS=0
select_scenarios() {
    local name known scenario
    RUN=()
    for name in ${BENCH_SCENARIOS:-${SCENARIOS[*]}}; do
        known=0
        for scenario in "${SCENARIOS[@]}"; do [ "$scenario" != "$name" ] || known=1; done
        [ "$known" = 1 ] || die "unknown scenario '$name' in BENCH_SCENARIOS (known: ${SCENARIOS[*]})"
        RUN+=("$name")
        case "$name" in
            get_one | update) SEED_BENCH=1 ;;
            page | count | near | within) SEED_CATALOG=1 ;;
            expand) SEED_ARTICLES=1 ;;
            owned | unowned) SEED_MEMOS=1 ;;
        esac
    done
    [ "${#RUN[@]}" -gt 0 ] || die "BENCH_SCENARIOS names no scenario (known: ${SCENARIOS[*]})"
}

main() {
    select_scenarios
    ensure_tool wrk
    [ "$SEED_CATALOG" = 0 ] && [ "$SEED_MEMOS" = 0 ] || ensure_tool sqlite3
    [ "$SEED_MEMOS" = 0 ] || command -v python3 > /dev/null || die "python3 is required to sign the owned/unowned requests"
    command -v curl > /dev/null || die "curl is required"
    build
    WORK="$(mktemp -d "${TMPDIR:-/tmp}/stackmob-bench.XXXXXX")"
    trap cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    start_server
    read_public_key
    [ "$SEED_BENCH" = 0 ] || seed
    [ "$SEED_ARTICLES" = 0 ] || seed_articles
    [ "$SEED_MEMOS" = 0 ] || seed_memos
    if [ "$SEED_CATALOG" = 1 ]; then
        seed_catalog
        print_query_plans
    fi
    local scenario
    for scenario in "${RUN[@]}"; do
        "scenario_$scenario"
    done
    print_table
}

main "$@"
