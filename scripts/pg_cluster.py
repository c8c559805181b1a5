#!/usr/bin/env python3
"""A throw-away PostgreSQL cluster for tests: `start` prints its URL, `stop` removes it.

    python3 scripts/pg_cluster.py start --dir /tmp/smpg   # prints postgres://…
    python3 scripts/pg_cluster.py stop --dir /tmp/smpg
    python3 scripts/pg_cluster.py run -- swift test --skip-build

`run` gives the command STACKMOB_TEST_POSTGRESQL_URL: the one already set (an existing database
the tests may fill with schemas of their own), or a throw-away cluster's, removed afterwards. A
throw-away cluster's Unix socket is in STACKMOB_TEST_POSTGRESQL_SOCKET_URL (`?host=<directory>`).

initdb and postgres refuse to run as root, so as root the cluster runs as the `postgres` user.
It listens on loopback only, on a free port, with trust authentication (a test cluster holds no
data worth a password and is reachable from this machine only), and without fsync: the tests kill
server instances, never the database, so its own crash safety is not what they measure.
"""

import argparse
import glob
import os
import shutil
import socket
import subprocess
import sys
import tempfile


def postgres_bin(name):
    """Debian keeps the server programs in /usr/lib/postgresql/<version>/bin."""
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    if not candidates:
        sys.exit(f"pg_cluster: {name} not found (apt-get install postgresql)")
    return candidates[-1]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def as_cluster_user(command):
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--"] + command
    return command


def start(directory, durable=False):
    """Starts a cluster in `directory` and returns its URL. Without `durable` it runs without
    fsync (see above); the benchmarks ask for PostgreSQL's default durability."""
    os.makedirs(directory, exist_ok=True)
    if os.geteuid() == 0:
        shutil.chown(directory, "postgres", "postgres")
    data = os.path.join(directory, "data")
    subprocess.run(as_cluster_user([postgres_bin("initdb"), "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8",
                                    "--locale=C.UTF-8"]), check=True, stdout=subprocess.DEVNULL)
    port = free_port()
    options = f"-c listen_addresses=127.0.0.1 -c port={port} -c unix_socket_directories={directory} -c max_connections=1000"
    if not durable:
        options += " -c fsync=off"
    subprocess.run(as_cluster_user([postgres_bin("pg_ctl"), "-D", data, "-l", os.path.join(directory, "log"), "-o", options,
                                    "-w", "start"]), check=True, stdout=subprocess.DEVNULL)
    url = f"postgres://postgres@127.0.0.1:{port}/postgres"
    with open(os.path.join(directory, "url"), "w") as f:
        f.write(url)
    return url


def socket_url(url, directory):
    """The cluster's URL through its Unix socket, libpq's way: the host is the socket's directory."""
    return f"{url}?host={directory}"


def stop(directory):
    data = os.path.join(directory, "data")
    if os.path.isdir(data):
        subprocess.run(as_cluster_user([postgres_bin("pg_ctl"), "-D", data, "-m", "immediate", "stop"]),
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    shutil.rmtree(directory, ignore_errors=True)


def run(command):
    """Runs `command` with STACKMOB_TEST_POSTGRESQL_URL set; returns its exit status."""
    if os.environ.get("STACKMOB_TEST_POSTGRESQL_URL"):
        return subprocess.run(command).returncode
    directory = tempfile.mkdtemp(prefix="stackmob-pg-")
    try:
        url = start(directory)
        environment = {**os.environ, "STACKMOB_TEST_POSTGRESQL_URL": url,
                       "STACKMOB_TEST_POSTGRESQL_SOCKET_URL": socket_url(url, directory)}
        return subprocess.run(command, env=environment).returncode
    finally:
        stop(directory)


def split_command(argv):
    """(this script's arguments, the command): in `run -- COMMAND…` everything after the first
    `--` is the command, never options of this script."""
    if "--" not in argv:
        return argv, []
    index = argv.index("--")
    return argv[:index], argv[index + 1:]


def main(argv=None):
    own, command = split_command(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=["start", "stop", "run"])
    parser.add_argument("--dir", help="where the cluster lives (start, stop; removed by stop)")
    args = parser.parse_args(own)
    if args.action == "run":
        if not command:
            parser.error("run needs a command after --")
        sys.exit(run(command))
    if not args.dir:
        parser.error(f"{args.action} needs --dir")
    print(start(args.dir)) if args.action == "start" else stop(args.dir)


if __name__ == "__main__":
    main()
