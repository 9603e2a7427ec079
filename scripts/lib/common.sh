# shellcheck shell=bash
# Shared helpers for vecflow's test scripts. Source it; do not execute it.
#   source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

# Seconds since the first script of this run sourced this file (exported so child scripts share it).
: "${VF_T0:=$(date +%s)}"
export VF_T0

vf_elapsed() { echo $(($(date +%s) - VF_T0)); }

# vf_log MSG...   informational line, with elapsed seconds, on stderr
vf_log() { printf '[vecflow %4ss] %s\n' "$(vf_elapsed)" "$*" >&2; }

# vf_banner MSG...   step banner
vf_banner() {
  printf '\n[vecflow %4ss] ==== %s ====\n' "$(vf_elapsed)" "$*" >&2
}

# vf_die MSG...   loud failure
vf_die() {
  printf '\n[vecflow %4ss] ERROR: %s\n' "$(vf_elapsed)" "$*" >&2
  exit 1
}

# vf_repo_root   absolute path of the repository (two levels above scripts/lib)
vf_repo_root() { (cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P); }

# vf_java_major JAVA_BIN   prints the feature version (8, 17, 25, ...) or nothing
vf_java_major() {
  local java_bin=$1 line ver
  [[ -x "$java_bin" ]] || return 0
  line=$("$java_bin" -version 2>&1 | grep -m1 -E 'version "' || true)
  ver=${line#*version \"}
  ver=${ver%%\"*}
  [[ -n "$ver" && "$ver" != "$line" ]] || return 0
  if [[ "$ver" == 1.* ]]; then ver=${ver#1.}; fi
  ver=${ver%%[.+-]*}
  [[ "$ver" =~ ^[0-9]+$ ]] && echo "$ver"
  return 0
}

VF_MIN_JAVA=25

# vf_find_jdk   prints JAVA_HOME of a JDK >= $VF_MIN_JAVA: $JAVA_HOME when it qualifies,
# else the newest one under /usr/lib/jvm (override the search root with VF_JVM_ROOT). Fails loudly otherwise.
vf_find_jdk() {
  local major best="" best_major=0 d
  if [[ -n "${JAVA_HOME:-}" ]]; then
    major=$(vf_java_major "$JAVA_HOME/bin/java")
    if [[ -n "$major" && -x "$JAVA_HOME/bin/javac" && "$major" -ge "$VF_MIN_JAVA" ]]; then
      echo "$JAVA_HOME"
      return 0
    fi
    vf_log "JAVA_HOME=$JAVA_HOME is Java ${major:-?} (need a JDK >= $VF_MIN_JAVA); searching ${VF_JVM_ROOT:-/usr/lib/jvm}"
  fi
  for d in "${VF_JVM_ROOT:-/usr/lib/jvm}"/*/; do
    d=${d%/}
    [[ -L "$d" ]] && continue # Debian's alias symlinks; the real directory is listed too
    [[ -x "$d/bin/java" && -x "$d/bin/javac" ]] || continue
    major=$(vf_java_major "$d/bin/java")
    if [[ -n "$major" && "$major" -ge "$VF_MIN_JAVA" && "$major" -gt "$best_major" ]]; then
      best=$d
      best_major=$major
    fi
  done
  if [[ -z "$best" ]]; then
    vf_die "no JDK >= $VF_MIN_JAVA found (JAVA_HOME='${JAVA_HOME:-}', searched ${VF_JVM_ROOT:-/usr/lib/jvm}/*; default java is $(vf_java_major "$(command -v java || echo none)" || true)).
  Install a Java $VF_MIN_JAVA JDK, e.g. Eclipse Temurin 25 (Debian package 'temurin-25-jdk' from https://packages.adoptium.net/artifactory/deb),
  or point JAVA_HOME at one."
  fi
  echo "$best"
}

# vf_missing_packages PKG...   prints the Debian packages that are not installed
vf_missing_packages() {
  local p status
  for p in "$@"; do
    status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    [[ "$status" == "install ok installed" ]] || echo "$p"
  done
}

# vf_ensure_packages PKG...   installs missing Debian packages with apt-get when root; fails loudly otherwise
vf_ensure_packages() {
  local -a missing
  command -v dpkg-query >/dev/null 2>&1 ||
    vf_die "dpkg-query not found: this script needs a Debian/Ubuntu machine with the packages: $*"
  mapfile -t missing < <(vf_missing_packages "$@")
  if ((${#missing[@]} == 0)); then
    vf_log "Debian packages present: $*"
    return 0
  fi
  if [[ "$(id -u)" -ne 0 ]]; then
    vf_die "missing Debian packages: ${missing[*]}
  Not root, so they cannot be installed here. Install them with:
    sudo apt-get install -y ${missing[*]}"
  fi
  vf_log "installing missing Debian packages: ${missing[*]}"
  local policy_created=0 rc=0
  # No daemon may start on its own during the install (e.g. the system ClickHouse on 8123/9000).
  if [[ ! -e /usr/sbin/policy-rc.d ]]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d && policy_created=1
  fi
  echo 'wireshark-common wireshark-common/install-setuid boolean false' | debconf-set-selections || rc=$?
  if ((rc == 0)); then
    DEBIAN_FRONTEND=noninteractive apt-get -q update || rc=$?
  fi
  if ((rc == 0)); then
    DEBIAN_FRONTEND=noninteractive apt-get -q install -y --no-install-recommends \
      -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold "${missing[@]}" || rc=$?
  fi
  if ((policy_created)); then rm -f /usr/sbin/policy-rc.d; fi
  ((rc == 0)) || vf_die "apt-get could not install: ${missing[*]} (exit $rc; see the apt output above)"
  mapfile -t missing < <(vf_missing_packages "$@")
  ((${#missing[@]} == 0)) || vf_die "still missing after apt-get install: ${missing[*]}"
  vf_log "installed Debian packages: $*"
}

# vf_pid_alive PID PATTERN   true if PID runs and its command line contains PATTERN (guards against PID reuse)
vf_pid_alive() {
  local pid=$1 pattern=$2 cmd
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  cmd=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || return 1
  [[ "$cmd" == *"$pattern"* ]]
}

# vf_child_running PID   true while our just-forked child runs (before or after its exec; zombies count as gone)
vf_child_running() {
  local pid=$1 stat rest
  kill -0 "$pid" 2>/dev/null || return 1
  stat=$(cat "/proc/$pid/stat" 2>/dev/null) || return 1
  rest=${stat##*) }
  [[ "${rest:0:1}" != Z && "${rest:0:1}" != X ]]
}

# vf_read_pid PIDFILE   prints the pid stored in PIDFILE (or nothing)
vf_read_pid() {
  local f=$1 pid=""
  [[ -f "$f" ]] && read -r pid <"$f" 2>/dev/null
  echo "${pid:-}"
}

# vf_port_open PORT   true if something accepts TCP connections on 127.0.0.1:PORT
vf_port_open() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# vf_stop_pid NAME PID PATTERN TIMEOUT_S   SIGTERM, wait up to TIMEOUT_S, then SIGKILL
vf_stop_pid() {
  local name=$1 pid=$2 pattern=$3 timeout=$4 t0 i
  t0=$(date +%s)
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < timeout * 10; i++)); do
    vf_pid_alive "$pid" "$pattern" || break
    sleep 0.1
  done
  if vf_pid_alive "$pid" "$pattern"; then
    vf_log "$name (pid $pid) still running after ${timeout}s: SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do
      vf_pid_alive "$pid" "$pattern" || break
      sleep 0.1
    done
  fi
  if vf_pid_alive "$pid" "$pattern"; then
    vf_die "$name (pid $pid) did not stop"
  fi
  vf_log "$name stopped (pid $pid, $(($(date +%s) - t0))s)"
}

# vf_abs_dir DIR   creates DIR and prints its absolute path; rejects characters that would break XML/properties
vf_abs_dir() {
  local d=$1
  [[ -n "$d" ]] || vf_die "missing DIR argument"
  case "$d" in
    *[\<\>\&\"\'\\$'\n']*) vf_die "unsupported characters in directory path: $d" ;;
  esac
  mkdir -p "$d" || vf_die "cannot create $d"
  (cd "$d" && pwd -P)
}

# vf_stop_service NAME PIDFILE PATTERN TIMEOUT   stops a service started with a pid file (no-op when not running)
vf_stop_service() {
  local name=$1 pidfile=$2 pattern=$3 timeout=$4 pid
  pid=$(vf_read_pid "$pidfile")
  if [[ -z "$pid" ]] || ! vf_pid_alive "$pid" "$pattern"; then
    vf_log "$name not running (DIR=$(dirname "$pidfile"))"
    rm -f "$pidfile"
    return 0
  fi
  vf_stop_pid "$name" "$pid" "$pattern" "$timeout"
  rm -f "$pidfile"
}
