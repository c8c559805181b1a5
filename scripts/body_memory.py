#!/usr/bin/env python3
"""How much memory a burst of large request bodies from one client takes (docs/operations.md,
"Limits": `limits.max_body_bytes_per_client`, `limits.max_body_bytes_in_flight`, the JSON values
a body may hold).

    python3 scripts/body_memory.py --binary new=<path> [--binary old=<path>] [--requests 20] [--size 10485000]

For each binary in turn, on a fresh data directory: --requests connections from one address each
send, at once, a create whose body is --size bytes of JSON (with the public key, as any app's user
could), and the server's resident memory is sampled every 50 ms until every answer is in. Two
bodies: `array`, one field holding an array of `1`s (a parsed value takes tens of bytes where its
text takes two), and `string`, one field holding a string. Prints the peak resident memory and the
statuses answered. Standard library only.
"""
import argparse
import collections
import os
import socket
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import fresh_server, peak_memory, resident_kib  # noqa: E402

PUBLIC_KEY = "b0b0b0b0-0000-4000-8000-000000000001"
PRIVATE_KEY = "b0b0b0b0-0000-4000-8000-00000000000f"


def body(kind, size):
    """A JSON object of exactly `size` bytes: `{"a":[1,1,…,1]}` or `{"a":"xx…x"}`."""
    if kind == "array":
        count = (size - 7) // 2  # `{"a":[` and `]}` around count ones and count - 1 commas
        return ('{"a":[' + ",".join("1" * count) + "]" + " " * (size - 2 * count - 7) + "}").encode()
    return ('{"a":"' + "x" * (size - 8) + '"}').encode()


def request(payload):
    head = (f"POST /burst HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/vnd.stackmob+json; version=0\r\n"
            f"X-StackMob-API-Key: {PUBLIC_KEY}\r\nContent-Type: application/json\r\nContent-Length: {len(payload)}\r\n"
            "Connection: close\r\n\r\n").encode()
    return head + payload


def burst(port, pid, payload, requests):
    """Sends the requests at once; returns (peak resident MiB, Counter of status lines)."""
    def send():
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=120) as connection:
                connection.sendall(request(payload))
                return connection.recv(200).split(b"\r\n", 1)[0].decode(errors="replace")
        except OSError as error:
            return f"error: {error}"

    _, peak, statuses = peak_memory(pid, [send] * requests, interval=0.05)
    return peak // 1024, collections.Counter(statuses)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", action="append", required=True, help="label=path, repeatable")
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--size", type=int, default=10 * 1024 * 1024 - 1024, help="bytes of each body (default just under 10 MiB)")
    args = parser.parse_args()
    print("| binary | body | idle MiB | peak MiB | statuses |")
    print("|---|---|---|---|---|")
    for entry in args.binary:
        label, path = entry.split("=", 1)
        for kind in ("array", "string"):
            with fresh_server(path, PUBLIC_KEY, PRIVATE_KEY, prefix="body-memory-") as server:
                idle = resident_kib(server.pid) // 1024
                peak, statuses = burst(server.port, server.pid, body(kind, args.size), args.requests)
                answered = ", ".join(f"{count} × {status}" for status, count in sorted(statuses.items()))
                print(f"| {label} | {kind} | {idle} | {peak} | {answered} |", flush=True)


if __name__ == "__main__":
    main()
