#!/usr/bin/env bash
# bench/adaptive-frontier.sh — `irqmod serve --mode adaptive` judged against fixed settings
# (issue 14 item 6): at each rate, the latency-CPU frontier of the fixed ways to wait — blocking,
# epoll, spin-then-block with a fixed window (serve --mode adaptive --fixed-spin W: no prediction,
# the window never adapts), busy — and where adaptive's default sits against it.
#
# On the veth lab (UDP; irqmod serve pinned in the server namespace, sockperf pp pinned in the
# client namespace, both scheduled as lab-common.sh says), BENCH_REPEAT runs per setting and
# rate; per setting and rate the median over the runs of sockperf's p50 and of the server's CPU.
# The verdict per rate: adaptive's p50 is no worse than 1.05 x the best p50 of the fixed
# settings that used no more CPU than adaptive did (if none did, it is on the frontier). Also
# printed: the old goal (p50 within 15 % of busy's at <= 25 % of busy's CPU), and the wake-up
# cost of this host: epoll's p50 minus busy's at each rate (a packet's wake-up of a blocked
# thread; twice the difference of sockperf's half-round-trip figures), and the timed-sleep lateness serve measured at start (adaptive's wakeup_cost).
# Plots: latency (p50) against CPU per rate with gnuplot (PNG), when gnuplot is installed.
#
# Environment: IRQMOD, BENCH_SECONDS (3), BENCH_RATES ("1000 10000 max"), BENCH_WINDOWS
# ("10 25 50 100 200 500", µs), BENCH_REPEAT (3), BENCH_OUT (directory for the table and the
# plots; default a temporary one), plus lab-common.sh's. About 5.5 s x (4 + windows) x rates x
# repeats: 8 min with the defaults. Needs root.
source "$(dirname "$0")/lab-common.sh"
seconds=${BENCH_SECONDS:-3}
rates=${BENCH_RATES:-1000 10000 max}
windows=${BENCH_WINDOWS:-10 25 50 100 200 500}
repeat=${BENCH_REPEAT:-3}
out_dir=${BENCH_OUT:-$log_dir}
mkdir -p "$out_dir"

settings="blocking epoll busy adaptive"
for w in $windows; do settings+=" spin$w"; done
serve_flags() {
  case $1 in
    spin*) echo "--mode adaptive --fixed-spin ${1#spin}" ;;
    *) echo "--mode $1" ;;
  esac
}

lab_up
declare -A p50s cpus
wakeup_costs=
for r in $(seq "$repeat"); do
  for setting in $settings; do
    log=$log_dir/server-$setting-$r.log
    # shellcheck disable=SC2046
    start_server "$log" $(serve_flags "$setting") || continue
    [[ $setting == adaptive ]] && wakeup_costs+=" $(grep -o 'wakeup cost [0-9]*' "$log" | grep -o '[0-9]*$')"
    for rate in $rates; do
      measure "$log_dir/client-$setting-$rate-$r.txt" sockperf pp -i "$ip" -p "$port" -m 64 --mps "$rate"
      read -r _ p50 _ _ cpu _ <<<"$measured"
      p50s[$rate|$setting]+=" $p50"
      cpus[$rate|$setting]+=" $cpu"
    done
    stop_server
  done
done

median() { tr ' ' '\n' | grep -v '^$' | grep -v -- '^-$' | sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2); else print "-" }'; }

table=$out_dir/frontier.txt
{
  echo "# adaptive-frontier: sockperf pp, UDP, 64 B, ${seconds} s per run, $repeat runs; medians over the runs"
  machine_line
  printf '%-6s %-9s %9s %6s   %s\n' rate setting p50_us cpu_% "runs: p50_us / cpu_%"
  for rate in $rates; do
    for setting in $settings; do
      printf '%-6s %-9s %9s %6s   %s /%s\n' "$rate" "$setting" "$(median <<<"${p50s[$rate|$setting]}")" \
        "$(median <<<"${cpus[$rate|$setting]}")" "${p50s[$rate|$setting]}" "${cpus[$rate|$setting]}"
    done
  done
} >"$table"
cat "$table"

echo
echo "# verdicts"
for rate in $rates; do
  a50=$(median <<<"${p50s[$rate|adaptive]}"); acpu=$(median <<<"${cpus[$rate|adaptive]}")
  best=- best_setting=none
  for setting in $settings; do
    [[ $setting == adaptive ]] && continue
    s50=$(median <<<"${p50s[$rate|$setting]}"); scpu=$(median <<<"${cpus[$rate|$setting]}")
    if awk -v c="$scpu" -v a="$acpu" -v p="$s50" -v b="$best" 'BEGIN { exit !(p != "-" && c <= a && (b == "-" || p < b)) }'; then
      best=$s50; best_setting=$setting
    fi
  done
  if [[ $best == - ]]; then
    echo "$rate: adaptive p50 $a50 us at ${acpu}% CPU: no fixed setting used as little CPU: on the frontier"
  else
    ok=$(awk -v a="$a50" -v b="$best" 'BEGIN { print (a <= 1.05 * b) ? "on or below the frontier" : "ABOVE the frontier" }')
    echo "$rate: adaptive p50 $a50 us at ${acpu}% CPU vs best fixed setting with no more CPU, $best_setting, p50 $best us: $ok"
  fi
  b50=$(median <<<"${p50s[$rate|busy]}"); bcpu=$(median <<<"${cpus[$rate|busy]}")
  e50=$(median <<<"${p50s[$rate|epoll]}")
  echo "$rate: old goal (p50 <= 1.15 x busy's $b50 us and CPU <= 0.25 x busy's ${bcpu}%): adaptive $a50 us, ${acpu}%: $(awk -v a="$a50" -v b="$b50" -v ac="$acpu" -v bc="$bcpu" 'BEGIN { print (a <= 1.15 * b && ac <= 0.25 * bc) ? "met" : "NOT met" }')"
  # sockperf's latency is half the round trip; the server's wake-up adds its whole cost to it.
  echo "$rate: wake-up cost (epoll p50 - busy p50, half round trip): $(awk -v e="$e50" -v b="$b50" 'BEGIN { printf "%.1f us, i.e. %.1f us per wake-up", e - b, 2 * (e - b) }')"
  # Any setting that met both halves of the old goal at this rate?
  for setting in $settings; do
    s50=$(median <<<"${p50s[$rate|$setting]}"); scpu=$(median <<<"${cpus[$rate|$setting]}")
    awk -v a="$s50" -v b="$b50" -v ac="$scpu" -v bc="$bcpu" 'BEGIN { exit !(a <= 1.15 * b && ac <= 0.25 * bc) }' &&
      echo "$rate: $setting meets the old goal ($s50 us, ${scpu}%)"
  done
done
echo "# timed-sleep lateness measured by serve at start (adaptive's wakeup_cost, us):$wakeup_costs"

if command -v gnuplot >/dev/null; then
  for rate in $rates; do
    data=$out_dir/frontier-$rate.dat
    front=$out_dir/frontier-$rate-fixed.dat
    awk -v r="$rate" '$1 == r && $2 != "adaptive" { print $4, $3, $2 }' "$table" >"$data"
    awk -v r="$rate" '$1 == r && $2 == "adaptive" { print $4, $3, $2 }' "$table" >"$data.adaptive"
    # The frontier of the fixed settings: by CPU, each one faster than every cheaper one.
    sort -g -k1,1 -k2,2 "$data" | awk '$2 != "-" && (best == "" || $2 < best) { print; best = $2 }' >"$front"
    gnuplot <<GNUPLOT
set terminal pngcairo size 800,500
set output "$out_dir/frontier-$rate.png"
set title "irqmod serve on the veth lab, sockperf pp at $rate msg/s: p50 against server CPU"
set xlabel "server CPU (% of one CPU)"
set ylabel "p50 latency (us, half round trip)"
set xrange [0:110]
set key top right
plot "$front" using 1:2 with steps lw 2 title "frontier of the fixed settings", \
     "$data" using 1:2 with points pt 7 title "fixed settings", \
     "" using 1:2:3 with labels offset 1,0.5 left notitle, \
     "$data.adaptive" using 1:2 with points pt 5 ps 2 title "adaptive (default)"
GNUPLOT
  done
  echo "# plots: $out_dir/frontier-*.png"
fi
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg); table: $table; logs: $log_dir"
