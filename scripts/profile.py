#!/usr/bin/env python3
"""CPU time per request of the read path (issue 19), and where it goes.

    python3 scripts/profile.py [--binary .build-release/release/stackmob-server] [--requests 20000] [--perf 15]

Starts the binary on SQLite with small seeds, then for each scenario sends the requests one after
another on keep-alive connections and reads the server's own CPU time (user + system, every
thread, from /proc/<pid>/stat) before and after: CPU microseconds per request, a figure that
waiting clients and a busy machine disturb much less than requests per second. With --perf N,
`perf record -e cpu-clock -g` samples the server during each scenario and the N functions with
the most samples of their own are printed.

Why not instructions: this VM exposes no hardware counters to perf, and Debian bookworm's valgrind
(3.19) stops with an internal error inside the Swift runtime's libdispatch before main().
"""
import argparse
from concurrent.futures import ThreadPoolExecutor
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib.stackmob_side import StackMobSide, object_id  # noqa: E402
from harness import Api  # noqa: E402

SIZES = {"objects": 1000, "catalog": 10_000, "memos": 0}
SCENARIOS = ("head", "get_one", "page", "expand")


def requests(scenario, count, rng):
    """(method, path, headers) of each request of a scenario: the same requests bench.py sends."""
    for _ in range(count):
        if scenario == "head":
            yield "HEAD", "/", {}
        elif scenario == "get_one":
            yield "GET", f"/bench/{object_id(rng.randint(1, SIZES['objects']))}", {}
        elif scenario == "page":
            yield "GET", f"/catalog?category={rng.randint(0, 99)}", {"X-StackMob-OrderBy": "price:asc", "Range": "objects=0-19"}
        elif scenario == "expand":
            yield "GET", "/article", {"X-StackMob-Expand": "2", "Range": "objects=0-19"}


def cpu_ticks(pid):
    """User + system clock ticks of every thread of `pid` so far (/proc/<pid>/stat fields 14, 15)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def send(side, scenario, count, rng, clients=4):
    """`count` requests of `scenario`, spread over `clients` keep-alive connections at once so
    the server, not this script, is the busy side."""
    plans = [list(requests(scenario, count // clients, random.Random(rng.random()))) for _ in range(clients)]

    def run(plan):
        api = Api(side.port, side.headers["X-StackMob-API-Key"])
        for method, path, headers in plan:
            status, _ = api.request(method, path, headers=headers)
            if status not in (200, 206):
                raise RuntimeError(f"{method} {path} answered {status}")
        return len(plan)

    with ThreadPoolExecutor(clients) as pool:
        return sum(pool.map(run, plans))


def perf_report(data, count):
    report = subprocess.run(["perf", "report", "-i", data, "--no-children", "--sort", "dso,sym", "--stdio", "--percent-limit", "0.5"],
                            capture_output=True, text=True).stdout
    return [line for line in report.splitlines() if re.match(r"^\s+\d+\.\d+%", line)][:count]


def profile(args, out_dir):
    side = StackMobSide("profile", args.binary, "sqlite", None, None, SIZES, signed=0)
    side.start(os.path.join(out_dir, "server"), {"bench", "catalog", "articles"})
    pid = side.servers[0].pid
    ticks_per_second = os.sysconf("SC_CLK_TCK")
    rows = []
    try:
        rng = random.Random(1)
        for scenario in args.scenarios:
            send(side, scenario, args.warmup, rng)
            recorder = None
            if args.perf:
                data = os.path.join(out_dir, f"{scenario}.perf.data")
                recorder = subprocess.Popen(["perf", "record", "-e", "cpu-clock", "-g", "-p", str(pid), "-o", data],
                                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            before = cpu_ticks(pid)
            sent = send(side, scenario, args.requests, rng)
            used = (cpu_ticks(pid) - before) / ticks_per_second
            top = []
            if recorder:
                recorder.send_signal(signal.SIGINT)
                recorder.wait()
                top = perf_report(data, args.perf)
            rows.append((scenario, used / sent * 1e6, top))
            print(f"[profile] {scenario}: {used / sent * 1e6:.1f} µs of server CPU per request", file=sys.stderr)
    finally:
        side.stop()
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=".build-release/release/stackmob-server")
    parser.add_argument("--requests", type=int, default=20_000, help="requests counted per scenario")
    parser.add_argument("--warmup", type=int, default=1000, help="requests sent first, not counted")
    parser.add_argument("--scenarios", default=",".join(SCENARIOS), help=f"comma-separated subset of {', '.join(SCENARIOS)}")
    parser.add_argument("--perf", type=int, default=0, metavar="N", help="sample with perf and print each scenario's top N functions")
    parser.add_argument("--out", help="where the server and perf data go (default: a temporary directory)")
    args = parser.parse_args(argv)
    args.scenarios = [name for name in args.scenarios.split(",") if name]
    if set(args.scenarios) - set(SCENARIOS):
        parser.error(f"scenarios are {', '.join(SCENARIOS)}")
    if args.perf and not shutil.which("perf"):
        sys.exit("profile: perf is missing (apt-get install linux-perf)")
    out_dir = args.out or tempfile.mkdtemp(prefix="stackmob-profile-")
    os.makedirs(out_dir, exist_ok=True)
    rows = profile(args, out_dir)
    print("| scenario | server CPU per request (µs) |")
    print("|---|---|")
    for scenario, micros, _ in rows:
        print(f"| {scenario} | {micros:.1f} |")
    for scenario, _, top in rows:
        if top:
            print(f"\n{scenario}: functions with the most samples of their own")
            print("\n".join(top))
    print(f"\n({args.requests} requests per scenario on 4 connections after {args.warmup} not counted; files in {out_dir})")


if __name__ == "__main__":
    main()
