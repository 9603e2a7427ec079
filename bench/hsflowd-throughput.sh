#!/usr/bin/env bash
# Agent throughput: the highest PSAMPLE rate (samples/s) that `vecflow hsflowd` turns into sFlow flow samples at a
# UDP sink with no loss.
#
#   bench/hsflowd-throughput.sh            # as root (joins a NETLINK_USERSOCK group, raises net.core.rmem_max)
#
# Chain: io.vecflow.bench.HsflowdThroughput (pinned to CPU 0) sends PSAMPLE (kernel convention, real frames from
# testdata/traffic cut to 128 bytes, cycled) on USERSOCK group $GROUP → the agent, started here as the packaged
# launcher starts it (same JVM options), pinned to CPU 1, sampling = 1 so that nothing is sub-sampled, started as root
# and dropped to $AGENT_USER → sFlow v5 to 127.0.0.1:$PORT → the driver's UDP sink (8 MiB buffer), which decodes every
# datagram and counts flow samples. Rates climb ($RATES, $DURATION s per step, $REPEATS repeats); the climb stops
# after $STOP_AFTER_LOSSY consecutive lossy rates or after $MAX_SECONDS. See HsflowdThroughput's class comment.
#
# Writes bench/results/<UTC date>-hsflowd-throughput/ (OUT=DIR overrides): command.txt, machine.txt, agent.conf,
# agent.log (the agent's own counters at exit), console.log, results.jsonl (one line per step), summary.md.
# Settings (environment): RATES, DURATION (5), REPEATS (2), STOP_AFTER_LOSSY (2), MAX_SECONDS (900),
# OTHER_MAX_PCT (25), RETRIES (3), GROUP (21), PORT (16343), AGENT_USER (nobody), AGENT_JAVA_OPTS (the package's),
# NO_BUILD=1 (use the jars as they are).
set -euo pipefail
case "${1:-}" in
  -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
  "") ;;
  *) echo "hsflowd-throughput.sh: no arguments (settings are environment variables; --help lists them)" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "$0")" && pwd -P)
repo=$(dirname "$here")
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
java=$JAVA_HOME/bin/java
stamp=$(date -u +%Y-%m-%d)
out=${OUT:-$here/results/$stamp-hsflowd-throughput}
RATES=${RATES:-10000,25000,50000,75000,100000,125000,150000,175000,200000,250000,300000}
DURATION=${DURATION:-5} REPEATS=${REPEATS:-2} STOP_AFTER_LOSSY=${STOP_AFTER_LOSSY:-2} MAX_SECONDS=${MAX_SECONDS:-900}
OTHER_MAX_PCT=${OTHER_MAX_PCT:-25} RETRIES=${RETRIES:-3} GROUP=${GROUP:-21} PORT=${PORT:-16343}
AGENT_USER=${AGENT_USER:-nobody} NO_BUILD=${NO_BUILD:-0}
# JVM options: the old package's (the package's own are now in scripts/package-deb.sh, run on its jlink runtime)
AGENT_JAVA_OPTS=${AGENT_JAVA_OPTS:--XX:-UsePerfData -XX:+UseSerialGC -Xms16m -Xmx128m}

[[ $(id -u) == 0 ]] || { echo "hsflowd-throughput.sh: run as root (USERSOCK group join, sysctl, taskset)" >&2; exit 2; }
"$java" -version 2>&1 | grep -q 'version "2[5-9]' || { echo "hsflowd-throughput.sh: JAVA_HOME=$JAVA_HOME is not a JDK >= 25" >&2; exit 2; }
if [[ ${NO_BUILD:-0} != 1 ]]; then
  echo "hsflowd-throughput.sh: building dist and bench from this tree" >&2
  (cd "$repo" && ./mvnw -q -B -o package -DskipTests -Dvecflow.deb.skip=true -pl dist,bench -am >/dev/null)
fi
jar=$repo/dist/target/vecflow.jar bench_jar=$here/target/benchmarks.jar
[[ -f $jar && -f $bench_jar ]] || { echo "hsflowd-throughput.sh: $jar or $bench_jar missing (build, or unset NO_BUILD)" >&2; exit 1; }
if [[ $AGENT_USER != root ]] && ! runuser -u "$AGENT_USER" -- test -r "$jar"; then
  echo "hsflowd-throughput.sh: $AGENT_USER cannot read $jar (a repository under /root?): AGENT_USER=root" >&2; exit 2
fi
if grep -qi ":$(printf '%04X' "$PORT") " /proc/net/udp; then
  echo "hsflowd-throughput.sh: udp port $PORT is in use: PORT=another" >&2; exit 1
fi
mkdir -p "$out"
rm -f "$out/results.jsonl"

{ echo "cd $repo && bench/hsflowd-throughput.sh"
  for v in RATES DURATION REPEATS STOP_AFTER_LOSSY MAX_SECONDS OTHER_MAX_PCT RETRIES GROUP PORT AGENT_USER AGENT_JAVA_OPTS NO_BUILD; do
    echo "  env $v=${!v}"; done
  echo "started: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; } > "$out/command.txt"
{ echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; echo "nproc: $(nproc)"; echo "uname: $(uname -srm)"
  echo "java: $("$java" -version 2>&1 | head -1)"
  echo "git HEAD: $(cd "$repo" && git log -1 --format='%H %cI %s' | cut -c1-160)"
  echo "uncommitted in hsflowd-compat psample-bridge sflow-v5 dist bench: $(cd "$repo" && git status --short hsflowd-compat psample-bridge sflow-v5 dist bench/src | wc -l) files"
  echo "vecflow.jar: $(date -u -r "$jar" +%Y-%m-%dT%H:%M:%SZ); benchmarks.jar: $(date -u -r "$bench_jar" +%Y-%m-%dT%H:%M:%SZ)"
  echo "load before: $(cat /proc/loadavg)"; echo; echo "lscpu:"; lscpu; } > "$out/machine.txt"

cat > "$out/agent.conf" <<CONF
# bench/hsflowd-throughput.sh: every PSAMPLE becomes one flow sample (sampling = 1 = the messages' rate)
sflow {
  agentIP = 192.0.2.1
  sampling = 1
  headerBytes = 128
  datagramBytes = 1400
  collector { ip = 127.0.0.1 udpport = $PORT }
  psample { group = 1 transport = usersock usersockGroup = $GROUP }
}
CONF
chmod 644 "$out/agent.conf"

orig_rmem=$(sysctl -n net.core.rmem_max)
agent=""
cleanup() {
  if [[ -n $agent ]]; then kill -TERM "$agent" 2>/dev/null || true; wait "$agent" 2>/dev/null || true; fi
  sysctl -qw net.core.rmem_max="$orig_rmem"
}
trap cleanup EXIT
sysctl -qw net.core.rmem_max=8388608

# shellcheck disable=SC2086 # option lists
taskset -c 1 "$java" $AGENT_JAVA_OPTS --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow \
  -jar "$jar" hsflowd -f "$out/agent.conf" --user "$AGENT_USER" > "$out/agent.log" 2>&1 &
agent=$!
for _ in $(seq 300); do grep -q '^vecflow hsflowd: agent ' "$out/agent.log" && break
  kill -0 "$agent" 2>/dev/null || { cat "$out/agent.log" >&2; exit 1; }; sleep 0.1; done
grep -q '^vecflow hsflowd: agent ' "$out/agent.log" || { echo "agent did not start:" >&2; cat "$out/agent.log" >&2; exit 1; }

taskset -c 0 "$java" --enable-native-access=ALL-UNNAMED -cp "$bench_jar" io.vecflow.bench.HsflowdThroughput \
  --group "$GROUP" --port "$PORT" --agent-pid "$agent" --rates "$RATES" --duration "$DURATION" --repeats "$REPEATS" \
  --stop-after-lossy "$STOP_AFTER_LOSSY" --max-seconds "$MAX_SECONDS" --other-max-pct "$OTHER_MAX_PCT" \
  --retries "$RETRIES" --out "$out/results.jsonl" 2>&1 | tee "$out/console.log"

kill -TERM "$agent"; wait "$agent" || true; agent=""
python3 "$here/hsflowd-summary.py" "$out/results.jsonl" "$out/agent.log" > "$out/summary.md"
cat "$out/summary.md"
echo "finished: $(date -u +%Y-%m-%dT%H:%M:%SZ); load after: $(cat /proc/loadavg)" >> "$out/command.txt"
