#!/usr/bin/env python3
"""Summary of bench/agent-throughput.sh's results.jsonl: per batch, per variant, per rate — the worst repeat's
delivery, the agent's CPU and ns per sample (median of repeats), RSS; then the highest loss-free rate per variant and
each variant's CPU per sample relative to the first variant at equal rates."""
import collections
import json
import statistics
import sys

rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
agents = list(dict.fromkeys(r["agent"] for r in rows))
by = collections.defaultdict(list)
for r in rows:
    by[(r["batch"], r["agent"], r["rate"])].append(r)
print("# Agent throughput (bench/agent-throughput.sh)\n")
print("loss-free = every sequence number arrived exactly once in every repeat; CPU = agent user+system, % of one CPU "
      "during the send; ns/sample = agent CPU time / samples sent (median of repeats)\n")
for batch in sorted({r["batch"] for r in rows}, reverse=True):
    print(f"## {batch} PSAMPLE message(s) per netlink datagram\n")
    print("| variant | target/s | achieved/s (min) | missing (max) | dup | loss-free | CPU % | user % | ns/sample "
          "| RSS MiB | peak RSS MiB | other CPU % |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    rates = sorted({r["rate"] for r in rows if r["batch"] == batch})
    for a in agents:
        for rate in rates:
            rs = by.get((batch, a, rate))
            if not rs:
                continue
            print(f"| {a} | {rate:,} | {min(r['achieved'] for r in rs):,.0f} | {max(r['missing'] for r in rs):,} | "
                  f"{max(r['duplicates'] for r in rs)} | {'yes' if all(r['loss_free'] for r in rs) else 'no'} | "
                  f"{statistics.median(r['agent_cpu_pct'] for r in rs):.1f} | "
                  f"{statistics.median(r['agent_user_pct'] for r in rs):.1f} | "
                  f"{statistics.median(r['agent_ns_per_sample'] for r in rs):,.0f} | "
                  f"{max(r.get('VmRSS', 0) for r in rs) / 1024:.0f} | {max(r.get('VmHWM', 0) for r in rs) / 1024:.0f} | "
                  f"{max(r['other_cpu_pct'] for r in rs):.0f} |")
    print()
    for a in agents:
        ok = [rate for rate in rates if by.get((batch, a, rate)) and all(r["loss_free"] for r in by[(batch, a, rate)])]
        best = max(ok) if ok else None
        ach = min(r["achieved"] for r in by[(batch, a, best)]) if best else 0
        ratios = []
        for rate in rates:
            x, base = by.get((batch, a, rate)), by.get((batch, agents[0], rate))
            if x and base:
                ratios.append(statistics.median(r["agent_ns_per_sample"] for r in x)
                              / statistics.median(r["agent_ns_per_sample"] for r in base))
        rtxt = ", ".join(f"{q:.2f}" for q in ratios)
        print(f"- **{a}**: highest loss-free target {best:,} samples/s (achieved ≥ {ach:,.0f})" if best else
              f"- **{a}**: no loss-free rate", end="")
        print(f"; CPU per sample / {agents[0]}'s at the same rates: {rtxt}" if a != agents[0] else "")
    print()
