#!/usr/bin/env bash
# Paired before/after runs of DataplaneBenchmark and DataplaneOverhead (see README.md here).
# Usage: run.sh BEFORE.jar AFTER.jar OUTDIR   (the jars: bench/target/benchmarks.jar built at each commit)
set -euo pipefail
before=$1 after=$2 out=$3
java=${JAVA_HOME:?set JAVA_HOME to a JDK 25}/bin/java
modes=l2-off,l2-1000,l2-100,ip4-1k-off,ip4-1k-1000
export VECFLOW_BENCH_QUIET_MAX_PCT=15 VECFLOW_BENCH_QUIET_WAIT_S=3
mkdir -p "$out"
jmh() { # label jar round
  echo "# $(date -u +%FT%TZ) jmh $1 round $3, load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/command.txt"
  "$java" -Djmh.ignoreLock=true -jar "$2" DataplaneBenchmark -p mode=$modes -f 1 -wi 3 -w 1s -i 5 -r 2s \
    -prof gc -rf json -rff "$out/jmh-$1-r$3.json" > "$out/console-$1-r$3.log" 2>&1
}
overhead() { # label jar round
  echo "# $(date -u +%FT%TZ) overhead $1 round $3, load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/command.txt"
  "$java" --enable-native-access=ALL-UNNAMED -Xms512m -Xmx512m -cp "$2" io.vecflow.bench.DataplaneOverhead 300 80 \
    > "$out/overhead-$1-r$3.txt" 2>&1
}
for r in 1 2 3; do # paired: both versions each round, the order alternating
  if (( r % 2 )); then overhead before "$before" $r; overhead after "$after" $r
  else overhead after "$after" $r; overhead before "$before" $r; fi
done
for r in 1 2; do
  if (( r % 2 )); then jmh before "$before" $r; jmh after "$after" $r
  else jmh after "$after" $r; jmh before "$before" $r; fi
done
echo "# $(date -u +%FT%TZ) done, load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/command.txt"
