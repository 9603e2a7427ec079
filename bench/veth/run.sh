#!/usr/bin/env bash
# A live dataplane run on veth pairs, for `show runtime` / `show interfaces` / `show sflow` figures (issue 5).
# Topology (namespaces and veths created here, removed on exit; needs root):
#   vfbench-src: a second `vecflow dataplane` replays a capture (pcap port) cross-connected to its AF_PACKET port
#   vfbench-dut: the dataplane under test, AF_PACKET p0 <-> p1 through l2-xconnect, sFlow 1-in-N on p0
#   vfbench-dst: the far end (the kernel receives and drops the frames)
# Usage: bench/veth/run.sh [OUT_DIR] [LOOPS] [PPS] [SAMPLING_RATE]
# Writes OUT_DIR/{command.txt,machine.txt,show-runtime.txt,show-interfaces.txt,show-sflow.txt,show-errors.txt}.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=${1:-$ROOT/bench/results/$(date -u +%F)-dataplane-veth}
OUT_SHOWN=${OUT#"$ROOT"/}
LOOPS=${2:-2000}
PPS=${3:-200000}
RATE=${4:-1000}
CAPTURE=$ROOT/testdata/traffic/tcpreplay-test.pcap
mkdir -p "$OUT"
W=$(mktemp -d)
NS=(vfbench-src vfbench-dut vfbench-dst)
cleanup() {
  [ -n "${SRC_PID:-}" ] && kill "$SRC_PID" 2>/dev/null || true
  [ -n "${DUT_PID:-}" ] && kill "$DUT_PID" 2>/dev/null || true
  wait 2>/dev/null || true
  for n in "${NS[@]}"; do ip netns del "$n" 2>/dev/null || true; done
  rm -rf "$W"
}
trap cleanup EXIT
for n in "${NS[@]}"; do
  ip netns del "$n" 2>/dev/null || true
  ip netns add "$n"
  ip netns exec "$n" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
done
ip link add vfbs0 netns vfbench-src type veth peer name vfbd0 netns vfbench-dut
ip link add vfbd1 netns vfbench-dut type veth peer name vfbt0 netns vfbench-dst
ip -n vfbench-src link set vfbs0 up
ip -n vfbench-dut link set vfbd0 up
ip -n vfbench-dut link set vfbd1 up
ip -n vfbench-dst link set vfbt0 up

cat > "$W/dut.yaml" <<YAML
workers: 1
ports:
  - {name: p0, type: af_packet, netns: vfbench-dut, af-packet: {interface: vfbd0}}
  - {name: p1, type: af_packet, netns: vfbench-dut, af-packet: {interface: vfbd1}}
xconnects:
  - [p0, p1]
sflow: {sampling-rate: $RATE, interfaces: [p0], usersock-groups: {psample: 12, net-dm: 13, counters: 14}}
control-socket: $W/dut.sock
metrics: {port: 0}
YAML
cat > "$W/src.yaml" <<YAML
workers: 1
ports:
  - {name: replay, type: pcap, pcap: {file: $CAPTURE, loops: $LOOPS, pps: $PPS}}
  - {name: out, type: af_packet, netns: vfbench-src, af-packet: {interface: vfbs0}}
xconnects:
  - [replay, out]
sflow: {sampling-rate: 0, usersock-groups: {psample: 15, net-dm: 16, counters: 17}}
control-socket: $W/src.sock
metrics: {port: 0}
YAML
{
  echo "bench/veth/run.sh $OUT_SHOWN $LOOPS $PPS $RATE"
  echo "started $(date -u +%FT%TZ); capture $(basename "$CAPTURE") x $LOOPS loops at $PPS packets/s; sFlow 1-in-$RATE"
} > "$OUT/command.txt"
{ date -u; nproc; uname -r; lscpu | grep -E 'Model name|^CPU\(s\)'; git -C "$ROOT" rev-parse --short HEAD; uptime; } \
  > "$OUT/machine.txt"
"$ROOT/vecflow" dataplane --config "$W/dut.yaml" > "$W/dut.log" 2>&1 &
DUT_PID=$!
for _ in $(seq 100); do [ -S "$W/dut.sock" ] && break; sleep 0.1; done
"$ROOT/vecflow" dataplane --config "$W/src.yaml" > "$W/src.log" 2>&1 &
SRC_PID=$!
# The source never ends by itself (its AF_PACKET port keeps polling): stop it once the replay is done.
TOTAL=$((LOOPS * $(tshark -r "$CAPTURE" 2>/dev/null | wc -l)))
for _ in $(seq 600); do
  [ -S "$W/src.sock" ] || { sleep 0.2; continue; }
  n=$("$ROOT/vecflow" ctl --socket "$W/src.sock" show interfaces | awk '$1 == "replay" {print $3}')
  [ "${n:-0}" -ge "$TOTAL" ] && break
  sleep 0.5
done
sleep 1
kill -TERM "$SRC_PID"; wait "$SRC_PID" || true
SRC_PID=""
for c in "show runtime" "show interfaces" "show sflow" "show errors"; do
  "$ROOT/vecflow" ctl --socket "$W/dut.sock" $c > "$OUT/${c// /-}.txt"
done
cat "$W/src.log" > "$OUT/source.log"
cat "$OUT/show-runtime.txt" "$OUT/show-interfaces.txt"
