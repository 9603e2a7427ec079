#!/usr/bin/env bash
# Fetches the real GeoIP data the collector's GeoIP tests and the demo-data tool read (testdata/geoip/README.md):
#
#   scripts/fetch-geoip.sh DIR
#
# Two pinned npm packages of sapics' ip-location-db, downloaded with npm (the registry's own client), checked
# against the sha512 integrity hard-coded below (the registry's dist.integrity for that version), unpacked into
#   DIR/geo-whois-asn-country-mmdb/  geo-whois-asn-country{,-ipv4,-ipv6}.mmdb, field country_code (CC0-1.0)
#   DIR/asn/                          asn-ipv4.csv, asn-ipv6.csv: start,end,asn,"org" (CC BY 4.0: RouteViews,
#                                     DB-IP, NRO — attribution in testdata/geoip/README.md)
# Idempotent: a package whose files are present and match the checksums written when it was unpacked is left as
# it is (no network). Exits non-zero with a clear message when npm is missing, the registry cannot be reached, or a
# download does not match its pinned integrity.
set -euo pipefail

SCRIPTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
# shellcheck source=lib/common.sh
source "$SCRIPTS/lib/common.sh"

(($# == 1)) || vf_die "usage: $0 DIR   (where to put the GeoIP test data)"
DIR=$1
mkdir -p "$DIR" || vf_die "cannot create $DIR"
DIR=$(cd "$DIR" && pwd -P)

# name | version | dist.integrity (npm view NAME@VERSION dist.integrity) | subfolder | files kept
PACKAGES=(
  "@ip-location-db/geo-whois-asn-country-mmdb|2.3.2026061719|sha512-xemBDNQl4mCYDuVbqe3jKGKsVDykZGkfvebhtOh/3VGLadq8vsp7t7ontpMUt3hH7sAGT0eLDyJ99SV+0waxZg==|geo-whois-asn-country-mmdb|geo-whois-asn-country.mmdb geo-whois-asn-country-ipv4.mmdb geo-whois-asn-country-ipv6.mmdb NRO_LICENSE README.md package.json"
  "@ip-location-db/asn|2.3.2026061719|sha512-PpqYi7wyEyWwunXBtl+y3Vi403SvNywotWwvmiYCOUtE0SVol/Sf492Ee+eErEznmGapxEQB2SAfrpXuZ9a+vQ==|asn|asn-ipv4.csv asn-ipv6.csv ROUTEVIEWS-LICENSE DBIP-LICENSE NRO_LICENSE MODIFICATIONS README.md package.json"
)
STAMP=.vecflow-fetched

# integrity FILE   prints "sha512-BASE64" of FILE (node is there wherever npm is)
integrity() {
  node -e 'const c=require("crypto"),f=require("fs");
    process.stdout.write("sha512-"+c.createHash("sha512").update(f.readFileSync(process.argv[1])).digest("base64"))' "$1"
}

# present SUBDIR WANT   true when SUBDIR holds what WANT names and every file matches its recorded checksum
present() {
  local sub=$1 want=$2
  [[ -f "$DIR/$sub/$STAMP" && "$(head -n 1 "$DIR/$sub/$STAMP")" == "$want" ]] || return 1
  (cd "$DIR/$sub" && tail -n +2 "$STAMP" | sha256sum --check --quiet --strict >/dev/null 2>&1)
}

command -v npm >/dev/null 2>&1 ||
  vf_die "npm not found: it downloads the GeoIP test data from the npm registry (Debian: apt-get install nodejs npm)"
command -v sha256sum >/dev/null 2>&1 || vf_die "sha256sum not found (Debian: coreutils)"

for entry in "${PACKAGES[@]}"; do
  IFS='|' read -r name version want sub files <<<"$entry"
  if present "$sub" "$name@$version $want"; then
    vf_log "GeoIP data: $name@$version present and verified in $DIR/$sub"
    continue
  fi
  vf_log "GeoIP data: downloading $name@$version"
  tmp=$(mktemp -d "$DIR/.fetch.XXXXXX")
  # shellcheck disable=SC2064 # expand now: the folder of this iteration
  trap "rm -rf '$tmp'" EXIT
  if ! out=$(cd "$tmp" && npm pack --loglevel=error --fetch-retries=1 --fetch-timeout=60000 "$name@$version" 2>&1); then
    vf_die "cannot download $name@$version with npm (offline, or the npm registry unreachable?):
$out
  The GeoIP tests need these files: run scripts/fetch-geoip.sh DIR where the npm registry is reachable and set
  VECFLOW_TEST_GEOIP_DIR=DIR."
  fi
  tgz=$(find "$tmp" -maxdepth 1 -name '*.tgz' | head -n 1)
  [[ -n "$tgz" ]] || vf_die "npm pack $name@$version produced no tarball (npm said: $out)"
  got=$(integrity "$tgz")
  [[ "$got" == "$want" ]] || vf_die "$name@$version: the download's integrity is $got, expected $want (pinned)"
  mkdir -p "$tmp/x"
  tar -xzf "$tgz" -C "$tmp/x" || vf_die "$name@$version: cannot unpack $tgz"
  rm -rf "${DIR:?}/$sub"
  mkdir -p "$DIR/$sub"
  # shellcheck disable=SC2086 # files is a word list
  for f in $files; do
    [[ -f "$tmp/x/package/$f" ]] || vf_die "$name@$version: the package has no $f"
    mv "$tmp/x/package/$f" "$DIR/$sub/$f"
  done
  {
    echo "$name@$version $want"
    # shellcheck disable=SC2086
    (cd "$DIR/$sub" && sha256sum $files)
  } >"$DIR/$sub/$STAMP"
  rm -rf "$tmp"
  trap - EXIT
  vf_log "GeoIP data: $name@$version verified and unpacked into $DIR/$sub"
done
