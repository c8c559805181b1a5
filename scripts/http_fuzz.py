#!/usr/bin/env python3
"""HTTP-level fuzzing of stackmob-server: malformed and hostile requests, sent raw over sockets.

Starts the binary on a temporary data directory, seeds a few objects and a user, then sends
requests built from random mutations of the StackMob API (bodies, headers, methods, overrides,
paths, query operators, signatures, huge and deep values, broken framing, slow clients), from
several threads at once. Every so often a normal request checks the server still answers, and
its resident memory is sampled.

It fails (exit 1) on: the server exiting, any 5xx answer, a request left without any answer
within the timeout (except the slow clients, which must be cut off), a failed health check, or
resident memory growing past --max-rss-growth.

Usage:
  scripts/http_fuzz.py [--binary PATH] [--requests 10000] [--threads 4] [--seed N]

Standard library only; the generator is seeded, so a failure prints the seed that reproduces it.
"""
import argparse
import json
import os
import random
import socket
import sys
import tempfile
import threading
import time
import urllib.parse

from harness import Server, free_port, report

PUBLIC_KEY = "f0f0f0f0-0000-4000-8000-000000000001"
PRIVATE_KEY = "f0f0f0f0-0000-4000-8000-00000000000f"
ACCEPT = "application/vnd.stackmob+json; version=0"


# MARK: - Raw HTTP


def send(port, data, timeout=10.0, trickle=None):
    """Sends `data` (bytes) on a new connection; returns (status or None, raw answer).

    `trickle`: (chunk size, pause) to send the body slowly, as a slow client would."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as connection:
        try:
            if trickle:
                size, pause = trickle
                head, _, body = data.partition(b"\r\n\r\n")
                connection.sendall(head + b"\r\n\r\n")
                for start in range(0, len(body), size):
                    connection.sendall(body[start:start + size])
                    time.sleep(pause)
            else:
                connection.sendall(data)
        except OSError:
            pass  # the server may close on a bad request before reading it all
        answer = b""
        try:
            while True:
                chunk = connection.recv(65536)
                if not chunk:
                    break
                answer += chunk
                if complete(answer):
                    break
        except socket.timeout:
            return None, answer
        except OSError:
            pass
    if not answer.startswith(b"HTTP/1.1 "):
        return (0 if answer == b"" else None), answer
    return int(answer[9:12]), answer


def complete(answer):
    head, separator, body = answer.partition(b"\r\n\r\n")
    if not separator:
        return False
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return len(body) >= int(value.strip())
    return False  # delimited by the close


def request(method, path, headers=(), body=b""):
    lines = [f"{method} {path} HTTP/1.1".encode(), b"Host: 127.0.0.1"]
    for name, value in headers:
        lines.append(name.encode("latin-1") + b": " + (value if isinstance(value, bytes) else value.encode("utf-8")))
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


def api_headers(**extra):
    headers = [("Accept", ACCEPT), ("X-StackMob-API-Key", PUBLIC_KEY), ("Connection", "close")]
    return headers + list(extra.items())


# MARK: - Mutations


SCHEMAS = ["thing", "user", "THING", "nope", "sqlite_x", "listapi", "a" * 70, "_sm_schema", "thing%00", "%2e%2e"]
FIELDS = ["name", "n", "f", "tags", "loc", "thing_id", "createddate", "lastmoddate", "sm_owner", "password", "x" * 80, "a.b", "Name"]
OPERATORS = ["", "[lt]", "[lte]", "[gt]", "[gte]", "[ne]", "[in]", "[nin]", "[null]", "[empty]", "[near]", "[within]", "[inc]", "[zz]",
             "[", "]", "[]"]
NASTY = ["", "x", "-1", "0", "9223372036854775807", "-9223372036854775808", "99999999999999999999999", "1e999", "-1e999", "NaN",
         "Infinity", "%", "%zz", "%00", "\u0000", "é", "😀", "a,b,,", ",,,,", "[", "]", "{", "}", "\"", "'", "\\", "true",
         "null", "0x7f", "1,2,3", "90,180,0.1", "91,0", "0,0,-1", "a" * 5000]
METHODS = ["GET", "POST", "PUT", "DELETE", "HEAD", "OPTIONS", "PATCH", "TRACE", "CONNECT", "FOO", "get", "G ET"]
HEADER_VALUES = {
    "Range": ["objects=", "objects=-1-5", "objects=5-1", "objects=0-", "objects=0-9223372036854775807", "bytes=0-5",
              "objects=99999999999999999999-", "objects=0-0,1-2", "objects=a-b"],
    "X-StackMob-OrderBy": ["", ",", "name:up", "nope:asc", "loc:asc", ",".join(["name:asc"] * 50)],
    "X-StackMob-Select": ["", ",", "nope", "a.b.c.d.e", "*", "tags.*", ",".join(f"f{i}" for i in range(600))],
    "X-StackMob-Expand": ["-1", "4", "99999999999999999999", "x", ""],
    "X-StackMob-Relations": ["", "=", "a=b", "tags=nope&tags=x", "a.b.c.d=user", "name=user", "&&&"],
    "Accept": ["", "*/*", ACCEPT.replace("0", "99999999999999999999"), ACCEPT.replace("0", "-1"), ACCEPT.replace("0", "1"), "text/html"],
    "X-HTTP-Method-Override": ["PUT", "DELETE", "HEAD", "PATCH", "CONNECT", "GET", "", "put"],
    "Authorization": ["MAC", "MAC id=", "OAuth", "Basic eA==", 'MAC id="x",ts="-9223372036854775807",nonce="n",mac="m"',
                      f'OAuth oauth_consumer_key="{PUBLIC_KEY}", oauth_nonce="n", oauth_signature_method="HMAC-SHA1", '
                      'oauth_timestamp="-9223372036854775807", oauth_version="1.0", oauth_signature="x"',
                      "OAuth " + 'a="b",' * 500, 'MAC id="' + "x" * 5000 + '"'],
    "X-StackMob-FieldTypes": ["", "a=binary", "=", "name=binary,,", "pic=binary&pic=string"],
    "Cookie": ["", "a", "=;=;", "sm_session=%ff", "sm_session=" + "a" * 3000],
    "X-StackMob-CascadeDelete": ["true", "x"],
    "Content-Type": ["", "application/json", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "text/plain"],
    "Transfer-Encoding": ["chunked", "gzip", "xchunked", "chunked, chunked", ""],
    "Content-Length": ["-1", "abc", "99999999999", "0", "1, 2"],
    "Upgrade": ["websocket", "h2c"],
    "Expect": ["100-continue", "nonsense"],
    "Origin": ["http://evil.example", "null", ""],
    "Host": ["", "push.example", "a" * 300, "[::1]:99999"],
}
BODIES = [b"", b"{", b"}", b"[]", b"[1,2]", b"null", b"1", b'"x"', b"[[]]", b"[" * 5000, b"{\"a\":" * 200 + b"1" + b"}" * 200,
          b'{"name":{"lat":1}}', b'{"n[inc]":"x"}', b'{"n[inc]":1e308}', b'{"f[inc]":1e308}', b'{"loc":{"lat":999,"lon":0}}',
          b'{"loc":{"lat":"x","lon":0}}', b'{"thing_id":1}', b'{"thing_id":""}', b'{"sm_owner":1}', b'{"tags":[1,"a"]}',
          b'{"\\u0000":1}', b'{"a":"\\ud800"}', b"\xff\xfe\xfd", b'{"lastmoddate":9223372036854775807}', b'{"createddate":-1}',
          b'{"x":"' + b"a" * 200000 + b'"}', json.dumps({f"f{i}": i for i in range(700)}).encode(), b'{"password":null}',
          b"username=a&password=b&grant_type=password", b"a=%zz&b", b'{"pic":"Content-Type: image/png\\nContent-Disposition: '
          b'attachment; filename=../../x.png\\nContent-Transfer-Encoding: base64\\n\\n!!!"}', b"0" * 5000, b"1e99999"]
PATH_SUFFIXES = ["", "/p1", "/p1/tags", "/p1/tags/a,b", "/p1/nope", "/p1/n", "/%ff", "/" + "a" * 5000, "//", "/p1/tags/", "/../x",
                 "/accessToken", "/refreshToken", "/logout", "/loggedInUser", "/resetPassword", "/forgotPassword", "/login"]
PUSH_PATHS = ["/push/register_device_token_universal", "/push/push_users_universal", "/push/tokens", "/push/get_tokens_for_users_universal",
              "/push/remove_token_universal", "/push/push_broadcast_universal", "/tokens/ios/%zz"]


def random_query(rng):
    parts = []
    for _ in range(rng.choice([0, 1, 2, 3, 5, 150])):
        prefix = rng.choice(["", "", "[or1].", "[or2].[and1].", "[orx].", f"[or{rng.randrange(40)}]."])
        key = prefix + rng.choice(FIELDS) + rng.choice(OPERATORS)
        value = rng.choice(NASTY)
        quote_key = rng.random() < 0.5
        parts.append((urllib.parse.quote(key, safe="") if quote_key else key) + "=" + urllib.parse.quote(value, safe=","))
    if rng.random() < 0.1:
        parts.append("_expand=" + rng.choice(NASTY))
    return ("?" + "&".join(parts)) if parts else ""


def random_request(rng):
    """One hostile request, as bytes."""
    if rng.random() < 0.05:
        return rng.choice(RAW_GARBAGE)
    if rng.random() < 0.08:
        path = rng.choice(PUSH_PATHS)
    elif rng.random() < 0.05:
        path = rng.choice(["/", "/_files/../../etc/passwd", "/_files/development/thing/p1/pic/x.png", "/listapi", "*", "http://x/thing"])
    else:
        path = "/" + rng.choice(SCHEMAS) + rng.choice(PATH_SUFFIXES) + random_query(rng)
    method = rng.choice(METHODS) if rng.random() < 0.3 else rng.choice(["GET", "POST", "PUT", "DELETE"])
    headers = api_headers()
    if rng.random() < 0.1:
        headers = [h for h in headers if h[0] != rng.choice(["Accept", "X-StackMob-API-Key"])]
    for name in rng.sample(list(HEADER_VALUES), k=rng.choice([0, 1, 1, 2, 3])):
        headers.append((name, rng.choice(HEADER_VALUES[name])))
    body = rng.choice(BODIES) if method not in ("GET", "HEAD") or rng.random() < 0.1 else b""
    names = {name.lower() for name, _ in headers}
    if body and "content-length" not in names and "transfer-encoding" not in names:
        headers.append(("Content-Length", str(len(body))))
    elif "transfer-encoding" in names and rng.random() < 0.5:
        body = rng.choice([b"zz\r\n{}\r\n0\r\n\r\n", b"2\r\n{}\r\n0\r\n\r\n", b"ffffffffffffffff\r\n", b"2\r\n{}"])
    return request(method, path, headers, body)


# (Empty lines alone are left out: HTTP/1.1 lets a server skip them while it waits for a request,
# and the idle timeout closes such a connection.)
RAW_GARBAGE = [b"GET\r\n\r\n", b"GET / HTTP/9.9\r\n\r\n", b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",
               b"GET / HTTP/1.1\r\nHost: x\r\n" + b"X-A: b\r\n" * 2000 + b"\r\n", b"GET /" + b"a" * 100000 + b" HTTP/1.1\r\n\r\n",
               b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!",
               b"POST /thing HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n",
               b"GET / HTTP/1.1\r\nHost: x\r\nX-Bad\x00Name: a\r\n\r\n", b"GET / HTTP/1.1\r\nHost: x\r\nX-A: \x01\x02\r\n\r\n",
               b"GET / HTTP/1.1\nHost: x\n\n", b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"]


# MARK: - The server


def healthy(port):
    """A normal read of an object in a schema the fuzzer never names."""
    status, _ = send(port, request("GET", "/probe/h1", api_headers()), timeout=10)
    return status == 200


def seed(port):
    for path, body in [("/thing", b'{"thing_id":"p1","name":"a","n":1,"f":1.5,"tags":["a"],"loc":{"lat":1,"lon":2}}'),
                       ("/user", b'{"username":"ann","password":"s3cret","email":"ann@example.com"}'),
                       ("/probe", b'{"probe_id":"h1"}')]:
        status, answer = send(port, request("POST", path, api_headers(**{"Content-Length": str(len(body))}), body))
        if status != 201:
            raise RuntimeError(f"seeding {path} answered {status}: {answer[:200]!r}")


# MARK: - The run


class Findings:
    def __init__(self):
        self.lock = threading.Lock()
        self.statuses = {}
        self.failures = []
        self.sent = 0

    def record(self, status, data, answer):
        with self.lock:
            self.sent += 1
            self.statuses[status] = self.statuses.get(status, 0) + 1
            # 501 is the answer for a Transfer-Encoding the server does not implement (RFC 9112).
            if status is None or (status >= 500 and status != 501):
                self.failures.append((status, data[:300], answer[:300]))


def fuzz(port, push_port, count, rng_seed, findings):
    rng = random.Random(rng_seed)
    for _ in range(count):
        data = random_request(rng)
        target = push_port if rng.random() < 0.05 else port
        try:
            status, answer = send(target, data)
        except OSError as error:
            status, answer = None, repr(error).encode()
        findings.record(status, data, answer)


def slow_clients(port, findings, rounds):
    """Clients that send their body one byte at a time: the body timeout must cut them off."""
    for _ in range(rounds):
        body = b'{"name":"slow"}'
        data = request("POST", "/thing", api_headers(**{"Content-Length": str(len(body) + 50)}), body)
        started = time.monotonic()
        try:
            status, answer = send(port, data, timeout=15, trickle=(1, 0.3))
        except OSError as error:
            status, answer = 0, repr(error).encode()
        # A 408, or a close once the body timeout has passed, are both a cut-off.
        if status not in (0, 408) or time.monotonic() - started > 14:
            findings.record(None, data, b"slow client not cut off: " + answer[:200])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", default=".build/release/stackmob-server")
    parser.add_argument("--requests", type=int, default=10000)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--max-rss-growth", type=float, default=2.0, help="largest allowed RSS ratio, last sample to first")
    parser.add_argument("--arenas", type=int, default=None, help="MALLOC_ARENA_MAX for the server (default: the server's own, two per core)")
    options = parser.parse_args(argv)
    if not os.access(options.binary, os.X_OK):
        parser.error(f"{options.binary} is not an executable: build it first")
    seed_value = options.seed if options.seed is not None else random.randrange(1 << 30)
    data_dir = tempfile.mkdtemp(prefix="stackmob-fuzz-")
    push_port = free_port()
    settings = {
        "STACKMOB_PUSH__PORT": str(push_port),
        "STACKMOB_PASSWORDS__PBKDF2_ROUNDS": "1000",
        "STACKMOB_LIMITS__BODY_TIMEOUT_SECONDS": "2",
        # The fuzzer's wrong passwords and signatures all come from one address.
        "STACKMOB_LIMITS__AUTH_FAILURES_PER_ADDRESS": "0",
    }
    if options.arenas is not None:
        settings["MALLOC_ARENA_MAX"] = str(options.arenas)
    server = Server(options.binary, data_dir, PUBLIC_KEY, PRIVATE_KEY, settings)
    server.start()
    port, process = server.port, server.process
    findings = Findings()
    problems = []
    started = time.monotonic()
    try:
        seed(port)
        baseline_rss = server.resident_kib()
        batches = 10
        per_batch = max(1, options.requests // batches // options.threads)
        samples = []
        slow = threading.Thread(target=slow_clients, args=(port, findings, 3), daemon=True)
        slow.start()
        for batch in range(batches):
            threads = [threading.Thread(target=fuzz, args=(port, push_port, per_batch, seed_value * 1000 + batch * 100 + i, findings))
                       for i in range(options.threads)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            if process.poll() is not None:
                problems.append(f"the server exited with {process.returncode} during batch {batch + 1}")
                break
            if not healthy(port):
                problems.append(f"a normal request failed after batch {batch + 1}")
            samples.append(server.resident_kib())
        slow.join(timeout=60)
        if samples and baseline_rss and samples[-1] > baseline_rss * options.max_rss_growth and samples[-1] > 200_000:
            problems.append(f"resident memory grew from {baseline_rss} KiB to {samples[-1]} KiB")
    finally:
        alive = process.poll() is None
        server.stop()
    elapsed = time.monotonic() - started
    problems += [f"status {status} for {data!r} → {answer!r}" for status, data, answer in findings.failures]
    print(f"http fuzz: seed {seed_value}, {findings.sent} requests in {elapsed:.0f} s, {options.threads} threads")
    print("statuses: " + ", ".join(f"{status}: {count}" for status, count in sorted(findings.statuses.items(), key=lambda i: (i[0] is None, i[0] or 0))))
    if samples:
        print(f"resident memory: {baseline_rss} KiB after seeding, {min(samples)}–{max(samples)} KiB during, {samples[-1]} KiB at the end")
    print(f"server alive at the end: {alive}")
    return report(problems, data_dir)


if __name__ == "__main__":
    sys.exit(main())
