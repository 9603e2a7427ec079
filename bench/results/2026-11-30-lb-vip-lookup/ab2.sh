#!/bin/bash
# ab2 MODE ROUNDS "EXTRA JMH ARGS": alternate /tmp/base.jar and /tmp/new.jar; ns per packet (1/score) + split
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
for r in $(seq 1 ${2:-2}); do for j in base new; do
  out=$(cd /tmp && VECFLOW_BENCH_QUIET_MAX_PCT=60 VECFLOW_BENCH_QUIET_WAIT_S=1 timeout 600 $JAVA_HOME/bin/java -Djmh.ignoreLock=true -jar /tmp/$j.jar LbGraphBenchmark -wi 3 -i 4 -p mode=$1 $3 2>&1)
  score=$(echo "$out" | grep '^LbGraphBenchmark' | awk '{for(i=1;i<=NF;i++) if($i=="±") printf "%.1f ns", 1e9/$(i-1)}')
  split=$(echo "$out" | grep 'runtime' | tail -1 | sed 's/.*runtime [^:]*://')
  [ -z "$score" ] && score="FAILED: $(echo "$out" | grep -i 'exception\|error' | head -2 | tr '\n' ' ')"
  echo "$j $1 $3: $score | $split"
done; done
