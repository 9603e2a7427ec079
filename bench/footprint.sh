#!/usr/bin/env bash
# Footprint of the packaged agent (issue 18): RSS and threads idle and at 50k samples/s, and the time from exec to
# the first datagram at a UDP sink on 127.0.0.1, for the vecflow-hsflowd .deb as installed.
#
#   bench/footprint.sh [LABEL=JVM-OPTIONS ...]     # as root (the agent joins a NETLINK_USERSOCK group)
#
# Each argument is one configuration: LABEL=OPTIONS, the options appended to the package's own JVM options (later
# options win; the launcher takes them from VECFLOW_JAVA_OPTS); words NAME=VALUE among them are set in the agent's
# environment instead (MALLOC_ARENA_MAX=1). No argument: "package=" (the package as built).
# -XX:AOTMode=off measures the package without its AOT cache.
# Per configuration:
#   start  RUNS times: a PSAMPLE sender already offers RATE samples/s; t0 = just before exec of
#          /usr/sbin/vecflow-hsflowd; t1 = the first datagram at the sink (bench/udp-sink.py); start = t1 - t0
#   idle   no sender; SETTLE s after the agent's start line: VmRSS, Threads (/proc/PID/status), thread names
#   load   the sender offering RATE samples/s for LOAD_SECONDS: VmRSS every 0.5 s (max and last), Threads, the
#          flow samples per second the sink counted (so the rate is shown, not assumed)
# The sender is vecflow's dataplane (dist/target/vecflow.jar on $JAVA_HOME) replaying its bundled capture at
# --pps RATE with --sampling-rate 1 (every packet one PSAMPLE on USERSOCK group $GROUP), pinned to CPU 0; the agent
# runs on CPU 1. The agent config: bench/results/.../agent.conf (sampling = 1, polling = 30, usersock psample).
# The package is installed with dpkg -x into a scratch root (the bundled runtime and AOT cache as shipped).
#
# Writes OUT (default bench/results/<UTC date>-footprint/): command.txt, machine.txt, agent.conf,
# <label>.json (one JSON object per configuration), <label>.threads (thread names idle), <label>.log.
# Settings (environment): RATE (50000), RUNS (5), SETTLE (10), LOAD_SECONDS (20), GROUP (25), PORT (16399),
# DEB (dist/target/vecflow-hsflowd_*.deb), NO_BUILD=1 (use the .deb as it is).
set -euo pipefail
case "${1:-}" in
  -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
here=$(cd "$(dirname "$0")" && pwd -P)
repo=$(dirname "$here")
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
java=$JAVA_HOME/bin/java
out=${OUT:-$here/results/$(date -u +%Y-%m-%d)-footprint}
RATE=${RATE:-50000} RUNS=${RUNS:-5} SETTLE=${SETTLE:-10} LOAD_SECONDS=${LOAD_SECONDS:-20}
GROUP=${GROUP:-25} PORT=${PORT:-16399} NO_BUILD=${NO_BUILD:-0}
[[ $(id -u) == 0 ]] || { echo "footprint.sh: run as root (USERSOCK group join, taskset)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "footprint.sh: python3 missing (apt-get install python3)" >&2; exit 1; }
if [[ $NO_BUILD != 1 ]]; then
  echo "footprint.sh: building dist (and its packages) from this tree" >&2
  (cd "$repo" && ./mvnw -q -B -o package -DskipTests -pl dist -am >/dev/null)
fi
deb=${DEB:-$(ls "$repo"/dist/target/vecflow-hsflowd_*_amd64.deb)}
[[ -f $deb ]] || { echo "footprint.sh: no .deb ($deb): build, or unset NO_BUILD" >&2; exit 1; }
configs=("$@")
((${#configs[@]})) || configs=("package=")
mkdir -p "$out"

scratch=$(mktemp -d)
chmod 755 "$scratch"
dpkg -x "$deb" "$scratch"
launcher=$scratch/usr/sbin/vecflow-hsflowd
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$scratch"
}
trap cleanup EXIT

{ echo "cd <repository> && bench/footprint.sh $*"
  for v in RATE RUNS SETTLE LOAD_SECONDS GROUP PORT NO_BUILD; do echo "  env $v=${!v}"; done
  echo "deb: $(basename "$deb") ($(stat -c %s "$deb") bytes)"
  echo "package JVM options: $(sed -n 's/^exec "$home\/runtime\/bin\/java" \(.*\) "$aot".*/\1/p' "$launcher")"
  echo "started: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; } > "$out/command.txt"
{ echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; echo "nproc: $(nproc)"; echo "uname: $(uname -srm)"
  echo "memory: $(grep MemTotal /proc/meminfo)"
  echo "bundled runtime: $("$scratch"/usr/lib/vecflow-hsflowd/runtime/bin/java -version 2>&1 | sed -n 3p)"
  echo "git HEAD: $(cd "$repo" && git log -1 --format='%H %s' | cut -c1-120)"
  echo "load before: $(cat /proc/loadavg)"; } > "$out/machine.txt"
cat > "$out/agent.conf" <<CONF
# bench/footprint.sh: every PSAMPLE becomes one flow sample (sampling = 1)
sflow {
  agentIP = 192.0.2.1
  sampling = 1
  polling = 30
  collector { ip = 127.0.0.1 udpport = $PORT }
  psample { group = 1 transport = usersock usersockGroup = $GROUP }
}
CONF
chmod 644 "$out/agent.conf"

start_sender() { # rate -> pid in $sender
  taskset -c 0 "$java" --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -Xmx256m \
    -jar "$repo/dist/target/vecflow.jar" dataplane --transport usersock --netlink-group "$GROUP" --workers 1 \
    --sampling-rate 1 --pps "$1" --loops 100000000 > "$work/sender.log" 2>&1 &
  sender=$!; pids+=("$sender")
  sleep 2
  kill -0 "$sender" 2>/dev/null || { cat "$work/sender.log" >&2; echo "footprint.sh: sender died" >&2; exit 1; }
}
stop_pid() { kill -TERM "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }
start_sink() { # seconds -> pid in $sink
  rm -f "$work/first"
  python3 "$here/udp-sink.py" --port "$PORT" --first "$work/first" --seconds "$1" > "$work/sink.log" 2>&1 &
  sink=$!; pids+=("$sink")
  for _ in $(seq 50); do grep -q listening "$work/sink.log" 2>/dev/null && return; sleep 0.1; done
  echo "footprint.sh: the sink did not start" >&2; exit 1
}
start_agent() { # opts -> pid in $agent, t0 in $t0
  local envs=() o=() w
  for w in $1; do if [[ $w =~ ^[A-Z_]+= ]]; then envs+=("$w"); else o+=("$w"); fi; done
  t0=$(date +%s%N)
  env "${envs[@]}" VECFLOW_JAVA_OPTS="${o[*]}" taskset -c 1 "$launcher" -f "$out/agent.conf" --user nobody \
    > "$work/agent.log" 2>&1 &
  agent=$!; pids+=("$agent")
  for _ in $(seq 300); do grep -qs '^vecflow hsflowd: agent ' "$work/agent.log" && return
    kill -0 "$agent" 2>/dev/null || { cat "$work/agent.log" >&2; exit 1; }; sleep 0.05; done
  echo "footprint.sh: the agent did not start" >&2; cat "$work/agent.log" >&2; exit 1
}
rss_kb() { sed -n 's/^VmRSS:\s*\([0-9]*\) kB/\1/p' "/proc/$1/status"; }
threads() { sed -n 's/^Threads:\s*//p' "/proc/$1/status"; }

for cfg in "${configs[@]}"; do
  label=${cfg%%=*} opts=${cfg#*=}
  work=$(mktemp -d)
  echo "footprint.sh: $label ($opts)" >&2
  # start: exec -> first datagram, the sender already running
  start_sender "$RATE"
  starts=()
  for ((i = 0; i < RUNS; i++)); do
    start_sink 30
    start_agent "$opts"
    for _ in $(seq 200); do [[ -s $work/first ]] && break; sleep 0.05; done
    [[ -s $work/first ]] || { echo "footprint.sh: no datagram within 10 s" >&2; cat "$work/agent.log" >&2; exit 1; }
    starts+=($((($(cat "$work/first") - t0) / 1000000)))
    stop_pid "$agent"; stop_pid "$sink"
  done
  stop_pid "$sender"
  # idle: no sender
  start_sink $((SETTLE + 5))
  start_agent "$opts"
  sleep "$SETTLE"
  idle_rss=$(rss_kb "$agent") idle_threads=$(threads "$agent")
  for t in /proc/"$agent"/task/*; do cat "$t/comm"; done | sort | uniq -c | sort -rn > "$out/$label.threads"
  # load: the sender at RATE for LOAD_SECONDS
  start_sender "$RATE"
  max_rss=0 last_rss=0
  for ((i = 0; i < LOAD_SECONDS * 2; i++)); do
    last_rss=$(rss_kb "$agent"); ((last_rss > max_rss)) && max_rss=$last_rss
    sleep 0.5
  done
  load_threads=$(threads "$agent")
  stop_pid "$sender"
  sleep 1.5
  stop_pid "$agent"; stop_pid "$sink"
  # flow samples per second at the sink during the load (the middle of the per-second counts)
  rate=$(python3 - "$work/sink.log" "$LOAD_SECONDS" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
d = [b["flow_samples"] - a["flow_samples"] for a, b in zip(rows, rows[1:])]
busy = sorted(x for x in d if x > 0)
print(busy[len(busy) // 2] if busy else 0)
PY
)
  sorted=$(printf '%s\n' "${starts[@]}" | sort -n | tr '\n' ' ')
  median=$(printf '%s\n' "${starts[@]}" | sort -n | sed -n "$((RUNS / 2 + 1))p")
  printf '{"label":"%s","opts":"%s","start_ms_median":%d,"start_ms":"%s","idle_rss_kb":%d,"idle_threads":%d,"load_rate_per_s":%d,"load_rss_kb_max":%d,"load_rss_kb_last":%d,"load_threads":%d}\n' \
    "$label" "$opts" "$median" "${sorted% }" "$idle_rss" "$idle_threads" "$rate" "$max_rss" "$last_rss" \
    "$load_threads" | tee "$out/$label.json"
  cp "$work/agent.log" "$out/$label.log"
  rm -rf "$work"
done
echo "finished: $(date -u +%Y-%m-%dT%H:%M:%SZ); load after: $(cat /proc/loadavg)" >> "$out/command.txt"
