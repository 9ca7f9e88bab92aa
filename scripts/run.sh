#!/usr/bin/env bash
# Builds everything (Release) and runs irqmod's main job. Installs missing Debian packages first.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
cmake --preset default >/dev/null
cmake --build --preset default
exec ./build/bin/irqmod run
