"""HAProxy from Debian's package in front of several instances, as a team would run them."""
import os
import signal
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import free_port  # noqa: E402

CONFIG = """global
    maxconn 4000

defaults
    mode http
    timeout connect 5s
    timeout client 60s
    timeout server 60s
    option http-keep-alive

frontend api
    bind 127.0.0.1:{port}
    default_backend instances

backend instances
    balance roundrobin
    http-reuse always
{servers}
"""


def config(port, backends):
    """The configuration text: round robin over `backends` (ports on 127.0.0.1), connections
    to them kept alive and shared between clients."""
    servers = "\n".join(f"    server instance{index} 127.0.0.1:{backend} check" for index, backend in enumerate(backends))
    return CONFIG.format(port=port, servers=servers)


class Balancer:
    def __init__(self, work_dir, backends):
        self.port = free_port()
        self.path = os.path.join(work_dir, "haproxy.cfg")
        with open(self.path, "w") as f:
            f.write(config(self.port, backends))
        self.process = None

    def start(self):
        self.process = subprocess.Popen(["haproxy", "-f", self.path, "-db"], stdout=subprocess.DEVNULL,
                                        stderr=open(self.path + ".log", "w"))
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"haproxy exited with {self.process.returncode}; see {self.path}.log")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("haproxy did not listen within 10 s")

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(timeout=10)
