#!/usr/bin/env python3
"""Three stackmob-server instances on one PostgreSQL database, checked the way a load balancer
would use them (docs/operations.md, "More than one instance"). Standard library only.

    python3 scripts/multi_instance.py --binary .build/debug/stackmob-server [--postgresql-url URL]

Without --postgresql-url or STACKMOB_TEST_POSTGRESQL_URL a throw-away cluster is started (scripts/pg_cluster.py) and removed.
Checks, each printed with its figures; exit status 1 if any fails:
  schema     an object created through instance A is queryable through B and C at once
  counters   300 concurrent `[inc]`s spread over the three end exact
  replay     a MAC-signed request replayed through another instance is refused (401)
  permissions  permissions a `deploy` records while the instances serve apply on each at once
  push       a broadcast is delivered exactly once per token, whichever instance delivers it
  kill       SIGKILL of one instance mid-load loses no write the others or it acknowledged
"""
import argparse
import base64
import concurrent.futures
import hashlib
import hmac
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Api, ConnectionLost, Server, free_port, load_oauth1_signer  # noqa: E402

PUBLIC_KEY = "d0d0d0d0-0000-4000-8000-000000000001"
PRIVATE_KEY = "d0d0d0d0-0000-4000-8000-00000000000f"
# The host every instance is reached under, as behind one load balancer: MAC signatures name it.
PUBLIC_HOST = "api.example.com"


def mac_header(access_token, mac_key, method, uri, host=PUBLIC_HOST, port=80):
    """The Authorization header the iOS and JS SDKs send (PROTOCOL §3.2)."""
    ts, nonce = str(int(time.time())), f"n{uuid.uuid4().int % 10001}"
    normalized = f"{ts}\n{nonce}\n{method}\n{uri}\n{host}\n{port}\n\n"
    mac = base64.b64encode(hmac.new(mac_key.encode(), normalized.encode(), hashlib.sha1).digest()).decode()
    return f'MAC id="{access_token}",ts="{ts}",nonce="{nonce}",mac="{mac}"'


class PushSink:
    """The push webhook: records every delivery it receives."""

    def __init__(self):
        self.deliveries = []
        self.lock = threading.Lock()
        sink = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with sink.lock:
                    sink.deliveries.append(body)
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def tokens(self):
        with self.lock:
            return [delivery["token"] for delivery in self.deliveries]


class Cluster:
    """Three instances sharing the database, each with its own push listener."""

    def __init__(self, binary, url, sink_port, workdir):
        prefix = "mi" + uuid.uuid4().hex[:10]
        self.instances = []
        for name in "abc":
            push_port = free_port()
            settings = {
                "STACKMOB_STORAGE__ENGINE": "postgresql",
                "STACKMOB_STORAGE__POSTGRESQL__URL": url,
                "STACKMOB_STORAGE__POSTGRESQL__SCHEMA_PREFIX": prefix,
                "STACKMOB_PASSWORDS__PBKDF2_ROUNDS": "1000",
                "STACKMOB_PUSH__PORT": str(push_port),
                "STACKMOB_PUSH__DELIVERY__POLL_INTERVAL_MS": "100",
                "STACKMOB_ENVIRONMENTS__DEVELOPMENT__PUSH__SENDERS__ANDROIDGCM": "webhook",
                "STACKMOB_ENVIRONMENTS__DEVELOPMENT__PUSH__WEBHOOK_URL": f"http://127.0.0.1:{sink_port}/",
            }
            directory = os.path.join(workdir, name)
            os.makedirs(directory)
            server = Server(binary, directory, PUBLIC_KEY, PRIVATE_KEY, settings)
            server.push_port = push_port
            self.instances.append(server)

    def start(self):
        for server in self.instances:
            server.start()

    def stop(self):
        for server in self.instances:
            server.stop()

    def api(self, index):
        return Api(self.instances[index].port, PUBLIC_KEY)


def check_schema(cluster):
    status, created = cluster.api(0).request("POST", "/shared", {"name": "first", "n": 1})
    if status != 201:
        return [f"create through A answered {status}"]
    problems = []
    for index in (1, 2):
        status, found = cluster.api(index).request("GET", "/shared?n=1")
        if status != 200 or [item.get("shared_id") for item in found or []] != [created["shared_id"]]:
            problems.append(f"query through instance {'abc'[index]}: {status} {found}")
    print(f"schema: inferred through A, queried through B and C: {'ok' if not problems else 'FAILED'}")
    return problems


def check_counters(cluster, increments=300, threads=30):
    status, counter = cluster.api(0).request("POST", "/counter", {"hits": 0})
    if status != 201:
        return [f"counter create answered {status}"]
    counter_id = counter["counter_id"]
    local = threading.local()

    def increment(index):
        if not hasattr(local, "apis"):
            local.apis = [cluster.api(i) for i in range(3)]
        return local.apis[index % 3].request("PUT", f"/counter/{counter_id}", {"hits[inc]": 1})[0]

    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        statuses = list(pool.map(increment, range(increments)))
    elapsed = time.monotonic() - started
    acknowledged = statuses.count(200)
    hits = cluster.api(1).request("GET", f"/counter/{counter_id}")[1]["hits"]
    print(f"counters: {increments} [inc]s over 3 instances in {elapsed:.1f} s, {acknowledged} acknowledged, final value {hits}")
    problems = []
    if acknowledged != increments:
        problems.append(f"{increments - acknowledged} increments were refused: {sorted(set(statuses))}")
    if hits != acknowledged:
        problems.append(f"counter is {hits}, {acknowledged} increments were acknowledged")
    return problems


def check_replay(cluster):
    api = cluster.api(0)
    api.request("POST", "/user", {"username": "replayer", "password": "secret-pw"})
    form = urllib.parse.urlencode({"username": "replayer", "password": "secret-pw", "token_type": "mac"}).encode()
    status, session = api.request(
        "POST", "/user/accessToken", raw=form, headers={"Content-Type": "application/x-www-form-urlencoded", "Host": PUBLIC_HOST})
    if status != 200:
        return [f"login answered {status}: {session}"]
    headers = {"Host": PUBLIC_HOST, "Authorization": mac_header(session["access_token"], session["mac_key"], "GET", "/shared")}
    first = cluster.api(0).request("GET", "/shared", headers=headers)[0]
    replays = [cluster.api(index).request("GET", "/shared", headers=headers)[0] for index in (1, 2)]
    print(f"replay: signed request through A {first}; the same request through B and C {replays}")
    problems = []
    if first != 200:
        problems.append(f"the signed request answered {first}")
    if replays != [401, 401]:
        problems.append(f"replays through other instances answered {replays}, not 401")
    return problems


def check_permissions(cluster, workdir):
    """`deploy` run against the shared database while the instances serve: the permissions it
    records apply on every instance at its next request, without a restart."""
    status, _ = cluster.api(0).request("POST", "/vault", {"secret": "s"})
    if status != 201:
        return [f"create of a vault object through A answered {status}"]
    before = [cluster.api(index).request("GET", "/vault")[0] for index in range(3)]
    declarations = os.path.join(workdir, "vault.schemas.json")
    with open(declarations, "w") as f:
        json.dump({"schemas": {"vault": {"fields": {"secret": "string"}, "permissions": {"read": "logged_in"}}}}, f)
    server = cluster.instances[0]
    deployed = subprocess.run([server.binary, "deploy", "--file", declarations, "--to", "development",
                               "--data-dir", os.path.join(server.data_dir, "data")], env=server.env, capture_output=True, text=True)
    after = [cluster.api(index).request("GET", "/vault")[0] for index in range(3)]
    print(f"permissions: reads through A, B, C before a deploy {before}; after it set read: logged_in {after}")
    if deployed.returncode != 0:
        return [f"deploy exited with {deployed.returncode}: {deployed.stderr.strip()[-300:]}"]
    problems = []
    if before != [200, 200, 200]:
        problems.append(f"open reads before the deploy answered {before}")
    if after != [401, 401, 401]:
        problems.append(f"anonymous reads after the deploy answered {after}, not 401 on every instance")
    return problems


def check_push(cluster, sink, sign, tokens=60, timeout=60):
    registered = []
    for index in range(tokens):
        server = cluster.instances[index % 3]
        token = uuid.uuid4().hex + uuid.uuid4().hex
        status = Api(server.push_port, PUBLIC_KEY).request("PUT", f"/tokens/androidGCM/{token}", {"user": f"u{index}"})[0]
        if status not in (200, 201, 204):
            return [f"token registration answered {status}"]
        registered.append(token)
    server = cluster.instances[1]
    path = "/notifications"
    authorization = sign("POST", f"http://127.0.0.1:{server.push_port}{path}", PUBLIC_KEY, PRIVATE_KEY)
    status = Api(server.push_port, PUBLIC_KEY).request(
        "POST", path, {"payload": {"alert": "to everyone"}}, headers={"Authorization": authorization, "X-StackMob-API-Key": None})[0]
    if status not in (200, 201, 202, 204):
        return [f"broadcast answered {status}"]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and len(set(sink.tokens()) & set(registered)) < tokens:
        time.sleep(0.2)
    time.sleep(2)  # late duplicates, if any, arrive now
    delivered = [token for token in sink.tokens() if token in set(registered)]
    duplicates = len(delivered) - len(set(delivered))
    missing = len(set(registered) - set(delivered))
    print(f"push: broadcast to {tokens} tokens registered through 3 instances: {len(set(delivered))} delivered, "
          f"{duplicates} duplicates, {missing} missing")
    problems = []
    if duplicates:
        problems.append(f"{duplicates} deliveries were made twice")
    if missing:
        problems.append(f"{missing} tokens got nothing")
    return problems


def check_kill(cluster, seconds=6, threads=12):
    acknowledged, lock, stopping = [], threading.Lock(), threading.Event()

    def writer(index):
        api = cluster.api(index % 3)
        while not stopping.is_set():
            object_id = uuid.uuid4().hex
            try:
                status = api.request("POST", "/durable", {"durable_id": object_id, "writer": index})[0]
            except ConnectionLost:
                api = cluster.api((index + 1) % 3 if index % 3 == 1 else index % 3)
                continue
            if status == 201:
                with lock:
                    acknowledged.append(object_id)

    cluster.api(0).request("POST", "/durable", {"durable_id": "seed", "writer": -1})
    workers = [threading.Thread(target=writer, args=(index,)) for index in range(threads)]
    for worker in workers:
        worker.start()
    time.sleep(seconds / 2)
    cluster.instances[1].kill()
    time.sleep(seconds / 2)
    stopping.set()
    for worker in workers:
        worker.join()
    stored = set(cluster.api(0).fetch_all("durable"))
    lost = [object_id for object_id in acknowledged if object_id not in stored]
    print(f"kill: instance B killed mid-load; {len(acknowledged)} acknowledged writes, {len(lost)} lost")
    return [f"{len(lost)} acknowledged writes are missing"] if lost else []


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", required=True)
    parser.add_argument(
        "--postgresql-url", default=os.environ.get("STACKMOB_TEST_POSTGRESQL_URL") or None,
        help="an existing database (default: $STACKMOB_TEST_POSTGRESQL_URL, else a throw-away cluster)")
    options = parser.parse_args(argv)
    workdir = tempfile.mkdtemp(prefix="stackmob-multi-")
    cluster_dir = os.path.join(workdir, "postgresql")
    url = options.postgresql_url
    if url is None:
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pg_cluster.py")
        url = subprocess.run([sys.executable, script, "start", "--dir", cluster_dir], check=True, capture_output=True, text=True).stdout.strip()
    sink = PushSink()
    cluster = Cluster(options.binary, url, sink.port, workdir)
    problems = []
    try:
        cluster.start()
        problems += check_schema(cluster)
        problems += check_counters(cluster)
        problems += check_replay(cluster)
        problems += check_permissions(cluster, workdir)
        problems += check_push(cluster, sink, load_oauth1_signer())
        problems += check_kill(cluster)
    finally:
        cluster.stop()
        sink.server.shutdown()
        if options.postgresql_url is None:
            subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "pg_cluster.py"), "stop", "--dir", cluster_dir])
    print(f"problems: {len(problems)}")
    for problem in problems:
        print(f"  {problem}")
    if not problems:
        shutil.rmtree(workdir, ignore_errors=True)
    else:
        print(f"server logs kept in {workdir}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
