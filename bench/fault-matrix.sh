#!/usr/bin/env bash
# The collector's fault matrix (issue 17): real ClickHouse and Kafka of its own, the collector daemon as separate
# processes, a load of synthetic sFlow agents, one row per scenario (sent, in Kafka, stored, unique, lost,
# duplicated, agents gap, what the metrics said, memory).
#
#   bench/fault-matrix.sh [--short | --full] [--only SCENARIO[,..]] [--out DIR] [--keep] [--threads N]
#                         [--flood-rate N] [--ports P1,P2,P3,P4,P5]
#
# Builds dist and its modules (test classes, no tests run) with ./mvnw, then runs io.vecflow.cli.FaultMatrix
# from the test classpath. The short form is also a test of the suite (dist's FaultMatrixTest).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
# shellcheck source=../scripts/lib/common.sh
source "$ROOT/scripts/lib/common.sh"

usage() {
  cat <<USAGE
usage: bench/fault-matrix.sh [--short | --full] [--only SCENARIO[,SCENARIO..]] [--out DIR] [--keep]
                             [--threads N] [--flood-rate N]
                             [--ports CH_HTTP,CH_TCP,CH_INTERSERVER,KAFKA,KAFKA_CONTROLLER]

Runs the collector's fault matrix against a private ClickHouse and Kafka (scripts/services/*.sh, by default on
127.0.0.1 ports 38123,39000,39009 and 39092,39093 — not the test suite's nor the developers' services) and prints
one row per scenario: datagrams and samples sent, records in the raw topic, flow rows stored, unique (agent, source,
sample sequence), lost = sent - unique, duplicated = stored - unique, the agents table's datagram gap, what the
metrics said (spool, socket drops, duplicates, lag, readiness during the fault), peak pending ClickHouse bytes and
peak RSS per collector process. Exit status 0 when every goal is met, 1 when one is missed.

Scenarios: baseline, clickhouse-down-outlet, clickhouse-down-all, outlet-kill-x3, kafka-down, inlet-kill,
flood-10x, malformed-10pct, backlog.

  --short   8 s outages, 3,000 datagrams/s, a 30 s backlog (default; about 7 minutes)
  --full    60 s outages, 5,000 datagrams/s (20,000/s during the broker outage), a 5 min backlog (about 35 min)
  --only    run only these scenarios (comma-separated)
  --out     directory for each scenario's collector configs and logs, and table.md (default: a new temp dir)
  --keep    keep the services' directory (data and logs of ClickHouse and Kafka)
  --ports   the five service ports
  --threads the collectors' listen.threads (default 2)
  --flood-rate  datagrams/s asked during the flood (default 300,000 short, 500,000 full: about 10 x what the
            pipeline sustains; the sender offers what it can, the row gives how much)

Needs: a JDK >= 25 (JAVA_HOME or /usr/lib/jvm), Debian's clickhouse-server, curl; the Kafka jars come from Maven
Central (scripts/services/kafka/pom.xml).
USAGE
}

ARGS=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    -h | --help)
      usage
      exit 0
      ;;
    --short | --full | --keep)
      ARGS+=("$1")
      shift
      ;;
    --only | --out | --ports | --threads | --flood-rate)
      [[ $# -ge 2 ]] || vf_die "$1 needs a value (see --help)"
      if [[ "$1" == "--out" ]]; then
        mkdir -p "$2"
        ARGS+=("$1" "$(cd "$2" && pwd -P)")
      else
        ARGS+=("$1" "$2")
      fi
      shift 2
      ;;
    *)
      usage >&2
      vf_die "unknown option $1"
      ;;
  esac
done

JAVA_HOME=$(vf_find_jdk)
export JAVA_HOME
CP_FILE=$(mktemp)
trap 'rm -f "$CP_FILE"' EXIT
vf_log "building dist and its modules (test classes; no tests run)"
(cd "$ROOT" && ./mvnw -q -B -pl dist -am -DskipTests test-compile dependency:build-classpath \
  -Dmdep.outputFile="$CP_FILE" -Dmdep.includeScope=test) || vf_die "build failed"
CP="$ROOT/dist/target/test-classes:$ROOT/dist/target/classes:$(cat "$CP_FILE")"
vf_log "running the fault matrix (java $(vf_java_major "$JAVA_HOME/bin/java"))"
cd "$ROOT"
exec "$JAVA_HOME/bin/java" -Xmx1g --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow \
  -Dvecflow.repo="$ROOT" -cp "$CP" io.vecflow.cli.FaultMatrix "${ARGS[@]}"
