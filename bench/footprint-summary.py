#!/usr/bin/env python3
"""Markdown table of bench/footprint.sh results: footprint-summary.py DIR... (each DIR's *.json, in file order).
MB = 1000 kB of /proc/PID/status VmRSS."""
import json
import pathlib
import sys

print("| configuration | JVM options added to the package's | start → first datagram, ms (median of runs) "
      "| RSS idle, MB | threads idle | RSS at load, MB (max) | flow samples/s at the sink | threads at load |")
print("|---|---|---|---|---|---|---|---|")
for d in sys.argv[1:]:
    for f in sorted(pathlib.Path(d).glob("*.json"), key=lambda p: p.stat().st_mtime):
        r = json.loads(f.read_text())
        print("| %s | `%s` | %d (%s) | %.1f | %d | %.1f | %d | %d |" % (
            r["label"], r["opts"] or "(none)", r["start_ms_median"], r["start_ms"], r["idle_rss_kb"] / 1000,
            r["idle_threads"], r["load_rss_kb_max"] / 1000, r["load_rate_per_s"], r["load_threads"]))
