#!/usr/bin/env bash
# Runs inside the kernel-lab guest (lab/kernel/boot.sh, as root, in the repository root):
#   lab/kernel/guest/checks.sh JAVA_HOME CLASSPATH_FILE [CHECK...]
# Loads the kernel modules the checks need, prints the kernel version and the module list, then runs the vecflow
# checks (io.vecflow.lab.kernel.KernelLabChecks, compiled on the host) with plain java. Exits with their status.
set -euo pipefail
JAVA_HOME=$1
CP_FILE=$2
shift 2
echo "kernel: $(uname -r) ($(uname -v))"
echo "kernel package: ${VFLAB_KERNEL_PACKAGE:-?}"
ip link set lo up # the collector and agent talk over 127.0.0.1
modprobe -a psample act_sample cls_matchall sch_ingress drop_monitor veth nf_tables
echo "modules: $(cut -d' ' -f1 /proc/modules | sort | tr '\n' ' ')"
"$JAVA_HOME/bin/java" -version 2>&1 | head -n1
# The guest's emulated CPU is slow: one JIT compiler thread and a small heap start fastest.
exec "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow \
  -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xshare:auto -Xmx512m \
  -Dvflab.root="$PWD" -Dorg.slf4j.simpleLogger.defaultLogLevel=info \
  -cp "$PWD/lab/kernel/target/classes:$(cat "$CP_FILE")" io.vecflow.lab.kernel.KernelLabChecks "$@"
