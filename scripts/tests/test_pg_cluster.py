"""scripts/pg_cluster.py: the argument split (options before `--`, the command after it) and the
URL of the cluster's Unix socket."""
import importlib.util
import os
import unittest

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pg_cluster.py")
spec = importlib.util.spec_from_file_location("pg_cluster", PATH)
pg_cluster = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pg_cluster)


class SplitCommandTests(unittest.TestCase):
    def test_options_without_a_command(self):
        self.assertEqual(pg_cluster.split_command(["stop", "--dir", "/tmp/x"]), (["stop", "--dir", "/tmp/x"], []))

    def test_the_command_keeps_its_own_options_and_dashes(self):
        own, command = pg_cluster.split_command(["run", "--", "swift", "test", "--skip-build", "--", "x"])
        self.assertEqual(own, ["run"])
        self.assertEqual(command, ["swift", "test", "--skip-build", "--", "x"])

    def test_run_fails_when_the_command_fails(self):
        # With the variable set no cluster is started: only the command's status is checked.
        previous = os.environ.get("STACKMOB_TEST_POSTGRESQL_URL")
        os.environ["STACKMOB_TEST_POSTGRESQL_URL"] = "postgres://unused@127.0.0.1:1/x"
        try:
            self.assertEqual(pg_cluster.run(["false"]), 1)
            self.assertEqual(pg_cluster.run(["true"]), 0)
        finally:
            if previous is None:
                del os.environ["STACKMOB_TEST_POSTGRESQL_URL"]
            else:
                os.environ["STACKMOB_TEST_POSTGRESQL_URL"] = previous


class SocketURLTests(unittest.TestCase):
    def test_the_socket_is_the_directory_as_libpqs_host_parameter(self):
        self.assertEqual(pg_cluster.socket_url("postgres://postgres@127.0.0.1:5499/postgres", "/tmp/stackmob-pg-x"),
                         "postgres://postgres@127.0.0.1:5499/postgres?host=/tmp/stackmob-pg-x")


if __name__ == "__main__":
    unittest.main()
