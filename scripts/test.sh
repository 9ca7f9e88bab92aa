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

echo "== fuzz (clang libFuzzer + ASan + UBSan): the scenario parser, ${IRQMOD_FUZZ_SECONDS:-10} s"
# Only the fuzz target and what it links are built; the corpus it grows stays in build-fuzz.
cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
  -DIRQMOD_BUILD_FUZZ=ON -DIRQMOD_BUILD_TESTS=OFF -DIRQMOD_BUILD_BENCH=OFF \
  -DIRQMOD_BUILD_TOOLS=OFF -DIRQMOD_FUZZ_SECONDS="${IRQMOD_FUZZ_SECONDS:-10}" \
  "-DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all" \
  >/dev/null
cmake --build build-fuzz -j "$jobs" --target scenario_fuzz
ctest --test-dir build-fuzz --output-on-failure

echo "== asan preset (ASan + UBSan): build and test"
cmake --preset asan >/dev/null
cmake --build --preset asan -j "$jobs"
ctest --preset asan -j "$jobs"
