#!/usr/bin/env python3
"""Where vecflow's collector spends its Java time, from a JFR recording (jdk.ExecutionSample and
jdk.NativeMethodSample of the inlet thread, jdk.ObjectAllocationSample).
usage: jfr_top.py JFR_TOOL RECORDING.jfr"""
import json, subprocess, sys
from collections import Counter

jfr, rec = sys.argv[1], sys.argv[2]

def events(kind):
    o = subprocess.run([jfr, 'print', '--json', '--stack-depth', '64', '--events', kind, rec],
                       capture_output=True, text=True, check=True).stdout
    return json.loads(o)['recording']['events']

def frames(e):
    st = e['values'].get('stackTrace') or {}
    return [f"{f['method']['type']['name'].replace('/', '.')}.{f['method']['name']}" for f in st.get('frames', [])]

def thread(e):
    t = e['values'].get('sampledThread') or e['values'].get('eventThread') or {}
    return t.get('javaName') or t.get('osName') or '?'

# Inclusive buckets, checked from the top frame down: the first that matches a frame of the stack wins.
BUCKETS = [
    ('FlowRow.set (row fill)', ('io.vecflow.collector.FlowRow.',)),
    ('PacketParser.parse (sampled header)', ('io.vecflow.packet.',)),
    ('sink + counters (CountingFlowSink, LongAdder, DecodeStats)', ('io.vecflow.bench.CountingFlowSink', 'java.util.concurrent.atomic.', 'io.vecflow.sflow.DecodeStats')),
    ('SflowDecoder (decode)', ('io.vecflow.sflow.',)),
    ('DatagramProcessor (dispatch)', ('io.vecflow.collector.DatagramProcessor',)),
    ('UdpInlet handler (copy to byte[], sender address, clock)', ('io.vecflow.collector.UdpInlet', 'io.vecflow.collector.EpochNanos', 'java.net.', 'sun.nio.ch.')),
    ('Netty epoll read (recvmsg, DatagramPacket, InetSocketAddress)', ('io.netty.channel.epoll.', 'io.netty.channel.unix.')),
    ('Netty pipeline / buffers / allocator', ('io.netty.',)),
]

def bucket(fs):
    for f in fs:                     # top of stack first
        for name, prefixes in BUCKETS:
            if f.startswith(prefixes):
                return name
    return 'other: ' + (fs[0] if fs else '?')

for kind in ('jdk.ExecutionSample', 'jdk.NativeMethodSample'):
    ev = [e for e in events(kind) if 'epoll' in thread(e).lower() or 'eventloop' in thread(e).lower()
          or 'multithreadioeventloopgroup' in thread(e).lower()]
    allev = events(kind)
    print(f'== {kind}: {len(ev)} samples on the inlet thread ({len(allev)} in all threads)')
    if not ev:
        print('   threads seen:', Counter(thread(e) for e in allev).most_common(8))
        continue
    tops = Counter(fr[0] for fr in map(frames, ev) if fr)
    print('-- top frames (self):')
    for f, n in tops.most_common(25):
        print(f'{100.0 * n / len(ev):6.1f}%  {f}')
    print('-- by component (the innermost vecflow/netty frame of the stack decides):')
    for b, n in Counter(bucket(frames(e)) for e in ev).most_common(20):
        print(f'{100.0 * n / len(ev):6.1f}%  {b}')
    incl = Counter()
    for e in ev:
        for f in set(frames(e)):
            incl[f] += 1
    print('-- inclusive (on the stack):')
    for f, n in incl.most_common(30):
        print(f'{100.0 * n / len(ev):6.1f}%  {f}')
    print()

al = events('jdk.ObjectAllocationSample')
w = Counter(); site = Counter()
for e in al:
    cls = e['values']['objectClass']['name'].replace('/', '.'); wt = e['values'].get('weight', 0)
    w[cls] += wt
    fs = [f for f in frames(e) if not f.startswith(('java.', 'jdk.', 'sun.'))]
    site[(cls, fs[0] if fs else '?')] += wt
tot = sum(w.values()) or 1
print(f'== jdk.ObjectAllocationSample: {len(al)} samples, weight {tot / 1e6:.1f} MB')
for c, n in w.most_common(12):
    print(f'{100.0 * n / tot:6.1f}%  {c}')
print('-- by allocation site (first non-JDK frame):')
for (c, f), n in site.most_common(12):
    print(f'{100.0 * n / tot:6.1f}%  {c}  at {f}')
