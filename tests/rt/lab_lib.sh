# tests/rt/lab_lib.sh — sourced by lab_napi.sh and lab_serve.sh, which set $irqmod, $case and
# $work and define fail.
# kernel_at_least MAJOR MINOR: the running kernel is MAJOR.MINOR or newer.
kernel_at_least() {
  local major minor
  IFS=. read -r major minor _ <<<"$(uname -r)"
  ((major > $1 || (major == $1 && ${minor%%[!0-9]*} >= $2)))
}
# needs MAJOR MINOR WHAT: skip (exit 77, ctest's "Skipped") on a kernel older than MAJOR.MINOR.
needs() {
  kernel_at_least "$1" "$2" && return
  echo "SKIP ($case): Linux $(uname -r) lacks $3 (Linux $1.$2)"
  exit 77
}
# run EXPECTED_STATUS NAME ARGS...: runs irqmod, output in $work/NAME, checks the exit status.
run() {
  local expected=$1 name=$2; shift 2
  "$irqmod" "$@" >"$work/$name" 2>&1
  local got=$?
  [[ $got -eq $expected ]] || fail "irqmod $* exited $got, expected $expected"
}
# check_bad WORDS ARGS...: irqmod ARGS exits 2 and its message contains WORDS.
check_bad() {
  local want=$1; shift
  run 2 bad "$@"
  grep -q -- "$want" "$work/bad" || fail "irqmod $*: message lacks '$want': $(cat "$work/bad")"
}
