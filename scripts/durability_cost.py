#!/usr/bin/env python3
"""What syncing files to the disk costs here (docs/benchmarks.md, "2026-12-04 14:10").

    python3 scripts/durability_cost.py syncs [--seconds 4] [--rounds 2]
    python3 scripts/durability_cost.py deploy --binary new=<path> [--binary old=<path>] [--runs 5]

syncs   how many 1 MiB files a second the disk takes when each is written, fsynced, renamed into
        place and its directory fsynced (what a durable upload does, `PrivateFiles.write`), by
        1, 2, 4, 8, 16 and 32 writers at once: where more writers stop helping is the width of
        `LocalFileStore`'s limit of durable writes.
deploy  `stackmob-server html5 deploy` of a generated site (301 files, 6 MB) with
        `storage.synchronous` full and normal, each binary in turn, alternated: the median
        time of --runs deploys each.

Standard library only. Run it on the disk the data directory lives on (`--directory`).
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

MEBIBYTE = os.urandom(1 << 20)


def synced_writes(directory, writer, stop, counts):
    """Writes, syncs and renames 1 MiB files until stopped, as a durable upload does."""
    done = 0
    while not stop.is_set():
        temporary = os.path.join(directory, f".w{writer}-{done}.tmp")
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(descriptor, MEBIBYTE)
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
        final = os.path.join(directory, f"w{writer}-{done}")
        os.rename(temporary, final)
        parent = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(parent)
        finally:
            os.close(parent)
        os.unlink(final)
        done += 1
    counts[writer] = done


def syncs(args):
    directory = tempfile.mkdtemp(prefix="durability-cost-", dir=args.directory)
    try:
        for round_number in range(1, args.rounds + 1):
            for writers in (1, 2, 4, 8, 16, 32):
                stop = threading.Event()
                counts = [0] * writers
                threads = [threading.Thread(target=synced_writes, args=(directory, index, stop, counts)) for index in range(writers)]
                for thread in threads:
                    thread.start()
                time.sleep(args.seconds)
                stop.set()
                for thread in threads:
                    thread.join()
                print(f"round {round_number}, {writers:2} writers: {sum(counts) / args.seconds:6.0f} synced 1 MiB files/s", flush=True)
    finally:
        shutil.rmtree(directory)


def make_site(root):
    """301 files, about 6 MB: scripts and style sheets of several sizes, images, index.html."""
    for folder in ("assets/js", "assets/css", "img"):
        os.makedirs(os.path.join(root, folder))
    for index in range(150):
        with open(os.path.join(root, f"assets/js/m{index}.js"), "w") as file:
            file.write(f"var x{index} = {index};\n" * (200 + 20 * index))
    for index in range(50):
        with open(os.path.join(root, f"assets/css/s{index}.css"), "w") as file:
            file.write(f".c{index}{{color:red}}\n" * 300)
    for index in range(100):
        with open(os.path.join(root, f"img/p{index}.png"), "wb") as file:
            file.write(os.urandom(20_000))
    with open(os.path.join(root, "index.html"), "w") as file:
        file.write("<!doctype html><title>site</title>")


def deploy(args):
    binaries = dict(spec.split("=", 1) for spec in args.binary)
    root = tempfile.mkdtemp(prefix="durability-cost-", dir=args.directory)
    try:
        site = os.path.join(root, "site")
        make_site(site)
        files = sum(len(names) for _, _, names in os.walk(site))
        size = sum(os.path.getsize(os.path.join(folder, name)) for folder, _, names in os.walk(site) for name in names)
        print(f"site: {files} files, {size / 1e6:.1f} MB")
        sides = [(f"{label} {setting}", path, setting) for label, path in binaries.items() for setting in ("full", "normal")]
        times = {name: [] for name, _, _ in sides}
        for _ in range(args.runs):
            for name, path, setting in sides:
                environment = dict(os.environ, STACKMOB_STORAGE__SYNCHRONOUS=setting)
                data = os.path.join(root, "data-" + name.replace(" ", "-"))
                start = time.monotonic()
                subprocess.run([path, "html5", "deploy", site, "--data-dir", data], check=True, env=environment, stdout=subprocess.DEVNULL)
                times[name].append((time.monotonic() - start) * 1000)
        for name, values in times.items():
            print(f"{name}: median {statistics.median(values):.0f} ms ({', '.join(f'{value:.0f}' for value in values)})")
    finally:
        shutil.rmtree(root)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--directory", default=None, help="where to write (default: the system's temporary directory)")
    commands = parser.add_subparsers(dest="command", required=True)
    rate = commands.add_parser("syncs")
    rate.add_argument("--seconds", type=float, default=4)
    rate.add_argument("--rounds", type=int, default=2)
    timed = commands.add_parser("deploy")
    timed.add_argument("--binary", action="append", required=True, help="label=path of a stackmob-server binary")
    timed.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    (syncs if args.command == "syncs" else deploy)(args)


if __name__ == "__main__":
    sys.exit(main())
