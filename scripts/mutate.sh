#!/usr/bin/env bash
# Seeded mutation test of the policy library, the NAPI engine and the simulator (issue 27):
# small faults are put into the source one at a time, and each must make a test fail. Not run
# by CI (40 mutants: about 40 minutes on the 2-core machine, a first build of OUT/build 12 more);
# run it by hand after changing tests or code.
#
#   scripts/mutate.sh [--seed N] [--mutants N] [--dir policy|napi|sim|all] [--out DIR]
#                     [--jobs N] [--list]
#
#   --seed N      the draw of mutants (default 1): the same seed and commit, the same mutants
#   --mutants N   how many mutants that compile (default 40); with --dir all, each directory
#                 gets min(12, N/3) and the rest go in proportion to its number of sites
#                 (seed 1, 40 mutants at 482a4fe: policy 13, napi 12, sim 15)
#   --dir D       policy (src/policy, include/irqmod/policy), napi (src/napi,
#                 include/irqmod/napi), sim (src/sim/**/*.cpp) or all (default)
#   --out DIR     scratch tree, build and results (default /tmp/irqmod-mutate)
#   --jobs N      ninja and ctest parallelism (default 2)
#   --list        print the chosen mutants (file:line, operator, original and mutated line)
#                 and stop; builds nothing
#
# Sites: every line of those files except comments, preprocessor lines and assert /
# static_assert lines; string and character literals are masked, so nothing in them changes.
# Report and output formatting code of the simulator is left out (report*.cpp, json.cpp,
# trace.cpp, series.cpp, counter_table.cpp, scenario_writer.cpp, share.cpp and the two
# *_report.cpp): its text is checked by golden-output tests of the tool, not by the model's.
# Operators, one change a mutant:
#   rel     < <=, > >=, == != flipped (binary operators spaced as clang-format spaces them)
#   arith   binary + and - swapped, += and -= swapped
#   const   a decimal integer literal N -> N+1 (suffixes U, L, chrono's ns/us/ms/s kept)
#   delete  a whole simple statement in a function body (not a declaration, not a return)
#           replaced by an empty line
#   negate  if (c) -> if (!(c)), the condition closed on its line
# The draw: each (directory, operator) list of sites is shuffled by a Park-Miller generator
# seeded with --seed, and the operators take turns in a seeded order. A mutant that does not
# compile is reported as compile-error, not counted, and replaced by the next in the draw.
#
# Each mutant is applied to a scratch worktree of HEAD (OUT/src, `git worktree add --detach`,
# kept between runs; `git worktree remove OUT/src` drops it) and built in OUT/build
# (Release at -O1 with asserts on, the asan preset's level, no unity build, no benchmarks or
# fuzzer, warnings not errors), then tested, most likely killers first, stopping at the first
# failure: the directory's own gtest program (policy_tests, napi_tests or sim_tests, run
# directly), then every other ctest test (-j, --stop-on-failure, a timeout per test). A test
# that fails or times out kills the mutant; a ctest test is tried up to three times first
# (--repeat until-pass:3), since the lab's and serve's real-time sockperf tests can fail on a
# loaded machine (seed 1's first run: lab.serve.fullbusy "reports drops" with a mutant of a
# scenario key's range), and a mutant's failure fails every time. Before the mutants, the unmutated tree is built and
# tested once per commit (the baseline, kept in OUT/baseline-REV): its timings give the
# timeouts (3x, plus a minute), and a test that fails there is left out of the mutants' runs
# and named in the summary. The tests labelled `package` (install and .deb checks) are left
# out: they test packaging, and a mutant's behaviour is what the other tests check.
#
# Output: a line a mutant, then the score per directory, killed / (killed + survived), and the
# survivors' diffs (to judge which are equivalent). OUT/results.tsv has a row a mutant,
# OUT/summary.md the scores and the survivors; OUT/logs/ the builds' and tests' output.
set -euo pipefail

seed=1 mutants=40 want=all out=/tmp/irqmod-mutate jobs=2 list_only=0
usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }
die() { echo "mutate: $*" >&2; exit 2; }
while (($#)); do
  case $1 in
    --seed) seed=${2:?--seed takes a number}; shift 2 ;;
    --mutants) mutants=${2:?--mutants takes a number}; shift 2 ;;
    --dir) want=${2:?--dir takes policy, napi, sim or all}; shift 2 ;;
    --out) out=${2:?--out takes a directory}; shift 2 ;;
    --jobs) jobs=${2:?--jobs takes a number}; shift 2 ;;
    --list) list_only=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument '$1'" ;;
  esac
done
[[ $seed =~ ^[0-9]+$ ]] || die "--seed takes a whole number, not '$seed'"
[[ $mutants =~ ^[1-9][0-9]*$ ]] || die "--mutants takes a positive whole number, not '$mutants'"
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "--jobs takes a positive whole number, not '$jobs'"
[[ $want =~ ^(policy|napi|sim|all)$ ]] || die "--dir takes policy, napi, sim or all, not '$want'"

repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
rev=$(git -C "$repo" rev-parse HEAD)

# --- the sites ---------------------------------------------------------------------------------
# Simulator sources that only format or write output (see the header).
out_of_scope='^src/sim/(report|report_format|report_json|report_text|json|trace|series|counter_table|scenario_writer|share|storage/storage_report|xdp/xdp_report)\.cpp$'

# In: one source file (awk -v dir= -v file=). Out: a candidate a line, tab-separated:
# dir file line op detail original mutated. Comments and literal contents are masked to
# spaces (same length) first, so positions in the mask are positions in the line.
read -r -d '' enumerate_awk <<'AWK' || true
function mask(s,    out, i, n, c, nx, pv) {
  out = ""; n = length(s); i = 1
  while (i <= n) {
    c = substr(s, i, 1); nx = substr(s, i + 1, 1)
    if (in_block) {
      if (c == "*" && nx == "/") { out = out "  "; i += 2; in_block = 0; continue }
      out = out " "; i++; continue
    }
    if (c == "/" && nx == "/") { while (i <= n) { out = out " "; i++ }; break }
    if (c == "/" && nx == "*") { out = out "  "; i += 2; in_block = 1; continue }
    if (c == "\"" || c == "'") {
      pv = substr(s, i - 1, 1)
      # 1'000'000: a digit separator, not a character literal
      if (c == "'" && pv ~ /[0-9A-Fa-f]/ && nx ~ /[0-9A-Fa-f]/) { out = out c; i++; continue }
      out = out c; i++
      while (i <= n) {
        if (substr(s, i, 1) == "\\") { out = out "  "; i += 2; continue }
        if (substr(s, i, 1) == c) break
        out = out " "; i++
      }
      if (i <= n) { out = out c; i++ }
      continue
    }
    out = out c; i++
  }
  return out
}
function trim(s) { sub(/^[ ]+/, "", s); sub(/[ ]+$/, "", s); return s }
function emit(op, detail, mutated) {
  printf "%s\t%s\t%d\t%s\t%s\t%s\t%s\n", dir, file, NR, op, detail, $0, mutated
}
function splice(i, len, repl) { return substr($0, 1, i - 1) repl substr($0, i + len) }
# What a `{` opens, from the code before it (or the line before): type (class, struct, enum,
# namespace), code (a function or control body) or init (a braced initializer).
function block_kind(pre) {
  pre = trim(pre)
  if (pre == "") pre = prev_code
  if (pre ~ /(^|[^A-Za-z0-9_])(namespace|class|struct|union|enum)([^A-Za-z0-9_]|$)/ && pre !~ /\(/)
    return "type"
  if (pre ~ /\)$/ || pre ~ /(^|[^A-Za-z0-9_])(const|noexcept|override|final|else|do|try|mutable)$/ ||
      pre ~ /->/ || (pre ~ /:$/ && pre !~ /::$/))
    return "code"
  return "init"
}
function update_blocks(m,    i, n, c) {
  n = length(m)
  for (i = 1; i <= n; i++) {
    c = substr(m, i, 1)
    if (c == "{") kinds[++depth] = block_kind(substr(m, 1, i - 1))
    else if (c == "}" && depth > 0) depth--
  }
}
function balanced(m,    t) {
  t = m
  return gsub(/\(/, "", t) == gsub(/\)/, "", m) && gsub(/\{/, "", t) == gsub(/\}/, "", m)
}
BEGIN { in_block = 0; depth = 0; prev_code = "" }
{
  m = mask($0)
  t = trim(m)
  context = depth > 0 ? kinds[depth] : "file"
  if (t == "") next
  if (t ~ /^#/ || m ~ /(^|[^A-Za-z0-9_])(static_)?assert *\(/) { update_blocks(m); prev_code = t; next }
  n = length(m)

  k = 0
  for (i = 1; i <= n; i++) {
    if (substr(m, i, 1) != " ") continue
    two = substr(m, i + 1, 2); one = substr(m, i + 1, 1)
    if ((two == "<=" || two == ">=" || two == "==" || two == "!=") && substr(m, i + 3, 1) == " ") {
      to = two == "<=" ? "<" : two == ">=" ? ">" : two == "==" ? "!=" : "=="
      emit("rel", two " -> " to " #" (++k), splice(i + 1, 2, to))
    } else if ((one == "<" || one == ">") && substr(m, i + 2, 1) == " ") {
      emit("rel", one " -> " one "= #" (++k), splice(i + 1, 1, one "="))
    }
  }

  k = 0
  for (i = 2; i <= n; i++) {
    if (substr(m, i, 1) != " ") continue
    one = substr(m, i + 1, 1)
    if (one != "+" && one != "-") continue
    to = one == "+" ? "-" : "+"
    after = substr(m, i + 2, 1)
    if (after == "=" && substr(m, i + 3, 1) == " " && substr(m, i + 4, 1) != "\"")
      emit("arith", one "= -> " to "= #" (++k), splice(i + 1, 1, to))
    else if (after == " " && substr(m, i - 1, 1) != "\"" && substr(m, i + 3, 1) != "\"" &&
             substr(m, i - 1, 1) !~ /[=(,<>!&|?:]/)
      emit("arith", one " -> " to " #" (++k), splice(i + 1, 1, to))
  }

  k = 0
  i = 1
  while (i <= n) {
    c = substr(m, i, 1)
    if (c !~ /[0-9]/ || substr(m, i - 1, 1) ~ /[A-Za-z0-9_.']/) { i++; continue }
    j = i
    while (j <= n && substr(m, j, 1) ~ /[0-9']/) j++
    lit = substr(m, i, j - i)
    s = j
    while (s <= n && substr(m, s, 1) ~ /[A-Za-z_]/) s++
    suffix = substr(m, j, s - j)
    if (substr(m, s, 1) != "." && lit !~ /^0[0-9]/ && lit !~ /'$/ &&
        suffix ~ /^([uU]?([lL]|ll|LL)?|([lL]|ll|LL)[uU]|ns|us|ms|s|min|h)$/) {
      v = lit; gsub(/'/, "", v)
      if (length(v) <= 15) {
        nv = sprintf("%.0f", v + 1)
        emit("const", lit suffix " -> " nv suffix " #" (++k), splice(i, j - i, nv))
      }
    }
    i = s > i ? s : i + 1
  }

  k = 0
  for (i = 1; i <= n; i++) {
    if (substr(m, i, 4) != "if (" || substr(m, i - 1, 1) ~ /[A-Za-z0-9_]/) continue
    d = 0
    for (j = i + 3; j <= n; j++) {
      c = substr(m, j, 1)
      if (c == "(") d++
      else if (c == ")" && --d == 0) break
    }
    if (j > n || substr(m, i + 4, j - i - 4) ~ /;/) continue
    emit("negate", "if (c) -> if (!(c)) #" (++k),
         substr($0, 1, i + 3) "!(" substr($0, i + 4, j - i - 4) "))" substr($0, j + 1))
  }

  # A statement that starts on this line (the code before ends one) and ends on it.
  if (context == "code" && t ~ /;$/ && balanced(t) && t !~ /[{}]/ &&
      (prev_code ~ /[;{}]$/ || (prev_code ~ /:$/ && prev_code !~ /::$/)) && t !~ /^\[\[/ &&
      t !~ /^(return|case|default|using|typedef|namespace|template|friend|static|const|constexpr|auto|inline|extern|explicit|virtual|struct|class|enum|union|unsigned|signed|goto|throw|co_return|public|private|protected|delete|\(void\)|static_cast<void>)([^A-Za-z0-9_]|$)/ &&
      t !~ /^[A-Za-z_][A-Za-z0-9_:]*(<.*>)? *[*&]* *[A-Za-z_][A-Za-z0-9_]* *(=|;|\{|\(|\[|,)/ &&
      t !~ /= *(default|delete) *;$/)
    emit("delete", "statement deleted", "")

  update_blocks(m)
  prev_code = t
}
AWK

# In: candidates. Out: every candidate of the chosen directories in the order mutants are drawn
# (dir, rank, the candidate's fields); each directory's quota goes to qfile ("dir quota").
read -r -d '' select_awk <<'AWK' || true
# Park-Miller minimal standard: exact in awk's doubles (products < 2^47), so mawk and gawk draw
# the same sequence.
function next_rand(n) { state = (state * 48271) % 2147483647; return state % n }
function reseed(a, b,    w) {
  state = (seed * 7919 + a * 104729 + b * 1299709) % 2147483646 + 1
  for (w = 0; w < 8; w++) next_rand(2)
}
BEGIN { FS = "\t"; ndirs = split("policy napi sim", dirs, " "); nops = split("rel arith const delete negate", ops, " ") }
want == "all" || $1 == want {
  key = $1 SUBSEP $4
  cand[key, ++count[key]] = $0
  total_of[$1]++
  total++
}
END {
  chosen = 0
  if (want == "all") {
    base = int(mutants / ndirs); if (base > 12) base = 12
    rest = mutants - ndirs * base
    for (d = 1; d <= ndirs; d++) {
      share = total > 0 ? rest * total_of[dirs[d]] / total : 0
      quota[dirs[d]] = base + int(share); frac[d] = share - int(share); chosen += quota[dirs[d]]
    }
    while (chosen < mutants) {
      best = 0
      for (d = 1; d <= ndirs; d++) if (best == 0 || frac[d] > frac[best]) best = d
      quota[dirs[best]]++; frac[best] = -1; chosen++
    }
  } else quota[want] = mutants
  for (d = 1; d <= ndirs; d++) {
    dir = dirs[d]
    if (!(dir in quota)) continue
    print dir, quota[dir] > qfile
    for (o = 1; o <= nops; o++) {
      key = dir SUBSEP ops[o]
      n = count[key] + 0
      reseed(d, o)
      for (i = 1; i <= n; i++) order[o, i] = i
      for (i = n; i > 1; i--) { j = next_rand(i) + 1; tmp = order[o, i]; order[o, i] = order[o, j]; order[o, j] = tmp }
      taken[o] = 0
    }
    reseed(d, 0)
    for (o = 1; o <= nops; o++) turn[o] = o
    for (i = nops; i > 1; i--) { j = next_rand(i) + 1; tmp = turn[i]; turn[i] = turn[j]; turn[j] = tmp }
    rank = 0
    do {
      drew = 0
      for (t = 1; t <= nops; t++) {
        o = turn[t]; key = dir SUBSEP ops[o]
        if (taken[o] >= count[key] + 0) continue
        taken[o]++; drew = 1
        printf "%s\t%d\t%s\n", dir, ++rank, cand[key, order[o, taken[o]]]
      }
    } while (drew)
  }
}
AWK

dir_of() {
  case $1 in
    src/policy/* | include/irqmod/policy/*) echo policy ;;
    src/napi/* | include/irqmod/napi/*) echo napi ;;
    *) echo sim ;;
  esac
}

work=$(mktemp -d)
cleanup_work() { rm -rf "$work"; }
trap cleanup_work EXIT

git -C "$repo" ls-tree -r --name-only "$rev" -- src/policy src/napi src/sim include/irqmod/policy \
  include/irqmod/napi |
  grep -E '^(src/policy/[^/]+\.cpp|include/irqmod/policy/[^/]+\.hpp|src/napi/[^/]+\.cpp|include/irqmod/napi/[^/]+\.hpp|src/sim/.+\.cpp)$' |
  grep -Ev "$out_of_scope" >"$work/files"
while IFS= read -r file; do
  git -C "$repo" show "$rev:$file" | awk -v dir="$(dir_of "$file")" -v file="$file" "$enumerate_awk"
done <"$work/files" >"$work/candidates.tsv"
awk -v seed="$seed" -v mutants="$mutants" -v want="$want" -v qfile="$work/quota" "$select_awk" \
  "$work/candidates.tsv" >"$work/ordered.tsv"

# The primary draw: the first `quota` of each directory, ids m01, m02, ...
primary() {
  awk -F'\t' 'NR == FNR { split($0, q, " "); quota[q[1]] = q[2]; next }
              $2 <= quota[$1] { printf "m%02d\t%s\n", ++id, $0 }' "$work/quota" "$work/ordered.tsv"
}

if ((list_only)); then
  echo "seed $seed, $(git -C "$repo" rev-parse --short "$rev"): $(tr '\n' ' ' <"$work/quota")"
  primary | awk -F'\t' '{ printf "%s %-6s %s:%s  %s %s\n  - %s\n  + %s\n", $1, $2, $5, $6, $7, $8, $9, $10 }'
  exit 0
fi

# --- the scratch tree and its build -----------------------------------------------------------
mkdir -p "$out/logs" "$out/mutants"
out=$(cd "$out" && pwd)
src=$out/src build=$out/build
if [[ -e $src/.git ]]; then
  [[ $(git -C "$src" rev-parse --git-common-dir) -ef $(git -C "$repo" rev-parse --git-common-dir) ]] ||
    die "$src is a checkout of another repository; name another --out"
  git -C "$src" checkout -q -f --detach "$rev"
else
  git -C "$repo" worktree add -q --detach "$src" "$rev"
fi
mutated_file=""
revert() {
  if [[ -n $mutated_file ]]; then git -C "$src" checkout -q -- "$mutated_file"; fi
  mutated_file=""
}
trap 'revert; cleanup_work' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE=-O1 \
  -DCMAKE_UNITY_BUILD=OFF -DIRQMOD_BUILD_TESTS=ON -DIRQMOD_BUILD_BENCH=OFF -DIRQMOD_BUILD_FUZZ=OFF \
  -DIRQMOD_WERROR=OFF >"$out/logs/configure.log" 2>&1 || die "configure failed: $out/logs/configure.log"

program_of() { echo "${1}_tests"; }

# run_program DIR TIMEOUT LOG: the directory's gtest program, alone, stopping at its first
# failure. Prints the failing test's name (or "timeout", or the crashed test); status 1 if any.
run_program() {
  local prog status=0
  prog=$(program_of "$1")
  (cd "$build/tests" && timeout -k 10 "$2" "$build/bin/$prog" --gtest_fail_fast) \
    >"$3" 2>&1 || status=$?
  ((status == 0)) && return 0
  if ((status == 124 || status == 137)); then
    echo "$prog: timeout (${2} s)"
  elif grep -q '^\[  FAILED  \] [^ ]*\.' "$3"; then
    echo "$prog: $(grep -m1 '^\[  FAILED  \] [^ ]*\.' "$3" | awk '{ print $4 }')"
  else
    echo "$prog: crashed (status $status) in $(grep '^\[ RUN      \]' "$3" | tail -1 | awk '{ print $4 }')"
  fi
  return 1
}

# run_ctest LISTFILE TIMEOUT LOG [--stop-on-failure]: the ctest tests numbered in LISTFILE
# (ctest -I's format), each tried up to three times. Prints the first failing test's name;
# status 1 if any failed all three.
run_ctest() {
  local status=0
  ctest --test-dir "$build" -j "$jobs" --timeout "$2" -I "$1" --repeat until-pass:3 \
    --output-on-failure "${@:4}" >"$3" 2>&1 || status=$?
  ((status == 0)) && return 0
  awk '/tests FAILED:/ { on = 1; next } on && / - / { sub(/^[ \t]*[0-9]+ - /, ""); print; exit }' "$3"
  return 1
}

# --- the baseline: the unmutated tree builds and its tests pass (once per commit) -----------
base=$out/baseline-$rev
if [[ ! -e $base/done ]]; then
  rm -rf "$base" && mkdir -p "$base"
  echo "mutate: baseline build of $(git -C "$repo" rev-parse --short "$rev") in $build"
  ninja -C "$build" -j "$jobs" >"$base/build.log" 2>&1 || die "the unmutated tree does not build: $base/build.log"
  for dir in policy napi sim; do
    prog=$(program_of "$dir")
    start=$SECONDS
    run_program "$dir" 3600 "$base/$prog.log" >"$base/$prog.failed" ||
      die "the unmutated $prog fails ($(cat "$base/$prog.failed")): $base/$prog.log"
    echo $((SECONDS - start)) >"$base/$prog.seconds"
    "$build/bin/$prog" --gtest_list_tests |
      awk '/^[^ ]/ { suite = $1; sub(/\.$/, "", suite); print suite; next }
           { print suite "." $1 }' >"$base/$prog.names"
  done
  # Every ctest test with its number; the packaging tests are left out.
  ctest --test-dir "$build" -N | awk '/Test +#[0-9]+:/ { sub(/^.*#/, ""); n = $1; sub(/:$/, "", n); print n "\t" $2 }' \
    >"$base/tests.tsv"
  ctest --test-dir "$build" -N -L package | awk '/Test +#[0-9]+:/ { print $3 }' >"$base/package.names"
  awk -F'\t' 'NR == FNR { skip[$1] = 1; next } !($2 in skip) { print $1 }' "$base/package.names" \
    "$base/tests.tsv" | paste -sd, | sed 's/^/0,0,1,/' >"$base/all.list"
  echo "mutate: baseline ctest ($(tr , '\n' <"$base/all.list" | tail -n +4 | wc -l) tests)"
  run_ctest "$base/all.list" 1800 "$base/ctest.log" >/dev/null || true
  awk '/tests FAILED:/ { on = 1; next } on && / - / { sub(/^[ \t]*[0-9]+ - /, ""); sub(/ \(.*$/, ""); print }' \
    "$base/ctest.log" >"$base/failed.names"
  awk '/ Test +#[0-9]+: / && /sec$/ { if ($(NF - 1) + 0 > max) max = $(NF - 1) + 0 } END { printf "%d\n", max + 0.999 }' \
    "$base/ctest.log" >"$base/ctest.max_seconds"
  # Per directory: every ctest test but the program's own (run first, directly), the packaging
  # tests and the baseline's failures.
  for dir in policy napi sim; do
    prog=$(program_of "$dir")
    awk -F'\t' 'FILENAME != ARGV[ARGC - 1] { skip[$1] = 1; next } !($2 in skip) { print $1 }' \
      "$base/$prog.names" "$base/package.names" "$base/failed.names" "$base/tests.tsv" |
      paste -sd, | sed 's/^/0,0,1,/' >"$base/rest-$dir.list"
  done
  touch "$base/done"
fi
ctest_timeout=$(($(cat "$base/ctest.max_seconds") * 3 + 60))

# --- the mutants --------------------------------------------------------------------------------
results=$out/results.tsv
printf 'id\tdir\tfile\tline\toperator\tresult\ttest\tseconds\toriginal\tmutated\n' >"$results"
echo "mutate: seed $seed, $(git -C "$repo" rev-parse --short "$rev"), $(tr '\n' ' ' <"$work/quota")(out: $out)"
if [[ -s $base/failed.names ]]; then
  echo "mutate: left out, failing unmutated: $(paste -sd' ' "$base/failed.names")"
fi

# apply FILE LINE ORIGINAL MUTATED: line LINE of FILE in the scratch tree becomes MUTATED.
apply() {
  local path=$src/$1
  ORIG=$3 MUT=$4 awk -v line="$2" 'NR == line { if ($0 != ENVIRON["ORIG"]) exit 3; print ENVIRON["MUT"]; next }
                                   { print }' "$path" >"$work/mutated" || return 1
  cat "$work/mutated" >"$path"
}

# Ids: the draw's mutants keep --list's ids (m01 ...); a replacement for one that did not
# compile takes the next id after them.
first_id=0 spare_id=$(awk '{ n += $2 } END { print n }' "$work/quota")
rm -f "$out"/mutants/m*.diff "$out"/logs/m*
field() { cut -f"$1" <<<"$row"; }  # field N of the draw's current row
# The loops read on descriptors 3 and 4, so that no build or test can eat their input.
while read -r -u 3 dir quota; do
  done_here=0
  while ((done_here < quota)) && IFS= read -r -u 4 row; do
    file=$(field 4) line=$(field 5) op=$(field 6) detail=$(field 7)
    original=$(field 8) mutated=$(field 9)
    rank=$(field 2)
    if ((rank <= quota)); then id=$((first_id + rank)); else id=$((spare_id += 1)); fi
    printf -v name 'm%02d' "$id"
    start=$SECONDS
    apply "$file" "$line" "$original" "$mutated" || die "$file:$line is not what the draw read (HEAD changed?)"
    mutated_file=$file
    git -C "$src" diff >"$out/mutants/$name.diff"
    log=$out/logs/$name
    test=""
    prog=$(program_of "$dir")
    if ! ninja -C "$build" -j "$jobs" "$prog" >"$log.build.log" 2>&1; then
      result=compile-error
    elif test=$(run_program "$dir" $(($(cat "$base/$prog.seconds") * 3 + 60)) "$log.$prog.log"); then
      if ! ninja -C "$build" -j "$jobs" >>"$log.build.log" 2>&1; then
        result=compile-error
      elif test=$(run_ctest "$base/rest-$dir.list" "$ctest_timeout" "$log.ctest.log" --stop-on-failure); then
        result=survived
      else
        result=killed
      fi
    else
      result=killed
    fi
    revert
    [[ $result == compile-error ]] || done_here=$((done_here + 1))
    seconds=$((SECONDS - start))
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$dir" "$file" "$line" "$op $detail" \
      "$result" "$test" "$seconds" "$original" "$mutated" >>"$results"
    printf '%s %-6s %s:%s %s: %s%s (%d s)\n' "$name" "$dir" "$file" "$line" "$op $detail" "$result" \
      "${test:+ by $test}" "$seconds"
  done 4< <(awk -F'\t' -v d="$dir" '$1 == d' "$work/ordered.tsv")
  first_id=$((first_id + quota))
done 3<"$work/quota"

# --- the score ----------------------------------------------------------------------------------
summary=$out/summary.md
{
  echo "# Mutation score: seed $seed, $(git -C "$repo" rev-parse --short "$rev")"
  echo
  echo "\`scripts/mutate.sh --seed $seed --mutants $mutants --dir $want\`; operators rel, arith, const,"
  echo "delete, negate; a compile-error is replaced by the next mutant of the draw."
  echo
  echo "| directory | killed | survived | compile-error | score |"
  echo "|---|---|---|---|---|"
  awk -F'\t' 'NR > 1 { n[$2, $6]++; seen[$2] = 1 }
    END { split("policy napi sim", dirs, " ")
          for (i = 1; i <= 3; i++) { d = dirs[i]; if (!(d in seen)) continue
            k = n[d, "killed"] + 0; s = n[d, "survived"] + 0; c = n[d, "compile-error"] + 0
            printf "| %s | %d | %d | %d | %d / %d = %s |\n", d, k, s, c, k, k + s,
                   k + s ? sprintf("%.1f %%", 100 * k / (k + s)) : "-" } }' "$results"
  if [[ -s $base/failed.names ]]; then
    echo
    echo "Left out of every mutant's run (they fail unmutated): $(paste -sd' ' "$base/failed.names")."
  fi
  echo
  echo "## Survivors"
  awk -F'\t' 'NR > 1 && $6 == "survived" { print $1 }' "$results" | while read -r name; do
    awk -F'\t' -v id="$name" '$1 == id { printf "\n### %s %s:%s (%s)\n\n", $1, $3, $4, $5 }' "$results"
    echo '```diff'
    cat "$out/mutants/$name.diff"
    echo '```'
  done
} >"$summary"
echo
sed -n '/^| directory/,/^$/p' "$summary"
echo "Survivors' diffs, for judging which are equivalent:"
awk -F'\t' 'NR > 1 && $6 == "survived" { print $1 }' "$results" | while read -r name; do
  cat "$out/mutants/$name.diff"
done
echo "mutate: $results, $summary"
