#!/usr/bin/env bash
# vecflow bench: peer comparison on loopback, JFR profile of vecflow's collector, and the JMH suite.
#
#   bench/peers/run.sh peers     # vecflow vs sfacctd vs sfcapd: highest loss-free ingest rate (default)
#   bench/peers/run.sh profile   # vecflow's collector at one rate under JFR: where its time goes
#   bench/peers/run.sh stalls    # one vecflow step under JFR, socket drops polled every 10 ms: drops vs JVM pauses
#   bench/peers/run.sh jmh       # the JMH benchmarks with -prof gc
#
# Each writes bench/results/<UTC date>-<mode>/ (override with OUT=DIR): command.txt (the exact command and
# settings), machine.txt (nproc, lscpu, kernel, tool versions), console.log, and the raw and summarised results.
# Needs root (sysctl, taskset), gcc, python3, pmacct (sfacctd), nfdump (sfcapd, nfdump) and JDK 25.
# net.core.rmem_max is raised to 8 MiB for the run (the collectors ask for 8 MiB receive buffers) and restored on exit.
#
# Settings (environment): COLLECTORS (vecflow,sfacctd,sfcapd), RATES (target datagrams/s, ascending), DURATION (s
# per step, 5), REPEATS (2), STOP_AFTER_LOSSY (2: a collector stops climbing after 2 consecutive lossy rates),
# QUIET_MAX_PCT / QUIET_WAIT_S / OTHER_MAX_PCT / RETRIES (noise handling, see bench.py), VECFLOW_WARMUP (rate,count),
# VECFLOW_JAVA_OPTS; profile: PROFILE_RATE (datagrams/s), PROFILE_SECONDS; stalls: STALLS_RATE, STALLS_SECONDS;
# jmh: JMH_ARGS.
set -euo pipefail
mode=${1:-peers}
here=$(cd "$(dirname "$0")" && pwd)
bench=$(dirname "$here"); repo=$(dirname "$bench")
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
jar=$bench/target/benchmarks.jar
stamp=$(date -u +%Y-%m-%d)
out=${OUT:-$bench/results/$stamp-$mode}
work=${BENCH_WORK:-/tmp/vecflow-collector-bench}
mkdir -p "$out" "$work"

"$JAVA_HOME/bin/java" -version 2>&1 | grep -q 'version "2[5-9]' || { echo "run.sh: JAVA_HOME=$JAVA_HOME is not a JDK >= 25" >&2; exit 2; }
if [[ ! -f $jar ]]; then
  echo "run.sh: building $jar" >&2
  # one reactor build: bench is packaged with packet, sflow-v5 and collector as they are in this tree (not whatever
  # another build last installed in ~/.m2)
  (cd "$repo" && ./mvnw -q -B -o package -DskipTests -pl bench -am)
fi

machine() {
  { echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; echo "nproc: $(nproc)"; echo "uname: $(uname -srm)"
    echo "java: $("$JAVA_HOME/bin/java" -version 2>&1 | head -1)"
    echo "sfacctd: $(sfacctd -V 2>&1 | head -1)"; echo "sfcapd: $(sfcapd -V 2>&1 | head -1)"
    echo "gcc: $(gcc --version | head -1)"
    echo "git HEAD: $(cd "$repo" && git log -1 --format='%H %cI %s' | cut -c1-160)"
    echo "uncommitted in packet sflow-v5 collector: $(cd "$repo" && git status --short packet sflow-v5 collector | wc -l) files"
    echo "benchmarks.jar: $(date -u -r "$jar" +%Y-%m-%dT%H:%M:%SZ); sources newer than it in packet sflow-v5 collector bench/src:" \
      "$(find "$repo"/packet/src/main "$repo"/sflow-v5/src/main "$repo"/collector/src/main "$bench"/src/main -newer "$jar" -type f | wc -l)"
    find "$repo"/packet/src/main "$repo"/sflow-v5/src/main "$repo"/collector/src/main "$bench"/src/main -newer "$jar" -type f | sed "s|^$repo/|  newer than the jar (not measured): |"
    echo "load before: $(cat /proc/loadavg)"; echo; echo "lscpu:"; lscpu; } > "$out/machine.txt"
}

record_command() {
  { echo "cd $repo && bench/peers/run.sh $*"
    env | grep -E '^(COLLECTORS|RATES|DURATION|REPEATS|STOP_AFTER_LOSSY|QUIET_MAX_PCT|QUIET_WAIT_S|OTHER_MAX_PCT|RETRIES|VECFLOW_WARMUP|VECFLOW_JAVA_OPTS|PROFILE_RATE|PROFILE_SECONDS|STALLS_RATE|STALLS_SECONDS|STALLS_ONE_WARMUP|JMH_ARGS|NOCATCHUP|OUT|BENCH_WORK)=' | sed 's/^/  env /' || true
    echo "started: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; } > "$out/command.txt"
}

port_free() {
  if grep -qi ':18BB ' /proc/net/udp /proc/net/udp6; then
    echo "run.sh: udp port 6343 is in use (another collector?): stop it first" >&2; exit 1
  fi
}

prepare_harness() {
  gcc -O2 -o "$work/sender" "$here/sender.c"
  gcc -O2 -o "$work/sink" "$here/sink.c"
  python3 "$here/extract.py" "$work/mix.bin" "$repo"/testdata/sflow/*.pcap 2> "$out/mix.txt"
  orig_rmem=$(sysctl -n net.core.rmem_max)
  trap 'sysctl -qw net.core.rmem_max='"$orig_rmem"'; echo "net.core.rmem_max restored to $(sysctl -n net.core.rmem_max)"' EXIT
  sysctl -qw net.core.rmem_max=8388608
}

case $mode in
peers)
  port_free; record_command "$@"; machine; prepare_harness
  rm -f "$work/results.jsonl"
  export BENCH_WORK=$work NOCATCHUP=${NOCATCHUP:-1} STOP_AFTER_LOSSY=${STOP_AFTER_LOSSY:-2} VECFLOW_BENCH_JAR=$jar
  rates=${RATES:-50000,75000,100000,125000,150000,175000,200000,225000,250000,275000,300000,350000,400000}
  python3 "$here/bench.py" "${COLLECTORS:-vecflow,sfacctd,sfcapd}" "$rates" "${DURATION:-5}" "${REPEATS:-2}" 2>&1 | tee "$out/console.log"
  cp "$work/results.jsonl" "$out/results.jsonl"
  python3 "$here/summarize.py" "$out/results.jsonl" sfacctd > "$out/summary.md"
  echo "finished: $(date -u +%Y-%m-%dT%H:%M:%SZ); load after: $(cat /proc/loadavg)" >> "$out/command.txt"
  cat "$out/summary.md"
  ;;
profile)
  # vecflow's collector pinned to CPU 1 under JFR (profile settings: Java execution samples every 10-20 ms,
  # allocation samples, GC), fed at PROFILE_RATE for PROFILE_SECONDS by the same sender on CPU 0.
  port_free; record_command "$@"; machine; prepare_harness
  rate=${PROFILE_RATE:-200000}; secs=${PROFILE_SECONDS:-20}
  count=$(( rate * secs / 12 * 12 ))
  jfr=$out/collector.jfr
  "$JAVA_HOME/bin/java" -version >/dev/null 2>&1
  taskset -c 1 "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow \
      -XX:StartFlightRecording=filename=$jfr,settings=profile,delay=8s ${VECFLOW_JAVA_OPTS:-} \
      -cp "$jar" io.vecflow.bench.CollectorUnderTest --bind 127.0.0.1 --port 6343 --threads 1 --rcvbuf 8388608 \
      --status "$work/profile.status" > "$out/collector.out" 2>&1 &
  cpid=$!
  trap 'kill -TERM '"$cpid"' 2>/dev/null || true; sysctl -qw net.core.rmem_max='"$orig_rmem"'; echo "net.core.rmem_max restored to $(sysctl -n net.core.rmem_max)"' EXIT
  for _ in $(seq 100); do grep -qi ':18BB ' /proc/net/udp /proc/net/udp6 && break; sleep 0.1; done
  # warm-up: two bursts, so that the measured send's sequence reset is not the JIT's first (see bench.py warmup);
  # the recording starts 8 s after the JVM, about when the load starts
  taskset -c 0 "$work/sender" "$work/mix.bin" 6343 100000 150000 0 seq nocatchup | tee "$out/console.log"
  sleep 1.5
  taskset -c 0 "$work/sender" "$work/mix.bin" 6343 100000 150000 0 seq nocatchup | tee -a "$out/console.log"
  sleep 1.5
  s0=$(cat "$work/profile.status"); t0=$(awk '{print $14+$15}' /proc/$cpid/stat)
  taskset -c 0 "$work/sender" "$work/mix.bin" 6343 "$rate" "$count" 0 seq nocatchup | tee -a "$out/console.log"
  t1=$(awk '{print $14+$15}' /proc/$cpid/stat); u1=$(awk '{print $14}' /proc/$cpid/stat)
  sleep 2; s1=$(cat "$work/profile.status")
  drops=$(BENCH_WORK=$work python3 -c "import sys; sys.path.insert(0, '$here'); import bench; print(bench.sock_info(6343))")
  kill -TERM $cpid; wait $cpid || true
  trap 'sysctl -qw net.core.rmem_max='"$orig_rmem"'; echo "net.core.rmem_max restored to $(sysctl -n net.core.rmem_max)"' EXIT
  { echo "status before: $s0"; echo "status after:  $s1"; echo "socket (drops = whole run): $drops"
    echo "collector CPU ticks during the send: $((t1 - t0)) (HZ=$(getconf CLK_TCK))"; } | tee -a "$out/console.log"
  jfrbin=$JAVA_HOME/bin/jfr
  for v in hot-methods allocation-by-class gc-pauses cpu-load; do
    echo "== jfr view $v" >> "$out/jfr-views.txt"; "$jfrbin" view --width 200 "$v" "$jfr" >> "$out/jfr-views.txt" 2>&1 || true
  done
  python3 "$here/jfr_top.py" "$jfrbin" "$jfr" > "$out/jfr-top.txt"
  cat "$out/jfr-top.txt"
  ;;
stalls)
  # one vecflow step at STALLS_RATE under JFR with the socket's drops polled every 10 ms: drop bursts vs JVM events
  port_free; record_command "$@"; machine; prepare_harness
  BENCH_WORK=$work VECFLOW_BENCH_JAR=$jar STALLS_ONE_WARMUP=${STALLS_ONE_WARMUP:-0} python3 "$here/stalls.py" "${STALLS_RATE:-125000}" "${STALLS_SECONDS:-8}" "$out" 2>&1 | tee "$out/console.log"
  ;;
jmh)
  record_command "$@"; machine
  "$JAVA_HOME/bin/java" -jar "$jar" ${JMH_ARGS:--prof gc} -rf json -rff "$out/jmh.json" 2>&1 | tee "$out/console.log"
  python3 "$here/jmh_summary.py" "$out/jmh.json" > "$out/summary.md"; cat "$out/summary.md"
  echo "finished: $(date -u +%Y-%m-%dT%H:%M:%SZ); load after: $(cat /proc/loadavg)" >> "$out/command.txt"
  ;;
*) echo "usage: run.sh [peers|profile|stalls|jmh]" >&2; exit 2 ;;
esac
