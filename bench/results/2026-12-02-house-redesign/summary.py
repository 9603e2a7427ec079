#!/usr/bin/env python3
"""Summarises run.sh's output folder: the dataplane tables of ../2026-12-01-ingress-output-ifindex/summary.py (the
same files: overhead-*.txt, jmh-*.json), then LbGraphBenchmark ns/packet and B/packet per paired round.
Usage: summary.py OUTDIR > summary.md"""
import glob, json, os, re, runpy, sys

here = os.path.dirname(os.path.abspath(__file__))
runpy.run_path(os.path.join(here, "..", "2026-12-01-ingress-output-ifindex", "summary.py"), run_name="__main__")

out = sys.argv[1]
rows = {}
for f in sorted(glob.glob(os.path.join(out, "lb-*-r*.json"))):
    label, rnd = re.search(r"lb-(\w+)-r(\d+)\.json", f).groups()
    for b in json.load(open(f)):
        pm = b["primaryMetric"]
        alloc = b.get("secondaryMetrics", {}).get("gc.alloc.rate.norm", {}).get("score", float("nan"))
        rows[(label, int(rnd), b["params"]["mode"])] = (pm["score"], pm["scoreError"], pm["scoreUnit"], alloc)
print("\n## JMH LbGraphBenchmark (-f 1 -wi 3 -i 4 -prof gc), paired rounds\n")
print("| round | version | mode | score ± error | B/packet |")
print("|---|---|---|---|---|")
for (label, rnd, mode), (s, e, unit, a) in sorted(rows.items(), key=lambda k: (k[0][1], k[0][2], k[0][0] != "before")):
    print(f"| {rnd} | {label} | {mode} | {s:,.1f} ± {e:,.1f} {unit} | {a:.3f} |")
print("\nafter / before score, per mode and round:\n")
print("| mode | round 1 | round 2 |")
print("|---|---|---|")
for mode in sorted({k[2] for k in rows}):
    cells = []
    for rnd in (1, 2):
        b, a = rows.get(("before", rnd, mode)), rows.get(("after", rnd, mode))
        cells.append(f"{a[0] / b[0]:.3f}" if a and b else "")
    print(f"| {mode} | " + " | ".join(cells) + " |")
