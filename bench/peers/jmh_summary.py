#!/usr/bin/env python3
"""Summarises a JMH JSON result (run.sh jmh) as markdown: per benchmark the primary score (ops/s: datagrams/s for
decode and process, packets/s for parse) as median and best of the measurement iterations and as JMH's mean ± 99.9 %
error, the secondary counters (samples/s, flow samples/s: median of iterations) and B/op (gc.alloc.rate.norm).
usage: jmh_summary.py jmh.json"""
import json, statistics, sys

def it(m):
    return [x for fork in m['rawData'] for x in fork]

print('| benchmark | mix | median /s | best iteration /s | mean ± error /s | samples/s (median) | flow samples/s (median) | B/op |')
print('|---|---|---|---|---|---|---|---|')
for b in json.load(open(sys.argv[1])):
    name = b['benchmark'].rsplit('.', 2)[-2] + '.' + b['benchmark'].rsplit('.', 1)[-1]
    p = b['primaryMetric']; s = b.get('secondaryMetrics', {})
    unit = 'packets' if 'Parse' in name else 'datagrams'
    med = statistics.median(it(p)); best = max(it(p))
    def sec(k):
        return f"{statistics.median(it(s[k])):,.0f}" if k in s else '-'
    bop = s.get('gc.alloc.rate.norm', {}).get('score')
    print(f"| {name} | {b.get('params', {}).get('mix', '-')} | {med:,.0f} {unit} | {best:,.0f} | {p['score']:,.0f} ± {p['scoreError']:,.0f} | "
          f"{sec('samples')} | {sec('flowSamples')} | {'-' if bop is None else f'{bop:.1f}'} |")
