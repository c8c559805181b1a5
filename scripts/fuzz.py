#!/usr/bin/env python3
"""libFuzzer runs of the parsers that take client bytes (docs/testing.md, "Fuzzing the parsers").

    python3 scripts/fuzz.py [TARGET ...] [--seconds 120] [--no-build] [--no-merge] [--nice 19]

Builds the fuzz package in Fuzz/ with `-sanitize=fuzzer,address` (scratch path Fuzz/.build),
then runs each target (all of them, or those named) for the given time, one after another. A run
starts from the checked-in corpus Fuzz/corpus/<target>/ and the crash inputs in
Fuzz/regressions/<target>/; what it finds goes to a scratch directory, and `-merge=1` then adds to
the corpus only the inputs that reach new coverage, so the corpus stays small. An input that
crashes, leaks, hangs or runs out of memory is saved to Fuzz/regressions/<target>/.

Prints, per target: runs, exec/s, coverage (`cov:`), new corpus entries and crashes; exits 1 when
any target crashed (or a build failed). Standard library only."""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
FUZZ_DIR = os.path.join(ROOT, "Fuzz")
SCRATCH = os.path.join(FUZZ_DIR, ".build")
SANITIZER_FLAGS = ["-Xswiftc", "-sanitize=fuzzer,address"]
# libFuzzer's names for what it writes when an input fails: each one is a finding.
ARTIFACT_PREFIXES = ("crash-", "leak-", "timeout-", "oom-")
# `#1234\tNEW    cov: 56 ft: 78 corp: 9/100b lim: 4 exec/s: 0 rss: 30Mb L: 3/3 MS: 1 ...`
STATUS_LINE = re.compile(r"^#(?P<runs>\d+)\s+(?P<event>[A-Za-z]+)\b(?P<rest>.*)$")
STATUS_FIELD = re.compile(r"\b(cov|ft|exec/s|rss):\s*(\d+)")
CORPUS_FIELD = re.compile(r"\bcorp:\s*(\d+)/(\d+)([bKM]?)b?")
# `stat::number_of_executed_units: 1234`, printed with -print_final_stats=1.
FINAL_STAT = re.compile(r"^stat::(\w+):\s*(\d+)\s*$")


def target_names(package_swift):
    """The fuzz targets declared in Fuzz/Package.swift, in order (every `fuzzTarget("Name", …)`)."""
    with open(package_swift, encoding="utf-8") as file:
        return re.findall(r'fuzzTarget\("(\w+)"', file.read())


def parse_status_line(line):
    """One libFuzzer status line (`#N EVENT cov: … exec/s: …`) as a dict, or None for any other line.

    Keys: runs, event, and whichever of cov, ft, exec/s, rss, corpus_units and corpus_bytes the
    line carries (integers)."""
    match = STATUS_LINE.match(line.strip())
    if not match:
        return None
    status = {"runs": int(match.group("runs")), "event": match.group("event")}
    for name, value in STATUS_FIELD.findall(match.group("rest")):
        status[name] = int(value)
    corpus = CORPUS_FIELD.search(match.group("rest"))
    if corpus:
        scale = {"": 1, "b": 1, "K": 1024, "M": 1024 * 1024}[corpus.group(3)]
        status["corpus_units"] = int(corpus.group(1))
        status["corpus_bytes"] = int(corpus.group(2)) * scale
    return status


def parse_final_stats(text):
    """The `stat::name: value` lines of -print_final_stats=1 as a dict of integers."""
    stats = {}
    for line in text.splitlines():
        match = FINAL_STAT.match(line.strip())
        if match:
            stats[match.group(1)] = int(match.group(2))
    return stats


def summarize(output):
    """The figures of one run from libFuzzer's output: runs, exec/s, cov, ft, new units.

    The last status line gives coverage; the final stats, when present, give the runs, the
    average speed and the units added, which the status line only approximates."""
    last = {}
    for line in output.splitlines():
        status = parse_status_line(line)
        if status and "cov" in status:
            last = status
    stats = parse_final_stats(output)
    return {
        "runs": stats.get("number_of_executed_units", last.get("runs", 0)),
        "exec_per_sec": stats.get("average_exec_per_sec", last.get("exec/s", 0)),
        "cov": last.get("cov", 0),
        "ft": last.get("ft", 0),
        "new_units": stats.get("new_units_added", 0),
        "peak_rss_mb": stats.get("peak_rss_mb", last.get("rss", 0)),
    }


def collect_artifacts(source_dir, regressions_dir):
    """Moves libFuzzer's crash, leak, timeout and oom files from source_dir into regressions_dir.

    Returns the names of the moved files; the directory is created only when there is one."""
    moved = []
    if not os.path.isdir(source_dir):
        return moved
    for name in sorted(os.listdir(source_dir)):
        if name.startswith(ARTIFACT_PREFIXES):
            os.makedirs(regressions_dir, exist_ok=True)
            shutil.move(os.path.join(source_dir, name), os.path.join(regressions_dir, name))
            moved.append(name)
    return moved


def count_files(directory):
    """How many files a directory holds (0 when it does not exist)."""
    if not os.path.isdir(directory):
        return 0
    return sum(1 for name in os.listdir(directory) if os.path.isfile(os.path.join(directory, name)))


def directory_bytes(directory):
    """The total size of the files in a directory, in bytes."""
    if not os.path.isdir(directory):
        return 0
    return sum(os.path.getsize(os.path.join(directory, name)) for name in os.listdir(directory))


def build(nice):
    """Builds every fuzz target with the sanitizers; returns the directory of the binaries."""
    command = ["nice", "-n", str(nice), "swift", "build", "--package-path", FUZZ_DIR, "--scratch-path", SCRATCH] + SANITIZER_FLAGS
    print("building: " + " ".join(command), flush=True)
    subprocess.run(command, check=True)
    output = subprocess.run(command + ["--show-bin-path"], check=True, capture_output=True, text=True).stdout
    return output.strip().splitlines()[-1]


def libfuzzer_flags(seconds, artifacts):
    """The flags of one timed run: time limit, a per-input timeout, artifacts and final stats.

    Leak detection is off: the Swift runtime and Foundation fill caches on first use, so nearly
    every input allocates more than it frees, and libFuzzer then stops the process for a full
    LeakSanitizer scan after it (5 to 100 times slower). Memory that stays reachable is not a
    leak, and `scripts/http_fuzz.py` watches the server's memory under hostile load instead."""
    return [f"-max_total_time={seconds}", "-timeout=10", "-rss_limit_mb=2048", "-detect_leaks=0",
            f"-artifact_prefix={artifacts}/", "-print_final_stats=1"]


def run_target(binary, name, seconds, nice, merge, log_dir):
    """Runs one target for `seconds`, merges what it found into its corpus, saves crash inputs.

    Returns the run's figures (see `summarize`) plus crashes (the saved files), corpus_added and
    the log file's path."""
    corpus = os.path.join(FUZZ_DIR, "corpus", name)
    regressions = os.path.join(FUZZ_DIR, "regressions", name)
    os.makedirs(corpus, exist_ok=True)
    os.makedirs(log_dir, exist_ok=True)
    log_path = os.path.join(log_dir, name + ".log")
    with tempfile.TemporaryDirectory(prefix=f"fuzz-{name}-", dir=SCRATCH) as scratch:
        found = os.path.join(scratch, "found")
        artifacts = os.path.join(scratch, "artifacts")
        os.makedirs(found)
        os.makedirs(artifacts)
        inputs = [found, corpus] + ([regressions] if os.path.isdir(regressions) else [])
        command = ["nice", "-n", str(nice), binary] + libfuzzer_flags(seconds, artifacts) + inputs
        with open(log_path, "w", encoding="utf-8") as log:
            subprocess.run(command, stdout=log, stderr=subprocess.STDOUT, cwd=scratch)
        with open(log_path, encoding="utf-8", errors="replace") as log:
            figures = summarize(log.read())
        crashes = collect_artifacts(artifacts, regressions)
        before = count_files(corpus)
        if merge and count_files(found):
            merge_command = ["nice", "-n", str(nice), binary, "-merge=1", "-timeout=10", "-detect_leaks=0", f"-artifact_prefix={artifacts}/", corpus, found]
            with open(log_path, "a", encoding="utf-8") as log:
                log.write("\n--- merge ---\n")
                log.flush()
                subprocess.run(merge_command, stdout=log, stderr=subprocess.STDOUT, cwd=scratch)
            crashes += collect_artifacts(artifacts, regressions)
    figures.update(crashes=crashes, corpus_added=count_files(corpus) - before, log=log_path)
    return figures


def format_row(name, figures):
    """One line of the report."""
    return (f"{name:<22} runs {figures['runs']:>10}  exec/s {figures['exec_per_sec']:>7}  cov {figures['cov']:>5}  "
            f"ft {figures['ft']:>6}  new {figures['new_units']:>5}  merged {figures['corpus_added']:>4}  crashes {len(figures['crashes'])}")


def main(argv=None):
    """Builds, runs the chosen targets in turn and prints their figures; 1 when any crashed."""
    targets = target_names(os.path.join(FUZZ_DIR, "Package.swift"))
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("targets", nargs="*", metavar="TARGET", help="targets to run (default: all): " + ", ".join(targets))
    parser.add_argument("--seconds", type=int, default=120, help="time per target (-max_total_time), default 120")
    parser.add_argument("--no-build", action="store_true", help="use the binaries already in Fuzz/.build")
    parser.add_argument("--no-merge", action="store_true", help="leave the checked-in corpus as it is")
    parser.add_argument("--nice", type=int, default=19, help="niceness of the build and the runs, default 19")
    arguments = parser.parse_args(argv)
    unknown = [name for name in arguments.targets if name not in targets]
    if unknown:
        parser.error("no such target: " + ", ".join(unknown))
    chosen = arguments.targets or targets
    os.makedirs(SCRATCH, exist_ok=True)
    if arguments.no_build:
        bin_dir = os.path.join(SCRATCH, "debug")
    else:
        try:
            bin_dir = build(arguments.nice)
        except subprocess.CalledProcessError as error:
            print(f"build failed ({error.returncode})", file=sys.stderr)
            return 1
    crashed = []
    for name in chosen:
        print(f"fuzzing {name} for {arguments.seconds} s", flush=True)
        figures = run_target(os.path.join(bin_dir, name), name, arguments.seconds, arguments.nice, not arguments.no_merge,
                             os.path.join(SCRATCH, "fuzz-logs"))
        print(format_row(name, figures), flush=True)
        for crash in figures["crashes"]:
            print(f"  saved Fuzz/regressions/{name}/{crash} (log: {figures['log']})", flush=True)
        if figures["crashes"]:
            crashed.append(name)
    corpus_bytes = sum(directory_bytes(os.path.join(FUZZ_DIR, "corpus", name)) for name in targets)
    print(f"corpus: {corpus_bytes} bytes in Fuzz/corpus/")
    if crashed:
        print("crashed: " + ", ".join(crashed))
        return 1
    print(f"{len(chosen)} targets, no crash")
    return 0


if __name__ == "__main__":
    sys.exit(main())
