#!/usr/bin/env bash
# Builds the Debian packages (cpack -G DEB) into a throwaway directory, checks their control
# fields, then extracts the tool's package with dpkg-deb -x (nothing is installed on this
# machine) and runs the extracted irqmod: it must find scenarios, platforms and the demo's trace
# under the extracted usr/share/irqmod, not in the source tree.
# Usage: deb.sh BUILD_DIR [OUT_DIR]   (OUT_DIR kept for scripts/deb-install-check.sh)
set -euo pipefail
build=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=${2:-$tmp/out}
mkdir -p "$out"

(cd "$build" && cpack -G DEB -B "$out" >"$tmp/cpack.log" 2>&1) || { cat "$tmp/cpack.log"; exit 1; }
shopt -s nullglob
debs=("$out"/irqmod_*.deb)
devs=("$out"/irqmod-dev_*.deb)
if ((${#debs[@]} != 1 || ${#devs[@]} != 1)); then
  echo "deb.sh: expected one irqmod_*.deb and one irqmod-dev_*.deb in $out:" "$out"/*.deb >&2
  exit 1
fi
deb=${debs[0]}
field() { dpkg-deb -f "$1" "$2"; }
[[ $(field "$deb" Package) == irqmod ]] || { echo "deb.sh: Package is not irqmod" >&2; exit 1; }
[[ -n $(field "$deb" Version) && -n $(field "$deb" Maintainer) ]] ||
  { echo "deb.sh: Version or Maintainer is empty" >&2; exit 1; }
depends=$(field "$deb" Depends)
for lib in libc6 libpcap0.8 libmnl0; do
  [[ $depends == *"$lib"* ]] || { echo "deb.sh: Depends ($depends) lacks $lib" >&2; exit 1; }
done
[[ $(field "${devs[0]}" Depends) == *libtomlplusplus-dev* ]] ||
  { echo "deb.sh: irqmod-dev does not depend on libtomlplusplus-dev" >&2; exit 1; }

root=$tmp/root
dpkg-deb -x "$deb" "$root"
irqmod=$root/usr/bin/irqmod
share=$root/usr/share/irqmod
# --version runs from the package and names the package's version (issue 16 item 5).
version_line=$("$irqmod" --version)
[[ $version_line == "irqmod $(field "$deb" Version)"* ]] ||
  { echo "deb.sh: irqmod --version printed '$version_line', not irqmod $(field "$deb" Version)" >&2; exit 1; }
"$irqmod" demo | grep -F "over $share/data/traces/dim-demo.csv" >/dev/null ||
  { echo "deb.sh: the extracted irqmod demo does not read $share" >&2; exit 1; }
"$irqmod" sim "$share/scenarios/basics/pingpong-udp.toml" --duration 1ms >/dev/null
# A scenario away from any platforms/ directory finds its platform in the extracted share.
mkdir -p "$tmp/elsewhere"
printf 'platform = "x86-i40e"\n[scenario]\nduration = "1ms"\n' >"$tmp/elsewhere/s.toml"
"$irqmod" sim "$tmp/elsewhere/s.toml" >/dev/null
# Removing the installed trace makes the demo fail naming the installed path: proof that the
# extracted tree, not the source tree, was read.
rm "$share/data/traces/dim-demo.csv"
if "$irqmod" demo >"$tmp/demo.out" 2>&1; then
  echo "deb.sh: demo ran without its installed trace" >&2
  exit 1
fi
grep -F "cannot open $share/data/traces/dim-demo.csv" "$tmp/demo.out" >/dev/null ||
  { cat "$tmp/demo.out"; exit 1; }
echo "deb.sh: $(basename "$deb") ($(field "$deb" Version)) Depends: $depends; extracted irqmod ran ($version_line)"
