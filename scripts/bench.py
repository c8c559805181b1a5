#!/usr/bin/env python3
"""HTTP benchmark of stackmob-server (release build), driven by wrk, with sides compared in one
run: engines, instance counts, another build of this server, or PocketBase.

    python3 scripts/bench.py                                   # SQLite, every scenario
    python3 scripts/bench.py --side sqlite --side postgresql   # both engines side by side
    python3 scripts/bench.py --side pg1=postgresql:1 --side pg3=postgresql:3   # HAProxy in front
    python3 scripts/bench.py --side sqlite --side pocketbase   # the peer run (docs/benchmarks.md)
    python3 scripts/bench.py --side new=sqlite --side old=sqlite@/path/to/old/stackmob-server
    python3 scripts/bench.py --side sqlite --side hummingbird --scenarios head   # the framework alone

A side is `[LABEL=]ENGINE[:INSTANCES][@BINARY]`, `pocketbase` or `hummingbird` (a bare Hummingbird
server built from scripts/hummingbird-ceiling, `HEAD /` only):
  ENGINE     sqlite or postgresql
  :N         N instances behind HAProxy (Debian's package), round robin; without it one instance
             is reached directly. More than one instance needs postgresql.
  @BINARY    another stackmob-server binary (default: the release build of this checkout)
Every side is started and seeded with the same data before the first run; then each scenario
runs on every side in turn, --rounds times (A, B, A, B), and the table gives each side's medians,
its ratio to its own trivial route (`HEAD /`, PocketBase's `GET /api/health`) and its ratio to
the first side. A probe request checks each side's answer before its runs; a run with any non-2xx
answer fails the script.

PostgreSQL: --postgresql-url (or BENCH_POSTGRESQL_URL); without one a throw-away cluster is
started with PostgreSQL's default durability (fsync on, unlike the test cluster) and removed.
Our server runs in its default configuration (request logs at info, to a file); PocketBase with
its request logs off.
"""
import argparse
import dataclasses
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pg_cluster  # noqa: E402
from benchlib import report, scenarios, wrk  # noqa: E402
from benchlib.hummingbird_side import HummingbirdSide  # noqa: E402
from benchlib.pocketbase_side import PocketBaseSide  # noqa: E402
from benchlib.stackmob_side import StackMobSide  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RELEASE_SCRATCH = os.path.join(ROOT, ".build-release")
SIDE_PATTERN = re.compile(r"^(?:(?P<label>[\w.-]+)=)?(?P<engine>sqlite|postgresql|pocketbase|hummingbird)(?::(?P<instances>\d+))?(?:@(?P<binary>.+))?$")


@dataclasses.dataclass(frozen=True)
class SideSpec:
    label: str
    engine: str
    instances: int = None
    binary: str = None


def parse_side(text):
    """A SideSpec from `[LABEL=]ENGINE[:N][@BINARY]`; ValueError with the reason otherwise."""
    match = SIDE_PATTERN.match(text)
    if not match:
        raise ValueError(f"'{text}' is not [LABEL=]sqlite|postgresql[:N][@BINARY], pocketbase or hummingbird")
    engine, instances = match["engine"], match["instances"]
    instances = int(instances) if instances is not None else None
    if instances is not None and instances < 1:
        raise ValueError(f"'{text}': at least one instance")
    if engine == "sqlite" and (instances or 1) > 1:
        raise ValueError(f"'{text}': several instances share one database only on postgresql")
    if engine in ("pocketbase", "hummingbird") and (instances is not None or match["binary"]):
        raise ValueError(f"'{text}': {engine} takes no instance count or binary")
    label = match["label"] or (engine if instances is None else f"{engine}:{instances}")
    return SideSpec(label, engine, instances, match["binary"])


def release_binary(skip_build):
    """The binary the Docker image ships, built by scripts/build-release.sh: the Swift runtime
    linked in (`--static-swift-stdlib`), which spares every call into it the dynamic linker's
    indirection (less CPU per request than the same build linked dynamically: docs/benchmarks.md,
    "2026-11-25 06:52: the statically linked build"), and its functions in the order of
    scripts/orderfile/stackmob-server.order (less resident memory at start: docs/benchmarks.md,
    "2026-11-25 13:04: the functions a server runs, linked side by side")."""
    if not skip_build:
        log("building the release binary (scripts/build-release.sh, in .build-release)")
        subprocess.run([os.path.join(ROOT, "scripts", "build-release.sh")], cwd=ROOT, check=True)
    binary = os.path.join(RELEASE_SCRATCH, "release", "stackmob-server")
    if not os.access(binary, os.X_OK):
        sys.exit(f"bench: no release binary at {binary} (run without --skip-build)")
    return binary


def log(message):
    print(f"[bench] {message}", file=sys.stderr, flush=True)


class PeakMemory:
    """Samples a side's resident memory every 200 ms while a run lasts."""

    def __init__(self, side):
        self.side, self.peak, self.stopping = side, 0, threading.Event()
        self.thread = threading.Thread(target=self.sample, daemon=True)

    def sample(self):
        while not self.stopping.wait(0.2):
            self.peak = max(self.peak, self.side.resident_kib())

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stopping.set()
        self.thread.join()


def measure(args, sides, chosen, work_dir):
    """Runs every chosen scenario on every side, --rounds times; returns (results, labels, peaks)."""
    results, labels, peaks = {}, {}, {side.label: 0 for side in sides}
    for scenario in chosen:
        for round_number in range(args.rounds):
            for side in sides:
                plan = side.plan(scenario, work_dir)
                if plan is None:
                    continue
                labels.setdefault(scenario, plan.label)
                name = f"{scenario}-{side.label}-{round_number}"
                path = os.path.join(work_dir, f"{name}.lua")
                with open(path, "w") as f:
                    f.write(wrk.script(name, plan.lua, side.headers, args.threads, args.objects, side.id_format))
                log(f"{scenario} on {side.label} (round {round_number + 1}/{args.rounds}): {plan.label}")
                with PeakMemory(side) as memory:
                    result = wrk.run(path, side.url + "/", args.threads, args.connections, args.duration,
                                     os.path.join(work_dir, f"{name}.out"))
                peaks[side.label] = max(peaks[side.label], memory.peak)
                if result.socket_errors:
                    log(f"WARNING: {result.socket_errors} socket errors or timeouts")
                log(f"  {result.rps:,.0f} req/s, p50 {result.p50_ms:.2f} ms, p99 {result.p99_ms:.2f} ms")
                results.setdefault((scenario, side.label), []).append(result)
    return results, labels, peaks


def make_side(spec, args, default_binary, postgresql_url):
    sizes = {"objects": args.objects, "catalog": args.catalog_objects, "memos": args.memo_objects,
             "shapes": args.shape_objects}
    if spec.engine == "pocketbase":
        return PocketBaseSide(spec.label, sizes)
    if spec.engine == "hummingbird":
        return HummingbirdSide(spec.label, args.skip_build)
    return StackMobSide(spec.label, spec.binary or default_binary, spec.engine, spec.instances,
                        postgresql_url, sizes, args.signed, args.settings)


def parse_arguments(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--side", action="append", default=[], help="a side to measure (repeat; default: sqlite)")
    parser.add_argument("--scenarios", default="", help=f"comma-separated subset of: {', '.join(scenarios.SCENARIOS)}; "
                        f"or a group: {', '.join(scenarios.GROUPS)}")
    parser.add_argument("--rounds", type=int, help="runs of each scenario on each side (default 2 with several sides, else 1)")
    parser.add_argument("--duration", type=int, default=10, help="seconds per run (default 10)")
    parser.add_argument("--threads", type=int, default=2, help="wrk threads (default 2)")
    parser.add_argument("--connections", type=int, default=32, help="wrk connections (default 32)")
    parser.add_argument("--objects", type=int, default=10_000, help="objects in bench (read by id, update)")
    parser.add_argument("--catalog-objects", type=int, default=100_000, help="objects in catalog (a multiple of 100)")
    parser.add_argument("--shape-objects", type=int, default=10_000,
                        help="objects in shapes, the filter shapes' data set (benchlib/shapes.py)")
    parser.add_argument("--memo-objects", type=int, default=100_000, help="objects in memo and memo_open (1000 owners)")
    parser.add_argument("--signed", type=int, default=200_000, help="MAC-signed requests prepared per owned/unowned run")
    parser.add_argument("--binary", help="the stackmob-server binary (default: build the release binary)")
    parser.add_argument("--skip-build", action="store_true", help="reuse the existing release binary")
    parser.add_argument("--setting", action="append", default=[], metavar="STACKMOB_KEY=VALUE",
                        help="a configuration variable for every stackmob-server side, e.g. STACKMOB_STORAGE__SYNCHRONOUS=normal")
    parser.add_argument("--postgresql-url", default=os.environ.get("BENCH_POSTGRESQL_URL"))
    parser.add_argument("--keep", action="store_true", help="keep the work directory (logs, Lua, wrk output)")
    args = parser.parse_args(argv)
    try:
        args.specs = [parse_side(text) for text in (args.side or ["sqlite"])]
        args.chosen = scenarios.choose([name for name in args.scenarios.split(",") if name])
    except ValueError as error:
        parser.error(str(error))
    # MALLOC_ARENA_MAX: glibc's, which the server leaves alone when set (MallocTuning).
    if any("=" not in item or not item.startswith(("STACKMOB_", "MALLOC_ARENA_MAX=")) for item in args.setting):
        parser.error("--setting takes STACKMOB_KEY=VALUE or MALLOC_ARENA_MAX=N")
    args.settings = dict(item.split("=", 1) for item in args.setting)
    if len({spec.label for spec in args.specs}) != len(args.specs):
        parser.error("two sides have the same label: name them LABEL=…")
    if args.catalog_objects % 100:
        parser.error("--catalog-objects must be a multiple of 100 (every category the same size)")
    if args.rounds is None:
        args.rounds = 2 if len(args.specs) > 1 else 1
    return args


def main(argv=None):
    args = parse_arguments(sys.argv[1:] if argv is None else argv)
    if not shutil.which("wrk"):
        sys.exit("bench: wrk is missing (apt-get install wrk)")
    if any(spec.instances for spec in args.specs) and not shutil.which("haproxy"):
        sys.exit("bench: haproxy is missing (apt-get install haproxy)")
    needs_default = any(spec.engine in ("sqlite", "postgresql") and not spec.binary for spec in args.specs)
    default_binary = (args.binary or release_binary(args.skip_build)) if needs_default else None
    work_dir = tempfile.mkdtemp(prefix="stackmob-bench-")
    cluster_dir, postgresql_url = None, args.postgresql_url
    sides, failed = [], True
    try:
        if any(spec.engine == "postgresql" for spec in args.specs) and not postgresql_url:
            cluster_dir = tempfile.mkdtemp(prefix="stackmob-bench-pg-")  # owned by postgres once started
            postgresql_url = pg_cluster.start(cluster_dir, durable=True)
            log(f"started a PostgreSQL cluster at {postgresql_url} (fsync on)")
        datasets = scenarios.datasets(args.chosen)
        idle = {}
        for spec in args.specs:
            side = make_side(spec, args, default_binary, postgresql_url)
            sides.append(side)
            side_dir = os.path.join(work_dir, spec.label)
            os.makedirs(side_dir)
            log(f"starting and seeding {side.describe()}")
            side.start(side_dir, datasets)
            idle[spec.label] = (side.resident_kib(), side.resident_kib("RssAnon"))
        results, labels, peaks = measure(args, sides, args.chosen, work_dir)
        print()
        print("\n".join(report.table(args.chosen, sides, results, labels)))
        print()
        for side in sides:
            print(f"- {side.describe()}; seeded: {', '.join(side.seeded) or 'nothing'}; "
                  f"RSS idle {idle[side.label][0] / 1024:.0f} MiB ({idle[side.label][1] / 1024:.0f} MiB anonymous, the rest "
                  f"mapped code and libraries), peak under load {peaks[side.label] / 1024:.0f} MiB")
        print(f"- wrk -t{args.threads} -c{args.connections} -d{args.duration}s, {args.rounds} round(s) per side "
              f"alternated, medians; {os.cpu_count()} cores; {time.strftime('%Y-%m-%d %H:%M')}")
        failed = False
    finally:
        for side in sides:
            side.stop()
        if cluster_dir:
            pg_cluster.stop(cluster_dir)
        if args.keep or failed:
            log(f"kept {work_dir}")
        else:
            shutil.rmtree(work_dir, ignore_errors=True)


if __name__ == "__main__":
    try:
        main()
    except (scenarios.SeedError, wrk.WrkError) as error:
        sys.exit(f"bench: {error}")
