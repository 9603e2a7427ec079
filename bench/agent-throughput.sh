#!/usr/bin/env bash
# Agent throughput with a sender that outruns the agent: PSAMPLE in, sFlow out, loss counted per sample.
#
#   bench/agent-throughput.sh            # as root (USERSOCK group, taskset, SO_RCVBUFFORCE); ~10 min
#
# Chain: bench/agent/psample-sender.c (C, pinned to CPU 0) sends PSAMPLE messages (kernel convention) on
# NETLINK_USERSOCK group $GROUP at a paced rate, BATCH messages per netlink datagram (1 = what the kernel's psample
# module does; 16 = what vecflow's dataplane sends with sflow.psample-batch-bytes), up to 32 datagrams per sendmmsg;
# every sample's frame carries its own sequence number → the agent (io.vecflow.cli.HsflowdMain, the packaged
# daemon's entry point, pinned to CPU 1, started as root and dropped to nobody, sampling = 1, 128 header bytes,
# datagramBytes = 1400) → sFlow v5 to 127.0.0.1:$PORT → bench/agent/sflow-sink.c (C, CPU 0, recvmmsg, SPIN=1: it
# polls without sleeping so that the agent's sends never pay for waking it on another CPU — an inter-processor
# interrupt, in a VM a VM exit, that a collector on another machine would not cost) decodes every flow sample and
# marks its sequence number: unique, missing, duplicates are exact. A step sends rate × $DURATION s; it is
# loss-free when every number arrived once. The agent is restarted and warmed up (3 s at 200k/s) for each rate;
# variants take turns per rate. CPU = the agent's user + system time during the send, in % of one CPU.
#
# Variants (AGENTS, ';'-separated NAME|CLASSPATH|JVM OPTIONS; CLASSPATH <tree> = this tree's build): by default
# "packaged|<tree>|" the package's JVM options (scripts/package-deb.sh). Writes bench/results/<UTC date>-agent-throughput/ (OUT=DIR overrides): command.txt,
# machine.txt, results.jsonl, console.log, agent-*.log, summary.md.
# Settings: AGENTS, PLAN (BATCH:RATE,...;BATCH:RATE,...), DURATION (5), REPEATS (2), GROUP (21), PORT (16343),
# SPIN (1), NO_BUILD=1.
set -euo pipefail
case "${1:-}" in
  -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
  "") ;;
  *) echo "agent-throughput.sh: no arguments (settings are environment variables; --help lists them)" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "$0")" && pwd -P)
repo=$(dirname "$here")
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
java=$JAVA_HOME/bin/java
out=${OUT:-$here/results/$(date -u +%Y-%m-%d)-agent-throughput}
PLAN=${PLAN:-16:400000,800000,1000000,1200000;1:200000,300000,400000}
DURATION=${DURATION:-5} REPEATS=${REPEATS:-2} GROUP=${GROUP:-21} PORT=${PORT:-16343} SPIN=${SPIN:-1}
[[ $(id -u) == 0 ]] || { echo "agent-throughput.sh: run as root (USERSOCK group, taskset, SO_RCVBUFFORCE)" >&2; exit 2; }
command -v cc >/dev/null || { echo "agent-throughput.sh: needs a C compiler (apt-get install gcc)" >&2; exit 2; }
work=$(mktemp -d /tmp/vecflow-agent-bench.XXXXXX)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
cc -O2 -Wall -o "$work/psample-sender" "$here/agent/psample-sender.c"
cc -O2 -Wall -o "$work/sflow-sink" "$here/agent/sflow-sink.c"
if [[ ${NO_BUILD:-0} != 1 ]]; then
  echo "agent-throughput.sh: building dist from this tree" >&2
  (cd "$repo" && ./mvnw -q -B -o package -DskipTests -Dvecflow.deb.skip=true -Dfuzz.skip=true -pl dist -am >/dev/null)
fi
mkdir -p "$work/tree/lib"
cp "$repo"/dist/target/lib-hsflowd/*.jar "$work/tree/lib/"
cp "$repo/dist/target/vecflow.jar" "$work/tree/"
chmod -R a+rX "$work"
pkg_opts=$(awk '/^declare -A jvm=\(/{j=1; next} j&&/\[hsflowd\]="/{f=1} f{printf "%s", $0} f&&/"$/{exit}' \
  "$repo/scripts/package-deb.sh" | tr -d '\\' | sed 's/.*\[hsflowd\]="//; s/".*//; s/  */ /g')
[[ $pkg_opts == *-Xmx* ]] || { echo "agent-throughput.sh: the agent's JVM options not found in scripts/package-deb.sh" >&2; exit 1; }
AGENTS=${AGENTS:-"packaged|<tree>|$pkg_opts"}
AGENTS=${AGENTS//<tree>/$work/tree/lib/*:$work/tree/vecflow.jar}   # <tree> = this tree's build
mkdir -p "$out"
rm -f "$out/results.jsonl" "$out"/agent-*.log
cat > "$work/agent.conf" <<CONF
# bench/agent-throughput.sh: every PSAMPLE becomes one flow sample (sampling = 1 = the messages' rate)
sflow {
  agentIP = 192.0.2.1
  sampling = 1
  headerBytes = 128
  datagramBytes = 1400
  collector { ip = 127.0.0.1 udpport = $PORT }
  psample { group = 1 transport = usersock usersockGroup = $GROUP }
}
CONF
chmod 644 "$work/agent.conf"
cp "$work/agent.conf" "$out/agent.conf"
{ echo "cd <repo> && bench/agent-throughput.sh"
  for v in PLAN DURATION REPEATS GROUP PORT SPIN NO_BUILD; do echo "  env $v=${!v:-}"; done
  echo "  env AGENTS=$(echo "$AGENTS" | sed "s|$work|<work>|g; s|$repo|<repo>|g")"
  echo "started: $(date -u +%Y-%m-%dT%H:%M:%SZ), load $(cut -d' ' -f1-3 /proc/loadavg)"; } > "$out/command.txt"
{ echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; echo "nproc: $(nproc)"; echo "uname: $(uname -srm)"
  echo "java: $("$java" -version 2>&1 | head -1)"; echo "cc: $(cc --version | head -1)"
  echo "git HEAD: $(cd "$repo" && git log -1 --format='%h %cI %s' | cut -c1-140)"
  echo "uncommitted in hsflowd-compat psample-bridge sflow-v5 dist: $(cd "$repo" && git status --short hsflowd-compat psample-bridge sflow-v5 dist | wc -l) files"
  echo "load before: $(cat /proc/loadavg)"; lscpu | grep -E '^(CPU\(s\)|Model name|Hypervisor)'; } > "$out/machine.txt"
args=()
IFS=';' read -ra specs <<< "$AGENTS"
for s in "${specs[@]}"; do args+=(--agent "$s"); done
python3 "$here/agent/driver.py" "${args[@]}" --plan "$PLAN" --duration "$DURATION" --repeats "$REPEATS" \
  --group "$GROUP" --port "$PORT" --spin "$SPIN" --conf "$work/agent.conf" --sender "$work/psample-sender" \
  --sink "$work/sflow-sink" --workdir "$work" --java "$java" --out "$out/results.jsonl" 2>&1 | tee "$out/console.log"
for f in "$work"/agent-*.log; do sed "s|$work|<work>|g" "$f" > "$out/$(basename "$f")"; done
python3 "$here/agent/summary.py" "$out/results.jsonl" > "$out/summary.md"
cat "$out/summary.md"
echo "finished: $(date -u +%Y-%m-%dT%H:%M:%SZ), load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/command.txt"
