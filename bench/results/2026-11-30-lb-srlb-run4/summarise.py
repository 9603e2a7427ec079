# Summarises a LbGraphBenchmark JSON: python3 summarise.py jmh.json
import json, sys
d = json.load(open(sys.argv[1]))
r = {}
for b in d:
    m = b['params']['mode']
    s = b['primaryMetric']['score']
    r[m] = (s, b['primaryMetric']['scoreError'], 1e9 / s, b['secondaryMetrics']['gc.alloc.rate.norm']['score'])
print("| mode | Mpps | ± | ns/packet | B/op |\n|---|---|---|---|---|")
for m, (s, e, ns, bop) in r.items():
    print(f"| {m} | {s/1e6:.2f} | {e/1e6:.2f} | {ns:.1f} | {bop:.3f} |")
print("\n| flows | srlb-hit / lb6-hit | srlb-new / lb6-new | lb6-hit / l2-xconnect | lb6-new / l2-xconnect |")
print("|---|---|---|---|---|")
l2 = r['l2-xconnect'][2]
for f in ['1k', '100k', '1m']:
    print(f"| {f} | {r['srlb-hit-'+f][2]/r['lb6-hit-'+f][2]:.2f}× | {r['srlb-new-'+f][2]/r['lb6-new-'+f][2]:.2f}× "
          f"| {r['lb6-hit-'+f][2]/l2:.2f}× | {r['lb6-new-'+f][2]/l2:.2f}× |")
print(f"\nlb-hit-1k (Maglev GRE4 over IPv4) / l2-xconnect: {r['lb-hit-1k'][2]/l2:.2f}×")
