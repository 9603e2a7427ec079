#!/usr/bin/env bash
# Paired before/after runs for the house redesign (issue 23): DataplaneOverhead (sampling on/off per version),
# DataplaneBenchmark and LbGraphBenchmark (one Maglev and one SRLB mode), the two versions alternating.
# Usage: run.sh BEFORE.jar AFTER.jar OUTDIR   (the jars: bench/target/benchmarks.jar built at each commit)
set -euo pipefail
before=$1 after=$2 out=$3
java=${JAVA_HOME:?set JAVA_HOME to a JDK 25}/bin/java
modes=l2-off,l2-1000,l2-100,ip4-1k-off,ip4-1k-1000
export VECFLOW_BENCH_QUIET_MAX_PCT=15 VECFLOW_BENCH_QUIET_WAIT_S=3
mkdir -p "$out"
note() { echo "# $(date -u +%FT%TZ) $*, load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/command.txt"; }
overhead() { # label jar round
  note "overhead $1 round $3"
  "$java" --enable-native-access=ALL-UNNAMED -Xms512m -Xmx512m -cp "$2" io.vecflow.bench.DataplaneOverhead 300 80 \
    > "$out/overhead-$1-r$3.txt" 2>&1
}
jmh() { # label jar round
  note "jmh $1 round $3"
  "$java" -Djmh.ignoreLock=true -jar "$2" DataplaneBenchmark -p mode=$modes -f 1 -wi 3 -w 1s -i 5 -r 2s \
    -prof gc -rf json -rff "$out/jmh-$1-r$3.json" > "$out/console-$1-r$3.log" 2>&1
}
lb() { # label jar round
  note "lb $1 round $3"
  "$java" -Djmh.ignoreLock=true -jar "$2" LbGraphBenchmark -p mode=lb-hit-1k,srlb-hit-1k -f 1 -wi 3 -i 4 \
    -prof gc -rf json -rff "$out/lb-$1-r$3.json" > "$out/lb-console-$1-r$3.log" 2>&1
}
for r in 1 2 3; do
  if (( r % 2 )); then overhead before "$before" $r; overhead after "$after" $r
  else overhead after "$after" $r; overhead before "$before" $r; fi
done
for r in 1 2; do
  if (( r % 2 )); then jmh before "$before" $r; jmh after "$after" $r; lb before "$before" $r; lb after "$after" $r
  else jmh after "$after" $r; jmh before "$before" $r; lb after "$after" $r; lb before "$before" $r; fi
done
note done
