#!/usr/bin/env bash
# Fetches what the dashboard schema check runs (dashboards/README.md, "Schema check"):
#
#   scripts/fetch-grafana-schema.sh [DIR]     DIR defaults to $VECFLOW_NPM_DIR, else ~/.cache/vecflow/npm
#
# Two pinned npm packages, downloaded with npm (the registry's own client) and checked against the sha512 integrity
# hard-coded below (the registry's dist.integrity for that version, `npm view NAME@VERSION dist.integrity`):
#   @grafana/schema  Grafana's published dashboard model as TypeScript types (the version of the Grafana image in
#                    compose.yaml); it ships no JSON Schema and no CUE, so the check type-checks against its types
#   typescript       the compiler (tsc) that does the check; pure JavaScript, no dependencies
# Each is unpacked whole into DIR/NAME@VERSION/ (NAME with '/' as '+'). Idempotent: a package whose files are all
# present and match the checksums recorded when it was unpacked is left as it is (no network).
# Prints, on stdout, one line per package: NAME=FOLDER (the caller reads these; the versions live only here).
# Exits non-zero with a clear message when node/npm are missing, the registry cannot be reached, or a download does
# not match its pinned integrity.
#
# Bumping a version: change it here, put `npm view NAME@NEW dist.integrity` beside it, run the check
# (DashboardSchemaTest), fix what it reports.
set -euo pipefail

SCRIPTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
# shellcheck source=lib/common.sh
source "$SCRIPTS/lib/common.sh"

(($# <= 1)) || vf_die "usage: $0 [DIR]   (where to keep the packages; default \$VECFLOW_NPM_DIR or ~/.cache/vecflow/npm)"
DIR=${1:-${VECFLOW_NPM_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/vecflow/npm}}
mkdir -p "$DIR" || vf_die "cannot create $DIR"
DIR=$(cd "$DIR" && pwd -P)

# name | version | dist.integrity
PACKAGES=(
  "@grafana/schema|13.1.3|sha512-6SwRNcnszVOjDDNxOFQmbxg0AdJibwW+B4E2Pra571ZyMOXwL3xZXN22zr9UNqeTvLR1RGXGEP+wucIoS6gnfg=="
  "typescript|6.0.3|sha512-y2TvuxSZPDyQakkFRPZHKFm+KKVqIisdg9/CZwm9ftvKXLP8NRWj38/ODjNbr43SsoXqNuAisEf1GdCxqWcdBw=="
)
STAMP=.vecflow-fetched

command -v node >/dev/null 2>&1 ||
  vf_die "node not found: the dashboard schema check runs tsc under node (Debian: apt-get install nodejs npm)"
command -v npm >/dev/null 2>&1 ||
  vf_die "npm not found: it downloads @grafana/schema and typescript from the npm registry (Debian: apt-get install npm)"
command -v sha256sum >/dev/null 2>&1 || vf_die "sha256sum not found (Debian: coreutils)"

# integrity FILE   prints "sha512-BASE64" of FILE
integrity() {
  node -e 'const c=require("crypto"),f=require("fs");
    process.stdout.write("sha512-"+c.createHash("sha512").update(f.readFileSync(process.argv[1])).digest("base64"))' "$1"
}

# present SUB WANT   true when DIR/SUB was unpacked from WANT and every file still matches its recorded checksum
present() {
  local sub=$1 want=$2
  [[ -f "$DIR/$sub/$STAMP" && "$(head -n 1 "$DIR/$sub/$STAMP")" == "$want" ]] || return 1
  (cd "$DIR/$sub" && tail -n +2 "$STAMP" | sha256sum --check --quiet --strict >/dev/null 2>&1)
}

for entry in "${PACKAGES[@]}"; do
  IFS='|' read -r name version want <<<"$entry"
  sub="${name//\//+}@$version"
  if present "$sub" "$name@$version $want"; then
    vf_log "npm: $name@$version present and verified in $DIR/$sub"
    echo "$name=$DIR/$sub"
    continue
  fi
  vf_log "npm: downloading $name@$version"
  tmp=$(mktemp -d "$DIR/.fetch.XXXXXX")
  # shellcheck disable=SC2064 # expand now: the folder of this iteration
  trap "rm -rf '$tmp'" EXIT
  if ! out=$(cd "$tmp" && npm pack --loglevel=error --fetch-retries=1 --fetch-timeout=60000 "$name@$version" 2>&1); then
    vf_die "cannot download $name@$version with npm (offline, or the npm registry unreachable?):
$out
  The dashboard schema check needs it: run scripts/fetch-grafana-schema.sh DIR where the npm registry is reachable
  and set VECFLOW_NPM_DIR=DIR."
  fi
  tgz=$(find "$tmp" -maxdepth 1 -name '*.tgz' | head -n 1)
  [[ -n "$tgz" ]] || vf_die "npm pack $name@$version produced no tarball (npm said: $out)"
  got=$(integrity "$tgz")
  [[ "$got" == "$want" ]] || vf_die "$name@$version: the download's integrity is $got, expected $want (pinned)"
  mkdir -p "$tmp/x"
  tar -xzf "$tgz" -C "$tmp/x" || vf_die "$name@$version: cannot unpack $tgz"
  [[ -f "$tmp/x/package/package.json" ]] || vf_die "$name@$version: the tarball has no package/package.json"
  (cd "$tmp/x/package" && find . -type f ! -name "$STAMP" -print0 | sort -z | xargs -0 sha256sum) >"$tmp/sums" ||
    vf_die "$name@$version: cannot checksum the unpacked files"
  { echo "$name@$version $want"; cat "$tmp/sums"; } >"$tmp/x/package/$STAMP"
  rm -rf "${DIR:?}/$sub"
  mv "$tmp/x/package" "$DIR/$sub"
  rm -rf "$tmp"
  trap - EXIT
  vf_log "npm: $name@$version verified and unpacked into $DIR/$sub"
  echo "$name=$DIR/$sub"
done
