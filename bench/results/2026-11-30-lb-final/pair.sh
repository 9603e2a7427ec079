#!/bin/bash
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
for r in 1 2 3; do for sz in 1k 1m; do for m in lb6-hit-$sz srlb-hit-$sz; do
  out=$(VECFLOW_BENCH_QUIET_MAX_PCT=40 VECFLOW_BENCH_QUIET_WAIT_S=1 timeout 600 $JAVA_HOME/bin/java -Djmh.ignoreLock=true -jar bench/target/benchmarks.jar LbGraphBenchmark -wi 3 -i 4 -p mode=$m 2>&1)
  score=$(echo "$out" | grep '^LbGraphBenchmark' | awk '{for(i=1;i<=NF;i++) if($i=="±") printf "%.1f", 1e9/$(i-1)}')
  split=$(echo "$out" | grep 'runtime' | tail -1 | sed 's/.*runtime [^:]*://')
  echo "round $r $m: $score ns |$split"
done; done; done
