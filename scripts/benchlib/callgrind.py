"""Instructions per request, counted by valgrind's callgrind (docs/benchmarks.md): repeatable on a
busy machine, where requests per second and CPU time move from run to run.

The server runs under `valgrind --tool=callgrind`; around each scenario the counters are zeroed
and dumped (`callgrind_control`), and the dump's total is divided by the requests wrk completed.
The totals count every thread of the process, user space only: the kernel's share of a request
(system calls, wake-ups) is not in them.

Two things this machine needs: valgrind 3.19 (Debian bookworm) cannot read the DWARF 5 debug
information Swift 6 writes, so the server runs from a copy without it (`strip_debug_info`, which
keeps the symbol table); and callgrind names each function once per output file, so dumps are
written with `--compress-strings=no` to be readable on their own.
"""
import collections
import glob
import os
import re
import subprocess
import time


def strip_debug_info(binary, directory):
    """A copy of `binary` in `directory` without its debug sections (names stay)."""
    copy = os.path.join(directory, os.path.basename(binary) + "-nodebug")
    subprocess.run(["objcopy", "--strip-debug", binary, copy], check=True)
    return copy


def launcher(out_dir):
    """The command in front of the server: callgrind, writing its dumps to `out_dir`."""
    return ("valgrind", "--tool=callgrind", "--compress-strings=no", "--compress-pos=no",
            f"--callgrind-out-file={os.path.join(out_dir, 'callgrind.%p.out')}")


def control(pid, action):
    """`callgrind_control --zero` or `--dump` for the server process."""
    subprocess.run(["callgrind_control", action, str(pid)], check=True, capture_output=True)


def dump(pid, out_dir):
    """Dumps the counters since the last zero; returns the new dump file's path."""
    pattern = os.path.join(out_dir, f"callgrind.{pid}.out.*")
    before = set(glob.glob(pattern))
    control(pid, "--dump")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        new = set(glob.glob(pattern)) - before
        if new:
            path = max(new, key=lambda name: int(name.rsplit(".", 1)[1]))
            # The file is complete once its totals line is written.
            with open(path, errors="replace") as f:
                if any(line.startswith("totals:") for line in f):
                    return path
        time.sleep(0.2)
    raise RuntimeError(f"callgrind wrote no dump for {pid} in {out_dir}")


def parse(lines):
    """Instructions by function in a callgrind dump: (total, self cost by function name).

    Cost lines are `<position> <instructions>`; the line after a `calls=` line is the inclusive
    cost of that call, which is not the caller's own."""
    own = collections.Counter()
    function = None
    after_call = False
    total = None
    for line in lines:
        if line.startswith("fn="):
            function = line[3:].rstrip("\n")
        elif line.startswith("calls="):
            after_call = True
        elif line.startswith(("summary:", "totals:")):
            total = int(line.split()[1])
        elif line[:1].isdigit() or line[:1] in "+-*":
            parts = line.split()
            if len(parts) >= 2:
                if after_call:
                    after_call = False
                else:
                    own[function] += int(parts[1])
    if total is None:
        total = sum(own.values())
    return total, own


def parse_file(path):
    with open(path, errors="replace") as f:
        return parse(f)


# The groups `top_groups` adds up, first match wins: where a request's instructions go.
GROUPS = [
    ("reference counting", r"^swift_(retain|release|bridgeObject(Retain|Release)|isUniquely|allocObject|deallocObject|deallocClassInstance)|RefCounts|_swift_release_dealloc"),
    ("malloc", r"^(malloc|free|cfree|calloc|realloc)$|^_int_(malloc|free)|unlink_chunk|^swift_slow(Alloc|Dealloc)"),
    ("tasks and executors", r"[Tt]ask|Executor|withStatusRecordLock|StackAllocator|swift_job|runJob|[Cc]ontinuation|StatusRecord"),
    ("generic metadata", r"Metadata|getCache|GenericCache|TupleCache|ConcurrentReadableHashMap|hash_short|hash_combine|getWitnessTable|AtomicWaitQueue|getAssociatedType"),
    ("dynamic casts", r"tryCast|dynamicCast|conformsTo|ConformanceCandidate"),
    ("exclusivity checks", r"beginAccess|endAccess|AccessSet|SwiftTLSContext"),
    ("locks", r"pthread_mutex|lll_|futex"),
    ("SQLite", r"^sqlite3|^vdbe|^btree|^pager|^pcache"),
    ("NIO", r"^\$s(7NIOCore|8NIOPosix|8NIOHTTP1)|llhttp"),
    ("Hummingbird", r"^\$s(11Hummingbird|15HummingbirdCore)"),
    ("swift-http-types", r"^\$s(9HTTPTypes|12NIOHTTPTypes)"),
    ("GRDB", r"^\$s4GRDB"),
    ("StackMob", r"^\$s12StackMob"),
    ("logging and metrics", r"^\$s(7Logging|10Prometheus|7Metrics|11CoreMetrics)"),
    ("Swift standard library", r"^\$s(s|S)"),
    ("memcpy and friends", r"^__mem|^mem(cpy|move|set|cmp)"),
]


def group_of(function):
    for name, pattern in GROUPS:
        if re.search(pattern, function or ""):
            return name
    return "other"


def top_groups(own):
    groups = collections.Counter()
    for function, count in own.items():
        groups[group_of(function)] += count
    return groups
