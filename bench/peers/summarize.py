#!/usr/bin/env python3
"""Summarises bench.py's results.jsonl: per collector, the highest loss-free rate and what happened above it.
usage: summarize.py results.jsonl [BASELINE=sfacctd] > summary.md

A rate is loss-free when every counted repeat at it processed every sample sent (loss 0); attempts disturbed by
other load on the shared machine are not counted (bench.py redoes them). The highest loss-free rate
is reported as achieved datagrams/s (the sender's measured rate, averaged over the repeats) and the matching flow
samples/s, with the collector's CPU (% of one CPU, user+system, during the send) there. "first lossy" is the lowest
rate with a lossy repeat, split into kernel socket drops and loss inside the collector."""
import json, os, sys
from collections import defaultdict

rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
base = sys.argv[2] if len(sys.argv) > 2 else 'sfacctd'
OTHER_MAX = float(os.environ.get('OTHER_MAX_PCT', '25'))
# An attempt counts when other processes used at most OTHER_MAX % of a CPU during its send (the rule of bench.py
# since 2026-11-30 05:40Z; the first run's driver also redid steps whose sender fell short of 97 % of the target,
# which on this rig happens on a quiet machine too, above ~220k/s: such attempts count here at their achieved rate).
# Every counted attempt is a repeat: a rate is loss-free when all of them lost nothing.
disturbed = defaultdict(int)
for r in rows:
    r['counted'] = r['other_cpu_pct'] <= OTHER_MAX
    if not r['counted']: disturbed[r['collector']] += 1
rows = [r for r in rows if r['counted']]
by = defaultdict(lambda: defaultdict(list))
order = []
for r in rows:
    if r['collector'] not in order: order.append(r['collector'])
    by[r['collector']][r['target_rate']].append(r)

def avg(l, k): return sum(x[k] for x in l) / len(l)

best = {}
print('| collector | highest loss-free target | achieved datagrams/s | flow samples/s | CPU % (usr+sys) | first lossy target: loss % per repeat; sock drops (dg); in-collector loss (samples); CPU % | steps (rate×counted repeats) |')
print('|---|---|---|---|---|---|---|')
for c in order:
    rates = sorted(by[c])
    ok = [t for t in rates if all(x['loss_pct'] == 0 for x in by[c][t])]
    lossy = [t for t in rates if any(x['loss_pct'] > 0 for x in by[c][t])]
    hi = max(ok) if ok else None
    # a loss-free rate above a lossy one is noise luck: report the highest loss-free rate below the first lossy one
    if hi is not None and lossy and hi > min(lossy):
        below = [t for t in ok if t < min(lossy)]
        note = f' (also loss-free at {", ".join(str(t) for t in ok if t > min(lossy))})'
        hi = max(below) if below else None
    else:
        note = ''
    if hi is not None:
        l = by[c][hi]
        best[c] = (avg(l, 'achieved_rate'), avg(l, 'achieved_samples_per_s'))
        cpu = f"{avg(l, 'cpu_pct_during_send'):.0f} ({avg(l, 'cpu_user_pct'):.0f}+{avg(l, 'cpu_sys_pct'):.0f})"
        cells = [f'{hi}{note}', f'{best[c][0]:,.0f}', f'{best[c][1]:,.0f}', cpu]
    else:
        cells = ['none', '-', '-', '-']
    if lossy:
        t = min(lossy); l = by[c][t]
        fl = (f"{t}: {', '.join(str(x['loss_pct']) for x in l)} %; "
              f"{', '.join(str(x['sock_drops_dg']) for x in l)}; {', '.join(str(x['in_collector_loss_samples']) for x in l)}; "
              f"{avg(l, 'cpu_pct_during_send'):.0f}")
    else:
        fl = 'none (not reached)'
    steps = ', '.join(f'{t}×{len(by[c][t])}' for t in rates)
    print(f"| {c} | {' | '.join(cells)} | {fl} | {steps} |")
print()
if base in best:
    for c in order:
        if c != base and c in best:
            print(f'- {c} / {base} (highest loss-free datagrams/s): **{best[c][0] / best[base][0]:.2f}×**')
print()
print('Disturbed attempts (redone, not counted): ' + (', '.join(f'{c} {n}' for c, n in disturbed.items()) or 'none'))
print()
print('Every step (counted repeats):')
print()
print('| collector | target | achieved dg/s | loss % | sock drops dg | in-collector loss | CPU % usr+sys | other CPU % | sender slip ms |')
print('|---|---|---|---|---|---|---|---|---|')
# (achieved below 97 % of the target with little other CPU = the sender's ceiling on this rig)
for c in order:
    for t in sorted(by[c]):
        for x in by[c][t]:
            print(f"| {c} | {t} | {x['achieved_rate']} | {x['loss_pct']} | {x['sock_drops_dg']} | {x['in_collector_loss_samples']} | "
                  f"{x['cpu_pct_during_send']} ({x['cpu_user_pct']}+{x['cpu_sys_pct']}) | {x['other_cpu_pct']} | {x['sender_slipped_ms']} |")
