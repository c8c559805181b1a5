#!/usr/bin/env python3
"""How much memory reading pages of large stored objects takes (docs/architecture.md, "Memory per
request": a query's first read stops at `Datastore.batchBytes` of stored values).

    python3 scripts/page_memory.py --binary new=<path> [--binary old=<path>] [--objects 100]
        [--size 2000000] [--readers 6] [--select n] [--unread SECONDS] [--shape page|near|expand]
        [--settings KEY=VALUE ...]

For each binary in turn, on a fresh data directory: --objects objects of about --size bytes each
are created (with the public key, one at a time, as any app's user could in development), then
--readers connections ask at once for the page `Range: objects=0-<objects - 1>` and read it
slowly, a few KiB at a time, as a client on a poor network would; the server's resident memory
is sampled every 50 ms until every answer is read. With --select, the page selects that field
alone (`X-StackMob-Select`): its text is small, what is read to write it is not. With --unread,
each reader's socket has a 4 KiB receive buffer and takes nothing for that many seconds before it
reads, as a client that means to hold the server's memory would: what the kernel does not take of
the answers waits in the server (docs/operations.md, "Limits": answers held until their clients
take them). --shape asks for the same objects another way: `near`, the list of those nearest a
point, without `Range` (each object has a geopoint); `expand`, one object whose relation field
names them all, expanded one level and selecting their ids alone (`X-StackMob-Select`), so that
its answer is small and what is read to make it is not (docs/architecture.md, "Memory per
request"). Prints the resident memory before the reads, the peak during them, and the statuses
(an answer that ended before its end marked "cut") and bytes answered. --settings passes `STACKMOB_*`
variables (a PostgreSQL engine, for instance). Standard library only.
"""
import argparse
import collections
import json
import os
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Api, fresh_server, peak_memory, resident_kib  # noqa: E402

PUBLIC_KEY = "b0b0b0b0-0000-4000-8000-000000000001"
PRIVATE_KEY = "b0b0b0b0-0000-4000-8000-00000000000f"
SCHEMA = "huge"


# The object whose relation field names every stored object (`--shape expand`).
HOLDER = "holder"


def stored_object(index, size, shape="page"):
    """An object of about `size` bytes of JSON: its id, its position, a geopoint for
    `--shape near`, and a string filling it."""
    stored = {f"{SCHEMA}_id": f"h{index:05d}", "n": index}
    if shape == "near":
        stored["loc"] = {"lat": index / 1000, "lon": 0}
    stored["text"] = "x" * max(0, size - len(json.dumps(stored)) - 12)
    return stored


def page_request(objects, select=None, shape="page"):
    if shape == "near":
        target, headers = f"/{SCHEMA}?loc[near]=0,0", ""
    elif shape == "expand":
        target, headers, select = f"/{HOLDER}/all?_expand=1", "", f"items.{SCHEMA}_id"
    else:
        target, headers = f"/{SCHEMA}", f"X-StackMob-OrderBy: n:asc\r\nRange: objects=0-{objects - 1}\r\n"
    selection = f"X-StackMob-Select: {select}\r\n" if select else ""
    return (f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/vnd.stackmob+json; version=0\r\n"
            f"X-StackMob-API-Key: {PUBLIC_KEY}\r\n{headers}{selection}Connection: close\r\n\r\n").encode()


def seed(port, objects, size, shape):
    api = Api(port, PUBLIC_KEY)
    for index in range(objects):
        status, answer = api.request("POST", f"/{SCHEMA}", stored_object(index, size, shape))
        if status != 201:
            raise RuntimeError(f"create {index}: {status} {json.dumps(answer)[:200]}")
    if shape == "expand":
        holder = {f"{HOLDER}_id": "all", "items": [f"h{index:05d}" for index in range(objects)]}
        status, answer = api.request("POST", f"/{HOLDER}", holder, headers={"X-StackMob-Relations": f"items={SCHEMA}"})
        if status != 201:
            raise RuntimeError(f"create the holder: {status} {json.dumps(answer)[:200]}")


def ended(head, count, tail):
    """Whether an answer arrived whole: its `Content-Length`, or a chunked body's last chunk."""
    fields, _, _ = head.partition(b"\r\n\r\n")
    for line in fields.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return count == len(fields) + 4 + int(value)
    return tail == b"0\r\n\r\n"


def read_pages(port, pid, objects, readers, select=None, unread=0, shape="page"):
    """The readers at once; returns (peak resident MiB, Counter of status lines, bytes read)."""
    def read():
        status, count, head, tail = "", 0, b"", b""
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as connection:
                # Set before connecting, so that the window offered to the server is that small.
                connection.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096 if unread else 64 * 1024)
                connection.settimeout(120)
                connection.connect(("127.0.0.1", port))
                connection.sendall(page_request(objects, select, shape))
                time.sleep(unread)
                while True:
                    chunk = connection.recv(16 * 1024)
                    if not chunk:
                        break
                    if b"\r\n\r\n" not in head:
                        head += chunk
                    count += len(chunk)
                    tail = (tail + chunk)[-5:]
                    time.sleep(0.001)  # a slow reader: about 16 MB/s
        except OSError as error:
            status = f"error: {error}"
        if not status:
            status = head.split(b"\r\n", 1)[0].decode(errors="replace")
            if not ended(head, count, tail):
                status += " (cut)"
        return status, count

    _, peak, results = peak_memory(pid, [read] * readers, interval=0.05)
    return peak // 1024, collections.Counter(status for status, _ in results), sum(count for _, count in results)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", action="append", required=True, help="label=path, repeatable")
    parser.add_argument("--objects", type=int, default=100)
    parser.add_argument("--size", type=int, default=2_000_000, help="bytes of each object's JSON")
    parser.add_argument("--readers", type=int, default=6)
    parser.add_argument("--select", help="a field the page selects alone")
    parser.add_argument("--unread", type=float, default=0, help="seconds each reader takes nothing, on a 4 KiB receive buffer")
    parser.add_argument("--shape", choices=["page", "near", "expand"], default="page", help="how the objects are asked for")
    parser.add_argument("--settings", action="append", default=[], help="KEY=VALUE for the server's environment")
    args = parser.parse_args()
    if args.shape == "expand" and args.select:
        parser.error("--shape expand selects the related objects' ids itself: leave out --select")
    settings = dict(entry.split("=", 1) for entry in args.settings)
    print("| binary | idle MiB | peak MiB | statuses | MB read |")
    print("|---|---|---|---|---|")
    for entry in args.binary:
        label, path = entry.split("=", 1)
        with fresh_server(path, PUBLIC_KEY, PRIVATE_KEY, settings, prefix="page-memory-") as server:
            seed(server.port, args.objects, args.size, args.shape)
            time.sleep(1)
            idle = resident_kib(server.pid) // 1024
            peak, statuses, received = read_pages(server.port, server.pid, args.objects, args.readers, args.select, args.unread, args.shape)
            answered = ", ".join(f"{count} × {status}" for status, count in sorted(statuses.items()))
            print(f"| {label} | {idle} | {peak} | {answered} | {received / 1e6:.0f} |", flush=True)


if __name__ == "__main__":
    main()
