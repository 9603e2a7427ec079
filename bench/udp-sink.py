#!/usr/bin/env python3
"""UDP sink for bench/footprint.sh: binds 127.0.0.1:PORT, prints one JSON line per second (datagrams, flow and
counter samples counted from each sFlow v5 header's sample records), and the CLOCK_REALTIME nanoseconds of the first
datagram to --first FILE as soon as it arrives. Runs until --seconds have passed or SIGTERM.

Usage: udp-sink.py --port PORT --first FILE [--seconds N]
sFlow v5 layout (sflow_version_5.txt, sample_datagram_v5): version, address type (1 = IPv4, 2 = IPv6), address,
sub-agent id, sequence, uptime, number of samples; then per sample: format (enterprise << 12 | format), length.
"""
import argparse
import json
import socket
import struct
import sys
import time


def count(d, acc):
    if len(d) < 28:
        return
    off = 12 if struct.unpack_from(">I", d, 4)[0] == 1 else 24  # past version, type, address
    off += 12
    n = struct.unpack_from(">I", d, off)[0]
    off += 4
    for _ in range(min(n, 1000)):
        if off + 8 > len(d):
            return
        fmt, ln = struct.unpack_from(">II", d, off)
        kind = fmt & 0xFFF
        if kind in (1, 3):
            acc["flow_samples"] += 1
        elif kind in (2, 4):
            acc["counter_samples"] += 1
        off += 8 + ln


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--first", required=True)
    ap.add_argument("--seconds", type=float, default=3600)
    a = ap.parse_args()
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    s.bind(("127.0.0.1", a.port))
    s.settimeout(0.2)
    acc = {"datagrams": 0, "flow_samples": 0, "counter_samples": 0}
    end = time.monotonic() + a.seconds
    tick = time.monotonic() + 1
    first = True
    print("listening", flush=True)
    while time.monotonic() < end:
        try:
            d = s.recv(65536)
        except socket.timeout:
            d = None
        if d is not None:
            if first:
                with open(a.first, "w") as f:
                    f.write("%d\n" % time.clock_gettime_ns(time.CLOCK_REALTIME))
                first = False
            acc["datagrams"] += 1
            count(d, acc)
        if time.monotonic() >= tick:
            tick += 1
            print(json.dumps(dict(acc, t=round(time.time(), 3))), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
