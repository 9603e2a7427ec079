#!/usr/bin/env python3
"""When does vecflow's collector drop, and what was the JVM doing then? One loopback step (harness method: sender on
CPU 0, CollectorUnderTest on CPU 1, JIT warm-up burst first) with a JFR recording, while the socket's drop counter
and receive queue are polled every 10 ms. Prints drop bursts next to the JFR events that overlap them (GC pauses,
safepoints, compilations >= 2 ms, the inlet thread's CPU).
usage: BENCH_WORK=DIR stalls.py RATE SECONDS OUTDIR     (run.sh prepares DIR: sender, mix.bin; rmem_max 8 MiB)"""
import os, sys, time, json, signal, subprocess, threading
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402  (the harness: sock_info, send, drain, paths)

rate, secs, out = int(float(sys.argv[1])), float(sys.argv[2]), sys.argv[3]
os.makedirs(out, exist_ok=True)
jfr = os.path.join(out, 'stalls.jfr')
os.makedirs(bench.RUN, exist_ok=True)
cmd = ['taskset', '-c', '1', bench.JAVA] + bench.JAVA_OPTS + [
    f'-XX:StartFlightRecording=filename={jfr},settings=profile,dumponexit=true',
    '-cp', os.environ.get('VECFLOW_BENCH_CP', bench.JAR), 'io.vecflow.bench.CollectorUnderTest', '--bind', '127.0.0.1',
    '--port', str(bench.PORT), '--threads', '1', '--rcvbuf', '8388608', '--status', bench.RUN + '/vecflow.status']
p = subprocess.Popen(cmd, stdout=open(os.path.join(out, 'collector.out'), 'w'), stderr=subprocess.STDOUT)
polls = []
try:
    for _ in range(150):
        time.sleep(0.1)
        if bench.sock_info(bench.PORT): break
    time.sleep(0.5)
    if os.environ.get('STALLS_ONE_WARMUP') == '1':   # the harness's first method: one burst (see bench.warmup)
        bench.send(bench.WARMUP[0], bench.WARMUP[1]); bench.drain([p.pid], limit=15); time.sleep(0.5)
    else:
        bench.warmup(p.pid)
    stop = threading.Event()

    def poll():
        while not stop.is_set():
            si = bench.sock_info(bench.PORT)
            polls.append((time.time(), si['drops'], si['rx_queue']))
            time.sleep(0.01)
    t = threading.Thread(target=poll); t.start()
    t0 = time.time()
    so = bench.send(rate, int(rate * secs) // bench.CYCLE_DG * bench.CYCLE_DG)
    time.sleep(0.5); stop.set(); t.join()
finally:
    p.send_signal(signal.SIGTERM)
    try: p.wait(timeout=60)
    except subprocess.TimeoutExpired: p.kill(); p.wait()

d0 = polls[0][1]
bursts, cur = [], None
for (ts, d, q), (ts1, d1, q1) in zip(polls, polls[1:]):
    if d1 > d:
        if cur and ts - cur[1] < 0.05: cur[1] = ts1; cur[2] += d1 - d
        else:
            cur = [ts, ts1, d1 - d]; bursts.append(cur)
print(f'sender: {so.strip()}')
print(f'socket drops during the step: {polls[-1][1] - d0}; max rx_queue seen: {max(q for _, _, q in polls)} bytes; '
      f'{len(bursts)} drop bursts')

def events(kind):
    o = subprocess.run([bench.JAVA.replace('/java', '/jfr'), 'print', '--json', '--events', kind, jfr],
                       capture_output=True, text=True).stdout
    try: return json.loads(o)['recording']['events']
    except Exception: return []

def when(e):  # JFR startTime is ISO-8601 with offset
    from datetime import datetime
    st = datetime.fromisoformat(e['values']['startTime'].replace('Z', '+00:00')).timestamp()
    dur = e['values'].get('duration', 'PT0S')
    import re
    m = re.match(r'PT(?:(\d+)M)?(?:([\d.]+)S)?', dur); d = (int(m.group(1) or 0) * 60 + float(m.group(2) or 0)) if m else 0
    return st, d

ev = []
for kind, label, mind in (('jdk.GarbageCollection', 'GC', 0.0), ('jdk.SafepointBegin', 'safepoint', 0.002),
                          ('jdk.Compilation', 'compile', 0.002), ('jdk.ExecuteVMOperation', 'vm-op', 0.002)):
    for e in events(kind):
        st, d = when(e)
        if d >= mind and t0 - 1 <= st <= polls[-1][0]:
            name = e['values'].get('name') or (e['values'].get('method') or {}).get('name') or e['values'].get('operation') or ''
            ev.append((st, d, label, str(name)[:60]))
ev.sort()
print(f'JVM events during the step (GC, safepoints/VM ops/compilations >= 2 ms): {len(ev)}')
for b in bursts[:40]:
    near = [x for x in ev if x[0] <= b[1] + 0.02 and x[0] + x[1] >= b[0] - 0.2]
    print(f'  drops +{b[2]:6d} at t={b[0] - t0:7.3f}..{b[1] - t0:7.3f} s; JVM events in the 200 ms before/overlapping: ' +
          ('; '.join(f'{l} {n} {d * 1000:.1f} ms at t={s - t0:.3f}' for s, d, l, n in near) or 'none'))
print('all JVM events >= 2 ms during the step:')
for s, d, l, n in ev[:60]:
    print(f'  t={s - t0:7.3f} s  {l:9s} {d * 1000:7.1f} ms  {n}')
json.dump({'polls': polls, 'bursts': bursts, 't0': t0}, open(os.path.join(out, 'polls.json'), 'w'))
