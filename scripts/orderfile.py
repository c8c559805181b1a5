#!/usr/bin/env python3
"""The link order of the release binary's functions (resident memory: docs/benchmarks.md).

    python3 scripts/orderfile.py                 # 4 rounds from the current list
    python3 scripts/orderfile.py --fresh --rounds 8

A running server's code is resident by the 64 KiB window, not by the page: on each fault of a
file mapping the kernel also maps the neighbouring pages it has cached ("fault-around"). Linked
in source order, the functions a server runs are spread over most of the code, and a freshly
started server kept much of it resident. Linked in the order this script writes to
scripts/orderfile/stackmob-server.order, they sit side by side and the rest of the code stays on
disk (the figures: docs/benchmarks.md, "2026-11-25 13:04: the functions a server runs, linked
side by side").

A round: scripts/build-release.sh builds the binary with the list so far (one section per
function; only the first build compiles, the others only link), then the server runs under
scripts/orderfile/entry_trace.c, which logs the addresses where execution enters a page of code.
It is started, seeded and driven through bench.py's scenarios for two seconds each (signed
requests included), on SQLite, as a small deployment uses it. The linker map names the section that holds each address; the
sections not yet on the list are added after it, in the order they were first entered.

Several rounds, because the tracer misses a call that stays inside one page: the function it
enters is then left where it was, apart from its caller, and the next round sees the call. A
round adds fewer each time (from a fresh start: 5,739 functions after the first round, 8,067
after the fifth, 8,582 after the sixteenth). Sections the list does not name follow in the linker's usual order; so does the code of
libraries built without one section per function (most of Foundation and libdispatch). A stale
list costs memory, never correctness: a name the binary lacks matches nothing. Run this again
after large changes to what a request runs, and commit the list.
"""
import argparse
import bisect
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import wrk  # noqa: E402
from benchlib.stackmob_side import StackMobSide  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
TRACER = os.path.join(HERE, "orderfile", "entry_trace.c")
ORDER_FILE = os.path.join(HERE, "orderfile", "stackmob-server.order")
BUILD = os.path.join(HERE, "build-release.sh")
RELEASE = os.path.join(os.path.dirname(HERE), ".build-release")
# Small seeds: what is traced is which code runs, not how fast.
SIZES = {"objects": 1000, "catalog": 1000, "memos": 20_000}  # owned: a page of 20 for each of 1,000 owners
SCENARIOS = ("head", "get_one", "create", "update", "page", "count", "near", "within", "expand", "upsert", "owned")
# MAC-signed requests prepared for `owned` (a nonce is good once): more than a traced run sends.
SIGNED = 40_000
HEADER = ("# The functions a server runs, in the order it first enters them: the link order of scripts/build-release.sh.\n"
          "# Written by scripts/orderfile.py; run it again rather than editing this list.\n")


def map_sections(map_text):
    """(address, size, name) of each input section of code a linker map (`-Map`, gold's or GNU
    ld's) lists: `.text.<function>` as `-function-sections` names them. A plain `.text` (an
    object built without one section per function) is left out: ordering it by name would move
    every object's."""
    sections = []
    pending = None
    for line in map_text.splitlines():
        fields = line.split()
        if line.startswith(" .text.") and fields:
            pending = fields[0]
            fields = fields[1:]
        elif not (pending and line.startswith("  ")):
            pending = None
            continue
        if len(fields) >= 3 and fields[0].startswith("0x") and fields[1].startswith("0x"):
            address, size = int(fields[0], 16), int(fields[1], 16)
            if address and size:  # a discarded section is listed at 0
                sections.append((address, size, pending))
            pending = None
    return sections


def text_range(readelf_output):
    """The `.text` section's start and end (offsets from the load address) in `readelf -SW`
    output."""
    for line in readelf_output.splitlines():
        fields = line.replace("[ ", "[").split()
        if len(fields) > 5 and fields[1] == ".text":
            start = int(fields[3], 16)
            return start, start + int(fields[5], 16)
    raise ValueError("no .text section")


def first_entries(traces):
    """The traced addresses, each once, by first entry: `traces` are the lines of each traced
    process's file, oldest first."""
    order = {}
    for lines in traces:
        for line in lines:
            line = line.strip()
            if line:
                order.setdefault(int(line, 16), len(order))
    return order


def ordered_sections(sections, entries):
    """The input sections that hold an entered address, by first entry; each name once."""
    sections = sorted(sections)
    starts = [address for address, _, _ in sections]
    ranks = {}
    for address, rank in entries.items():
        index = bisect.bisect_right(starts, address) - 1
        if index >= 0:
            start, size, name = sections[index]
            if address < start + size and rank < ranks.get(name, len(entries)):
                ranks[name] = rank
    return [name for name, _ in sorted(ranks.items(), key=lambda item: item[1])]


def read_order(path):
    with open(path) as f:
        return [line.strip() for line in f if line.strip() and not line.startswith("#")]


def merged(previous, found):
    """`previous` as it was, then what `found` adds, in its order."""
    known = set(previous)
    return previous + [section for section in found if section not in known]


def compiler():
    """The system's C compiler, or the Swift toolchain's clang where there is none."""
    found = shutil.which("cc") or shutil.which("clang")
    if not found:
        sys.exit("orderfile: no C compiler (cc or clang) on PATH")
    return found


def build_tracer(work_dir):
    library = os.path.join(work_dir, "entry_trace.so")
    subprocess.run([compiler(), "-shared", "-fPIC", "-O2", "-o", library, TRACER], check=True)
    return library


def trace(binary, text, work_dir):
    """Runs the server under the tracer through start-up, seeding and every scenario; returns the
    lines of each trace file (one per process the launcher started), oldest first."""
    prefix = os.path.join(work_dir, "trace")
    launcher = ("env", f"LD_PRELOAD={build_tracer(work_dir)}", f"ORDERFILE_TRACE_OUT={prefix}", f"ORDERFILE_TEXT={text[0]:x}-{text[1]:x}",
                "SWIFT_BACKTRACE=enable=no")
    side = StackMobSide("orderfile", binary, "sqlite", None, None, SIZES, signed=SIGNED, launcher=launcher)
    try:
        side.start(os.path.join(work_dir, "server"), {"bench", "catalog", "articles", "memos"})
        for scenario in SCENARIOS:
            script = wrk.write_script(side, scenario, work_dir, 2, SIZES["objects"])
            result = wrk.run(script, side.url + "/", 2, 8, 2, os.path.join(work_dir, f"{scenario}.out"))
            print(f"[orderfile] {scenario}: {result.requests} requests", file=sys.stderr)
    finally:
        side.stop()
    files = sorted((name for name in os.listdir(work_dir) if name.startswith("trace.")), key=lambda name: os.path.getmtime(os.path.join(work_dir, name)))
    if not files:
        sys.exit("orderfile: no trace written (is the binary dynamically linked against glibc?)")
    traces = []
    for name in files:
        with open(os.path.join(work_dir, name)) as f:
            traces.append(f.readlines())
    return traces


def write_order(path, sections):
    with open(path, "w") as f:
        f.write(HEADER)
        f.writelines(section + "\n" for section in sections)


def build(order_file):
    """The release build linked in the order of `order_file`: its binary and its linker map."""
    subprocess.run([BUILD], env={**os.environ, "STACKMOB_ORDER_FILE": order_file}, check=True)
    return os.path.join(RELEASE, "release", "stackmob-server"), os.path.join(RELEASE, "stackmob-server.map")


def round_of_tracing(order, work_dir):
    """One round: build with `order`, trace, and return `order` with what the trace adds."""
    order_file = os.path.join(work_dir, "order")
    write_order(order_file, order)
    binary, link_map = build(order_file)
    text = text_range(subprocess.run(["readelf", "-SW", binary], capture_output=True, text=True, check=True).stdout)
    entries = first_entries(trace(binary, text, work_dir))
    with open(link_map) as f:
        found = ordered_sections(map_sections(f.read()), entries)
    return merged(order, found)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--fresh", action="store_true", help="start from an empty list rather than the current one")
    parser.add_argument("--out", default=ORDER_FILE)
    args = parser.parse_args()
    order = [] if args.fresh else read_order(ORDER_FILE)
    for number in range(1, args.rounds + 1):
        work_dir = tempfile.mkdtemp(prefix="orderfile-")
        try:
            before = len(order)
            order = round_of_tracing(order, work_dir)
            print(f"[orderfile] round {number}: {len(order)} functions, {len(order) - before} new", file=sys.stderr)
        finally:
            shutil.rmtree(work_dir, ignore_errors=True)
    write_order(args.out, order)
    print(f"[orderfile] {len(order)} functions written to {args.out}; rebuild with scripts/build-release.sh", file=sys.stderr)


if __name__ == "__main__":
    main()
