#!/usr/bin/env bash
# The kernel-lab stage (.ci/run runs it after scripts/test.sh; by hand: `sudo lab/kernel/run.sh [CHECK...]`):
#
#   1. a JDK >= 25; Debian packages qemu-system-x86 busybox-static kmod nftables iproute2 python3 (apt-get as root)
#   2. ./mvnw -B -q -pl lab/kernel -am package -DskipTests: the guest checks' jar and their class path
#      (target/guest-classpath.txt; VECFLOW_LAB_SKIP_BUILD=1 reuses an earlier build); a class-data-sharing archive
#      for the guest JVM from a host run (target/guest.jsa; the guest's JVM start is dominated by class loading)
#   3. boot.sh: Debian's kernel under QEMU runs guest/checks.sh, which loads psample, act_sample, cls_matchall,
#      drop_monitor, nf_tables, prints the kernel version and module list and runs the checks with plain java
#      (kernel-to-agent, dataplane-to-kernel, drops; default all)
# Exits with the checks' status (124: the guest reported none within VECFLOW_LAB_TIMEOUT, default 300 s).
set -euo pipefail
LAB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
# shellcheck source-path=SCRIPTDIR source=../../scripts/lib/common.sh
source "$LAB/../../scripts/lib/common.sh"
ROOT=$(cd "$LAB/../.." && pwd -P)
cd "$ROOT"

vf_banner "kernel lab: setup"
JAVA_HOME=$(vf_find_jdk)
export JAVA_HOME
export PATH="$JAVA_HOME/bin:$PATH"
vf_ensure_packages qemu-system-x86 busybox-static kmod nftables iproute2 python3

if [[ "${VECFLOW_LAB_SKIP_BUILD:-0}" != "1" ]]; then
  vf_banner "kernel lab: ./mvnw -B -q -pl lab/kernel -am package -DskipTests"
  t0=$SECONDS
  ./mvnw -B -q -pl lab/kernel -am package -DskipTests
  vf_log "built in $((SECONDS - t0))s"
fi
JAR=""
for j in lab/kernel/target/vecflow-kernel-lab-*.jar; do
  [[ -f "$j" && "$j" != *-tests.jar ]] && JAR=$j
done
[[ -s lab/kernel/target/classpath.txt && -n "$JAR" ]] ||
  vf_die "lab/kernel/target holds no built checks: run without VECFLOW_LAB_SKIP_BUILD=1"
# the checks' jar first, then the dependencies (jars only: a class-data-sharing archive refuses directories)
CP="$ROOT/$JAR:$(cat lab/kernel/target/classpath.txt)"
echo "$CP" > lab/kernel/target/guest-classpath.txt

# Class-data-sharing archive for the guest JVM, from a host run over the same class path and flags (guest/jvm.flags):
# class loading dominates the emulated JVM's start. Best effort: without it the guest is only slower.
t0=$SECONDS
rm -f lab/kernel/target/guest.jsa
# shellcheck disable=SC2046 # the flags file holds one word per flag
"$JAVA_HOME/bin/java" $(cat lab/kernel/guest/jvm.flags) -XX:ArchiveClassesAtExit=lab/kernel/target/guest.jsa \
  -Dvflab.root="$ROOT" -cp "$CP" \
  io.vecflow.lab.kernel.KernelLabChecks --train > lab/kernel/target/guest-cds.log 2>&1 ||
  vf_log "class-data-sharing archive not made (see lab/kernel/target/guest-cds.log); the guest JVM starts slower"
[[ -f lab/kernel/target/guest.jsa ]] && vf_log "class-data-sharing archive for the guest: $(du -h lab/kernel/target/guest.jsa | cut -f1) in $((SECONDS - t0))s"

vf_banner "kernel lab: checks in the guest"
exec "$LAB/boot.sh" --timeout "${VECFLOW_LAB_TIMEOUT:-300}" -- \
  lab/kernel/guest/checks.sh "$JAVA_HOME" lab/kernel/target/guest-classpath.txt "$@"
