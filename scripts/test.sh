#!/usr/bin/env bash
# vecflow's test command (README; CI runs it through .ci/run):
#
#   scripts/test.sh [extra Maven args, e.g. -pl packet -am]
#
# 1. finds a JDK >= 25 and exports JAVA_HOME
# 2. installs missing Debian packages (root) or fails naming them
# 3. fetches the real GeoIP test data (scripts/fetch-geoip.sh; cached, verified) and exports VECFLOW_TEST_GEOIP_DIR
# 4. starts a private ClickHouse (127.0.0.1:18123) and Kafka (127.0.0.1:19092) in a temp dir
# 5. exports VECFLOW_TEST_CLICKHOUSE_URL / VECFLOW_TEST_KAFKA and runs ./mvnw -B verify "$@"
# 6. always stops both services and removes the temp dir (VECFLOW_KEEP_SERVICES=1 keeps them running)
# Exits with Maven's status.
set -euo pipefail

SCRIPTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
# shellcheck source=lib/common.sh
source "$SCRIPTS/lib/common.sh"
ROOT=$(vf_repo_root)

# systemd: systemd-analyze for the units; passwd: useradd in the packages' postinst (dist *PackageIT);
# binutils: objcopy, which jlink --strip-debug runs when dist's package phase makes the packages' runtimes;
# snmpd and snmp: the real agent the SNMP poller's tests poll (SnmpdFixture) and snmpget/snmpset, their judge;
# chromium and chromium-driver: the headless browser the console's Selenium tests drive;
# nodejs (node + npm): fetches and runs Grafana's published dashboard schema (@grafana/schema) for the dashboard check
PACKAGES=(clickhouse-server clickhouse-client tshark pmacct nfdump-sflow iproute2 nftables python3 curl systemd passwd
  binutils snmpd snmp chromium chromium-driver nodejs)
SVC=""
STARTED=0
MVN_RC=""
MVN_PID=""
LAB_RC=""
# Maven's output is also kept here, so that a failed run ends with the names of the failed tests (CI shows a
# run's last lines; the service log tails would otherwise bury them).
MVN_LOG=$(mktemp "${TMPDIR:-/tmp}/vecflow-maven.XXXXXX.log")

# shellcheck disable=SC2317 # invoked by the EXIT trap
cleanup() {
  local rc=$?
  set +e
  trap - EXIT INT TERM
  # Maven's failure wins; a failed kernel lab after a green Maven keeps its own status.
  if [[ -n "$MVN_RC" && "$MVN_RC" != 0 ]]; then rc=$MVN_RC; fi
  if [[ -n "$MVN_PID" ]] && kill -0 "$MVN_PID" 2>/dev/null; then
    vf_banner "interrupted: stopping Maven (pid $MVN_PID)"
    kill -TERM "$MVN_PID" 2>/dev/null
    wait "$MVN_PID" 2>/dev/null
  fi
  if [[ -z "$SVC" ]]; then exit "$rc"; fi
  if [[ "${VECFLOW_KEEP_SERVICES:-0}" == "1" && "$STARTED" == "1" ]]; then
    vf_banner "VECFLOW_KEEP_SERVICES=1: services left running in $SVC"
    cat >&2 <<EOF
  ClickHouse: http://127.0.0.1:18123   (log: $SVC/clickhouse/log/)
  Kafka:      127.0.0.1:19092          (log: $SVC/kafka/kafka.log)
  export VECFLOW_TEST_CLICKHOUSE_URL=http://127.0.0.1:18123 VECFLOW_TEST_KAFKA=127.0.0.1:19092
  Stop them with:
    $SCRIPTS/services/kafka.sh stop $SVC/kafka; $SCRIPTS/services/clickhouse.sh stop $SVC/clickhouse; rm -rf $SVC
EOF
    exit "$rc"
  fi
  if ((rc != 0)); then
    vf_banner "FAILED (exit $rc): service log tails"
    local f
    for f in "$SVC/clickhouse/log/clickhouse-server.err.log" "$SVC/clickhouse/log/stdout.log" "$SVC/kafka/kafka.log"; do
      if [[ -s "$f" ]]; then
        echo "----- tail -n 40 $f -----" >&2
        tail -n 40 "$f" >&2
      fi
    done
  fi
  vf_banner "stopping services"
  "$SCRIPTS/services/kafka.sh" stop "$SVC/kafka"
  "$SCRIPTS/services/clickhouse.sh" stop "$SVC/clickhouse"
  rm -rf "$SVC"
  if ((rc != 0)); then failure_summary; fi
  rm -f "$MVN_LOG"
  if ((rc == 0)); then vf_banner "OK (${SECONDS}s)"; else vf_banner "FAILED with exit $rc (${SECONDS}s)"; fi
  exit "$rc"
}

# What failed, last: each stage's exit status and Maven's error lines (failed tests with their first message line,
# the module that broke), at most 60 lines.
# shellcheck disable=SC2317 # invoked by cleanup
failure_summary() {
  vf_banner "what failed"
  echo "Maven stage: exit ${MVN_RC:-not run}; kernel lab stage: exit ${LAB_RC:-not run}" >&2
  if [[ -s "$MVN_LOG" ]]; then
    grep -E '^\[ERROR\] (Tests run:|Failures:|Errors:|  [A-Za-z].*[:.]|Failed to execute|.*FAILURE)|<<< (FAILURE|ERROR)' \
      "$MVN_LOG" | grep -v '^\[ERROR\] *$' | cut -c1-400 | head -n 60 >&2 || true
  fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

vf_banner "JDK"
JAVA_HOME=$(vf_find_jdk)
export JAVA_HOME
export PATH="$JAVA_HOME/bin:$PATH"
vf_log "JAVA_HOME=$JAVA_HOME (Java $(vf_java_major "$JAVA_HOME/bin/java"))"

vf_banner "Debian packages"
vf_ensure_packages "${PACKAGES[@]}"

# Real GeoIP data for the collector's GeoIP tests (pinned npm packages, checked against their integrity): kept in
# the user's cache between runs; VECFLOW_TEST_GEOIP_DIR, when set, names another folder.
vf_banner "GeoIP test data"
VECFLOW_TEST_GEOIP_DIR=${VECFLOW_TEST_GEOIP_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/vecflow/geoip}
"$SCRIPTS/fetch-geoip.sh" "$VECFLOW_TEST_GEOIP_DIR"
export VECFLOW_TEST_GEOIP_DIR

# Services of an earlier run still up (VECFLOW_KEEP_SERVICES=1, or a run killed with SIGKILL) hold the ports.
leftovers() {
  local d pid
  for d in "${TMPDIR:-/tmp}"/vecflow-services.*/; do
    [[ -d "$d" ]] || continue
    d=${d%/}
    pid=$(vf_read_pid "$d/kafka/kafka.pid")
    if [[ -n "$pid" ]] && vf_pid_alive "$pid" kafka.Kafka; then echo "    $SCRIPTS/services/kafka.sh stop $d/kafka"; fi
    pid=$(vf_read_pid "$d/clickhouse/clickhouse.pid")
    if [[ -n "$pid" ]] && vf_pid_alive "$pid" clickhouse-server; then echo "    $SCRIPTS/services/clickhouse.sh stop $d/clickhouse"; fi
  done
  return 0
}
LEFT=$(leftovers)
if [[ -n "$LEFT" ]]; then
  vf_die "services of an earlier run are still running and hold the test ports; stop them with:
$LEFT"
fi

SVC=$(mktemp -d "${TMPDIR:-/tmp}/vecflow-services.XXXXXX")

vf_banner "ClickHouse"
STARTED=1
"$SCRIPTS/services/clickhouse.sh" start "$SVC/clickhouse"

vf_banner "Kafka"
"$SCRIPTS/services/kafka.sh" start "$SVC/kafka"

export VECFLOW_TEST_CLICKHOUSE_URL=http://127.0.0.1:18123
export VECFLOW_TEST_KAFKA=127.0.0.1:19092

vf_banner "Maven: ./mvnw -B verify $*"
vf_log "VECFLOW_TEST_CLICKHOUSE_URL=$VECFLOW_TEST_CLICKHOUSE_URL VECFLOW_TEST_KAFKA=$VECFLOW_TEST_KAFKA"
vf_log "VECFLOW_TEST_GEOIP_DIR=$VECFLOW_TEST_GEOIP_DIR"
cd "$ROOT"
t0=$(date +%s)
# In the background + wait, so that INT/TERM run the trap at once (bash defers traps while a
# foreground child runs); the trap then stops Maven too.
./mvnw -B verify "$@" > >(tee "$MVN_LOG") 2>&1 &
MVN_PID=$!
set +e
wait "$MVN_PID"
MVN_RC=$?
set -e
MVN_PID=""
vf_log "Maven finished with exit $MVN_RC ($(($(date +%s) - t0))s)"
if [ "$MVN_RC" -eq 0 ] && [ -f "$ROOT/dist/target/vecflow.jar" ]; then
  # The distribution as users run it (the jar and lib/, not the test classpath): every command must load.
  vf_banner "Smoke: the built distribution"
  smoke=$(mktemp -d)
  printf 'json-lines: %s/rows.jsonl\nmetrics:\n  port: 0\n' "$smoke" > "$smoke/collector.yaml"
  set +e
  "$ROOT/vecflow" collector --config "$smoke/collector.yaml" --print-config > "$smoke/out" 2>&1 \
    && "$ROOT/vecflow" hsflowd --help > /dev/null 2>&1 \
    && "$ROOT/vecflow" decode --help > /dev/null 2>&1
  SMOKE_RC=$?
  set -e
  if [ "$SMOKE_RC" -ne 0 ]; then
    vf_log "the built distribution fails to run a command:"; cat "$smoke/out" >&2
    MVN_RC=1
  else
    vf_log "distribution smoke passed"
  fi
  rm -rf "$smoke"
fi

# Separate stage, always run (whatever Maven gave): the kernel lab boots Debian's kernel under QEMU and proves
# interoperation with real PSAMPLE, act_sample and NET_DM (lab/kernel/README section in the top README).
# VECFLOW_SKIP_KERNEL_LAB=1 leaves it out for a quick local run; CI never sets it.
if [ "${VECFLOW_SKIP_KERNEL_LAB:-0}" = 1 ]; then
  vf_log "kernel lab stage left out (VECFLOW_SKIP_KERNEL_LAB=1)"
  exit "$MVN_RC"
fi
vf_banner "Kernel lab: lab/kernel/run.sh"
t0=$(date +%s)
set +e
"$ROOT/lab/kernel/run.sh"
LAB_RC=$?
set -e
vf_log "kernel lab stage: exit $LAB_RC in $(($(date +%s) - t0))s; Maven stage: exit $MVN_RC"
if [ "$MVN_RC" -ne 0 ]; then exit "$MVN_RC"; fi
exit "$LAB_RC"
