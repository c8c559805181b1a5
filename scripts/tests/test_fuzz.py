"""The output parsing and file handling of scripts/fuzz.py (the libFuzzer runner)."""
import importlib.util
import os
import tempfile
import unittest

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fuzz.py")
spec = importlib.util.spec_from_file_location("fuzz", PATH)
fuzz = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fuzz)

# Trimmed from a real run of FuzzJSON.
OUTPUT = """INFO: Running with entropic power schedule (0xFF, 100).
INFO: Seed: 1234
INFO:        7 files found in Fuzz/corpus/FuzzJSON
#2\tINITED cov: 310 ft: 420 corp: 6/320b exec/s: 0 rss: 48Mb
#57\tNEW    cov: 312 ft: 425 corp: 7/334b lim: 4 exec/s: 0 rss: 49Mb L: 14/14 MS: 2 ChangeBit-InsertByte-
#65536\tpulse  cov: 415 ft: 1900 corp: 240/12Kb lim: 652 exec/s: 21845 rss: 60Mb
#1048576\tREDUCE cov: 433 ft: 2100 corp: 260/1234Kb lim: 4096 exec/s: 8738 rss: 81Mb L: 9/4096 MS: 1 EraseBytes-
#1050000\tDONE   cov: 433 ft: 2101 corp: 261/1235Kb lim: 4096 exec/s: 8750 rss: 81Mb
Done 1050000 runs in 120 second(s)
stat::number_of_executed_units: 1050000
stat::average_exec_per_sec:     8750
stat::new_units_added:          255
stat::slowest_unit_time_sec:    0
stat::peak_rss_mb:              81
"""


class StatusLineTests(unittest.TestCase):
    def test_a_new_unit_line(self):
        status = fuzz.parse_status_line("#57\tNEW    cov: 312 ft: 425 corp: 7/334b lim: 4 exec/s: 0 rss: 49Mb L: 14/14 MS: 2 X-")
        self.assertEqual(status["runs"], 57)
        self.assertEqual(status["event"], "NEW")
        self.assertEqual((status["cov"], status["ft"], status["exec/s"], status["rss"]), (312, 425, 0, 49))
        self.assertEqual((status["corpus_units"], status["corpus_bytes"]), (7, 334))

    def test_corpus_sizes_in_kilobytes_and_megabytes(self):
        self.assertEqual(fuzz.parse_status_line("#9\tpulse  cov: 1 ft: 1 corp: 240/12Kb exec/s: 5")["corpus_bytes"], 12 * 1024)
        self.assertEqual(fuzz.parse_status_line("#9\tpulse  cov: 1 ft: 1 corp: 2/3Mb exec/s: 5")["corpus_bytes"], 3 * 1024 * 1024)

    def test_other_lines_are_not_status_lines(self):
        for line in ["INFO: Seed: 1234", "Done 1050000 runs in 120 second(s)", "stat::peak_rss_mb: 81", "", "#not a number"]:
            self.assertIsNone(fuzz.parse_status_line(line), line)


class SummaryTests(unittest.TestCase):
    def test_final_stats(self):
        stats = fuzz.parse_final_stats(OUTPUT)
        self.assertEqual(stats["number_of_executed_units"], 1050000)
        self.assertEqual(stats["new_units_added"], 255)
        self.assertEqual(stats["peak_rss_mb"], 81)

    def test_figures_of_a_run(self):
        self.assertEqual(fuzz.summarize(OUTPUT), {
            "runs": 1050000, "exec_per_sec": 8750, "cov": 433, "ft": 2101, "new_units": 255, "peak_rss_mb": 81})

    def test_a_crashed_run_has_no_final_stats(self):
        crashed = OUTPUT.split("Done")[0].replace("DONE  ", "NEW   ") + "==1==ERROR: AddressSanitizer: SEGV\n"
        figures = fuzz.summarize(crashed)
        self.assertEqual((figures["runs"], figures["exec_per_sec"], figures["cov"], figures["new_units"]), (1050000, 8750, 433, 0))

    def test_no_output(self):
        self.assertEqual(fuzz.summarize("")["runs"], 0)


class FileTests(unittest.TestCase):
    def test_targets_are_read_from_the_package(self):
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "Package.swift")
            with open(path, "w") as file:
                file.write('func fuzzTarget(_ name: String) {}\n        fuzzTarget("FuzzJSON", [core]),\n        fuzzTarget("FuzzRange", [core]),\n')
            self.assertEqual(fuzz.target_names(path), ["FuzzJSON", "FuzzRange"])

    def test_the_real_package_declares_targets(self):
        self.assertIn("FuzzJSON", fuzz.target_names(os.path.join(fuzz.FUZZ_DIR, "Package.swift")))

    def test_only_failure_artifacts_move_to_the_regressions(self):
        with tempfile.TemporaryDirectory() as directory:
            source = os.path.join(directory, "artifacts")
            regressions = os.path.join(directory, "regressions", "FuzzJSON")
            os.makedirs(source)
            for name in ["crash-abc", "timeout-def", "oom-1", "leak-2", "slow-unit-3", "other"]:
                with open(os.path.join(source, name), "w") as file:
                    file.write(name)
            moved = fuzz.collect_artifacts(source, regressions)
            self.assertEqual(moved, ["crash-abc", "leak-2", "oom-1", "timeout-def"])
            self.assertEqual(sorted(os.listdir(regressions)), moved)
            self.assertEqual(sorted(os.listdir(source)), ["other", "slow-unit-3"])

    def test_no_artifact_creates_no_directory(self):
        with tempfile.TemporaryDirectory() as directory:
            regressions = os.path.join(directory, "regressions")
            self.assertEqual(fuzz.collect_artifacts(directory, regressions), [])
            self.assertFalse(os.path.exists(regressions))
            self.assertEqual(fuzz.collect_artifacts(os.path.join(directory, "missing"), regressions), [])

    def test_run_flags(self):
        flags = fuzz.libfuzzer_flags(120, "/tmp/a")
        self.assertIn("-max_total_time=120", flags)
        self.assertIn("-artifact_prefix=/tmp/a/", flags)
        self.assertIn("-print_final_stats=1", flags)


if __name__ == "__main__":
    unittest.main()
