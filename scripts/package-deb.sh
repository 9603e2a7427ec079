#!/usr/bin/env bash
# Builds the Debian packages of vecflow's three daemons with plain dpkg-deb, each with its own Java runtime:
#
#   scripts/package-deb.sh [--version V] [--dist DIR] [--out DIR] [--java-home JDK]
#
#   --version    Maven version (default: the root pom's); "-SNAPSHOT" becomes "~SNAPSHOT" (sorts before the release)
#   --dist       dist's build output: DIR/vecflow.jar and DIR/lib-{hsflowd,collector,dataplane}/*.jar, the jars of
#                each daemon (dist/pom.xml; default dist/target; build it with
#                ./mvnw -B -DskipTests -pl dist -am package, which also runs this script)
#   --out        where the .debs go (default: the --dist directory)
#   --java-home  the JDK (>= 25) whose jlink, jdeps and runtime image make the packages' runtimes
#                (default $JAVA_HOME)
#
# Packages vecflow-{hsflowd,collector,dataplane}_<version>_amd64.deb, each (P = hsflowd, collector, dataplane):
#   /usr/lib/vecflow-P/runtime/          Java runtime made by jlink: the modules jdeps finds in the jars
#                                        (--strip-debug --no-man-pages --no-header-files --compress zip-6)
#   /usr/lib/vecflow-P/lib/*.jar         vecflow.jar (the entry points) and the daemon's jars, nothing else
#   /usr/lib/vecflow-P/P.aot             AOT cache (JEP 483/514) from a training run of the staged daemon here
#   /usr/sbin/vecflow-P                  launcher (dist/src/deb/launcher.in): runtime + JVM options + cache
#   /lib/systemd/system/vecflow-P.service  the unit (dist/src/deb/P/)
#   /etc/hsflowd.conf | /etc/vecflow/collector.yaml | /etc/vecflow/dataplane.yaml   configuration (conffile)
#   /usr/share/doc/vecflow-P/changelog.gz, copyright                 Debian policy's documentation files
#   DEBIAN/postinst, prerm, postrm (dist/src/deb/*.in): system user, daemon-reload, stop on remove
# The training run (all three at once, a few seconds): the staged collector listens on 127.0.0.1 with a JSON-lines
# sink, the staged agent sends it sFlow from PSAMPLE on NETLINK_USERSOCK, which the staged dataplane emits while
# replaying its bundled capture; each writes its cache when it exits. Prints the paths of the .debs on stdout.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
deb_src=$root/dist/src/deb
version="" dist=$root/dist/target out="" jdk=${JAVA_HOME:-}
while (($#)); do
  case $1 in
    --version) version=$2; shift 2 ;;
    --dist) dist=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --java-home) jdk=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    *) echo "package-deb.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
out=${out:-$dist}
die() { echo "package-deb.sh: $*" >&2; exit 1; }
if [[ -z $version ]]; then
  # the first <version> after the parent's <artifactId>vecflow-parent</artifactId>
  version=$(sed -n '/<artifactId>vecflow-parent<\/artifactId>/{n;s/.*<version>\(.*\)<\/version>.*/\1/p;q}' "$root/pom.xml")
fi
debver=${version/-SNAPSHOT/\~SNAPSHOT}
if ! [[ $debver =~ ^[0-9][A-Za-z0-9.+~]*$ ]]; then
  echo "package-deb.sh: version '$version' gives no valid Debian version ('$debver')" >&2; exit 2
fi
command -v dpkg-deb >/dev/null || die "dpkg-deb not found (apt-get install dpkg)"
# jlink --strip-debug on Linux also strips the native libraries' debug symbols, with objcopy
command -v objcopy >/dev/null || die "objcopy not found (apt-get install binutils): jlink --strip-debug runs it"
[[ -n $jdk && -x $jdk/bin/jlink && -x $jdk/bin/jdeps ]] || die "no JDK with jlink and jdeps: set JAVA_HOME or --java-home"
pkgs=(hsflowd collector dataplane)
for p in "${pkgs[@]}"; do
  [[ -f $dist/vecflow.jar && -d $dist/lib-$p ]] || \
    die "$dist/vecflow.jar or $dist/lib-$p/ missing: run ./mvnw -B -DskipTests -pl dist -am package"
done

# What differs per package: entry point, JVM options (bench/results/2026-12-02-footprint/ for the agent's), the
# configuration file, the system user (the agent starts as root and drops to nobody itself), what purge removes.
declare -A main=([hsflowd]=io.vecflow.cli.HsflowdMain [collector]=io.vecflow.cli.CollectorMain
  [dataplane]=io.vecflow.cli.DataplaneMain)
declare -A what=([hsflowd]="the hsflowd-compatible sFlow agent" [collector]="the sFlow collector"
  [dataplane]="the sampling dataplane")
# The agent's: measured one by one in bench/results/2026-12-02-footprint/ (README "Debian packages"): C1 only with one
# compiler thread, a 4..32 MiB Serial heap, small code cache and stacks, the C heap trimmed every 5 s (C1's
# start-up arenas), no AOT profile replay thread (C1 does not use profiles), no finalizer thread.
declare -A jvm=(
  [hsflowd]="-XX:-UsePerfData -XX:+UseSerialGC -Xms4m -Xmx32m -Xss256k -XX:TieredStopAtLevel=1 -XX:CICompilerCount=1 \
-XX:ReservedCodeCacheSize=16m -XX:MaxMetaspaceSize=48m -XX:TrimNativeHeapInterval=5000 \
-XX:+UnlockDiagnosticVMOptions -XX:-AOTReplayTraining --finalization=disabled"
  [collector]="-XX:-UsePerfData"
  [dataplane]="-XX:-UsePerfData")
# Environment the launcher sets (unless already set): one malloc arena for the agent's few threads.
declare -A env=([hsflowd]='MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-1}"' [collector]="" [dataplane]="")
declare -A conf=([hsflowd]=/etc/hsflowd.conf [collector]=/etc/vecflow/collector.yaml
  [dataplane]=/etc/vecflow/dataplane.yaml)
declare -A user=([hsflowd]="" [collector]=vecflow-collector [dataplane]=vecflow-dataplane)
declare -A state=([hsflowd]="" [collector]=/var/lib/vecflow-collector [dataplane]="")
# Modules jdeps names that the daemon never loads, left out of its runtime: java.desktop (12 MB of modules; only
# optional java.beans uses in jackson-databind, commons-lang3, commons-compress, snakeyaml's bean introspection,
# and the lab's charts, none on the collector's or dataplane's paths; *PackageIT runs both without it).
declare -A drop=([hsflowd]="" [collector]=java.desktop [dataplane]=java.desktop)

t_start=$SECONDS
umask 022
work=$(mktemp -d "${TMPDIR:-/tmp}/vecflow-deb.XXXXXX")
pids=()
cleanup() {
  local pid
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

stage_package() {
  local p=$1 pkg=vecflow-$1 stage=$work/stage-$1
  local home=$stage/usr/lib/$pkg
  install -d "$stage/DEBIAN" "$home/lib" "$stage/usr/sbin" "$stage/lib/systemd/system" \
    "$stage$(dirname "${conf[$p]}")" "$stage/usr/share/doc/$pkg"
  install -m 644 "$dist/vecflow.jar" "$dist/lib-$p"/*.jar "$home/lib/"
  # The runtime: the modules the jars use (jdeps), plus jdk.unsupported (sun.misc.Unsafe, which Netty, JCTools and
  # protobuf look up by reflection).
  local mods
  mods=$("$jdk/bin/jdeps" --multi-release 25 --ignore-missing-deps --print-module-deps "$home"/lib/*.jar)
  mods=$(printf '%s\n' "${mods//,/$'\n'}" jdk.unsupported | LC_ALL=C sort -u | grep -vxF -e "${drop[$p]:-none}" \
    | paste -sd, -)
  "$jdk/bin/jlink" --add-modules "$mods" --strip-debug --no-man-pages --no-header-files --compress zip-6 \
    --output "$home/runtime"
  echo "$mods" >"$work/modules-$p"
  # the class path in a fixed order (the AOT cache needs the one it was trained with)
  local cp="" j
  for j in vecflow.jar $(cd "$home/lib" && ls -1 | grep -v '^vecflow\.jar$' | LC_ALL=C sort); do
    cp="$cp${cp:+:}\$home/lib/$j"
  done
  local envline="# (no environment of its own)"
  if [[ -n ${env[$p]} ]]; then envline="export ${env[$p]}  # glibc: one malloc arena for the few threads"; fi
  sed -e "s|@PKG@|$pkg|g" -e "s|@CMD@|$p|g" -e "s|@WHAT@|${what[$p]}|g" -e "s|@HOME@|/usr/lib/$pkg|g" \
    -e "s|@MAIN@|${main[$p]}|g" -e "s|@JVM_OPTS@|${jvm[$p]}|g" -e "s|@CLASSPATH@|$cp|g" \
    -e "s|@ENV@|$envline|" \
    "$deb_src/launcher.in" >"$stage/usr/sbin/$pkg"
  chmod 755 "$stage/usr/sbin/$pkg"
  install -m 644 "$deb_src/$p/$pkg.service" "$stage/lib/systemd/system/$pkg.service"
  install -m 644 "$deb_src/$p/$(basename "${conf[$p]}")" "$stage${conf[$p]}"
  install -m 644 "$deb_src/copyright" "$stage/usr/share/doc/$pkg/copyright"
  # changelog: one entry for this build (the date from the jar, so a rebuild of the same jar is identical)
  local stamp
  stamp=$(date -u -R -r "$dist/vecflow.jar")
  printf '%s (%s) unstable; urgency=medium\n\n  * Built from the vecflow source tree by scripts/package-deb.sh.\n\n -- %s  %s\n' \
    "$pkg" "$debver" "$(sed -n 's/^Maintainer: //p' "$deb_src/$p/control.in")" "$stamp" \
    | gzip -9n >"$stage/usr/share/doc/$pkg/changelog.gz"
  chmod 644 "$stage/usr/share/doc/$pkg/changelog.gz"
  local s
  for s in postinst prerm postrm; do
    sed -e "s|@PKG@|$pkg|g" -e "s|@CMD@|$p|g" -e "s|@USER@|${user[$p]}|g" -e "s|@STATE@|${state[$p]}|g" \
      "$deb_src/$s.in" >"$stage/DEBIAN/$s"
    chmod 755 "$stage/DEBIAN/$s"
  done
  echo "${conf[$p]}" >"$stage/DEBIAN/conffiles"
  chmod 644 "$stage/DEBIAN/conffiles"
}

for p in "${pkgs[@]}"; do stage_package "$p"; done
t_jlink=$((SECONDS - t_start))

# --- AOT training: collector <- sFlow <- agent <- PSAMPLE (usersock) <- dataplane -------------------------------
t0=$SECONDS
group=26                              # NETLINK_USERSOCK group of the training (the tests use 12, 22, 28, 30, 31)
port=$((20000 + RANDOM % 8000))       # UDP port of the training collector on 127.0.0.1
tr=$work/training
mkdir -p "$tr"
printf 'listen:\n  address: 127.0.0.1\n  port: %d\n  threads: 1\njson-lines: %s\nspool:\n  directory: %s\nmetrics:\n  port: 0\n' \
  "$port" "$tr/rows.jsonl" "$tr/spool" >"$tr/collector.yaml"
printf 'sflow {\n  sampling = 10\n  polling = 1\n  agentIP = 127.0.0.1\n  collector { ip = 127.0.0.1 udpport = %d }\n  psample { transport = usersock usersockGroup = %d }\n}\n' \
  "$port" "$group" >"$tr/hsflowd.conf"
as_user=()
if [[ $(id -u) == 0 ]]; then as_user=(--user root); fi  # stay root: the JVM writes its cache at exit
await() { # file text pid what
  local i
  for ((i = 0; i < 300; i++)); do
    grep -q "$2" "$1" 2>/dev/null && return 0
    kill -0 "$3" 2>/dev/null || { cat "$1" >&2; die "AOT training: the $4 exited before '$2'"; }
    sleep 0.1
  done
  cat "$1" >&2; die "AOT training: no '$2' from the $4 within 30 s"
}
stop() { # pid what
  kill -TERM "$1" 2>/dev/null || true
  local rc=0
  wait "$1" || rc=$?
  ((rc == 0 || rc == 143)) || die "AOT training: the $2 exited $rc (log: $tr/$2.log)"
}
VECFLOW_AOT_OUTPUT=$work/stage-collector/usr/lib/vecflow-collector/collector.aot \
  "$work/stage-collector/usr/sbin/vecflow-collector" --config "$tr/collector.yaml" >"$tr/collector.log" 2>&1 &
cpid=$!; pids+=("$cpid")
await "$tr/collector.log" "listening on udp" "$cpid" collector
VECFLOW_AOT_OUTPUT=$work/stage-hsflowd/usr/lib/vecflow-hsflowd/hsflowd.aot \
  "$work/stage-hsflowd/usr/sbin/vecflow-hsflowd" -f "$tr/hsflowd.conf" "${as_user[@]}" >"$tr/hsflowd.log" 2>&1 &
apid=$!; pids+=("$apid")
await "$tr/hsflowd.log" "vecflow hsflowd: agent" "$apid" agent
if ! VECFLOW_AOT_OUTPUT=$work/stage-dataplane/usr/lib/vecflow-dataplane/dataplane.aot \
    "$work/stage-dataplane/usr/sbin/vecflow-dataplane" --transport usersock --netlink-group "$group" \
    --sampling-rate 10 --loops 30 >"$tr/dataplane.log" 2>&1; then
  cat "$tr/dataplane.log" >&2; die "AOT training: the dataplane failed"
fi
sleep 2  # the agent's datagram flush (1 s) and a counter poll reach the collector
stop "$apid" agent
stop "$cpid" collector
pids=()
[[ -s $tr/rows.jsonl ]] || { cat "$tr"/*.log >&2; die "AOT training: no flow row reached the collector"; }
for p in "${pkgs[@]}"; do
  [[ -s $work/stage-$p/usr/lib/vecflow-$p/$p.aot ]] || { cat "$tr/$p.log" >&2; die "AOT training: no $p.aot"; }
  chmod 644 "$work/stage-$p/usr/lib/vecflow-$p/$p.aot"
done
t_aot=$((SECONDS - t0))

# --- control files and the .debs ---------------------------------------------------------------------------------
for p in "${pkgs[@]}"; do
  pkg=vecflow-$p stage=$work/stage-$p
  size_kb=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
  sed -e "s/@VERSION@/$debver/" -e "s/@INSTALLED_SIZE@/$size_kb/" "$deb_src/$p/control.in" >"$stage/DEBIAN/control"
  (cd "$stage" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum) \
    >"$stage/DEBIAN/md5sums"
  chmod 644 "$stage/DEBIAN/control" "$stage/DEBIAN/md5sums"
  deb=$out/${pkg}_${debver}_amd64.deb
  # --root-owner-group: every file root:root whoever builds. xz for the agent (routers: the smallest download, and
  # the runtime and AOT cache compress well; ~30 s), zstd -9 for the two server packages (a few seconds).
  if [[ $p == hsflowd ]]; then z=(-Zxz); else z=(-Zzstd -z9); fi
  dpkg-deb --root-owner-group "${z[@]}" --build "$stage" "$deb" >/dev/null
  echo "$pkg: $(stat -c %s "$deb") bytes, installed $size_kb KiB, modules $(cat "$work/modules-$p")" >&2
  echo "$deb"
done
echo "package-deb.sh: jlink ${t_jlink}s, AOT training ${t_aot}s, total $((SECONDS - t_start))s" >&2
