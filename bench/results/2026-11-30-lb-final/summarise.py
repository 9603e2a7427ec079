# Summarises a LbGraphBenchmark JSON of all 20 modes: python3 summarise.py jmh.json
import json, sys
d = json.load(open(sys.argv[1]))
r = {}
for b in d:
    m = b['params']['mode']
    s = b['primaryMetric']['score']
    r[m] = (s, b['primaryMetric']['scoreError'], 1e9 / s, b['secondaryMetrics']['gc.alloc.rate.norm']['score'])
l2 = r['l2-xconnect'][2]
print("| mode | Mpps (± 99.9 %) | ns/packet | × l2-xconnect | B/op |\n|---|---|---|---|---|")
for m, (s, e, ns, bop) in r.items():
    print(f"| {m} | {s/1e6:.2f} ± {e/1e6:.2f} | {ns:.1f} | {ns/l2:.2f} | {bop:.3f} |")
print("\n| flows | lb-hit / l2 | lb-new / l2 | srlb-hit / lb6-hit | srlb-new / lb6-new |")
print("|---|---|---|---|---|")
for f in ['1k', '100k', '1m']:
    print(f"| {f} | {r['lb-hit-'+f][2]/l2:.2f}× | {r['lb-new-'+f][2]/l2:.2f}× "
          f"| {r['srlb-hit-'+f][2]/r['lb6-hit-'+f][2]:.2f}× | {r['srlb-new-'+f][2]/r['lb6-new-'+f][2]:.2f}× |")
print(f"\nip4-routed / l2-xconnect: {r['ip4-routed'][2]/l2:.2f}×")
