#!/usr/bin/env python3
"""Crash consistency of stackmob-server: nothing it acknowledged is lost when it is killed.

Concurrent writers (creates, updates, counters, array appends, nested upserts, bulk creates) run
against the real binary and record every write the server acknowledged. The server is killed
with SIGKILL at random moments, restarted on the same data directory, and after each restart
every acknowledged write must be there:

* every acknowledged create and update is stored, with its value (or a later one the same writer
  sent and never heard back about);
* every counter equals its acknowledged increments, plus at most the increments in flight;
* every acknowledged append is in its array;
* no nested upsert is half written (a post without its author, or the reverse);
* every object a bulk create listed in `succeeded` exists.

Writes whose answer was lost in the kill may or may not be stored; whatever is found for them is
checked against what was sent, then taken as the new baseline.

Usage:
  scripts/crash_consistency.py [--binary PATH] [--rounds 20] [--writers 4]
                               [--synchronous full|normal] [--min-run 0.3] [--max-run 2.0]

Prints the figures and exits 1 if any check failed. Standard library only.
"""
import argparse
import os
import random
import sys
import tempfile
import threading
import time
import uuid

from harness import Api, ConnectionLost, Server, report

PUBLIC_KEY = "c0c0c0c0-0000-4000-8000-000000000001"
PRIVATE_KEY = "c0c0c0c0-0000-4000-8000-00000000000f"


# MARK: - What was acknowledged


class Ledger:
    """What one writer sent and what the server acknowledged, per object the writer owns.

    Each writer owns its objects, so the only uncertainty about an object is the writes whose
    answers were lost in a kill ("pending")."""

    def __init__(self):
        self.values = {}  # obj id -> (acked value or None, [pending values in order])
        self.counters = {}  # counter id -> (acked sum, pending increments)
        self.arrays = {}  # obj id -> (acked elements, pending elements)
        self.graphs = {}  # post id -> (author id, acked)
        self.bulk = {}  # obj id -> acked
        self.acknowledged = {"create": 0, "update": 0, "counter": 0, "append": 0, "upsert": 0, "bulk": 0}

    # Recording

    def created(self, object_id, value, acked):
        self.values[object_id] = (value, []) if acked else (None, [value])
        self.arrays.setdefault(object_id, (set(), set()))
        if acked:
            self.acknowledged["create"] += 1

    def updated(self, object_id, value, acked):
        stored, pending = self.values[object_id]
        self.values[object_id] = (value, []) if acked else (stored, pending + [value])
        if acked:
            self.acknowledged["update"] += 1

    def incrementing(self, counter_id):
        total, pending = self.counters.get(counter_id, (0, 0))
        self.counters[counter_id] = (total, pending + 1)

    def incremented(self, counter_id):
        total, pending = self.counters[counter_id]
        self.counters[counter_id] = (total + 1, pending - 1)
        self.acknowledged["counter"] += 1

    def appended(self, object_id, element, acked):
        stored, pending = self.arrays[object_id]
        if acked:
            self.arrays[object_id] = (stored | {element}, pending)
            self.acknowledged["append"] += 1
        else:
            self.arrays[object_id] = (stored, pending | {element})

    def upserted(self, post_id, author_id, acked):
        self.graphs[post_id] = (author_id, acked)
        if acked:
            self.acknowledged["upsert"] += 1

    def bulk_created(self, object_ids, acked):
        for object_id in object_ids:
            self.bulk[object_id] = acked
        if acked:
            self.acknowledged["bulk"] += len(object_ids)

    # Checking, after a restart

    def check(self, stored):
        """Problems found in `stored` (schema -> id -> object); then adopts what is stored for the
        writes whose outcome was unknown, so that the next round starts from the truth."""
        problems = []
        objects, counters = stored["cc_object"], stored["cc_counter"]
        for object_id, (acked, pending) in list(self.values.items()):
            found = objects.get(object_id)
            if found is None:
                if acked is not None:
                    problems.append(f"acknowledged object {object_id} is missing")
                else:  # a create lost in the kill: forget it
                    del self.values[object_id], self.arrays[object_id]
                continue
            value = found.get("value")
            allowed = ([acked] if acked is not None else []) + pending
            if value not in allowed:
                problems.append(f"object {object_id} holds {value}, expected one of {allowed}")
            self.values[object_id] = (value, [])
        for object_id, (acked, pending) in self.arrays.items():
            found = objects.get(object_id)
            if found is None:
                continue
            elements = set(found.get("tags") or [])
            if not acked <= elements:
                problems.append(f"object {object_id} lost appended {sorted(acked - elements)}")
            if not elements <= acked | pending:
                problems.append(f"object {object_id} holds elements never sent: {sorted(elements - acked - pending)}")
            self.arrays[object_id] = (elements, set())
        for counter_id, (total, pending) in self.counters.items():
            found = counters.get(counter_id)
            value = (found or {}).get("n", 0)
            if not total <= value <= total + pending:
                problems.append(f"counter {counter_id} is {value}, expected {total} to {total + pending}")
            self.counters[counter_id] = (value, 0)
        posts, authors = stored["cc_post"], stored["cc_author"]
        for post_id, (author_id, acked) in list(self.graphs.items()):
            has_post, has_author = post_id in posts, author_id in authors
            if has_post != has_author:
                problems.append(f"nested upsert {post_id} is half written (post {has_post}, author {has_author})")
            elif acked and not has_post:
                problems.append(f"acknowledged nested upsert {post_id} is missing")
            self.graphs[post_id] = (author_id, has_post)
        bulk = stored["cc_bulk"]
        for object_id, acked in list(self.bulk.items()):
            if acked and object_id not in bulk:
                problems.append(f"acknowledged bulk-created object {object_id} is missing")
            self.bulk[object_id] = object_id in bulk
        return problems


# MARK: - Writers


class Writer(threading.Thread):
    """Sends random writes until told to stop; pauses while the server is down."""

    OPERATIONS = ["create", "update", "update", "counter", "counter", "append", "upsert", "bulk"]

    def __init__(self, index, server, running, stopping, seed):
        super().__init__(daemon=True)
        self.index = index
        self.server = server
        self.running = running
        self.stopping = stopping
        self.ledger = Ledger()
        self.random = random.Random(seed)
        self.paused = threading.Event()
        self.failure = None
        self.sequence = 0

    def run(self):
        # `paused` is set only between writes while `running` is clear, so once the main thread
        # has seen it, this writer sends nothing until `running` is set again.
        api = Api(self.server.port, PUBLIC_KEY)
        try:
            while not self.stopping.is_set():
                if not self.running.is_set():
                    self.paused.set()
                    self.running.wait(timeout=0.1)
                    continue
                self.paused.clear()
                try:
                    self.write(api, self.random.choice(self.OPERATIONS))
                except ConnectionLost:
                    pass  # recorded as pending before it was sent
        except Exception as error:  # a refused write is a bug in the server or in this script
            self.failure = error
            self.paused.set()

    def next_value(self):
        self.sequence += 1
        return self.sequence

    def expect(self, status, wanted, what, body):
        if status not in wanted:
            raise RuntimeError(f"writer {self.index}: {what} answered {status}: {body}")

    def write(self, api, operation):
        ledger = self.ledger
        owned = list(ledger.values)
        if operation in ("update", "append") and not owned:
            operation = "create"
        if operation == "create":
            object_id, value = uuid.uuid4().hex, self.next_value()
            ledger.created(object_id, value, acked=False)
            status, body = api.request("POST", "/cc_object", {"cc_object_id": object_id, "value": value, "tags": []})
            self.expect(status, (201,), "create", body)
            ledger.created(object_id, value, acked=True)
        elif operation == "update":
            object_id, value = self.random.choice(owned), self.next_value()
            if ledger.values[object_id][0] is None and not self.exists(api, "cc_object", object_id):
                return
            ledger.updated(object_id, value, acked=False)
            status, body = api.request("PUT", f"/cc_object/{object_id}", {"value": value})
            self.expect(status, (200,), "update", body)
            ledger.updated(object_id, value, acked=True)
        elif operation == "counter":
            # An upsert (X-StackMob-Relations, even empty) creates the counter on first use.
            counter_id = f"w{self.index}c{self.random.randrange(3)}"
            ledger.incrementing(counter_id)
            status, body = api.request("POST", "/cc_counter", {"cc_counter_id": counter_id, "n[inc]": 1}, {"X-StackMob-Relations": ""})
            self.expect(status, (200, 201), "counter", body)
            ledger.incremented(counter_id)
        elif operation == "append":
            object_id, element = self.random.choice(owned), f"t{self.next_value()}"
            if ledger.values[object_id][0] is None and not self.exists(api, "cc_object", object_id):
                return
            ledger.appended(object_id, element, acked=False)
            status, body = api.request("PUT", f"/cc_object/{object_id}/tags", [element])
            self.expect(status, (200,), "append", body)
            ledger.appended(object_id, element, acked=True)
        elif operation == "upsert":
            post_id, author_id = uuid.uuid4().hex, uuid.uuid4().hex
            ledger.upserted(post_id, author_id, acked=False)
            body = {"cc_post_id": post_id, "title": "t", "author": {"cc_author_id": author_id, "name": "a"}}
            status, answer = api.request("POST", "/cc_post", body, {"X-StackMob-Relations": "author=cc_author"})
            self.expect(status, (200, 201), "nested upsert", answer)
            ledger.upserted(post_id, author_id, acked=True)
        elif operation == "bulk":
            ids = [uuid.uuid4().hex for _ in range(5)]
            ledger.bulk_created(ids, acked=False)
            status, answer = api.request("POST", "/cc_bulk", [{"cc_bulk_id": i, "n": 1} for i in ids])
            self.expect(status, (200, 201), "bulk create", answer)
            succeeded = set(answer.get("succeeded", []))
            if succeeded != set(ids):
                raise RuntimeError(f"writer {self.index}: bulk create failed for {sorted(set(ids) - succeeded)}")
            ledger.bulk_created(ids, acked=True)

    def exists(self, api, schema, object_id):
        status, _ = api.request("GET", f"/{schema}/{object_id}")
        return status == 200


# MARK: - The run


def stored_objects(port):
    api = Api(port, PUBLIC_KEY)
    return {schema: api.fetch_all(schema) for schema in ("cc_object", "cc_counter", "cc_post", "cc_author", "cc_bulk")}


def run(options):
    data_dir = tempfile.mkdtemp(prefix="stackmob-crash-")
    settings = {"STACKMOB_STORAGE__SYNCHRONOUS": options.synchronous, "STACKMOB_PUSH__LISTEN": "false"}
    server = Server(options.binary, data_dir, PUBLIC_KEY, PRIVATE_KEY, settings)
    rng = random.Random(options.seed)
    running, stopping = threading.Event(), threading.Event()
    problems = []
    server.start()
    running.set()
    writers = [Writer(index, server, running, stopping, rng.random()) for index in range(options.writers)]
    for writer in writers:
        writer.start()
    try:
        for round_number in range(1, options.rounds + 1):
            time.sleep(rng.uniform(options.min_run, options.max_run))
            server.kill()
            running.clear()
            for writer in writers:
                if not writer.paused.wait(timeout=60):
                    raise RuntimeError(f"writer {writer.index} did not pause")
            server.start()
            stored = stored_objects(server.port)
            for writer in writers:
                if writer.failure:
                    raise writer.failure
                found = writer.ledger.check(stored)
                problems += [f"round {round_number}: {problem}" for problem in found]
            running.set()
            if options.verbose:
                print(f"round {round_number}: {len(problems)} problems so far", flush=True)
    finally:
        stopping.set()
        running.set()
        for writer in writers:
            writer.join(timeout=30)
        server.stop()
    totals = {}
    for writer in writers:
        for kind, count in writer.ledger.acknowledged.items():
            totals[kind] = totals.get(kind, 0) + count
    return totals, problems, data_dir


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", default=".build/release/stackmob-server")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--writers", type=int, default=4)
    parser.add_argument("--synchronous", choices=["full", "normal"], default="full")
    parser.add_argument("--min-run", type=float, default=0.3, help="shortest time between kills, seconds")
    parser.add_argument("--max-run", type=float, default=2.0, help="longest time between kills, seconds")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--verbose", action="store_true")
    options = parser.parse_args(argv)
    if not os.access(options.binary, os.X_OK):
        parser.error(f"{options.binary} is not an executable: build it first (swift build -c release)")
    started = time.monotonic()
    totals, problems, data_dir = run(options)
    elapsed = time.monotonic() - started
    print(f"crash consistency: synchronous={options.synchronous}, {options.rounds} SIGKILLs, "
          f"{options.writers} writers, {elapsed:.0f} s")
    print("acknowledged writes: " + ", ".join(f"{kind} {count}" for kind, count in totals.items())
          + f" (total {sum(totals.values())})")
    if sum(totals.values()) == 0:
        problems.append("no write was acknowledged: nothing was checked")
    return report(problems, data_dir)


if __name__ == "__main__":
    sys.exit(main())
