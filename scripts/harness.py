"""What the scripts in scripts/ share: the stackmob-server binary on a data directory of its own,
and a keep-alive JSON client for its API. Standard library only."""
import contextlib
import http.client
import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time

ACCEPT = "application/vnd.stackmob+json; version=0"


class ConnectionLost(Exception):
    """The server went away before answering: the request's outcome is unknown."""


def load_oauth1_signer():
    """`sign` from scripts/oauth1-request.py, the one OAuth 1.0 signer the scripts share."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "oauth1-request.py")
    spec = importlib.util.spec_from_file_location("oauth1_request", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.sign


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    """The binary serving development with fixed keys on a free port; `settings` adds
    `STACKMOB_*` variables. Restartable on the same data directory."""

    def __init__(self, binary, data_dir, public_key, private_key, settings=None, extra_args=(), launcher=()):
        self.binary = binary
        self.launcher = list(launcher)  # e.g. valgrind and its options, in front of the binary
        self.extra_args = list(extra_args)
        self.data_dir = data_dir
        self.public_key = public_key
        self.port = free_port()
        self.process = None
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "STACKMOB_ENVIRONMENTS__DEVELOPMENT__PUBLIC_KEY": public_key,
            "STACKMOB_ENVIRONMENTS__DEVELOPMENT__PRIVATE_KEY": private_key,
            "STACKMOB_LOG_LEVEL": "warning",
            **(settings or {}),
        }
        self.log_path = os.path.join(data_dir, "server.log")

    @property
    def pid(self):
        return self.process.pid

    def start(self, timeout=60):
        args = self.launcher + [self.binary, "serve", "--port", str(self.port), "--data-dir", os.path.join(self.data_dir, "data")] + self.extra_args
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(args, env=self.env, stdout=log, stderr=log)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited with {self.process.returncode}; see {self.log_path}")
            try:
                if Api(self.port, self.public_key).request("HEAD", "/")[0] == 200:
                    return
            except (ConnectionLost, OSError):
                pass
            time.sleep(0.05)
        raise RuntimeError(f"the server did not answer within {timeout} s")

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self):
        """SIGTERM, as a service manager stops it; returns its exit status."""
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode if self.process else None

    def resident_kib(self, field="VmRSS"):
        return resident_kib(self.pid, field)

    def open_descriptors(self):
        return len(os.listdir(f"/proc/{self.pid}/fd"))


@contextlib.contextmanager
def fresh_server(binary, public_key, private_key, settings=None, prefix="stackmob-"):
    """A started `Server` of `binary` on a new data directory, stopped and removed afterwards."""
    directory = tempfile.mkdtemp(prefix=prefix)
    server = Server(binary, directory, public_key, private_key, settings=settings)
    try:
        server.start()
        yield server
    finally:
        server.stop()
        shutil.rmtree(directory, ignore_errors=True)


def peak_memory(pid, tasks, interval=0.01):
    """Runs each of `tasks` (functions) at once, on a thread of its own, while sampling `pid`'s
    resident memory every `interval` seconds; returns (idle KiB, peak KiB, the tasks' results)."""
    idle = resident_kib(pid)
    peak = [idle]
    done = threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], resident_kib(pid))
            time.sleep(interval)

    results = [None] * len(tasks)

    def run(index):
        results[index] = tasks[index]()

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    threads = [threading.Thread(target=run, args=(index,)) for index in range(len(tasks))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    done.set()
    sampler.join()
    return idle, peak[0], results


def resident_kib(pid, field="VmRSS"):
    """A process's resident memory, KiB: all of it (`VmRSS`), or the part `RssAnon` (heap and
    stacks, which only the process uses) or `RssFile` (mapped files: its code and libraries,
    clean pages the kernel can drop and read again) of /proc/PID/status."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(f"{field}:"):
                return int(line.split()[1])
    return 0


class Api:
    """One keep-alive connection to the API, sending JSON with the development public key."""

    def __init__(self, port, public_key):
        self.port = port
        self.headers = {"Accept": ACCEPT, "X-StackMob-API-Key": public_key, "Content-Type": "application/json"}
        if public_key is None:
            del self.headers["X-StackMob-API-Key"]
        self.connection = None
        self.last_headers = {}  # of the last response, names in lower case

    def request(self, method, path, body=None, headers=None, raw=None):
        """(status, parsed JSON or None). `raw`: bytes sent as they are instead of JSON; a header
        given as None is left out."""
        if self.connection is None:
            self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        payload = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        try:
            merged = {name: value for name, value in {**self.headers, **(headers or {})}.items() if value is not None}
            self.connection.request(method, path, body=payload, headers=merged)
            response = self.connection.getresponse()
            data = response.read()
            self.last_headers = {name.lower(): value for name, value in response.getheaders()}
        except (OSError, http.client.HTTPException) as error:
            self.connection.close()
            self.connection = None
            raise ConnectionLost(str(error)) from error
        try:
            parsed = json.loads(data) if data else None
        except ValueError:
            parsed = None
        return response.status, parsed

    def request_reconnecting(self, method, path, body=None, headers=None, raw=None):
        """request(), sent again once on a new connection when the server had closed the idle
        one (its keep-alive timeout): for callers that left the connection unused a while."""
        try:
            return self.request(method, path, body, headers, raw)
        except ConnectionLost:
            return self.request(method, path, body, headers, raw)

    def fetch_all(self, schema):
        """Every object of `schema` by primary key, paged with Range; empty for a schema that
        does not exist yet."""
        found, start, page = {}, 0, 1000
        while True:
            status, objects = self.request("GET", f"/{schema}", headers={"Range": f"objects={start}-{start + page - 1}"})
            if status == 404:
                return found
            if status not in (200, 206):
                raise RuntimeError(f"GET /{schema} answered {status}: {objects}")
            for item in objects:
                found[item[f"{schema}_id"]] = item
            if len(objects) < page:
                return found
            start += page


def report(problems, data_dir, limit=50):
    """Prints the problems a check found; keeps the data directory (server log, database) when
    there are any and removes it otherwise. Returns the exit status: 1 with problems."""
    print(f"problems: {len(problems)}")
    for problem in problems[:limit]:
        print("  " + problem[:600])
    if problems:
        print(f"data directory and server log kept in {data_dir}")
        return 1
    shutil.rmtree(data_dir, ignore_errors=True)
    return 0
