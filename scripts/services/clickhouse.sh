#!/usr/bin/env bash
# Private ClickHouse server (Debian's clickhouse-server 18.16) on loopback, for vecflow's tests.
#
#   scripts/services/clickhouse.sh start|stop|status DIR
#
# Everything lives in DIR: config.xml / users.xml (copied from /etc/clickhouse-server and rewritten),
# data/ (path, tmp_path, user_files_path, format_schema_path), log/, clickhouse.pid.
# Listens on 127.0.0.1 only: HTTP 18123, native 19000, interserver 19009
# (override with VF_CH_HTTP_PORT / VF_CH_TCP_PORT / VF_CH_INTERSERVER_PORT).
#
# HTTPS and users (the collector's security tests, README "Security"): VF_CH_HTTPS_PORT with VF_CH_TLS_CERT and
# VF_CH_TLS_KEY (PEM) adds an HTTPS listener with that certificate; VF_CH_USERS_D names XML files (colon-separated)
# copied into DIR/users.d/, which the server merges into users.xml (e.g. `vecflow clickhouse-users` output).
set -euo pipefail

# shellcheck source=../lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"

HTTP_PORT=${VF_CH_HTTP_PORT:-18123}
TCP_PORT=${VF_CH_TCP_PORT:-19000}
INTERSERVER_PORT=${VF_CH_INTERSERVER_PORT:-19009}
START_TIMEOUT=${VF_CH_START_TIMEOUT:-30}
STOP_TIMEOUT=${VF_CH_STOP_TIMEOUT:-20}
SRC_CONF=${VF_CH_SOURCE_CONFIG_DIR:-/etc/clickhouse-server}
HTTPS_PORT=${VF_CH_HTTPS_PORT:-}
TLS_CERT=${VF_CH_TLS_CERT:-}
TLS_KEY=${VF_CH_TLS_KEY:-}
USERS_D=${VF_CH_USERS_D:-}
PATTERN=clickhouse-server

usage() {
  echo "usage: $0 start|stop|status DIR" >&2
  exit 2
}

find_server() {
  local b
  for b in "$(command -v clickhouse-server 2>/dev/null || true)" /usr/sbin/clickhouse-server /usr/bin/clickhouse-server; do
    [[ -n "$b" && -x "$b" ]] && {
      echo "$b"
      return 0
    }
  done
  vf_die "clickhouse-server not found. Install Debian's ClickHouse: apt-get install -y clickhouse-server clickhouse-client"
}

ping_ok() {
  [[ "$(curl -s --max-time 2 "http://127.0.0.1:$HTTP_PORT/ping" 2>/dev/null || true)" == "Ok." ]]
}

log_tail() {
  local f
  for f in "$DIR/log/clickhouse-server.err.log" "$DIR/log/clickhouse-server.log" "$DIR/log/stdout.log"; do
    if [[ -s "$f" ]]; then
      echo "----- tail -n 40 $f -----" >&2
      tail -n 40 "$f" >&2
    fi
  done
}

# sed replacement-string escaping for the '|' delimiter
sed_repl() { printf '%s' "$1" | sed -e 's/[\\&|]/\\&/g'; }

write_config() {
  local data="$DIR/data/" log="$DIR/log/"
  [[ -r "$SRC_CONF/config.xml" && -r "$SRC_CONF/users.xml" ]] ||
    vf_die "$SRC_CONF/config.xml or users.xml missing: is clickhouse-server installed? (apt-get install -y clickhouse-server)"
  mkdir -p "$DIR/data/tmp" "$DIR/data/user_files" "$DIR/data/format_schemas" "$DIR/log"
  cp "$SRC_CONF/users.xml" "$DIR/users.xml"
  rm -rf "$DIR/users.d"
  if [[ -n "$USERS_D" ]]; then
    mkdir -p "$DIR/users.d"
    local u
    IFS=':' read -ra u <<<"$USERS_D"
    for f in "${u[@]}"; do
      [[ -r "$f" ]] || vf_die "VF_CH_USERS_D: cannot read $f"
      cp "$f" "$DIR/users.d/"
    done
  fi
  local https=()
  if [[ -n "$HTTPS_PORT" ]]; then
    [[ -r "$TLS_CERT" && -r "$TLS_KEY" ]] || vf_die "VF_CH_HTTPS_PORT needs readable VF_CH_TLS_CERT and VF_CH_TLS_KEY"
    # the server's certificate and key, no DH parameters file (ECDHE suites only)
    https=(-e "s|^([[:space:]]*)(<http_port>.*)$|\1\2\n\1<https_port>$HTTPS_PORT</https_port>|"
      -e "s|<certificateFile>[^<]*</certificateFile>|<certificateFile>$(sed_repl "$TLS_CERT")</certificateFile>|"
      -e "s|<privateKeyFile>[^<]*</privateKeyFile>|<privateKeyFile>$(sed_repl "$TLS_KEY")</privateKeyFile>|"
      -e '/^[[:space:]]*<dhParamsFile>[^<]*<\/dhParamsFile>[[:space:]]*$/d')
  fi
  printf '<?xml version="1.0"?>\n<yandex>\n</yandex>\n' >"$DIR/metrika.xml"
  # Paths: every /var/lib/clickhouse/... and /var/log/clickhouse-server/... goes into DIR.
  # Ports: HTTP/native/interserver rewritten; TLS, MySQL and PostgreSQL listeners removed (18.16's
  #   config has only commented-out https_port/tcp_port_secure and no mysql/postgresql ports).
  # listen_host: any existing one removed, then 127.0.0.1 only (18.16 defaults to ::1 + 127.0.0.1).
  # include_from: an empty substitutions file in DIR, so a host's /etc/metrika.xml is never merged in.
  sed -E \
    -e "s|/var/lib/clickhouse/|$(sed_repl "$data")|g" \
    -e "s|/var/log/clickhouse-server/|$(sed_repl "$log")|g" \
    -e "s|<level>[a-z]+</level>|<level>information</level>|" \
    -e "s|<http_port>[0-9]+</http_port>|<http_port>$HTTP_PORT</http_port>|" \
    -e "s|<tcp_port>[0-9]+</tcp_port>|<tcp_port>$TCP_PORT</tcp_port>|" \
    -e "s|<interserver_http_port>[0-9]+</interserver_http_port>|<interserver_http_port>$INTERSERVER_PORT</interserver_http_port>|" \
    -e '/^[[:space:]]*<(https_port|tcp_port_secure|interserver_https_port|mysql_port|postgresql_port)>[0-9]+<\/[a-z_]+>[[:space:]]*$/d' \
    -e '/^[[:space:]]*<listen_host>[^<]*<\/listen_host>[[:space:]]*$/d' \
    -e '/^[[:space:]]*<include_from>[^<]*<\/include_from>[[:space:]]*$/d' \
    -e "s|^([[:space:]]*)(<http_port>.*)$|\1\2\n\1<listen_host>127.0.0.1</listen_host>\n\1<include_from>$(sed_repl "$DIR/metrika.xml")</include_from>|" \
    "${https[@]}" \
    "$SRC_CONF/config.xml" >"$DIR/config.xml.new"
  # Refuse to start with a config that could touch the system instance.
  if grep -nE '/var/(lib|log)/clickhouse' "$DIR/config.xml.new" >&2; then
    vf_die "config rewrite left system paths in $DIR/config.xml.new (lines above)"
  fi
  local k
  for k in "<http_port>$HTTP_PORT</http_port>" "<tcp_port>$TCP_PORT</tcp_port>" \
    "<interserver_http_port>$INTERSERVER_PORT</interserver_http_port>" "<listen_host>127.0.0.1</listen_host>"; do
    grep -qF "$k" "$DIR/config.xml.new" || vf_die "config rewrite failed: '$k' not in $DIR/config.xml.new (unexpected $SRC_CONF/config.xml layout?)"
  done
  mv "$DIR/config.xml.new" "$DIR/config.xml"
}

cmd_status() {
  local pid
  pid=$(vf_read_pid "$DIR/clickhouse.pid")
  if [[ -n "$pid" ]] && vf_pid_alive "$pid" "$PATTERN"; then
    if ping_ok; then
      echo "clickhouse: running (pid $pid), http://127.0.0.1:$HTTP_PORT/ping -> Ok."
    else
      echo "clickhouse: process running (pid $pid) but http://127.0.0.1:$HTTP_PORT/ping does not answer"
    fi
    return 0
  fi
  echo "clickhouse: not running (DIR=$DIR)"
  return 3
}

cmd_start() {
  local server pid t0 i
  server=$(find_server)
  command -v curl >/dev/null 2>&1 || vf_die "curl not found (apt-get install -y curl)"
  pid=$(vf_read_pid "$DIR/clickhouse.pid")
  if [[ -n "$pid" ]] && vf_pid_alive "$pid" "$PATTERN"; then
    ping_ok || vf_die "ClickHouse pid $pid of $DIR is running but not answering on port $HTTP_PORT; stop it first: $0 stop $DIR"
    vf_log "ClickHouse already running (pid $pid) on 127.0.0.1:$HTTP_PORT"
    return 0
  fi
  if [[ -n "$pid" ]]; then vf_log "removing stale pid file (pid $pid is gone)"; fi
  rm -f "$DIR/clickhouse.pid"
  for i in "$HTTP_PORT" "$TCP_PORT" "$INTERSERVER_PORT" $HTTPS_PORT; do
    if vf_port_open "$i"; then
      vf_die "port 127.0.0.1:$i is already in use (another ClickHouse? see: pgrep -a clickhouse; ss -ltnp 'sport = :$i').
  A ClickHouse left over from an earlier run is stopped with: $0 stop <its DIR>"
    fi
  done
  write_config
  # Debian's 18.16 server runs as root (it does not refuse it); when not root it runs as the current user.
  t0=$(date +%s)
  vf_log "starting ClickHouse ($server) in $DIR"
  # Background job of a non-interactive shell: SIGINT from the terminal is ignored, the caller stops it.
  "$server" --config-file="$DIR/config.xml" </dev/null >"$DIR/log/stdout.log" 2>&1 &
  pid=$!
  echo "$pid" >"$DIR/clickhouse.pid"
  for ((i = 0; i < START_TIMEOUT * 10; i++)); do
    if ! vf_child_running "$pid"; then
      rm -f "$DIR/clickhouse.pid"
      log_tail
      vf_die "ClickHouse exited during startup (see the log above; config: $DIR/config.xml)"
    fi
    if ping_ok; then
      vf_log "ClickHouse ready on http://127.0.0.1:$HTTP_PORT (native $TCP_PORT), pid $pid, $(($(date +%s) - t0))s"
      return 0
    fi
    sleep 0.1
  done
  log_tail
  vf_stop_pid ClickHouse "$pid" "$PATTERN" "$STOP_TIMEOUT" || true
  rm -f "$DIR/clickhouse.pid"
  vf_die "ClickHouse did not answer http://127.0.0.1:$HTTP_PORT/ping within ${START_TIMEOUT}s"
}

cmd_stop() {
  vf_stop_service ClickHouse "$DIR/clickhouse.pid" "$PATTERN" "$STOP_TIMEOUT"
}

[[ $# -eq 2 ]] || usage
ACTION=$1
DIR=$(vf_abs_dir "$2")
case "$ACTION" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  *) usage ;;
esac
