#!/usr/bin/env python3
"""Markdown summary of bench/e2e.sh's results.jsonl: one row per step, CPU and memory per stage."""
import json
import sys

STAGES = ("dataplane", "agent", "inlet", "kafka", "outlet", "clickhouse")


def main(path):
    rows = [json.loads(line) for line in open(path) if line.strip()]
    print("# bench/e2e.sh\n")
    print("Flow samples per second through generator -> dataplane -> PSAMPLE -> agent -> inlet -> Kafka -> outlet -> "
          "ClickHouse (bench/e2e/driver.py has the method): lost in the window = the dataplane's FIFO drops in the "
          "window + PSAMPLE sent over the whole run - unique (AgentAddress, SourceIdIndex, SampleSequence) in "
          "ClickHouse; CPU in % of one CPU over the measured window.\n")
    print("| target/s | window s | achieved samples/s | in the window | sent in all | unique in ClickHouse | "
          "lost in the window (where) | dup | lost in the warm-up: FIFO / after it | Kafka lag at stop / peak (records) | datagrams/s | "
          "drained s | sustained | " + " | ".join(f"CPU {s}" for s in STAGES) + " | CPU machine |")
    print("|" + "---|" * (13 + len(STAGES) + 1))
    for r in rows:
        c = r["cpu_pct"]
        print(f"| {r['target']:,} | {r['window_s']} | {r['samples_per_s']:,.0f} | {r['measured_samples']:,} | "
              f"{r['psample_sent']:,} | {r['unique']:,} | {r['loss']:,} {r['loss_at']} | {r['duplicates']:,} | "
              f"{r['warmup_fifo_drops']:,} / {r.get('downstream_loss_in_warmup', 'n/a')} | {r['lag_at_stop']:,.0f} / {r['peak_lag']:,.0f} | "
              f"{r['datagrams_per_s']:,.0f} | {r['drain_s']} | {'**yes**' if r['sustained'] else 'no'} | "
              + " | ".join(f"{c.get(s, float('nan')):.1f}" for s in STAGES) + f" | {c.get('machine', 0):.1f} |")
    print("\nMemory per stage (MiB): peak RSS during the run / VmHWM at the end; JVM heap used / committed after "
          "the drain (jcmd GC.heap_info).\n")
    print("| target/s | " + " | ".join(STAGES) + " | heap agent | heap inlet | heap outlet |")
    print("|" + "---|" * (1 + len(STAGES) + 3))
    for r in rows:
        cells = []
        for s in STAGES:
            p, h = r["peak_rss_kb"].get(s), r["hwm_kb"].get(s)
            cells.append(f"{(p or 0) / 1024:.0f} / {(h or 0) / 1024:.0f}")
        heaps = []
        for s in ("agent", "inlet", "outlet"):
            hp = r["heap"].get(s, {})
            u, cm = hp.get("used_kb"), hp.get("committed_kb")
            heaps.append(f"{u / 1024:.0f} / {cm / 1024:.0f}" if u is not None and cm is not None else "n/a")
        print(f"| {r['target']:,} | " + " | ".join(cells) + " | " + " | ".join(heaps) + " |")


if __name__ == "__main__":
    main(sys.argv[1])
