#!/bin/bash
# abl MODE ROUNDS VARIANTS... : one jar (/tmp/ab.jar), -Dvf.ab=VARIANT per run; prints score + split
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
mode=$1; rounds=$2; shift 2
for r in $(seq 1 $rounds); do for v in "$@"; do
  out=$(cd /tmp && VECFLOW_BENCH_QUIET_MAX_PCT=60 VECFLOW_BENCH_QUIET_WAIT_S=1 timeout 600 $JAVA_HOME/bin/java -Djmh.ignoreLock=true -jar /tmp/ab.jar LbGraphBenchmark -wi 3 -i 4 -p mode=$mode -jvmArgsAppend "-Dvf.ab=$v" 2>&1)
  score=$(echo "$out" | grep '^LbGraphBenchmark' | awk '{printf "%.1f ns", 1e9/$5}')
  split=$(echo "$out" | grep '^Iteration   4.*runtime' | sed 's/.*runtime [^:]*://')
  echo "[$v] $score | $split"
done; done
