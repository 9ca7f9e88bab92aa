#!/usr/bin/env bash
# Builds and runs every test: formatting, the Release build's tests and benchmark smoke run,
# then the unit tests again under ASan + UBSan. Installs missing Debian packages first.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
jobs=$(nproc)

echo "== format (clang-format, the committed .clang-format)"
git ls-files '*.cpp' '*.hpp' | xargs clang-format --dry-run -Werror

echo "== default preset: build and test"
cmake --preset default >/dev/null
cmake --build --preset default -j "$jobs"
ctest --preset default -j "$jobs"

echo "== asan preset (ASan + UBSan): build and test"
cmake --preset asan >/dev/null
cmake --build --preset asan -j "$jobs"
ctest --preset asan -j "$jobs"
