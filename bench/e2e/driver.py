#!/usr/bin/env python3
"""End-to-end throughput driver (bench/e2e.sh runs it; see that script's header for the method).

One step per target rate (flow samples per second). A step starts, each with the packaged daemons' main classes and
JVM options: the outlet and the inlet (`CollectorMain`, roles outlet / inlet, a new Kafka topic, consumer group and
ClickHouse database per step), the agent (`HsflowdMain`, PSAMPLE over NETLINK_USERSOCK), then runs the dataplane
(`DataplaneMain`: two generator ports in an l2 cross-connect, 1-in-N ingress sampling on both, paced so that
samples/s = the target) for --warmup + --duration seconds. The first --warmup seconds warm every JVM of the chain; the
measured window runs from the scrape (every second) at which the dataplane's metrics show the warm-up's samples taken
to the last scrape before its generators stopped. Over the window it takes each stage's CPU (utime + stime of all its
threads, /proc/PID/stat), RSS, the outlet's Kafka lag and the inlet's socket drops; after the run it waits until the
ClickHouse has every sample sent (or its count stops growing with the outlet's lag 0), takes each JVM's heap (jcmd
GC.heap_info), stops the agent (which prints its counters) and the collector, and counts in ClickHouse:

  rows      count() of the step's flows table
  unique    uniqExact(AgentAddress, SourceIdIndex, SampleSequence): the agent numbers each source's samples

loss in the window = the dataplane's FIFO drops and failed sends from the window's start to its exit (it counts them)
+ every PSAMPLE sent over the whole run but not in ClickHouse (split where it happened: the agent's netlink socket =
PSAMPLE sent - the agent's samples in; UDP to the inlet = its socket drops and the agents table's DatagramsLost; after
the inlet it must be 0: those stages acknowledge). The warm-up's own FIFO drops (every JVM compiling at once) are
reported apart. duplicates = rows - unique. A step is "sustained" when loss and duplicates are 0 and the pipeline kept
up: the outlet's lag when the generators stopped was at most 5 s of the inlet's datagrams and it drained within
--drain-limit seconds. One JSON line per step on --out.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time
import urllib.parse
import urllib.request

HZ = os.sysconf("SC_CLK_TCK")
LAG_SECONDS = 5
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def ticks(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            parts = f.read().rsplit(")", 1)[1].split()
        return int(parts[11]) + int(parts[12])  # utime + stime (fields 14, 15), all threads
    except OSError:
        return None


def mem(pid):
    out = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                k, _, v = line.partition(":")
                if k in ("VmRSS", "VmHWM"):
                    out[k] = int(v.split()[0])  # kB
    except OSError:
        pass
    return out


def machine_busy():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return sum(v) - v[3] - v[4], sum(v)


def scrape(port):
    """Prometheus text from 127.0.0.1:port/metrics as {name{labels}: value}; None if not up."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2) as r:
            text = r.read().decode()
    except Exception:
        return None
    m = {}
    for line in text.splitlines():
        if not line or line[0] == "#":
            continue
        k, _, v = line.rpartition(" ")
        try:
            m[k] = float(v)
        except ValueError:
            pass
    return m


def metric(m, name, label=None):
    """Sum of every series of name (whose labels contain label, if given)."""
    if not m:
        return 0.0
    t = 0.0
    for k, v in m.items():
        base = k.split("{", 1)[0]
        if base in (name, name + "_total") and (label is None or label in k):
            t += v
    return t


def heap_kb(pid, jcmd):
    """(used, committed) heap in kB from jcmd GC.heap_info's first total line, or (None, None)."""
    try:
        out = subprocess.run([jcmd, str(pid), "GC.heap_info"], capture_output=True, text=True, timeout=30).stdout
    except Exception:
        return None, None
    m = re.search(r"total (?:reserved \d+K, committed )?(\d+)K, (?:used|committed) (\d+)K", out)
    m2 = re.search(r"total (\d+)K, used (\d+)K", out)
    m3 = re.search(r"total reserved (\d+)K, committed (\d+)K, used (\d+)K", out)
    if m3:
        return int(m3.group(3)), int(m3.group(2))
    if m2:
        return int(m2.group(2)), int(m2.group(1))
    if m:
        return int(m.group(2)), int(m.group(1))
    return None, None


class ClickHouse:
    def __init__(self, url):
        self.url = url

    def q(self, sql):
        req = urllib.request.Request(self.url + "/?" + urllib.parse.urlencode({"query": sql}), method="POST")
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.read().decode().strip()

    def table_exists(self, db, t):
        return self.q(f"SELECT count() FROM system.tables WHERE database = '{db}' AND name = '{t}'") == "1"


def free_port(kind):
    import socket
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM if kind == "udp" else socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


class Daemon:
    def __init__(self, name, argv, log, env=None):
        self.name, self.argv, self.log = name, argv, log
        self.env = env
        self.proc = None

    def start(self):
        self.logf = open(self.log, "a")
        self.logf.write("# " + " ".join(self.argv) + "\n")
        self.logf.flush()
        e = dict(os.environ)
        e.update(self.env or {})
        self.proc = subprocess.Popen(self.argv, stdout=self.logf, stderr=subprocess.STDOUT, env=e)

    @property
    def pid(self):
        return self.proc.pid

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self, timeout=60):
        if self.alive():
            self.proc.terminate()
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.logf.close()
        return self.proc.returncode

    def text(self):
        with open(self.log) as f:
            return f.read()


def wait_until(cond, what, timeout, daemon=None):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if cond():
            return
        if daemon is not None and not daemon.alive():
            raise RuntimeError(f"{daemon.name} exited ({daemon.proc.returncode}); log {daemon.log}:\n"
                               + daemon.text()[-3000:])
        time.sleep(0.2)
    raise RuntimeError(f"{what}: not within {timeout} s")


def dp_stats(text):
    """The dataplane's exit statistics (DataplaneCommand --config: 'show sflow' after the generators stopped)."""
    def num(pattern):
        m = re.findall(pattern, text)
        if not m:
            raise RuntimeError(f"the dataplane printed no '{pattern}':\n" + text[-3000:])
        return [int(x.replace(",", "")) for x in (m[-1] if isinstance(m[-1], tuple) else (m[-1],))]
    ing, eg = num(r"samples taken ingress (\d+) egress (\d+)")
    fifo, dfifo = num(r"sample fifo drops (\d+), discard fifo drops (\d+)")
    sent, failed = num(r"psample sent (\d+) failed (\d+)")
    seen, = num(r"packets seen while sampling (\d+)")
    return dict(packets=seen, samples_taken=ing + eg, fifo_drops=fifo, psample_sent=sent, psample_failed=failed)


AGENT_LINE = re.compile(r"samples received ([\d,]+), sent ([\d,]+) \(sub-sampled out ([\d,]+), other producer's "
                        r"port ([\d,]+),.*?drops from sequence gaps ([\d,]+)")


def agent_counters(text):
    """The agent's exit counters (HsflowdCommand's last line): received, sent, refused (other producer), gap drops."""
    m = AGENT_LINE.findall(text)
    if not m:
        return None
    v = [int(x.replace(",", "")) for x in m[-1]]
    return dict(received=v[0], sent=v[1], sub_sampled_out=v[2], other_producer=v[3], sequence_gap_drops=v[4])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rates", required=True, help="flow samples/s, comma-separated")
    ap.add_argument("--duration", type=int, default=60)
    ap.add_argument("--warmup", type=int, default=15)
    ap.add_argument("--sampling", type=int, default=10)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--partitions", type=int, default=4)
    ap.add_argument("--drain-limit", type=int, default=30)
    ap.add_argument("--fifo-slots", type=int, default=0, help="sflow.sample-fifo-slots (0: the default)")
    ap.add_argument("--batch-rows", type=int, default=0, help="clickhouse.batch-rows (0: the default)")
    ap.add_argument("--java", required=True)
    ap.add_argument("--classpath", required=True, help="NAME=CP;... for collector, hsflowd, dataplane")
    ap.add_argument("--jvm-opts", required=True, help="NAME=OPTS;... for collector, hsflowd, dataplane")
    ap.add_argument("--clickhouse", required=True, help="http://127.0.0.1:PORT")
    ap.add_argument("--clickhouse-pid", type=int, required=True)
    ap.add_argument("--kafka", required=True)
    ap.add_argument("--kafka-pid", type=int, required=True)
    ap.add_argument("--group", type=int, default=21, help="NETLINK_USERSOCK group of PSAMPLE")
    ap.add_argument("--work", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    cps = dict(kv.split("=", 1) for kv in a.classpath.split(";"))
    opts = dict(kv.split("=", 1) for kv in a.jvm_opts.split(";"))
    jcmd = os.path.join(os.path.dirname(a.java), "jcmd")
    ch = ClickHouse(a.clickhouse)
    for i, rate in enumerate(int(r) for r in a.rates.split(",")):
        rec = step(a, ch, cps, opts, jcmd, rate, f"{time.strftime('%H%M%S')}_{i}")
        with open(a.out, "a") as f:
            f.write(json.dumps(rec) + "\n")
        print(summary_line(rec), file=sys.stderr, flush=True)


def summary_line(r):
    return (f"e2e: {r['target']:,} samples/s, {r['window_s']} s measured after {r['warmup_s']} s: "
            f"{r['samples_per_s']:,.0f} samples/s, {r['measured_samples']:,} in the window, {r['psample_sent']:,} sent in all, {r['unique']:,} "
            f"unique in ClickHouse; loss in the window {r['loss']:,} {r['loss_at']}, duplicates {r['duplicates']:,}, "
            f"lag at stop {r['lag_at_stop']:,.0f} ({r['datagrams_per_s']:,.0f} datagrams/s), drained in "
            f"{r['drain_s']:.1f} s -> {'SUSTAINED' if r['sustained'] else 'not sustained'}; CPU % " + ", ".join(
                f"{k} {v:.0f}" for k, v in r["cpu_pct"].items()))


def step(a, ch, cps, opts, jcmd, rate, tag):
    work = os.path.join(a.work, f"step-{tag}")
    os.makedirs(work)
    db, topic, group = f"e2e_{tag}", f"vecflow-e2e-{tag}", f"e2e-outlet-{tag}"
    udp = free_port("udp")
    mports = {"inlet": free_port("tcp"), "outlet": free_port("tcp")}
    kafka = (f"kafka:\n  bootstrap: \"{a.kafka}\"\n  raw-topic: {topic}\n  partitions: {a.partitions}\n"
             f"  consumer-group: {group}\n")
    metrics = "metrics:\n  listen: 127.0.0.1\n  port: {port}\nloss-interval-ms: 1000\n"
    confs = {
        "inlet": (f"role: inlet\nlisten:\n  address: 127.0.0.1\n  port: {udp}\n  threads: 1\n"
                  f"spool:\n  directory: \"{work}/spool\"\n" + kafka + metrics.format(port=mports["inlet"])),
        "outlet": ("role: outlet\n" + kafka + f"clickhouse:\n  url: \"{a.clickhouse}\"\n  database: {db}\n"
                   + (f"  batch-rows: {a.batch_rows}\n" if a.batch_rows else "")
                   + metrics.format(port=mports["outlet"])),
    }
    d = {}
    for name in ("outlet", "inlet"):
        path = os.path.join(work, f"{name}.yaml")
        with open(path, "w") as f:
            f.write(confs[name])
        d[name] = Daemon(name, [a.java] + opts["collector"].split() + [
            "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", "-cp", cps["collector"],
            "io.vecflow.cli.CollectorMain", "--config", path], os.path.join(work, f"{name}.log"))
        d[name].start()
        port = mports[name]
        wait_until(lambda: metric(scrape(port), "vecflow_collector_ready") >= 1, f"{name} ready", 120, d[name])
    agent_conf = os.path.join(work, "hsflowd.conf")
    with open(agent_conf, "w") as f:
        f.write("# bench/e2e.sh: sampling = 1 keeps every PSAMPLE (the dataplane samples 1-in-N)\n"
                "sflow {\n  agentIP = 192.0.2.1\n  sampling = 1\n  headerBytes = 128\n  datagramBytes = 1400\n"
                f"  collector {{ ip = 127.0.0.1 udpport = {udp} }}\n"
                f"  psample {{ group = 3 transport = usersock usersockGroup = {a.group} }}\n}}\n")
    d["agent"] = Daemon("agent", [a.java] + opts["hsflowd"].split() + [
        "--enable-native-access=ALL-UNNAMED", "-cp", cps["hsflowd"], "io.vecflow.cli.HsflowdMain", "-f", agent_conf],
        os.path.join(work, "agent.log"), env={"MALLOC_ARENA_MAX": "1"})
    d["agent"].start()
    wait_until(lambda: "vecflow hsflowd: agent " in d["agent"].text(), "agent started", 60, d["agent"])

    dp_metrics = free_port("tcp")
    pps = rate * a.sampling / 2.0  # per generator port; both ports sampled 1-in-N on ingress
    n = int(pps * (a.warmup + a.duration))
    dp_conf = os.path.join(work, "dataplane.yaml")
    with open(dp_conf, "w") as f:
        f.write(f"workers: {a.workers}\nports:\n")
        for p in (0, 1):
            f.write(f"  - {{name: g{p}, type: generator, if-index: {p + 1}, mac: \"02:00:00:00:00:0{p + 1}\", "
                    f"generator: {{size: 60, flows: 1024, pps: {pps:.0f}, packets: {n}}}}}\n")
        f.write("xconnects:\n  - [g0, g1]\n"
                f"sflow:\n  sampling-rate: {a.sampling}\n  interfaces: [g0, g1]\n  transport: usersock\n"
                f"  usersock-groups: {{psample: {a.group}, net-dm: {a.group + 1}, counters: {a.group + 2}}}\n"
                "  psample-batch-bytes: 8192\n"
                + (f"  sample-fifo-slots: {a.fifo_slots}\n" if a.fifo_slots else "")
                + f"control-socket: {work}/dataplane.sock\nmetrics: {{listen: 127.0.0.1, port: {dp_metrics}}}\n")
    dp = Daemon("dataplane", [a.java] + opts["dataplane"].split() + [
        "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", "-cp",
        cps["dataplane"], "io.vecflow.cli.DataplaneMain", "--config", dp_conf], os.path.join(work, "dataplane.log"))

    def snapshot(pids, mdp):
        return {"t": time.time(), "ticks": {k: ticks(v) for k, v in pids.items()}, "busy": machine_busy()[0],
                "samples": metric(mdp, "vecflow_dataplane_sflow_samples"),
                "fifo_drops": metric(mdp, "vecflow_dataplane_sflow_fifo_drops", 'fifo="sample"'),
                "psample_sent": metric(mdp, "vecflow_dataplane_netlink_messages", 'result="sent"'),
                "psample_failed": metric(mdp, "vecflow_dataplane_netlink_messages", 'result="failed"')}

    try:
        # One dataplane run: the first --warmup seconds warm every JVM of the chain (and are counted, but not in the
        # measured window); the window runs from the scrape at which the warm-up's samples were taken to the last
        # scrape before the generators stopped.
        dp.start()
        pids = {"dataplane": dp.pid, "agent": d["agent"].pid, "inlet": d["inlet"].pid, "outlet": d["outlet"].pid,
                "kafka": a.kafka_pid, "clickhouse": a.clickhouse_pid}
        t0 = time.time()
        series, peak_rss, peak_lag = [], {}, 0.0
        start = last = None
        while dp.alive() and time.time() - t0 < a.warmup + a.duration + 180:
            time.sleep(1)
            mdp, mi, mo = scrape(dp_metrics), scrape(mports["inlet"]), scrape(mports["outlet"])
            lag = metric(mo, "vecflow_kafka_outlet_lag")
            if mdp is not None and dp.alive():
                snap = snapshot(pids, mdp)
                if start is None and snap["samples"] >= rate * a.warmup:
                    start = snap
                if start is not None:
                    last = snap
                    peak_lag = max(peak_lag, lag)
            for k, v in pids.items():
                peak_rss[k] = max(peak_rss.get(k, 0), mem(v).get("VmRSS", 0))
            series.append({"t": round(time.time() - t0, 1), "measured": start is not None, "lag": lag,
                           "dp_samples": metric(mdp, "vecflow_dataplane_sflow_samples") if mdp else None,
                           "socket_drops": metric(mi, "vecflow_collector_socket_drops"),
                           "inlet_datagrams": metric(mi, "vecflow_collector_datagrams"),
                           "ch_rows": metric(mo, "vecflow_clickhouse_rows", 'table="flows"')})
        dp.proc.wait(120)
        final = dp_stats(dp.text())
        if start is None or last is None or last["t"] - start["t"] < 1:
            raise RuntimeError("no measured window (the dataplane's metrics never showed the warm-up done)")
        window = last["t"] - start["t"]
        cpu = {k: 100.0 * (last["ticks"][k] - start["ticks"][k]) / HZ / window for k in pids
               if last["ticks"][k] is not None and start["ticks"][k] is not None}
        cpu["machine"] = 100.0 * (last["busy"] - start["busy"]) / HZ / window
        lag_at_stop = series[-1]["lag"]
        in_window = [x for x in series if x["measured"]]
        dg_rate = ((in_window[-1]["inlet_datagrams"] - in_window[0]["inlet_datagrams"])
                   / max(1.0, in_window[-1]["t"] - in_window[0]["t"])) if len(in_window) > 1 else 0.0

        # drain: every sample sent is in ClickHouse (count(), read from the parts' metadata at once; uniqExact over
        # tens of millions of rows takes seconds), or the count has stopped growing for 8 s with the outlet's lag 0
        sent = final["psample_sent"]
        t_stop = time.time()
        drained_at, last_n, stable = None, -1, time.time()
        while time.time() - t_stop < 600:
            time.sleep(0.5)
            n = stored(ch, db)
            if n != last_n:
                last_n, stable = n, time.time()
            if n >= sent or (time.time() - stable > 8
                             and metric(scrape(mports["outlet"]), "vecflow_kafka_outlet_lag") == 0):
                drained_at = time.time()
                break
        drain_s = (drained_at or time.time()) - t_stop
        heap = {}
        for k in ("agent", "inlet", "outlet"):
            used, committed = heap_kb(pids[k], jcmd)
            heap[k] = {"used_kb": used, "committed_kb": committed}
        hwm = {k: mem(v).get("VmHWM") for k, v in pids.items() if k != "dataplane"}
        hwm["dataplane"] = peak_rss.get("dataplane")
        mi = scrape(mports["inlet"])
        inlet_drops = metric(mi, "vecflow_collector_socket_drops")
        inlet_dg = metric(mi, "vecflow_collector_datagrams")
    finally:
        if dp.proc is not None and dp.alive():
            dp.stop()
        codes = {k: v.stop() for k, v in d.items()}
    ac = agent_counters(d["agent"].text())
    agent_in = ac["received"] if ac else None
    rows = int(ch.q(f"SELECT count() FROM {db}.flows"))
    u = unique(ch, db)
    lost_dg = int(float(ch.q(f"SELECT sum(DatagramsLost) FROM {db}.agents WHERE SampleFamily = 255") or 0))
    # Loss in the measured window: the dataplane's FIFO drops and failed sends from the window's start to its exit,
    # plus everything sent but not stored over the whole run (agent, UDP, Kafka, outlet, ClickHouse).
    window_dp_loss = int(final["fifo_drops"] - start["fifo_drops"] + final["psample_failed"] - start["psample_failed"])
    downstream = sent - u
    # Where in time the samples missing from ClickHouse were lost: each gap in a source's sample sequence, dated by
    # the receive time of the sample after it (the first sample of the window is received within a second of the
    # window's start). Gaps dated before the window belong to the warm-up.
    gaps = sequence_gaps(ch, db)
    before = sum(n for t, n in gaps if t < int(start["t"]))
    loss = window_dp_loss + downstream - before
    parts = []
    if window_dp_loss:
        parts.append(f"dataplane FIFO {window_dp_loss:,}")
    if agent_in is not None and sent - agent_in:
        parts.append(f"agent socket {sent - agent_in:,}")
    if ac and (ac["other_producer"] or ac["sub_sampled_out"]):
        parts.append(f"agent refused {ac['other_producer']:,} (other producer), sub-sampled {ac['sub_sampled_out']:,}")
    if inlet_drops or lost_dg:
        parts.append(f"UDP to the inlet: {inlet_drops:,.0f} socket drops, agents gap {lost_dg:,} datagrams")
    if before:
        parts.append(f"of the whole run's, {before:,} samples lost before the window (the warm-up) are not counted")
    measured = int(final["samples_taken"] - start["samples"])
    rec = {
        "target": rate, "duration_s": a.duration, "warmup_s": a.warmup, "window_s": round(window, 1),
        "sampling": a.sampling, "workers": a.workers, "partitions": a.partitions, "fifo_slots": a.fifo_slots,
        "batch_rows": a.batch_rows, "dataplane": final,
        "warmup_fifo_drops": int(start["fifo_drops"]), "measured_samples": measured,
        "samples_per_s": (last["samples"] - start["samples"]) / window, "datagrams_per_s": round(dg_rate, 1),
        "psample_sent": sent, "rows": rows, "unique": u, "loss": loss, "downstream_loss": downstream,
        "downstream_loss_in_warmup": before, "sequence_gaps": gaps[:100], "window_start_unix": int(start["t"]),
        "duplicates": rows - u, "loss_at": "(" + "; ".join(parts) + ")" if parts else "",
        "agent": ac, "inlet_datagrams": inlet_dg, "inlet_socket_drops": inlet_drops,
        "agents_datagrams_lost": lost_dg, "peak_lag": peak_lag, "lag_at_stop": lag_at_stop,
        "drain_s": round(drain_s, 1), "cpu_pct": {k: round(v, 1) for k, v in cpu.items()},
        "peak_rss_kb": peak_rss, "hwm_kb": hwm, "heap": heap, "exit_codes": codes, "db": db,
        "series": series,
    }
    # Sustained: nothing lost or doubled in the window, and the outlet kept up: when the generators stopped it was at
    # most LAG_SECONDS of datagrams behind (it commits after each ClickHouse insert, about once a second) and it
    # drained within --drain-limit.
    rec["sustained"] = (loss == 0 and rows == u and drained_at is not None and drain_s <= a.drain_limit
                        and lag_at_stop <= LAG_SECONDS * dg_rate)
    return rec


def sequence_gaps(ch, db):
    """[(unix time of the sample after the gap, samples missing)] over every source; a source's first sample is 1."""
    rows = ch.q(f"SELECT toUInt32(argMin(TimeReceived, SampleSequence)), min(SampleSequence) - 1 FROM {db}.flows "
                f"GROUP BY AgentAddress, SourceIdIndex HAVING min(SampleSequence) > 1 FORMAT TSV")
    firsts = [tuple(int(x) for x in line.split("\t")) for line in rows.splitlines() if line]
    # runningDifference restarts at each block: a gap across a block boundary is not seen here, and its samples
    # count as lost in the window (the caller counts whatever the gaps do not explain as the window's)
    inner = ch.q(f"SELECT toUInt32(TimeReceived), d - 1 FROM (SELECT TimeReceived, runningDifference(SampleSequence) "
                 f"AS d, runningDifference(SourceIdIndex) AS ds FROM (SELECT TimeReceived, SampleSequence, "
                 f"SourceIdIndex, AgentAddress FROM {db}.flows ORDER BY AgentAddress, SourceIdIndex, SampleSequence)) "
                 f"WHERE ds = 0 AND d > 1 FORMAT TSV")
    gaps = [tuple(int(x) for x in line.split("\t")) for line in inner.splitlines() if line]
    return sorted(firsts + gaps)


def stored(ch, db):
    try:
        return int(ch.q(f"SELECT count() FROM {db}.flows")) if ch.table_exists(db, "flows") else 0
    except Exception:
        return -1


def unique(ch, db):
    try:
        if not ch.table_exists(db, "flows"):
            return 0
        return int(ch.q(f"SELECT uniqExact(AgentAddress, SourceIdIndex, SampleSequence) FROM {db}.flows"))
    except Exception:
        return -1


if __name__ == "__main__":
    main()
