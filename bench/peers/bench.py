#!/usr/bin/env python3
"""Loss-free ingest benchmark for sFlow collectors on loopback.
usage: bench.py COLLECTOR(vecflow|vecflow-enrich|vecflow-mmsg|sfacctd|sfcapd|sink)[,COLLECTOR...] RATE[,RATE...] [DURATION_S=5] [REPEATS=1]
Collector pinned to CPU1 (taskset -c 1), sender pinned to CPU0.

Origin: shared/tools/collector-bench/bench.py (the team's harness), copied into bench/peers. Changes, all additive:
  * collector 'vecflow': io.vecflow.bench.CollectorUnderTest (one inlet thread, 8 MiB SO_RCVBUF, counting sink only)
    from bench/target/benchmarks.jar, with a JIT warm-up burst before each step; processed = rows counted by its sink
    during the step (status file read before the step and after the drain);
  * the cycle (datagrams, flow samples) is read from the payload file instead of being hard-coded (12/21);
  * user and system CPU are reported apart, and so is the loss that is not a kernel socket drop (in-collector loss);
  * STOP_AFTER_LOSSY=N (default 0 = off): stop climbing after N consecutive rates whose every repeat lost samples;
  * the machine is shared: wait for quiet CPUs before a step, redo a disturbed step (RETRIES), never count it;
  * every run line is also written to $BENCH_WORK/results.jsonl with the collector's own counters.
"""
import os, sys, time, signal, subprocess, glob, shutil, json, re, struct, resource

BASE = os.path.dirname(os.path.abspath(__file__))           # read-only: sources and templates
WORK = os.environ.get('BENCH_WORK', '/tmp/collector-bench')  # writable: binaries, payloads, results
RUN = WORK + '/step'; PORT = 6343; PAYLOADS = WORK + '/mix.bin'
HZ = os.sysconf('SC_CLK_TCK')
NOCATCHUP = os.environ.get('NOCATCHUP') == '1'
JAVA = os.environ.get('JAVA_HOME', '/usr/lib/jvm/temurin-25-jdk-amd64') + '/bin/java'
JAR = os.environ.get('VECFLOW_BENCH_JAR', os.path.join(BASE, '..', 'target', 'benchmarks.jar'))
# production flags of the vecflow launcher, plus what the caller adds (e.g. a JFR recording)
JAVA_OPTS = ['--enable-native-access=ALL-UNNAMED', '--sun-misc-unsafe-memory-access=allow'] + \
    os.environ.get('VECFLOW_JAVA_OPTS', '').split()
QUIET_MAX_PCT = float(os.environ.get('QUIET_MAX_PCT', '20'))   # % of one CPU, CPUs 0+1 together
QUIET_WAIT_S = float(os.environ.get('QUIET_WAIT_S', '60'))
OTHER_MAX_PCT = float(os.environ.get('OTHER_MAX_PCT', '25'))   # a step with more foreign CPU than this is redone
RETRIES = int(os.environ.get('RETRIES', '4'))                  # redo a disturbed step at most this often
WARMUP = [int(float(x)) for x in os.environ.get('VECFLOW_WARMUP', '100000,300000').split(',')]  # rate, datagrams


def cycle(path):
    """(datagrams, flow samples) in one cycle of the payload file written by extract.py."""
    with open(path, 'rb') as f:
        if f.read(4) != b'SFP1': raise SystemExit('bad payload file ' + path)
        n = struct.unpack('<I', f.read(4))[0]; flows = 0
        for _ in range(n):
            ln, nflow, _so, _sk, nss = struct.unpack('<IIIII', f.read(20))
            f.seek(8 * nss + ln, 1); flows += nflow
    return n, flows


CYCLE_DG, CYCLE_SAMPLES = cycle(PAYLOADS)


def sock_info(port):
    # Netty's epoll transport opens a dual-stack IPv6 socket even for 127.0.0.1: it shows up in /proc/net/udp6.
    hexport = ':%04X' % port
    for table in ('/proc/net/udp', '/proc/net/udp6'):
        for line in open(table).read().splitlines()[1:]:
            f = line.split()
            if f[1].endswith(hexport):
                return {'rx_queue': int(f[4].split(':')[1], 16), 'drops': int(f[12]), 'inode': f[9], 'table': table}
    return None

def snmp():
    """UDP counters; RcvbufErrors adds the IPv6 MIB (a dual-stack socket counts its drops there)."""
    l = [x.split() for x in open('/proc/net/snmp') if x.startswith('Udp:')]
    d = dict(zip(l[0][1:], map(int, l[1][1:])))
    for x in open('/proc/net/snmp6'):
        k, v = x.split()
        if k == 'Udp6RcvbufErrors': d['RcvbufErrors'] += int(v)
    return d

def softnet_drops():
    return sum(int(l.split()[1], 16) for l in open('/proc/net/softnet_stat'))

def busy_ticks():
    """Busy ticks of CPU 0 and CPU 1 (user nice system irq softirq steal), from /proc/stat."""
    t = 0
    for l in open('/proc/stat'):
        f = l.split()
        if f[0] in ('cpu0', 'cpu1'):
            v = list(map(int, f[1:9])); t += v[0] + v[1] + v[2] + v[5] + v[6] + v[7]
    return t

def wait_quiet(max_wait):
    """The machine is shared: wait (at most max_wait s) until CPUs 0+1 were less than QUIET_MAX_PCT busy over 1 s.
    Returns (seconds waited, busy % of one CPU seen last)."""
    t0 = time.time(); pct = 0.0
    while True:
        b0 = busy_ticks(); time.sleep(1.0); pct = 100.0 * (busy_ticks() - b0) / HZ
        if pct < QUIET_MAX_PCT or time.time() - t0 > max_wait: return round(time.time() - t0, 1), round(pct, 1)

def tree(pid):
    pids = [pid]
    for p in glob.glob('/proc/[0-9]*/stat'):
        try:
            s = open(p).read(); ppid = int(s.rsplit(')', 1)[1].split()[1])
            if ppid == pid: pids.append(int(p.split('/')[2]))
        except Exception: pass
    return pids

def cpu_ticks(pids):
    """pid -> (utime, stime) in ticks; all threads of the process are included."""
    t = {}
    for p in pids:
        try:
            f = open(f'/proc/{p}/stat').read().rsplit(')', 1)[1].split()
            t[p] = (int(f[11]), int(f[12]))
        except Exception: t[p] = (0, 0)
    return t

def total(t): return sum(u + s for u, s in t.values())

def send(rate, count):
    cmd = ['taskset', '-c', '0', WORK + '/sender', PAYLOADS, str(PORT), str(rate), str(count), '0', 'seq'] + \
          (['nocatchup'] if NOCATCHUP else [])
    return subprocess.run(cmd, capture_output=True, text=True, timeout=max(120, 3 * count / rate)).stdout

def drain(pids, limit=60, progress=None):
    """Waits until the socket queue is empty and the collector's CPU time (or the progress() value) stops moving for
    3 polls 0.25 s apart; gives up after `limit` seconds."""
    measure = progress or (lambda: total(cpu_ticks(pids)))
    last = measure(); stable = 0; deadline = time.time() + limit
    while time.time() < deadline:
        time.sleep(0.25)
        si = sock_info(PORT); cur = measure()
        if si and si['rx_queue'] == 0 and cur == last: stable += 1
        else: stable = 0
        last = cur
        if stable >= 3: return True
    return False

def warmup(pid):
    """JIT warm-up of a vecflow collector: two bursts of the same datagrams by two sender processes, each drained
    (CPU quiet). Two, because every sender process restarts the sequence numbers at 1: the step's reset must not be
    the first one the JIT sees, else the collector's LossTracker deoptimises at the step's start (unstable_if) and
    the pipeline runs interpreted for ~0.4 s, long enough to overflow the socket at 125k datagrams/s (stalls.py)."""
    for _ in range(2):
        send(WARMUP[0], max(CYCLE_DG, WARMUP[1] // 2 // CYCLE_DG * CYCLE_DG)); drain([pid], limit=15)
    time.sleep(0.5)

def vecflow_status():
    try:
        return dict((k, int(v)) for k, v in re.findall(r'(\w+)=(\d+)', open(RUN + '/vecflow.status').read()))
    except FileNotFoundError:
        return {}

def start(coll):
    shutil.rmtree(RUN, ignore_errors=True); os.makedirs(RUN + '/sfcapd')
    if coll == 'sfacctd':
        open(RUN + '/sfacctd.conf', 'w').write(open(BASE + '/sfacctd.conf.in').read().replace('@STEP@', RUN))
        cmd = ['taskset', '-c', '1', 'sfacctd', '-f', RUN + '/sfacctd.conf']
    elif coll == 'sfcapd':
        cmd = ['taskset', '-c', '1', 'sfcapd', '-b', '127.0.0.1', '-p', str(PORT), '-w', RUN + '/sfcapd',
               '-B', '8388608', '-t', '3600', '-I', 'bench']
    elif coll == 'sink':
        cmd = ['taskset', '-c', '1', WORK + '/sink', str(PORT), '8388608']
    elif coll in ('vecflow', 'vecflow-enrich', 'vecflow-mmsg'):
        # vecflow: enrichment off (the figures before it existed); vecflow-enrich: every enricher on
        # (BenchEnrichment.full: static metadata, classifiers, networks, AS and country databases)
        # vecflow-mmsg: bench-only prototype, the same pipeline read with recvmmsg (RecvmmsgInlet); not production
        cmd = ['taskset', '-c', '1', JAVA] + JAVA_OPTS + ['-cp', os.environ.get('VECFLOW_BENCH_CP', JAR),
               'io.vecflow.bench.CollectorUnderTest',
               '--bind', '127.0.0.1', '--port', str(PORT), '--threads', '1', '--rcvbuf', '8388608',
               '--status', RUN + '/vecflow.status', '--interval-ms', '200'] + \
              (['--inlet', 'recvmmsg', '--slots', '32', '--slot-bytes', '2048'] if coll == 'vecflow-mmsg' else []) + \
              ['--enrich', 'full' if coll == 'vecflow-enrich' else 'none']
    else:
        raise SystemExit('unknown collector ' + coll)
    out = open(RUN + f'/{coll}.out', 'w')
    p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)   # taskset execs -> same pid
    for _ in range(150):
        time.sleep(0.1)
        if sock_info(PORT) or p.poll() is not None: break
    if p.poll() is not None or not sock_info(PORT):
        stop(coll, p)
        raise SystemExit(f'{coll} did not open udp {PORT}: see {RUN}/{coll}.out')
    time.sleep(0.5)
    warm = {}
    if coll.startswith('vecflow'):
        t0 = time.time(); warmup(p.pid)
        st = vecflow_status()
        warm = {'warmup_datagrams': WARMUP[1], 'warmup_rows': st.get('rows', 0), 'warmup_s': round(time.time() - t0, 2)}
    return p, warm

def stop(coll, p):
    p.send_signal(signal.SIGINT if coll == 'sfacctd' else signal.SIGTERM)
    try: p.wait(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill(); p.wait()

def processed(coll, base):
    if coll == 'sfacctd':
        tot = 0
        for l in open(RUN + '/sfacctd_print.csv').read().splitlines()[1:]:
            tot += int(l.split(',')[-2])
        log = open(RUN + '/sfacctd.log').read()
        miss = len(re.findall(r'missing data|Missed', log, re.I))
        return tot, {'pmacct_missing_data_warnings': miss}
    if coll == 'sfcapd':
        files = glob.glob(RUN + '/sfcapd/nfcapd.*')
        tot = 0
        for f in files:
            o = subprocess.run(['nfdump', '-r', f, '-I'], capture_output=True, text=True).stdout
            tot += int(re.search(r'^Flows: (\d+)', o, re.M).group(1))
        return tot, {'files': len(files)}
    if coll == 'sink':
        o = open(RUN + '/sink.out').read(); n = int(re.search(r'sink_received=(\d+)', o).group(1))
        return n * CYCLE_SAMPLES // CYCLE_DG, {}
    if coll.startswith('vecflow'):
        st = vecflow_status()
        d = {k: st.get(k, 0) - base.get(k, 0) for k in ('rows', 'datagrams', 'bad_datagrams', 'sink_errors',
                                                       'duplicate_datagrams')}
        # duplicate_datagrams: datagrams the collector recognised as exact copies of one seen a moment ago (same
        # sequence, uptime and content: LossTracker) and stored once; the replayed mix repeats itself
        return d['rows'], {'vecflow_datagrams': d['datagrams'], 'vecflow_bad_datagrams': d['bad_datagrams'],
                           'vecflow_sink_errors': d['sink_errors'],
                           'vecflow_duplicate_datagrams': d['duplicate_datagrams']}

def step(coll, rate, dur):
    count = max(CYCLE_DG * 1000, int(rate * dur) // CYCLE_DG * CYCLE_DG)
    exp_samples = count // CYCLE_DG * CYCLE_SAMPLES
    p, warm = start(coll)
    try:
        pids = tree(p.pid)
        base = vecflow_status() if coll.startswith('vecflow') else {}
        s0, n0, sd0, c0 = sock_info(PORT), snmp(), softnet_drops(), cpu_ticks(pids)
        ru0, b0 = resource.getrusage(resource.RUSAGE_CHILDREN), busy_ticks()
        so = send(rate, count)
        t1 = time.time()
        c1 = cpu_ticks(pids)
        ru1, b1 = resource.getrusage(resource.RUSAGE_CHILDREN), busy_ticks()
        # vecflow's JVM has housekeeping threads: its drain waits for the row count (status file) instead of CPU
        drained = drain(pids, progress=(lambda: vecflow_status().get('rows')) if coll.startswith('vecflow') else None)
        t2 = time.time()
        s1, n1, sd1, c2 = sock_info(PORT), snmp(), softnet_drops(), cpu_ticks(pids)
    finally:
        stop(coll, p)
    proc, extra = processed(coll, base)
    m = dict(re.findall(r'(\w+)=([\d.]+)', so))
    el = float(m['elapsed']); sent = int(m['sent'])
    sock_drops = s1['drops'] - s0['drops']
    lost = exp_samples - proc
    cpu_send = sum(c1[k][0] + c1[k][1] - c0[k][0] - c0[k][1] for k in pids) / HZ
    cpu_user = sum(c1[k][0] - c0[k][0] for k in pids) / HZ
    cpu_sys = sum(c1[k][1] - c0[k][1] for k in pids) / HZ
    sender_cpu = (ru1.ru_utime + ru1.ru_stime) - (ru0.ru_utime + ru0.ru_stime)
    # CPU used on CPUs 0+1 by anything but the collector and the sender (other users of this shared machine, and
    # loopback softirq work not charged to the sender)
    other = (b1 - b0) / HZ - cpu_send - sender_cpu
    cpu_total = sum(c2[k][0] + c2[k][1] - c0[k][0] - c0[k][1] for k in pids) / HZ
    r = dict(collector=coll, target_rate=rate, sent=sent, sent_samples=exp_samples, elapsed_s=round(el, 3),
             achieved_rate=round(sent / el), achieved_samples_per_s=round(sent * CYCLE_SAMPLES / CYCLE_DG / el),
             processed_samples=proc,
             processed_samples_per_s=round(proc / el), processed_dg_equiv_per_s=round(proc * CYCLE_DG / CYCLE_SAMPLES / el),
             loss_pct=round(100.0 * lost / exp_samples, 4),
             sock_drops_dg=sock_drops, sock_drop_pct=round(100.0 * sock_drops / sent, 4),
             # samples lost inside the collector: the loss not explained by kernel socket drops (estimated with the
             # mix's mean samples per datagram)
             in_collector_loss_samples=round(lost - sock_drops * CYCLE_SAMPLES / CYCLE_DG),
             rcvbuf_errors=n1['RcvbufErrors'] - n0['RcvbufErrors'], softnet_drops=sd1 - sd0,
             cpu_pct_during_send=round(100 * cpu_send / el, 1), cpu_user_pct=round(100 * cpu_user / el, 1),
             cpu_sys_pct=round(100 * cpu_sys / el, 1), sender_cpu_pct=round(100 * sender_cpu / el, 1),
             other_cpu_pct=round(100 * other / el, 1), cpu_pct_incl_drain=round(100 * cpu_total / el, 1),
             drain_s=round(t2 - t1, 2), drained=drained,
             per_proc_cpu_s={str(k): (sum(c2[k]) - sum(c0[k])) / HZ for k in pids},
             sender_max_lateness_ms=float(m.get('max_lateness_ms', 0)), sender_slipped_ms=float(m.get('slipped_ms', 0)),
             send_errs=int(m.get('send_errs', 0)), nocatchup=NOCATCHUP, cycle_dg=CYCLE_DG, cycle_samples=CYCLE_SAMPLES,
             time=time.strftime('%Y-%m-%dT%H:%M:%S%z'), **warm, **extra)
    return r

def line(r):
    return (f"{r['collector']:8s} tgt={r['target_rate']:>7} ach={r['achieved_rate']:>7} sent={r['sent']:>8} proc_samples={r['processed_samples']:>8}/{r['sent_samples']:<8} "
            f"loss={r['loss_pct']:>8}% sockdrop={r['sock_drops_dg']:>7} incoll={r['in_collector_loss_samples']:>6} rcvbuferr={r['rcvbuf_errors']:>7} softnet={r['softnet_drops']} "
            f"cpu={r['cpu_pct_during_send']}% (usr {r['cpu_user_pct']} sys {r['cpu_sys_pct']})/{r['cpu_pct_incl_drain']}% other={r['other_cpu_pct']}% "
            f"drain={r['drain_s']}s late={r['sender_max_lateness_ms']}ms slip={r['sender_slipped_ms']}ms {r.get('pmacct_missing_data_warnings','')}"
            f"{'' if r['counted'] else '  [disturbed: not counted]'}")

if __name__ == '__main__':
    # a SIGTERM (timeout, Ctrl-C from a wrapper) unwinds through step()'s finally, which stops the collector
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    # COLLECTOR may be a comma list: the collectors then take turns at each rate and repeat (rate -> repeat ->
    # collector), so that the shared machine's noise falls on all of them alike.
    colls = sys.argv[1].split(','); rates = [int(float(x)) for x in sys.argv[2].split(',')]
    dur = float(sys.argv[3]) if len(sys.argv) > 3 else 5; reps = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    stop_after = int(os.environ.get('STOP_AFTER_LOSSY', '0'))
    lossy_run = {c: 0 for c in colls}; stopped = set()
    with open(WORK + '/results.jsonl', 'a') as fo:
        for rate in rates:
            all_lossy = {c: True for c in colls}
            for i in range(reps):
                for coll in colls:
                    if coll in stopped: continue
                    # A disturbed attempt (sender short of the target, or others using the CPUs) is redone and never
                    # counts, lossy or not; a repeat whose every attempt was disturbed is inconclusive.
                    for attempt in range(RETRIES + 1):
                        waited, quiet_pct = wait_quiet(QUIET_WAIT_S)
                        r = step(coll, rate, dur)
                        # Noise = other processes on the CPUs. A sender that falls short of the target on a quiet
                        # machine has hit the rig's ceiling (on loopback CPU 0 also does the kernel's receive work):
                        # that step counts, at its achieved rate, and is flagged sender_short.
                        disturbed = r['other_cpu_pct'] > OTHER_MAX_PCT
                        r.update(rep=i, attempt=attempt, quiet_wait_s=waited, busy_before_pct=quiet_pct,
                                 sender_short=r['achieved_rate'] < 0.97 * rate,
                                 disturbed=disturbed, counted=not disturbed)
                        fo.write(json.dumps(r) + '\n'); fo.flush()
                        print(line(r), flush=True)
                        if r['counted']: break
                    if r['counted']:
                        all_lossy[coll] = all_lossy[coll] and r['loss_pct'] > 0
                    else:
                        all_lossy[coll] = False   # inconclusive: do not let noise stop the climb
            for coll in colls:
                if coll in stopped: continue
                lossy_run[coll] = lossy_run[coll] + 1 if all_lossy[coll] else 0
                if stop_after and lossy_run[coll] >= stop_after:
                    print(f'{coll}: {lossy_run[coll]} consecutive lossy rates, stopping its climb', flush=True)
                    stopped.add(coll)
            if len(stopped) == len(colls): break
