#!/usr/bin/env python3
"""Summary of bench/hsflowd-throughput.sh: results.jsonl (+ the agent's log) -> markdown on stdout.

A target rate is loss-free when every counted repeat delivered every sample sent; the headline is the highest
loss-free target below the first lossy one (strict), with the samples/s that reached the sink at it.
"""
import json
import sys
from collections import OrderedDict

rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
agent_log = open(sys.argv[2]).read().strip().splitlines() if len(sys.argv) > 2 else []
by_rate = OrderedDict()
for r in rows:
    if r["counted"]:
        by_rate.setdefault(r["target"], []).append(r)

print("| target samples/s | repeats | achieved samples/s | received at the sink samples/s | lost | agent CPU % | "
      "other CPU % | loss-free |")
print("|---|---|---|---|---|---|---|---|")
strict = None
first_lossy = False
for rate, rs in by_rate.items():
    ok = all(r["loss_free"] for r in rs)
    print("| {:,} | {} | {} | {} | {} | {} | {} | {} |".format(
        rate, len(rs), " / ".join("{:,.0f}".format(r["achieved"]) for r in rs),
        " / ".join("{:,.0f}".format(r["received_per_s"]) for r in rs),
        " / ".join(str(r["lost"]) for r in rs), " / ".join("{:.0f}".format(r["agent_cpu_pct"]) for r in rs),
        " / ".join("{:.0f}".format(r["other_cpu_pct"]) for r in rs), "yes" if ok else "**no**"))
    if not ok:
        first_lossy = True
    elif not first_lossy:
        strict = (rate, rs)
print()
if strict:
    rate, rs = strict
    print("**Highest loss-free rate (strict: below the first lossy target): {:,} samples/s target; {} samples/s "
          "reached the sink (min of {} repeat(s)), agent CPU {}% of one core.**".format(
              rate, "{:,.0f}".format(min(r["received_per_s"] for r in rs)), len(rs),
              "{:.0f}".format(max(r["agent_cpu_pct"] for r in rs))))
else:
    print("**No loss-free rate.**")
redone = [r for r in rows if not r["counted"]]
print()
print("Steps redone because other processes were busy: {}.".format(len(redone)))
if agent_log:
    print()
    print("Agent at exit: `{}`".format(agent_log[-1]))
