"""The benchmark harness behind scripts/bench.py: wrk runs (wrk.py), the servers compared
(stackmob_side.py, pocketbase_side.py, haproxy.py) and the table (report.py)."""
