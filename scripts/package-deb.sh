#!/usr/bin/env bash
# Builds the Debian package of the hsflowd-compatible agent with plain dpkg-deb:
#
#   scripts/package-deb.sh [--version V] [--dist DIR] [--out DIR]
#
#   --version  Maven version (default: the root pom's); "-SNAPSHOT" becomes "~SNAPSHOT" (sorts before the release)
#   --dist     the runnable distribution: DIR/vecflow.jar and DIR/lib/*.jar (default dist/target; build it first
#              with ./mvnw -B -DskipTests -pl dist -am package, which also runs this script)
#   --out      where the .deb goes (default: the --dist directory)
#
# Package vecflow-hsflowd_<version>_amd64.deb:
#   /usr/share/vecflow/vecflow.jar, /usr/share/vecflow/lib/*.jar   the agent and its libraries
#   /usr/sbin/vecflow-hsflowd                                      launcher (finds a Java >= 25)
#   /lib/systemd/system/vecflow-hsflowd.service                    systemd unit
#   /etc/hsflowd.conf                                              sample configuration (a conffile)
#   /usr/share/doc/vecflow-hsflowd/changelog.gz, copyright          Debian policy's documentation files
# Sources of the packaged files: dist/src/deb/. Prints the path of the .deb on stdout.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
deb_src=$root/dist/src/deb
version="" dist=$root/dist/target out=""
while (($#)); do
  case $1 in
    --version) version=$2; shift 2 ;;
    --dist) dist=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "package-deb.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
out=${out:-$dist}
if [[ -z $version ]]; then
  # the first <version> after the parent's <artifactId>vecflow-parent</artifactId>
  version=$(sed -n '/<artifactId>vecflow-parent<\/artifactId>/{n;s/.*<version>\(.*\)<\/version>.*/\1/p;q}' "$root/pom.xml")
fi
debver=${version/-SNAPSHOT/\~SNAPSHOT}
if ! [[ $debver =~ ^[0-9][A-Za-z0-9.+~]*$ ]]; then
  echo "package-deb.sh: version '$version' gives no valid Debian version ('$debver')" >&2; exit 2
fi
command -v dpkg-deb >/dev/null || { echo "package-deb.sh: dpkg-deb not found (apt-get install dpkg)" >&2; exit 1; }
[[ -f $dist/vecflow.jar && -d $dist/lib ]] || {
  echo "package-deb.sh: $dist/vecflow.jar or $dist/lib/ missing: run ./mvnw -B -DskipTests -pl dist -am package" >&2
  exit 1
}

pkg=vecflow-hsflowd
stage=$out/deb-stage
rm -rf "$stage"
umask 022
install -d "$stage/DEBIAN" "$stage/usr/share/vecflow/lib" "$stage/usr/sbin" "$stage/lib/systemd/system" \
  "$stage/etc" "$stage/usr/share/doc/$pkg"
install -m 644 "$dist/vecflow.jar" "$stage/usr/share/vecflow/vecflow.jar"
install -m 644 "$dist"/lib/*.jar "$stage/usr/share/vecflow/lib/"
install -m 755 "$deb_src/vecflow-hsflowd" "$stage/usr/sbin/vecflow-hsflowd"
install -m 644 "$deb_src/vecflow-hsflowd.service" "$stage/lib/systemd/system/vecflow-hsflowd.service"
install -m 644 "$deb_src/hsflowd.conf" "$stage/etc/hsflowd.conf"
install -m 644 "$deb_src/copyright" "$stage/usr/share/doc/$pkg/copyright"
# changelog: one entry for this build (the date from the jar, so a rebuild of the same jar is identical)
stamp=$(date -u -R -r "$dist/vecflow.jar")
printf '%s (%s) unstable; urgency=medium\n\n  * Built from the vecflow source tree by scripts/package-deb.sh.\n\n -- %s  %s\n' \
  "$pkg" "$debver" "$(sed -n 's/^Maintainer: //p' "$deb_src/control.in")" "$stamp" \
  | gzip -9n >"$stage/usr/share/doc/$pkg/changelog.gz"
chmod 644 "$stage/usr/share/doc/$pkg/changelog.gz"

install -m 755 "$deb_src/prerm" "$stage/DEBIAN/prerm"
echo /etc/hsflowd.conf >"$stage/DEBIAN/conffiles"
chmod 644 "$stage/DEBIAN/conffiles"
size_kb=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
sed -e "s/@VERSION@/$debver/" -e "s/@INSTALLED_SIZE@/$size_kb/" "$deb_src/control.in" >"$stage/DEBIAN/control"
(cd "$stage" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum) \
  >"$stage/DEBIAN/md5sums"
chmod 644 "$stage/DEBIAN/control" "$stage/DEBIAN/md5sums"

deb=$out/${pkg}_${debver}_amd64.deb
# --root-owner-group: every file root:root whoever builds; gzip: fast, and the jars are compressed already
dpkg-deb --root-owner-group -Zgzip --build "$stage" "$deb" >/dev/null
rm -rf "$stage"
echo "$deb"
