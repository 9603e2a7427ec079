#!/usr/bin/env python3
"""Summarises run.sh's output folder: DataplaneOverhead on/off ratios and JMH packets/s, B/op, on/off and after/before
ratios per paired round. Usage: summary.py OUTDIR > summary.md"""
import glob, json, os, re, statistics, sys

out = sys.argv[1]
FAM = {"l2-1000": "l2-off", "l2-100": "l2-off", "l2-10000": "l2-off", "ip4-1k-1000": "ip4-1k-off"}

print("## DataplaneOverhead (one JVM per version and round; modes in alternating ~5 ms slices, 300 rounds)\n")
print("Median of the per-round paired ratio sampling-on / sampling-off (same family, adjacent slices).\n")
ratios = {}
for f in sorted(glob.glob(os.path.join(out, "overhead-*-r*.txt"))):
    label, rnd = re.search(r"overhead-(\w+)-r(\d+)\.txt", f).groups()
    for line in open(f):
        m = re.match(r"(\S+)\s+([\d,]+)\s+([\d.]+)\s+([\d.]+) \[", line)
        if m:
            ratios.setdefault((m.group(1), label), []).append((int(rnd), float(m.group(4)), m.group(2)))
modes = ["l2-10000", "l2-1000", "l2-100", "ip4-1k-1000"]
labels = sorted({k[1] for k in ratios}, key=lambda s: (s != "before", s))
print("| mode | " + " | ".join(f"{l} r{r}" for l in labels for r in (1, 2, 3)) + " | " +
      " | ".join(f"{l} median" for l in labels) + " |")
print("|---" * (1 + 4 * len(labels)) + "|")
for m in modes:
    cells, meds = [], []
    for l in labels:
        v = sorted(ratios.get((m, l), []))
        cells += [f"{x[1]:.3f}" for x in v] + [""] * (3 - len(v))
        meds.append(f"**{statistics.median([x[1] for x in v]):.3f}**" if v else "")
    print(f"| {m} | " + " | ".join(cells) + " | " + " | ".join(meds) + " |")

print("\n## JMH DataplaneBenchmark (-f 1 -wi 3 -w 1s -i 5 -r 2s -prof gc), paired rounds\n")
rows = {}
for f in sorted(glob.glob(os.path.join(out, "jmh-*-r*.json"))):
    label, rnd = re.search(r"jmh-(\w+)-r(\d+)\.json", f).groups()
    for b in json.load(open(f)):
        mode = b["params"]["mode"]
        pm = b["primaryMetric"]
        alloc = b.get("secondaryMetrics", {}).get("gc.alloc.rate.norm", {}).get("score", float("nan"))
        rows[(label, int(rnd), mode)] = (pm["score"], pm["scoreError"], alloc)
print("| round | version | mode | packets/s ± error | ns/packet | on/off | B/packet |")
print("|---|---|---|---|---|---|---|")
for (label, rnd, mode), (s, e, a) in sorted(rows.items(), key=lambda k: (k[0][1], k[0][0] != "before", k[0][2])):
    off = rows.get((label, rnd, FAM.get(mode, mode)))
    ratio = f"{s / off[0]:.3f}" if off and mode in FAM else "1"
    print(f"| {rnd} | {label} | {mode} | {s:,.0f} ± {e:,.0f} | {1e9 / s:.1f} | {ratio} | {a:.3f} |")
print("\nafter / before packets/s, per mode and round:\n")
print("| mode | round 1 | round 2 |")
print("|---|---|---|")
for mode in ["l2-off", "l2-1000", "l2-100", "ip4-1k-off", "ip4-1k-1000"]:
    cells = []
    for rnd in (1, 2):
        b, a = rows.get(("before", rnd, mode)), rows.get(("after", rnd, mode))
        cells.append(f"{a[0] / b[0]:.3f}" if a and b else "")
    print(f"| {mode} | " + " | ".join(cells) + " |")
