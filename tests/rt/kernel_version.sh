# tests/rt/kernel_version.sh — sourced by lab_napi.sh and lab_serve.sh (which set $case).
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
