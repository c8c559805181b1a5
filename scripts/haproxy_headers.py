#!/usr/bin/env python3
"""The documented load balancer (deploy/haproxy.cfg) in front of one instance: the headers the
SDKs read case-sensitively reach clients in their usual case. HAProxy 2.x lower-cases header
names, and the Java SDK looks `Set-Cookie` and `Date` up case-sensitively: its legacy cookie login
fails behind a balancer that sends `set-cookie`.

  scripts/haproxy_headers.py --binary .build/debug/stackmob-server

Needs Debian's haproxy (installed by .ci/run). Prints the problems found; exit status 1 with any.
"""
import argparse
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Server, free_port  # noqa: E402

PUBLIC_KEY = "a0a0a0a0-0000-4000-8000-000000000001"
PRIVATE_KEY = "a0a0a0a0-0000-4000-8000-00000000000f"
CONFIG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "deploy", "haproxy.cfg")
# Headers whose case clients rely on, and a request that answers each.
EXPECTED = ["Set-Cookie", "Date", "Content-Type", "Content-Length"]


def local_config(text, port, backend):
    """deploy/haproxy.cfg with its listener and servers on this machine; everything else as
    documented (the global `maxconn` lowered to what an unprivileged process may open)."""
    text = text.replace("bind :8080", f"bind 127.0.0.1:{port}")
    text = re.sub(r"maxconn \d+", "maxconn 1000", text)
    text = re.sub(r"\n\s*server stackmob-\d+ .*", "", text)
    return text.rstrip() + f"\n    server stackmob-1 127.0.0.1:{backend} check\n"


def response_head(port, request):
    with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
        connection.sendall(request)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = connection.recv(65536)
            if not chunk:
                break
            data += chunk
    return data.split(b"\r\n\r\n")[0].decode("latin-1").split("\r\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", required=True)
    args = parser.parse_args()
    if shutil.which("haproxy") is None:
        sys.exit("haproxy_headers: haproxy is not installed (apt-get install haproxy)")
    work = tempfile.mkdtemp(prefix="haproxy-headers-")
    server = Server(args.binary, work, PUBLIC_KEY, PRIVATE_KEY, settings={"STACKMOB_PUSH__PORT": "0"})
    balancer = None
    problems = []
    try:
        server.start()
        port = free_port()
        path = os.path.join(work, "haproxy.cfg")
        with open(CONFIG) as source, open(path, "w") as target:
            target.write(local_config(source.read(), port, server.port))
        balancer = subprocess.Popen(["haproxy", "-f", path, "-db"], stdout=subprocess.DEVNULL, stderr=open(path + ".log", "w"))
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if balancer.poll() is not None or time.monotonic() > deadline:
                    sys.exit(f"haproxy_headers: haproxy did not start; see {path}.log")
                time.sleep(0.05)
        # A logout carrying a session cookie answers Set-Cookie (the Java SDK's legacy session).
        request = (
            "GET /user/logout HTTP/1.1\r\nHost: localhost\r\nAccept: application/vnd.stackmob+json; version=0\r\n"
            f"X-StackMob-API-Key: {PUBLIC_KEY}\r\nCookie: session_development=x\r\nConnection: close\r\n\r\n"
        ).encode()
        lines = response_head(port, request)
        names = [line.split(":", 1)[0] for line in lines[1:]]
        if not lines[0].startswith("HTTP/1.1 200"):
            problems.append(f"GET /user/logout through haproxy answered {lines[0]!r}")
        for name in EXPECTED:
            if name not in names:
                problems.append(f"{name} not in its usual case through haproxy: {names}")
    finally:
        if balancer:
            balancer.terminate()
            balancer.wait()
        server.stop()
    print(f"problems: {len(problems)}")
    for problem in problems:
        print(f"  {problem}")
    if not problems:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
