#!/usr/bin/env bash
# The console's Visualize query over 1 M flow rows on both stores (ConsoleQueryBenchmark, JMH), saved with its
# command and machine facts:
#
#   bench/console-query.sh [OUT]        # OUT defaults to bench/results/<date>-console-query
#
# Needs bench/target/benchmarks.jar (bench/README.md "Build"). ClickHouse: VECFLOW_BENCH_CLICKHOUSE_URL when set,
# else a private Debian clickhouse-server started on 127.0.0.1:28123 in a temporary directory and stopped after.
# Extra JMH arguments: JMH_ARGS (e.g. JMH_ARGS="-p query=raw -i 3").
set -euo pipefail
bench=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
repo=$(cd "$bench/.." && pwd -P)
jar=$bench/target/benchmarks.jar
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
[[ -x $JAVA_HOME/bin/java ]] || { echo "console-query.sh: no JDK at $JAVA_HOME (set JAVA_HOME)" >&2; exit 1; }
[[ -f $jar ]] || { echo "console-query.sh: $jar missing: ./mvnw -q -B package -DskipTests -pl bench -am" >&2; exit 1; }
out=${1:-$repo/bench/results/$(date -u +%Y-%m-%d)-console-query}
mkdir -p "$out"

svc=""
cleanup() {
  if [[ -n $svc ]]; then
    VF_CH_HTTP_PORT=28123 VF_CH_TCP_PORT=29000 VF_CH_INTERSERVER_PORT=29009 \
      "$repo/scripts/services/clickhouse.sh" stop "$svc/clickhouse" >/dev/null 2>&1 || true
    rm -rf "$svc"
  fi
}
trap cleanup EXIT
if [[ -z ${VECFLOW_BENCH_CLICKHOUSE_URL:-} ]]; then
  svc=$(mktemp -d "${TMPDIR:-/tmp}/vecflow-bench-ch.XXXXXX")
  VF_CH_HTTP_PORT=28123 VF_CH_TCP_PORT=29000 VF_CH_INTERSERVER_PORT=29009 \
    "$repo/scripts/services/clickhouse.sh" start "$svc/clickhouse"
  export VECFLOW_BENCH_CLICKHOUSE_URL=http://127.0.0.1:28123
fi

{ echo "cd <repo> && bench/console-query.sh $*"
  echo "  env VECFLOW_BENCH_CLICKHOUSE_URL=$VECFLOW_BENCH_CLICKHOUSE_URL JMH_ARGS=${JMH_ARGS:-}"
  echo "started: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; } > "$out/command.txt"
{ echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; echo "nproc: $(nproc)"; echo "uname: $(uname -srm)"
  echo "java: $("$JAVA_HOME/bin/java" -version 2>&1 | head -1)"
  echo "clickhouse: $(curl -s "$VECFLOW_BENCH_CLICKHOUSE_URL/?query=SELECT%20version()")"
  echo "git HEAD: $(cd "$repo" && git log -1 --format='%H %cI %s' | cut -c1-160)"
  echo "uncommitted in collector bench: $(cd "$repo" && git status --short collector bench/src | wc -l) files"
  echo "benchmarks.jar: $(date -u -r "$jar" +%Y-%m-%dT%H:%M:%SZ)"
  echo "load before: $(cat /proc/loadavg)"; echo; echo "lscpu:"; lscpu; } > "$out/machine.txt"
# shellcheck disable=SC2086 # JMH_ARGS is a list of arguments
"$JAVA_HOME/bin/java" -jar "$jar" ConsoleQueryBenchmark -rf json -rff "$out/jmh.json" ${JMH_ARGS:-} \
  2>&1 | tee "$out/console.log"
echo "finished: $(date -u +%Y-%m-%dT%H:%M:%SZ); load after: $(cat /proc/loadavg)" >> "$out/command.txt"
