#!/usr/bin/env bash
# End to end on one box: generator -> dataplane -> PSAMPLE -> agent -> sFlow -> inlet -> Kafka -> outlet -> ClickHouse.
#
#   bench/e2e.sh                              # as root (USERSOCK groups); probe steps of 60 s, ~8 min
#   RATES=125000,135000 DURATION=300 bench/e2e.sh   # the committed 5-minute runs (results/2026-12-06-e2e)
#
# Each step (bench/e2e/driver.py) starts the outlet and the inlet (the collector's main class and packaged JVM
# options, roles outlet / inlet, a new Kafka topic, consumer group and ClickHouse database per step), the agent
# (HsflowdMain, the package's JVM options) and runs the dataplane (DataplaneMain) with two generator ports in an l2
# cross-connect, 60-byte frames over 1,024 flows, 1-in-$SAMPLING ingress sampling on both, paced so that the samples
# per second are the step's rate, for $WARMUP + $DURATION s: the first $WARMUP s warm every JVM, the measured window is
# the rest (from the second the dataplane's metrics show the warm-up's samples taken). Every sample is counted: the
# PSAMPLE messages sent against the unique (AgentAddress, SourceIdIndex, SampleSequence) in ClickHouse's flows table,
# plus the dataplane's FIFO drops in the window; loss is split by stage (dataplane FIFO, the agent's netlink socket,
# UDP to the inlet; after the inlet it must be 0); CPU of every stage (the dataplane with its generators, the agent,
# inlet, outlet, the Kafka broker and ClickHouse: user + system time of all their threads over the window, % of one
# CPU), RSS peak and each JVM's heap.
# "Sustained" = 0 lost, 0 duplicated, and the outlet kept up (its Kafka lag when the generator stopped at most
# 5 s of datagrams, drained within DRAIN_LIMIT s).
#
# Services: Debian's clickhouse-server and a KRaft Kafka broker (scripts/services/*.sh) on private loopback ports,
# data under a temporary directory. Writes bench/results/<UTC date>-e2e/ (OUT=DIR overrides): command.txt,
# machine.txt, results.jsonl, summary.md, logs/ (every daemon's log of the last step and the services' logs).
# Settings: RATES (flow samples/s, comma-separated: 100000,150000,200000,250000,300000), DURATION (60), WARMUP (15),
# SAMPLING (10), WORKERS (1), PARTITIONS (4), DRAIN_LIMIT (30), GROUP (21; NET_DM and counters use the next two),
# FIFO_SLOTS (16384: the dataplane's sflow.sample-fifo-slots, 0 = its default 2048 — VPP's, made for a main thread
# with a core of its own; here six processes share two CPUs and the main thread is off its CPU for longer than 2048
# samples last: 700-800 of 3.2-3.7 M samples dropped per 30 s at 110k-125k/s, 0 with 16384), BATCH_ROWS (the outlet's
# clickhouse.batch-rows; 0 = its default), COLLECTOR_OPTS (JVM options appended to the collector's), NO_BUILD=1.
set -euo pipefail
case "${1:-}" in
  -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
  "") ;;
  *) echo "e2e.sh: no arguments (settings are environment variables; --help lists them)" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "$0")" && pwd -P)
repo=$(dirname "$here")
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
java=$JAVA_HOME/bin/java
out=${OUT:-$here/results/$(date -u +%Y-%m-%d)-e2e}
RATES=${RATES:-100000,150000,200000,250000,300000}
DURATION=${DURATION:-60} WARMUP=${WARMUP:-15} SAMPLING=${SAMPLING:-10} WORKERS=${WORKERS:-1}
PARTITIONS=${PARTITIONS:-4} DRAIN_LIMIT=${DRAIN_LIMIT:-30} GROUP=${GROUP:-21} FIFO_SLOTS=${FIFO_SLOTS:-16384}
BATCH_ROWS=${BATCH_ROWS:-0}
[[ $RATES =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] \
  || { echo "e2e.sh: RATES='$RATES': need flow samples/s, comma-separated positive integers" >&2; exit 2; }
for v in DURATION WARMUP SAMPLING WORKERS PARTITIONS DRAIN_LIMIT GROUP; do
  [[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "e2e.sh: $v='${!v}': need a positive integer" >&2; exit 2; }
done
for v in FIFO_SLOTS BATCH_ROWS; do
  [[ ${!v} =~ ^[0-9]+$ ]] || { echo "e2e.sh: $v='${!v}': need an integer >= 0 (0 = the default)" >&2; exit 2; }
done
((GROUP + 2 <= 32)) || { echo "e2e.sh: GROUP=$GROUP: need 1..30 (NET_DM and counters use the next two)" >&2; exit 2; }
[[ $(id -u) == 0 ]] || { echo "e2e.sh: run as root (NETLINK_USERSOCK groups)" >&2; exit 2; }
command -v clickhouse-server >/dev/null || [[ -x /usr/bin/clickhouse-server ]] \
  || { echo "e2e.sh: needs clickhouse-server (apt-get install clickhouse-server)" >&2; exit 2; }
if [[ ${NO_BUILD:-0} != 1 ]]; then
  echo "e2e.sh: building dist from this tree" >&2
  (cd "$repo" && ./mvnw -q -B -o package -DskipTests -Dvecflow.deb.skip=true -Dfuzz.skip=true -pl dist -am >/dev/null)
fi
work=$(mktemp -d /tmp/vecflow-e2e.XXXXXX)
export VF_CH_HTTP_PORT=${VF_CH_HTTP_PORT:-27123} VF_CH_TCP_PORT=${VF_CH_TCP_PORT:-27000}
export VF_CH_INTERSERVER_PORT=${VF_CH_INTERSERVER_PORT:-27009}
export VF_KAFKA_PORT=${VF_KAFKA_PORT:-27092} VF_KAFKA_CONTROLLER_PORT=${VF_KAFKA_CONTROLLER_PORT:-27093}
export VF_KAFKA_HEAP=${VF_KAFKA_HEAP:-1g}
cleanup() {
  set +e
  mkdir -p "$out/logs"
  sed "s|$work|<work>|g; s|$repo|<repo>|g" "$work"/svc/clickhouse/log/clickhouse-server.err.log \
    > "$out/logs/clickhouse.err.log" 2>/dev/null
  tail -n 200 "$work"/svc/kafka/kafka.log | sed "s|$work|<work>|g; s|$repo|<repo>|g" > "$out/logs/kafka.log" 2>/dev/null
  "$repo/scripts/services/kafka.sh" stop "$work/svc/kafka" >/dev/null 2>&1
  "$repo/scripts/services/clickhouse.sh" stop "$work/svc/clickhouse" >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$out" "$work/svc"
rm -f "$out/results.jsonl"
"$repo/scripts/services/clickhouse.sh" start "$work/svc/clickhouse" >&2
"$repo/scripts/services/kafka.sh" start "$work/svc/kafka" >&2
ch_pid=$(cat "$work/svc/clickhouse/clickhouse.pid")
kafka_pid=$(cat "$work/svc/kafka/kafka.pid")

dist=$repo/dist/target
cp_of() { echo "$dist/vecflow.jar:$dist/lib-$1/*"; }
# The packaged daemons' JVM options (scripts/package-deb.sh's jvm=( ) table), so the figures are the package's.
pkg_opts() {
  awk '/^declare -A jvm=\(/{j=1} j{print} j&&/^  \[dataplane\]/{exit}' "$repo/scripts/package-deb.sh" \
    | tr -d '\\\n' | sed "s/.*\[$1\]=\"\([^\"]*\)\".*/\1/; s/  */ /g"
}
for p in hsflowd collector dataplane; do
  o=$(pkg_opts "$p")
  [[ $o == -XX:* ]] || { echo "e2e.sh: the $p JVM options not found in scripts/package-deb.sh" >&2; exit 1; }
  declare "opts_$p=$o"
done
# COLLECTOR_OPTS (appended to the collector's package options, later ones winning) compares other JVM settings.
opts_collector="$opts_collector${COLLECTOR_OPTS:+ $COLLECTOR_OPTS}"
{ echo "cd <repo> && bench/e2e.sh"
  for v in RATES DURATION WARMUP SAMPLING WORKERS PARTITIONS DRAIN_LIMIT GROUP FIFO_SLOTS BATCH_ROWS COLLECTOR_OPTS \
    NO_BUILD; do
    echo "  env $v=${!v:-}"
  done
  echo "  JVM options (scripts/package-deb.sh): hsflowd: $opts_hsflowd; collector: $opts_collector;" \
    "dataplane: $opts_dataplane"
  echo "started: $(date -u +%Y-%m-%dT%H:%M:%SZ), load $(cut -d' ' -f1-3 /proc/loadavg)"; } > "$out/command.txt"
{ echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; echo "nproc: $(nproc)"; echo "uname: $(uname -srm)"
  echo "java: $("$java" -version 2>&1 | head -1)"
  echo "clickhouse: $(python3 -c 'import sys, urllib.request as u; print(u.urlopen(sys.argv[1]).read().decode())' \
    "http://127.0.0.1:$VF_CH_HTTP_PORT/?query=SELECT%20version()")"
  echo "kafka: $(ls "$work/svc/kafka/lib" | grep -m1 '^kafka_' || true)"
  echo "git HEAD: $(cd "$repo" && git log -1 --format='%h %cI %s' | cut -c1-140)"
  echo "uncommitted files: $(cd "$repo" && git status --short | wc -l)"
  echo "memory: $(free -m | awk '/^Mem:/{print $2 " MiB total, " $7 " MiB available"}')"
  echo "load before: $(cat /proc/loadavg)"; lscpu | grep -E '^(CPU\(s\)|Model name|Hypervisor)'; } > "$out/machine.txt"

python3 "$here/e2e/driver.py" --rates "$RATES" --duration "$DURATION" --warmup "$WARMUP" --sampling "$SAMPLING" \
  --workers "$WORKERS" --partitions "$PARTITIONS" --drain-limit "$DRAIN_LIMIT" --group "$GROUP" \
  --fifo-slots "$FIFO_SLOTS" --batch-rows "$BATCH_ROWS" --java "$java" \
  --classpath "collector=$(cp_of collector);hsflowd=$(cp_of hsflowd);dataplane=$(cp_of dataplane)" \
  --jvm-opts "collector=$opts_collector;hsflowd=$opts_hsflowd;dataplane=$opts_dataplane" \
  --clickhouse "http://127.0.0.1:$VF_CH_HTTP_PORT" --clickhouse-pid "$ch_pid" \
  --kafka "127.0.0.1:$VF_KAFKA_PORT" --kafka-pid "$kafka_pid" --work "$work/steps" --out "$out/results.jsonl" \
  2> >(tee "$out/console.log" >&2)
mkdir -p "$out/logs"
last=$(ls -d "$work"/steps/step-* | tail -1)
for f in "$last"/*.log "$last"/*.yaml "$last"/hsflowd.conf; do
  sed "s|$work|<work>|g; s|$repo|<repo>|g" "$f" | tail -n 400 > "$out/logs/$(basename "$f")"
done
python3 "$here/e2e/summary.py" "$out/results.jsonl" > "$out/summary.md"
cat "$out/summary.md"
