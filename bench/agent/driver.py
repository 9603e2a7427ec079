#!/usr/bin/env python3
"""Agent throughput driver (bench/agent-throughput.sh runs it; see that script's header for the method).

For each agent variant in turn (a class path and JVM options): start `io.vecflow.cli.HsflowdMain` pinned to CPU 1 as
root, dropped to nobody; warm it up; then for every rate and repeat, start the C sink (CPU 0), send rate x duration
PSAMPLE messages with psample-sender (CPU 0) carrying consecutive sequence numbers, wait for the sink, and record:
what arrived (unique, missing, duplicates), the agent's CPU (user + system ticks of all its threads, /proc/PID/stat,
from the sender's start to its end), its RSS and peak RSS (/proc/PID/status), the machine's other CPU use. Variants
take turns per rate, so the machine's noise falls on all of them alike. One JSON line per step on --out.
"""
import argparse
import json
import os
import subprocess
import sys
import time

HZ = os.sysconf("SC_CLK_TCK")


def ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        parts = f.read().rsplit(")", 1)[1].split()
    return int(parts[11]), int(parts[12])  # utime, stime (fields 14, 15)


def status(pid):
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("VmRSS", "VmHWM"):
                out[k] = int(v.split()[0])  # kB
    return out


def busy():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    idle = v[3] + v[4]
    return sum(v) - idle


class Agent:
    def __init__(self, name, classpath, opts, conf, log, java):
        self.name, self.classpath, self.opts, self.conf, self.log, self.java = name, classpath, opts, conf, log, java
        self.proc = None

    def start(self):
        cmd = ["taskset", "-c", "1", self.java] + self.opts.split() + [
            "--enable-native-access=ALL-UNNAMED", "-cp", self.classpath, "io.vecflow.cli.HsflowdMain",
            "-f", self.conf, "--user", "nobody"]
        self.logf = open(self.log, "a")
        self.logf.write(f"# {' '.join(cmd)}\n")
        self.logf.flush()
        self.proc = subprocess.Popen(cmd, stdout=self.logf, stderr=subprocess.STDOUT)
        deadline = time.time() + 30
        while time.time() < deadline:
            with open(self.log) as f:
                if "vecflow hsflowd: agent " in f.read():
                    return
            if self.proc.poll() is not None:
                raise SystemExit(f"agent {self.name} exited: see {self.log}")
            time.sleep(0.1)
        raise SystemExit(f"agent {self.name} did not start in 30 s: see {self.log}")

    def stop(self):
        self.proc.terminate()
        self.proc.wait(20)
        self.logf.close()


def step(args, agent, rate, seq, count, batch):
    sink = subprocess.Popen(["taskset", "-c", "0", args.sink, str(args.port), str(seq), str(count), "2500", "120",
                             str(args.spin)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sink.stderr.readline()  # "ready"
    pid = agent.proc.pid
    u0, s0 = ticks(pid)
    b0, t0 = busy(), time.time()
    sender = subprocess.run(["taskset", "-c", "0", args.sender, str(args.group), str(rate), str(count), str(seq),
                             str(batch), "128"], capture_output=True, text=True, check=True)
    u1, s1 = ticks(pid)
    b1, t1 = busy(), time.time()
    out, _ = sink.communicate(timeout=180)
    got = json.loads(out)
    sent = dict(kv.split("=") for kv in sender.stdout.split())
    secs = t1 - t0
    agent_cpu = (u1 - u0 + s1 - s0) / HZ
    row = {"agent": agent.name, "rate": rate, "batch": batch, "sent": int(sent["sent"]),
           "achieved": float(sent["achieved"]), "send_seconds": float(sent["seconds"]),
           "agent_cpu_pct": round(100 * agent_cpu / secs, 1),
           "agent_user_pct": round(100 * (u1 - u0) / HZ / secs, 1),
           "agent_sys_pct": round(100 * (s1 - s0) / HZ / secs, 1),
           "agent_ns_per_sample": round(1e9 * agent_cpu / max(1, int(sent["sent"])), 1),
           "other_cpu_pct": round(100 * ((b1 - b0) / HZ - agent_cpu) / secs, 1), **got, **status(pid)}
    row["loss_free"] = row["unique"] == row["sent"] and row["duplicates"] == 0
    return row


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--agent", action="append", required=True, help="NAME|CLASSPATH|JVM OPTIONS")
    p.add_argument("--plan", default="16:400000,800000,1000000,1200000;1:200000,300000,400000",
                   help="BATCH:RATE,RATE;BATCH:... messages per netlink datagram and the rates (samples/s) for each")
    p.add_argument("--duration", type=float, default=5)
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--group", type=int, default=21)
    p.add_argument("--port", type=int, default=16343)
    p.add_argument("--spin", type=int, default=1)
    p.add_argument("--conf", required=True)
    p.add_argument("--sender", required=True)
    p.add_argument("--sink", required=True)
    p.add_argument("--workdir", required=True)
    p.add_argument("--java", required=True)
    p.add_argument("--out", required=True)
    args = p.parse_args()
    agents = []
    for spec in args.agent:
        name, cp, opts = spec.split("|", 2)
        agents.append(Agent(name, cp, opts, args.conf, os.path.join(args.workdir, f"agent-{name}.log"), args.java))
    # one agent at a time on CPU 1; sequence numbers continue across steps of one agent so that its GROUP_SEQ
    # accounting sees no gap that the sender did not make
    seqs = {a.name: 1 for a in agents}
    with open(args.out, "a") as out:
        for part in args.plan.split(";"):
            batch_text, rates = part.split(":")
            batch = int(batch_text)
            for rate in [int(r) for r in rates.split(",")]:
                for a in agents:
                    a.start()
                    try:
                        warm = step(args, a, 200000, seqs[a.name], 600000, batch)  # JIT warm-up, not counted
                        seqs[a.name] += warm["sent"]
                        for rep in range(args.repeats):
                            count = int(rate * args.duration)
                            row = step(args, a, rate, seqs[a.name], count, batch)
                            seqs[a.name] += row["sent"]
                            row["repeat"] = rep
                            out.write(json.dumps(row) + "\n")
                            out.flush()
                            print(f"{a.name:12} batch {batch:2} rate {rate:8} achieved {row['achieved']:10.0f} "
                                  f"unique {row['unique']:9} missing {row['missing']:8} dup {row['duplicates']} "
                                  f"cpu {row['agent_cpu_pct']:5.1f}% ({row['agent_user_pct']:.1f} usr) "
                                  f"{row['agent_ns_per_sample']:7.1f} ns/sample rss {row.get('VmRSS', 0) // 1024} "
                                  f"MiB other {row['other_cpu_pct']:.0f}%", flush=True)
                    finally:
                        a.stop()


if __name__ == "__main__":
    sys.exit(main())
