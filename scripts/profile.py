#!/usr/bin/env python3
"""CPU time per request of the read path (docs/benchmarks.md), and where it goes.

    python3 scripts/profile.py [--binary .build-release/release/stackmob-server] [--duration 10] [--perf 15]
    python3 scripts/profile.py --engine postgresql --scenarios get_one,page [--socket]
    python3 scripts/profile.py --callgrind [--top 25] [--engine postgresql]

Starts the binary on SQLite (or on a throw-away PostgreSQL cluster) with small seeds, then runs each scenario with wrk as bench.py does
(-t2 -c32, the same Lua) and reads the server's own CPU time (user + system, every thread, from
/proc/<pid>/stat) before and after: CPU microseconds per request under load, a figure that a
busy machine disturbs much less than requests per second (wrk's own CPU is not in it). With
--perf N, a second run of each scenario is sampled by `perf record -e cpu-clock -g` and the N
functions with the most samples of their own are printed. On PostgreSQL the table adds the
database's side: the CPU time of the cluster's processes and its transactions, per request. With
--socket the server reaches the cluster through its Unix socket instead of TCP on loopback.

With --callgrind it counts instructions instead (benchlib/callgrind.py): the server runs under
valgrind's callgrind, each scenario for --duration seconds of wrk -t1 -c4, and the table gives the
instructions per request, then where they go by group and by function. Instruction counts are
the same from run to run on a busy machine, so they show a change's effect where requests per
second cannot; they leave out the kernel's share (system calls, wake-ups) and, on PostgreSQL, the
database's own work: only the server's instructions are counted. This VM exposes no hardware
counters to perf, so callgrind is the only instruction count here.
"""
import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import callgrind, wrk  # noqa: E402
from benchlib.stackmob_side import StackMobSide  # noqa: E402
import pg_cluster  # noqa: E402

SIZES = {"objects": 1000, "catalog": 10_000, "memos": 100_000}
# Signatures prepared per run of `owned` (a nonce is good once): above what one run can use.
SIGNED = 150_000
SCENARIOS = ("head", "get_one", "page", "newest", "expand", "owned")


def cpu_ticks(pid):
    """User + system clock ticks of every thread of `pid` so far (/proc/<pid>/stat fields 14, 15)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


class Cluster:
    """A throw-away PostgreSQL cluster (the benchmarks' durability), and what it spent."""

    def __init__(self, directory):
        self.directory = directory
        self.url = pg_cluster.start(directory, durable=True)
        self.socket_url = pg_cluster.socket_url(self.url, directory)

    def server_url(self, socket):
        """What the server is given: the cluster's TCP URL, or with `socket` its Unix socket's."""
        return self.socket_url if socket else self.url

    def pids(self):
        """The postmaster and its children: every backend and background process."""
        with open(os.path.join(self.directory, "data", "postmaster.pid")) as f:
            postmaster = f.readline().strip()
        children = []
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/stat") as f:
                        if f.read().rsplit(")", 1)[1].split()[1] == postmaster:
                            children.append(int(entry))
                except OSError:
                    continue  # ended while listed
        return [int(postmaster)] + children

    def ticks(self):
        total = 0
        for pid in self.pids():
            try:
                total += cpu_ticks(pid)
            except OSError:
                continue
        return total

    def transactions(self):
        """Committed and rolled-back transactions so far. Backends report their counts when
        idle for a second at most, hence the wait."""
        time.sleep(1.5)
        query = "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()"
        answer = subprocess.run([pg_cluster.postgres_bin("psql"), self.url, "-Atc", query], capture_output=True, text=True, check=True)
        return int(answer.stdout.strip())

    def stop(self):
        pg_cluster.stop(self.directory)
        shutil.rmtree(self.directory, ignore_errors=True)


def perf_report(data, count):
    report = subprocess.run(["perf", "report", "-i", data, "--no-children", "--sort", "dso,sym", "--stdio", "--percent-limit", "0.5"],
                            capture_output=True, text=True).stdout
    return [line for line in report.splitlines() if re.match(r"^\s+\d+\.\d+%", line)][:count]


def count_instructions(args, out_dir):
    """Per scenario: instructions per request under callgrind, by group and by function."""
    signed = SIGNED if "owned" in args.scenarios else 0
    binary = callgrind.strip_debug_info(args.binary, out_dir)
    cluster = Cluster(tempfile.mkdtemp(prefix="stackmob-profile-pg-")) if args.engine == "postgresql" else None
    side = StackMobSide("callgrind", binary, args.engine, None, cluster and cluster.server_url(args.socket), SIZES, signed=signed,
                        launcher=callgrind.launcher(out_dir))
    rows = []
    try:
        side.start(os.path.join(out_dir, "server"), {"bench", "catalog", "articles"} | ({"memos"} if signed else set()))
        pid = side.servers[0].pid
        for scenario in args.scenarios:
            script = wrk.write_script(side, scenario, out_dir, 1, SIZES["objects"])
            # A short warm-up: the first requests of a route fill caches (schemas, statements).
            wrk.run(script, side.url + "/", 1, 4, 2, os.path.join(out_dir, f"{scenario}-warmup.out"))
            if signed and scenario == "owned":
                script = wrk.write_script(side, scenario, out_dir, 1, SIZES["objects"])
            callgrind.control(pid, "--zero")
            result = wrk.run(script, side.url + "/", 1, 4, args.duration, os.path.join(out_dir, f"{scenario}.out"))
            total, own = callgrind.parse_file(callgrind.dump(pid, out_dir))
            rows.append((scenario, total / result.requests, result.requests, callgrind.top_groups(own), own))
            print(f"[profile] {scenario}: {total / result.requests:,.0f} instructions per request ({result.requests} requests)",
                  file=sys.stderr)
    finally:
        side.stop()
        if cluster:
            cluster.stop()
    return rows


def print_instructions(rows, top):
    print("| scenario | instructions per request | requests counted |")
    print("|---|---|---|")
    for scenario, per_request, requests, _, _ in rows:
        print(f"| {scenario} | {per_request:,.0f} | {requests} |")
    for scenario, per_request, requests, groups, own in rows:
        print(f"\n{scenario}: where the {per_request:,.0f} instructions of a request go")
        for name, count in groups.most_common():
            print(f"  {count / requests:10,.0f}  {100 * count / sum(groups.values()):5.1f}%  {name}")
        print("  functions with the most instructions of their own:")
        for function, count in own.most_common(top):
            print(f"  {count / requests:10,.0f}  {function[:150]}")


def profile(args, out_dir):
    """Per scenario: a wrk run (the bench's Lua) with the server's CPU time read before and
    after it, then, with --perf, a second run sampled by perf (its unwinding costs the server
    CPU, so it is kept out of the first)."""
    signed = SIGNED if "owned" in args.scenarios else 0
    # A directory of its own in /tmp, as bench.py's: run as root, the cluster runs as `postgres`,
    # which cannot enter `out_dir` (mkdtemp makes it 0700, root's).
    cluster = Cluster(tempfile.mkdtemp(prefix="stackmob-profile-pg-")) if args.engine == "postgresql" else None
    side = None
    ticks_per_second = os.sysconf("SC_CLK_TCK")
    rows = []
    try:
        side = StackMobSide("profile", args.binary, args.engine, None, cluster and cluster.server_url(args.socket), SIZES, signed=signed)
        side.start(os.path.join(out_dir, "server"), {"bench", "catalog", "articles"} | ({"memos"} if signed else set()))
        pid = side.servers[0].pid
        for scenario in args.scenarios:
            script = wrk.write_script(side, scenario, out_dir, 2, SIZES["objects"])
            before = cpu_ticks(pid)
            database_before = (cluster.ticks(), cluster.transactions()) if cluster else None
            result = wrk.run(script, side.url + "/", 2, 32, args.duration, os.path.join(out_dir, f"{scenario}.out"))
            micros = (cpu_ticks(pid) - before) / ticks_per_second / result.requests * 1e6
            database = None
            if cluster:
                ticks = cluster.ticks() - database_before[0]
                database = (ticks / ticks_per_second / result.requests * 1e6,
                            (cluster.transactions() - database_before[1]) / result.requests)
            top = []
            if args.perf:
                # Planned again: a signed scenario's signatures are spent by the first run.
                script = wrk.write_script(side, scenario, out_dir, 2, SIZES["objects"])
                data = os.path.join(out_dir, f"{scenario}.perf.data")
                recorder = subprocess.Popen(["perf", "record", "-e", "cpu-clock", "-g", "-p", str(pid), "-o", data],
                                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                wrk.run(script, side.url + "/", 2, 32, args.duration, os.path.join(out_dir, f"{scenario}-perf.out"))
                recorder.send_signal(signal.SIGINT)
                recorder.wait()
                top = perf_report(data, args.perf)
            rows.append((scenario, micros, result.rps, database, top))
            print(f"[profile] {scenario}: {micros:.1f} µs of server CPU per request at {result.rps:,.0f} req/s", file=sys.stderr)
    finally:
        if side:
            side.stop()
        if cluster:
            cluster.stop()
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=".build-release/release/stackmob-server")
    parser.add_argument("--engine", choices=["sqlite", "postgresql"], default="sqlite",
                        help="postgresql starts a throw-away cluster (fsync on, as the benchmarks)")
    parser.add_argument("--socket", action="store_true",
                        help="with postgresql: the server connects through the cluster's Unix socket, not TCP")
    parser.add_argument("--duration", type=int, default=10, help="seconds of wrk -t2 -c32 per scenario")
    parser.add_argument("--scenarios", default=",".join(SCENARIOS), help=f"comma-separated subset of {', '.join(SCENARIOS)}")
    parser.add_argument("--perf", type=int, default=0, metavar="N", help="sample with perf and print each scenario's top N functions")
    parser.add_argument("--callgrind", action="store_true",
                        help="count the server's instructions per request under valgrind (the database's own are not counted)")
    parser.add_argument("--top", type=int, default=25, help="with --callgrind: how many functions to list per scenario")
    parser.add_argument("--out", help="where the server and perf data go (default: a temporary directory)")
    args = parser.parse_args(argv)
    args.scenarios = [name for name in args.scenarios.split(",") if name]
    if set(args.scenarios) - set(SCENARIOS):
        parser.error(f"scenarios are {', '.join(SCENARIOS)}")
    if args.perf and not shutil.which("perf"):
        sys.exit("profile: perf is missing (apt-get install linux-perf)")
    if args.callgrind and not shutil.which("valgrind"):
        sys.exit("profile: --callgrind needs valgrind (apt-get install valgrind)")
    out_dir = args.out or tempfile.mkdtemp(prefix="stackmob-profile-")
    os.makedirs(out_dir, exist_ok=True)
    if args.callgrind:
        print_instructions(count_instructions(args, out_dir), args.top)
        print(f"\n(wrk -t1 -c4 -d{args.duration}s per scenario under callgrind; files in {out_dir})")
        return
    rows = profile(args, out_dir)
    if args.engine == "postgresql":
        print("| scenario | server CPU per request (µs) | PostgreSQL CPU per request (µs) | transactions per request | requests/s |")
        print("|---|---|---|---|---|")
        for scenario, micros, rps, (database_micros, transactions), _ in rows:
            print(f"| {scenario} | {micros:.1f} | {database_micros:.1f} | {transactions:.2f} | {rps:,.0f} |")
    else:
        print("| scenario | server CPU per request (µs) | requests/s |")
        print("|---|---|---|")
        for scenario, micros, rps, _, _ in rows:
            print(f"| {scenario} | {micros:.1f} | {rps:,.0f} |")
    for scenario, _, _, _, top in rows:
        if top:
            print(f"\n{scenario}: functions with the most samples of their own")
            print("\n".join(top))
    print(f"\n(wrk -t2 -c32 -d{args.duration}s per scenario; files in {out_dir})")


if __name__ == "__main__":
    main()
