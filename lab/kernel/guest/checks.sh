#!/usr/bin/env bash
# Runs inside the kernel-lab guest (lab/kernel/boot.sh, as root, in the repository root):
#   lab/kernel/guest/checks.sh JAVA_HOME CLASSPATH_FILE [CHECK...]   (run.sh writes CLASSPATH_FILE)
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
# The guest's emulated CPU is slow: C1 only, serial GC, and the class-data-sharing archive run.sh made on the host
# (same JDK, flags and class path; a stale one is ignored by -Xshare:auto) start fastest.
CDS=()
[[ -f lab/kernel/target/guest.jsa ]] && CDS=(-XX:SharedArchiveFile="$PWD/lab/kernel/target/guest.jsa")
# shellcheck disable=SC2046 # one word per flag
exec "$JAVA_HOME/bin/java" $(cat lab/kernel/guest/jvm.flags) "${CDS[@]}" -Dvflab.root="$PWD" \
  -cp "$(cat "$CP_FILE")" io.vecflow.lab.kernel.KernelLabChecks "$@"
