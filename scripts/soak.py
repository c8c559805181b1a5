#!/usr/bin/env python3
"""Soak test of stackmob-server: a steady mixed load for a set time, watched for leaks.

Starts the binary on a temporary data directory, seeds objects and users, then holds a mixed
load at a fixed rate: reads by id, filtered pages with a total, creates and updates, logins,
push token registrations and pushes signed with the private key (OAuth 1.0). Every sampling
interval it records the server's resident memory, its open file descriptors, the requests sent
and their p99 latency.

It fails (exit 1) on any request not answered with a 2xx (each of the mix should succeed), or when the last interval's figures leave the
bounds set against the first interval's (the first is the warm-up baseline): resident memory
more than --max-rss-growth times, more than --max-fd-growth descriptors, or a p99 more than
--max-p99-growth times the first.

Usage:
  scripts/soak.py [--binary PATH] [--minutes 30] [--interval 60] [--rate 200] [--clients 8]

Standard library only.
"""
import argparse
import os
import random
import sys
import tempfile
import threading
import time
import urllib.parse
import uuid

from harness import Api, ConnectionLost, Server, free_port, load_oauth1_signer, report

PUBLIC_KEY = "50a50a50-0000-4000-8000-000000000001"
PRIVATE_KEY = "50a50a50-0000-4000-8000-00000000000f"
CATEGORIES = 20
USERS = 20


class Interval:
    """What the clients saw during one sampling interval."""

    def __init__(self):
        self.lock = threading.Lock()
        self.latencies = []
        self.failures = []

    def record(self, seconds, status, what):
        with self.lock:
            self.latencies.append(seconds)
            # Every request of the mix is one that succeeds: anything but a 2xx is a failure.
            if status is None or not 200 <= status < 300:
                self.failures.append(f"{what}: {status}")

    def p99_ms(self):
        with self.lock:
            ordered = sorted(self.latencies)
        return ordered[int(len(ordered) * 0.99) - 1] * 1000 if ordered else 0.0


class Client(threading.Thread):
    """Sends the mix at its share of the rate until told to stop."""

    MIX = ["read"] * 40 + ["page"] * 20 + ["create"] * 10 + ["update"] * 10 + ["login"] * 10 + ["register"] * 5 + ["push"] * 5

    def __init__(self, port, push_port, rate, seed, ids, current, stopping, sign):
        super().__init__(daemon=True)
        self.api = Api(port, PUBLIC_KEY)
        self.push = Api(push_port, PUBLIC_KEY)
        self.push_port = push_port
        self.pause = 1.0 / rate
        self.random = random.Random(seed)
        self.ids = ids
        self.current = current  # a one-element list holding the Interval being filled
        self.stopping = stopping
        self.sign = sign

    def run(self):
        next_send = time.monotonic()
        while not self.stopping.is_set():
            what = self.random.choice(self.MIX)
            started = time.monotonic()
            try:
                status = self.send(what)
            except ConnectionLost:
                status = None
            self.current[0].record(time.monotonic() - started, status, what)
            next_send += self.pause
            time.sleep(max(0.0, next_send - time.monotonic()))

    def send(self, what):
        api, rng = self.api, self.random
        if what == "read":
            return api.request("GET", f"/soak/{rng.choice(self.ids)}")[0]
        if what == "page":
            headers = {"Range": "objects=0-19", "X-StackMob-OrderBy": "rank:asc"}
            return api.request("GET", f"/soak?category=c{rng.randrange(CATEGORIES)}", headers=headers)[0]
        if what == "create":
            body = {"category": f"c{rng.randrange(CATEGORIES)}", "rank": rng.randrange(1000), "note": "x" * rng.randrange(200)}
            return api.request("POST", "/soak", body)[0]
        if what == "update":
            return api.request("PUT", f"/soak/{rng.choice(self.ids)}", {"rank": rng.randrange(1000), "hits[inc]": 1})[0]
        if what == "login":
            form = urllib.parse.urlencode({"username": f"u{rng.randrange(USERS)}", "password": "soak-pw", "token_type": "mac"})
            return api.request("POST", "/user/accessToken", raw=form.encode(), headers={"Content-Type": "application/x-www-form-urlencoded"})[0]
        if what == "register":
            token = uuid.uuid4().hex
            return self.push.request("PUT", f"/tokens/androidGCM/{token}", {"user": f"u{rng.randrange(USERS)}"})[0]
        if what == "push":
            path = "/notifications"
            authorization = self.sign("POST", f"http://127.0.0.1:{self.push_port}{path}", PUBLIC_KEY, PRIVATE_KEY)
            body = {"payload": {"alert": "soak"}, "users": [f"u{rng.randrange(USERS)}"]}
            return self.push.request("POST", path, body, headers={"Authorization": authorization, "X-StackMob-API-Key": None})[0]
        raise ValueError(what)


def seed(port, count):
    api = Api(port, PUBLIC_KEY)
    ids = []
    for start in range(0, count, 500):
        batch = [{"category": f"c{i % CATEGORIES}", "rank": i, "hits": 0} for i in range(start, min(count, start + 500))]
        status, answer = api.request("POST", "/soak", batch)
        if status != 200 or answer.get("failed"):
            raise RuntimeError(f"seeding answered {status}: {answer}")
        ids += answer["succeeded"]
    for index in range(USERS):
        status, answer = api.request("POST", "/user", {"username": f"u{index}", "password": "soak-pw"})
        if status != 201:
            raise RuntimeError(f"creating user u{index} answered {status}: {answer}")
    return ids


def check(samples, options):
    """Problems with the figures: the last interval against the first, and its memory against
    the interval at mid-run (after the warm-up, a steady load keeps memory flat)."""
    if len(samples) < 2:
        return ["fewer than two intervals: run longer than one interval"]
    first, middle, last = samples[0], samples[(len(samples) - 1) // 2], samples[-1]
    problems = []
    if last["rss"] > first["rss"] * options.max_rss_growth:
        problems.append(f"resident memory grew from {first['rss']} KiB to {last['rss']} KiB")
    if last["rss"] > middle["rss"] * options.max_late_rss_growth:
        problems.append(f"resident memory grew from {middle['rss']} KiB at mid-run to {last['rss']} KiB")
    if last["fds"] > first["fds"] + options.max_fd_growth:
        problems.append(f"open descriptors grew from {first['fds']} to {last['fds']}")
    if first["p99"] > 0 and last["p99"] > max(first["p99"] * options.max_p99_growth, first["p99"] + 5):
        problems.append(f"p99 grew from {first['p99']:.1f} ms to {last['p99']:.1f} ms")
    return problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", default=".build/release/stackmob-server")
    parser.add_argument("--minutes", type=float, default=30)
    parser.add_argument("--interval", type=float, default=60, help="seconds between samples")
    parser.add_argument("--rate", type=float, default=200, help="requests per second, all clients together")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--objects", type=int, default=5000)
    parser.add_argument("--max-rss-growth", type=float, default=1.5, help="largest allowed RSS ratio, last sample to first")
    parser.add_argument("--max-late-rss-growth", type=float, default=1.2,
                        help="largest allowed RSS ratio, last sample to the one at mid-run: memory is flat under a steady load")
    parser.add_argument("--arenas", type=int, default=None, help="MALLOC_ARENA_MAX for the server (default: the server's own, two per core)")
    parser.add_argument("--max-fd-growth", type=int, default=20)
    parser.add_argument("--max-p99-growth", type=float, default=3.0)
    options = parser.parse_args(argv)
    if not os.access(options.binary, os.X_OK):
        parser.error(f"{options.binary} is not an executable: build it first")
    data_dir = tempfile.mkdtemp(prefix="stackmob-soak-")
    push_port = free_port()
    settings = {"STACKMOB_PUSH__PORT": str(push_port), "STACKMOB_PASSWORDS__PBKDF2_ROUNDS": "1000"}
    if options.arenas is not None:
        settings["MALLOC_ARENA_MAX"] = str(options.arenas)
    server = Server(options.binary, data_dir, PUBLIC_KEY, PRIVATE_KEY, settings)
    server.start()
    stopping = threading.Event()
    current = [Interval()]
    samples, failures = [], []
    try:
        ids = seed(server.port, options.objects)
        sign = load_oauth1_signer()
        clients = [Client(server.port, push_port, options.rate / options.clients, index, ids, current, stopping, sign)
                   for index in range(options.clients)]
        for client in clients:
            client.start()
        print("minute | requests | p99 (ms) | resident (KiB) | descriptors | failures", flush=True)
        deadline = time.monotonic() + options.minutes * 60
        while time.monotonic() < deadline:
            time.sleep(min(options.interval, max(0.0, deadline - time.monotonic())))
            interval, current[0] = current[0], Interval()
            if server.process.poll() is not None:
                failures.append(f"the server exited with {server.process.returncode}")
                break
            sample = {"rss": server.resident_kib(), "fds": server.open_descriptors(), "p99": interval.p99_ms(),
                      "count": len(interval.latencies), "failed": len(interval.failures)}
            samples.append(sample)
            failures += interval.failures
            minute = len(samples) * options.interval / 60
            print(f"{minute:6.1f} | {sample['count']:8d} | {sample['p99']:8.1f} | {sample['rss']:14d} | {sample['fds']:11d} | {sample['failed']}",
                  flush=True)
    finally:
        stopping.set()
        exit_status = server.stop()
    problems = [f"{len(failures)} requests were lost or not answered with a 2xx, e.g. {failures[:5]}"] if failures else []
    problems += check(samples, options)
    if exit_status not in (0, None):
        problems.append(f"the server exited with {exit_status} on SIGTERM")
    return report(problems, data_dir)


if __name__ == "__main__":
    sys.exit(main())
