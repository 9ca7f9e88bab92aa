#!/usr/bin/env bash
# sweep.sh IRQMOD SCENARIO: `irqmod sweep` over a 2x2 grid must give
#  - in each row, exactly the row `irqmod sim --set ... --csv -` writes for that point;
#  - the same bytes with -j 1, -j 2, two shards merged, and (when built with MPI and mpirun
#    is there) mpirun -n 2; and CSV and JSON with the same rows.
set -euo pipefail
irqmod=$1; scenario=$2
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
grid=(--vary nic.rx-usecs=8,50 --vary traffic.msg-size=64,1400 --duration 20ms)

"$irqmod" sweep "$scenario" "${grid[@]}" -j 1 --csv "$dir/j1.csv" --json "$dir/j1.json"
"$irqmod" sweep "$scenario" "${grid[@]}" -j 2 --csv "$dir/j2.csv"
cmp "$dir/j1.csv" "$dir/j2.csv"
[[ $(wc -l <"$dir/j1.csv") -eq 5 ]] || { echo "expected a header and 4 rows"; cat "$dir/j1.csv"; exit 1; }
[[ $(grep -c '^{"point":' "$dir/j1.json") -eq 4 ]] || { echo "expected 4 JSON rows"; cat "$dir/j1.json"; exit 1; }

# Row by row against separate sim runs: drop the point, the count and the two keys in front and the
# derived cpu_percent, busiest_cpu_percent, app_cpu_percent and app_process_cpu_percent behind; what is left must be sim's
# CSV row byte for byte.
point=0
for usecs in 8 50; do
  for size in 64 1400; do
    expected=$("$irqmod" sim "$scenario" --duration 20ms --set nic.rx-usecs=$usecs \
                 --set traffic.msg-size=$size --csv - | sed -n 2p)
    row=$(sed -n "$((point + 2))p" "$dir/j1.csv")
    [[ $row == "$point,4,$usecs,$size,"* ]] || { echo "row $point: $row"; exit 1; }
    got=$(echo "$row" | cut -d, -f5- | sed 's/,[^,]*,[^,]*,[^,]*,[^,]*$//')
    [[ $got == "$expected" ]] || { echo "point $point differs:"; echo " sweep: $got"; echo " sim:   $expected"; exit 1; }
    point=$((point + 1))
  done
done

"$irqmod" sweep "$scenario" "${grid[@]}" --shard 1/2 --csv "$dir/s1.csv"
"$irqmod" sweep "$scenario" "${grid[@]}" --shard 0/2 --csv "$dir/s0.csv"
"$irqmod" sweep --merge "$dir/s1.csv" "$dir/s0.csv" --csv "$dir/merged.csv" --json "$dir/merged.json"
cmp "$dir/j1.csv" "$dir/merged.csv"
cmp "$dir/j1.json" "$dir/merged.json"

if [[ ${IRQMOD_MPIRUN:-} ]]; then
  # Open MPI's MPI_Init leaves allocations of its own (strdup in its components) that
  # LeakSanitizer reports in the ASan build; leaks are checked by every other test.
  ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
  $IRQMOD_MPIRUN -x ASAN_OPTIONS -n 2 --oversubscribe --allow-run-as-root "$irqmod" sweep \
    "$scenario" "${grid[@]}" --csv "$dir/mpi.csv"
  cmp "$dir/j1.csv" "$dir/mpi.csv"
  echo "mpirun -n 2: identical"
fi
echo "identical: $(wc -c <"$dir/j1.csv") bytes of CSV; every row equals irqmod sim's"
