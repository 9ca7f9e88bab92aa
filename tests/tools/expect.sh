#!/usr/bin/env bash
# expect.sh STATUS PATTERN [--stdin FILE] -- COMMAND...
# Runs COMMAND, fails unless it exits with STATUS and its combined output matches the extended
# regular expression PATTERN (an empty PATTERN matches anything).
set -u
want_status=$1; pattern=$2; shift 2
stdin=/dev/null
if [[ ${1:-} == --stdin ]]; then stdin=$2; shift 2; fi
[[ ${1:-} == -- ]] && shift
output=$("$@" <"$stdin" 2>&1); status=$?
if [[ $status -ne $want_status ]]; then
  printf 'expected exit %s, got %s from: %s\n%s\n' "$want_status" "$status" "$*" "$output"; exit 1
fi
if [[ -n $pattern ]] && ! grep -Eq -- "$pattern" <<<"$output"; then
  printf 'output of %s does not match /%s/:\n%s\n' "$*" "$pattern" "$output"; exit 1
fi
printf '%s\n' "$output" | head -5
