#!/usr/bin/env bash
# Builds and runs every test: formatting, the Release build's tests and benchmark smoke run,
# then the tests again under ASan + UBSan with the scenario fuzzer. Installs missing Debian
# packages first.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
jobs=$(nproc)
# Each phase's start says the seconds since this script began (CI's budget is 20 minutes).
phase() { echo "== $* (at ${SECONDS} s)"; }

phase "format (clang-format, the committed .clang-format)"
git ls-files '*.cpp' '*.hpp' | xargs clang-format --dry-run -Werror

phase "default preset: build and test"
cmake --preset default >/dev/null
cmake --build --preset default -j "$jobs"
ctest --preset default -j "$jobs"

# One clang build for the sanitizers and the fuzzer: everything with ASan + UBSan, the scenario
# loader's sources with libFuzzer's coverage instrumentation too, the unit and CLI tests, and fuzz.scenario (the
# scenario parser, IRQMOD_FUZZ_SECONDS, 10 s by default) among them. A separate fuzz build cost
# CI a third compile of the simulator.
phase "asan preset (ASan + UBSan, clang; the scenario fuzzer for ${IRQMOD_FUZZ_SECONDS:-10} s): build and test"
cmake --preset asan -DIRQMOD_FUZZ_SECONDS="${IRQMOD_FUZZ_SECONDS:-10}" >/dev/null
cmake --build --preset asan -j "$jobs"
ctest --preset asan -j "$jobs"
phase "done"
