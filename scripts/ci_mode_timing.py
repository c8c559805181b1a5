#!/usr/bin/env python3
"""CI mode timing (docs/operations.md, "Use it in CI"): how long `serve --ephemeral --fixtures`
takes from spawn to its first answer with a 1,000-object fixture, and how long a reset takes,
checked against bounds.

    python3 scripts/ci_mode_timing.py --binary .build/debug/stackmob-server [--objects 1000]
        [--max-startup-seconds 15] [--max-reset-seconds 10] [--resets 3]

Prints the figures and `N passed, N failed`; exits 1 when a figure is over its bound or the
environment after a reset is not exactly the fixture. Standard library only."""
import argparse
import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from harness import Api, ConnectionLost, Server  # noqa: E402

PUBLIC_KEY = "c1c1c1c1-0000-4000-8000-000000000001"
PRIVATE_KEY = "c1c1c1c1-0000-4000-8000-00000000000f"
OPERATOR, PASSWORD = "ci", "ci-timing-password"


def make_fixture(objects):
    """A fixture with an operator, a declared schema, one user and `objects` todos t0…tN-1."""
    return {
        "operators": {OPERATOR: PASSWORD},
        "environments": {"development": {
            "schemas": {"todo": {"fields": {"title": "string", "rank": "integer", "done": "boolean"}}},
            "users": [{"username": "alice", "password": "alice-secret"}],
            "objects": {"todo": [{"todo_id": f"t{index}", "title": f"todo {index}", "rank": index, "done": index % 2 == 0}
                                 for index in range(objects)]},
        }},
    }


def first_answer(server, timeout=60):
    """Starts the server and returns the seconds from spawn to the first 200 for the last todo."""
    started = time.monotonic()
    server.start(timeout=timeout)
    api = Api(server.port, PUBLIC_KEY)
    deadline = started + timeout
    while time.monotonic() < deadline:
        try:
            if api.request("GET", "/todo/t0")[0] == 200:
                return time.monotonic() - started
        except ConnectionLost:
            pass
        time.sleep(0.01)
    raise RuntimeError("no answer for /todo/t0")


def reset(port):
    """Signs in and resets development; returns (seconds, objects written)."""
    admin = Api(port, None)
    status, session = admin.request("POST", "/_admin/session", {"name": OPERATOR, "password": PASSWORD})
    if status != 200:
        raise RuntimeError(f"sign-in answered {status}: {session}")
    started = time.monotonic()
    status, answer = admin.request("POST", "/_admin/environments/development/reset", {},
                                   headers={"Authorization": f"Bearer {session['token']}"})
    elapsed = time.monotonic() - started
    if status != 200:
        raise RuntimeError(f"reset answered {status}: {answer}")
    return elapsed, answer["objects"]


def check(name, value, bound, results):
    """Records one figure against its bound; returns whether it passed."""
    passed = value <= bound
    results.append((name, value, bound, passed))
    return passed


def run(binary, objects, max_startup, max_reset, resets):
    results = []
    with tempfile.TemporaryDirectory(prefix="stackmob-ci-timing-") as directory:
        path = os.path.join(directory, "fixture.json")
        with open(path, "w") as file:
            json.dump(make_fixture(objects), file)
        server = Server(binary, directory, PUBLIC_KEY, PRIVATE_KEY, settings={"STACKMOB_PASSWORDS__PBKDF2_ROUNDS": "1000"},
                        extra_args=["--ephemeral", "--fixtures", path])
        try:
            check(f"start to first answer, {objects}-object fixture (s)", first_answer(server), max_startup, results)
            api = Api(server.port, PUBLIC_KEY)
            for round_number in range(resets):
                for index in range(20):
                    api.request("POST", "/todo", {"title": f"extra {index}"})
                api.request("DELETE", "/todo/t1")
                elapsed, written = reset(server.port)
                check(f"reset {round_number + 1} (s)", elapsed, max_reset, results)
                found = api.fetch_all("todo")
                exact = written == objects + 1 and sorted(found) == sorted(f"t{index}" for index in range(objects))
                results.append((f"reset {round_number + 1} leaves exactly the fixture", len(found), objects, exact))
        finally:
            server.stop()
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", required=True)
    parser.add_argument("--objects", type=int, default=1000)
    parser.add_argument("--max-startup-seconds", type=float, default=15.0)
    parser.add_argument("--max-reset-seconds", type=float, default=10.0)
    parser.add_argument("--resets", type=int, default=3)
    args = parser.parse_args(argv)
    results = run(args.binary, args.objects, args.max_startup_seconds, args.max_reset_seconds, args.resets)
    for name, value, bound, passed in results:
        shown = f"{value:.3f}" if isinstance(value, float) else str(value)
        print(f"{'ok  ' if passed else 'FAIL'} {name}: {shown} (bound {bound})")
    failed = sum(1 for result in results if not result[3])
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
