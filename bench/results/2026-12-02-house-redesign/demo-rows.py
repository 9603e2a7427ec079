import json,sys
# A demo's flow rows without what depends on timing: the receive time and the datagram a sample travelled in.
rows=[]
for l in open(sys.argv[1]):
    j=json.loads(l)
    for k in ('time_received','datagram_sequence'):
        j.pop(k,None)
    rows.append(json.dumps(j,sort_keys=True))
for r in sorted(rows): print(r)
