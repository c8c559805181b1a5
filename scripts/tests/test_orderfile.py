"""scripts/orderfile.py: the page tracer on a real program, and how pages become a link order."""
import importlib.util
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, SCRIPTS)
spec = importlib.util.spec_from_file_location("orderfile", os.path.join(SCRIPTS, "orderfile.py"))
orderfile = importlib.util.module_from_spec(spec)
spec.loader.exec_module(orderfile)

# Three functions, each on a page of its own; `main` calls `ran` when given an argument.
PROGRAM = textwrap.dedent("""
    #include <stdio.h>
    __attribute__((noinline, aligned(4096))) int ran(int x) { return x * 3 + 1; }
    __attribute__((noinline, aligned(4096))) int never(int x) { return x * 5 + 2; }
    __attribute__((aligned(4096))) int main(int argc, char **argv) { printf("%d\\n", argc > 1 ? ran(argc) : never(argc)); return 0; }
""")


class TracerTests(unittest.TestCase):
    def test_the_functions_entered_are_listed_and_the_program_still_works(self):
        with tempfile.TemporaryDirectory() as work:
            source = os.path.join(work, "program.c")
            with open(source, "w") as f:
                f.write(PROGRAM)
            program, link_map = os.path.join(work, "program"), os.path.join(work, "program.map")
            subprocess.run([orderfile.compiler(), "-O1", "-fPIE", "-pie", "-ffunction-sections", f"-Wl,-Map={link_map}", "-o", program, source],
                           check=True)
            text = orderfile.text_range(subprocess.run(["readelf", "-SW", program], capture_output=True, text=True, check=True).stdout)
            env = {**os.environ, "LD_PRELOAD": orderfile.build_tracer(work), "ORDERFILE_TRACE_OUT": os.path.join(work, "trace"),
                   "ORDERFILE_TEXT": f"{text[0]:x}-{text[1]:x}"}
            run = subprocess.run([program, "x"], env=env, capture_output=True, text=True, check=True)
            self.assertEqual(run.stdout, "7\n")
            traces = [name for name in os.listdir(work) if name.startswith("trace.")]
            self.assertEqual(len(traces), 1)
            with open(os.path.join(work, traces[0])) as f:
                lines = f.readlines()
            self.assertEqual(len(lines), len(set(lines)), "an address is logged once")
            with open(link_map) as f:
                sections = orderfile.ordered_sections(orderfile.map_sections(f.read()), orderfile.first_entries([lines]))
            self.assertIn(".text.ran", sections)
            self.assertNotIn(".text.never", sections)
            self.assertTrue(any(name.endswith(".main") for name in sections), sections)

    def test_without_the_variables_nothing_is_traced(self):
        with tempfile.TemporaryDirectory() as work:
            tracer = orderfile.build_tracer(work)
            env = {key: value for key, value in os.environ.items() if not key.startswith("ORDERFILE_")}
            subprocess.run(["true"], env={**env, "LD_PRELOAD": tracer}, check=True)
            self.assertEqual([name for name in os.listdir(work) if name.startswith("trace.")], [])


class OrderTests(unittest.TestCase):
    # As gold and GNU ld write a map: a long name on a line of its own, a short one followed by
    # the address; a plain `.text`; a discarded section at 0.
    MAP = textwrap.dedent("""\
        .text           0x0000000000001000     0x9000
         .text          0x0000000000001000      0x100 /usr/lib/crt1.o
         .text.first    0x0000000000002000       0x10 a.o
                        0x0000000000002000                first
         .text.$s4Long9someThingVMa
                        0x0000000000002010       0x30 b.o
                        0x0000000000002010                $s4Long9someThingVMa
         .text.untouched
                        0x0000000000004000       0x10 b.o
         .text.late     0x0000000000005000       0x10 c.o
         .text.discarded
                        0x0000000000000000       0x20 d.o
        .fini           0x000000000000a000        0x9
        """)

    def test_map_sections_lists_each_function_section(self):
        self.assertEqual(orderfile.map_sections(self.MAP), [
            (0x2000, 0x10, ".text.first"), (0x2010, 0x30, ".text.$s4Long9someThingVMa"),
            (0x4000, 0x10, ".text.untouched"), (0x5000, 0x10, ".text.late")])

    def test_text_range(self):
        readelf = " [14] .text             PROGBITS        0000000000840880 840880 21d8c1e 00  AX  0   0 64\n"
        self.assertEqual(orderfile.text_range(readelf), (0x840880, 0x840880 + 0x21d8c1e))

    def test_entries_keep_their_first_rank_across_traces(self):
        entries = orderfile.first_entries([["5004\n", "2000\n"], ["2000\n", "\n", "2020\n"]])
        self.assertEqual(entries, {0x5004: 0, 0x2000: 1, 0x2020: 2})

    def test_sections_by_first_entry_and_addresses_outside_any_section_ignored(self):
        entries = {0x5004: 0, 0x2000: 1, 0x2020: 2, 0x2012: 3, 0x3000: 4}
        self.assertEqual(orderfile.ordered_sections(orderfile.map_sections(self.MAP), entries),
                         [".text.late", ".text.first", ".text.$s4Long9someThingVMa"])

    def test_merged_keeps_the_previous_list_first(self):
        self.assertEqual(orderfile.merged([".text.b", ".text.a"], [".text.a", ".text.c"]), [".text.b", ".text.a", ".text.c"])


if __name__ == "__main__":
    unittest.main()
