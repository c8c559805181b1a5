"""A bare Hummingbird server (scripts/hummingbird-ceiling) as a side: the framework's own
trivial route, with none of this server's middleware, to tell the framework's cost from ours.
It answers `head` only; every other scenario skips it."""
import os
import subprocess
import sys
import time

from .scenarios import Plan, SeedError

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import Api, ConnectionLost, free_port, resident_kib  # noqa: E402

PACKAGE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "hummingbird-ceiling")
SCRATCH = os.path.join(os.path.dirname(os.path.dirname(PACKAGE)), ".build-ceiling")


def build(skip_build):
    """The release binary of the package, built in its own scratch directory with the Swift runtime
    linked in (`--static-swift-stdlib`) as our server is, so that the two compare like with like.
    Our server's link order (scripts/build-release.sh) is not applied: it lists our functions."""
    if not skip_build:
        print("[bench] building the bare Hummingbird server (scripts/hummingbird-ceiling)", file=sys.stderr, flush=True)
        subprocess.run(["swift", "build", "-c", "release", "--static-swift-stdlib", "--package-path", PACKAGE, "--scratch-path", SCRATCH],
                       check=True)
    binary = os.path.join(SCRATCH, "release", "hummingbird-ceiling")
    if not os.access(binary, os.X_OK):
        raise SeedError(f"no bare Hummingbird binary at {binary} (run without --skip-build)")
    return binary


class HummingbirdSide:
    kind = "hummingbird"
    id_format = "%d"
    headers = {}

    def __init__(self, label, skip_build):
        self.label = label
        self.binary = build(skip_build)
        self.port = free_port()
        self.process = None
        self.seeded = []

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def describe(self):
        return f"{self.label}: bare Hummingbird ({self.binary}), HEAD / only"

    def resident_kib(self, field="VmRSS"):
        return resident_kib(self.process.pid, field)

    def start(self, work_dir, datasets):
        self.log = open(os.path.join(work_dir, "hummingbird.log"), "w")
        self.process = subprocess.Popen([self.binary, str(self.port)], stdout=self.log, stderr=self.log)
        deadline = time.monotonic() + 30
        while True:
            if self.process.poll() is not None:
                raise SeedError(f"the bare Hummingbird server exited with {self.process.returncode}")
            try:
                if Api(self.port, None).request("HEAD", "/")[0] == 200:
                    return
            except (ConnectionLost, OSError):
                pass
            if time.monotonic() > deadline:
                raise SeedError("the bare Hummingbird server did not answer within 30 s")
            time.sleep(0.1)

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=30)
        if self.process:
            self.log.close()

    def plan(self, name, work_dir):
        if name != "head":
            return None
        return Plan("HEAD / (bare Hummingbird)", 'wrk.method = "HEAD"\n')
