#!/usr/bin/env bash
# The real thing, for CI only: builds the packages, installs irqmod_*.deb with apt-get (which
# resolves its Depends), runs the installed /usr/bin/irqmod, then purges it. It changes /usr, so
# it runs only when CI=true and as root; anywhere else it exits 77 (ctest: skipped) and
# tests/install/deb.sh's dpkg-deb -x extraction is the check that touches nothing.
# Usage: scripts/deb-install-check.sh BUILD_DIR
set -euo pipefail
build=$1
if [[ ${CI:-} != true || $(id -u) -ne 0 ]]; then
  echo "deb-install-check: skipped (installs into /usr: needs CI=true and root)"
  exit 77
fi
if dpkg-query -W -f='${Status}' irqmod 2>/dev/null | grep -q "ok installed"; then
  echo "deb-install-check: an irqmod package is already installed; left alone" >&2
  exit 1
fi
here=$(cd "$(dirname "$0")/.." && pwd)
out=$(mktemp -d)
trap 'apt-get purge -y -qq irqmod >/dev/null 2>&1 || true; rm -rf "$out"' EXIT
"$here/tests/install/deb.sh" "$build" "$out" >/dev/null
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -qq "$out"/irqmod_*.deb >"$out/apt.log" 2>&1 || { cat "$out/apt.log"; exit 1; }
dpkg-query -W -f='${Package} ${Version} ${Status}\n' irqmod
installed=$(dpkg-query -W -f='${Version}' irqmod)
version_line=$(/usr/bin/irqmod --version)
[[ $version_line == "irqmod $installed"* ]] ||
  { echo "deb-install-check: /usr/bin/irqmod --version printed '$version_line', not irqmod $installed" >&2; exit 1; }
/usr/bin/irqmod demo | grep -F "over /usr/share/irqmod/data/traces/dim-demo.csv" >/dev/null ||
  { echo "deb-install-check: /usr/bin/irqmod demo does not read /usr/share/irqmod" >&2; exit 1; }
/usr/bin/irqmod sim /usr/share/irqmod/scenarios/basics/pingpong-udp.toml --duration 1ms >/dev/null
echo "deb-install-check: apt-get install of $(basename "$out"/irqmod_*.deb) and /usr/bin/irqmod ($version_line): ok"
