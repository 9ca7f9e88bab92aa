# bench/server-control.sh — sourced by bench/serve-vs-sockperf.sh and bench/lab-common.sh: stop
# the server started in the background ($server_pid) and read a process's CPU time.
stop_server() {
  kill -INT "$server_pid" 2>/dev/null
  for _ in $(seq 50); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$server_pid" 2>/dev/null
  wait "$server_pid" 2>/dev/null
  server_pid=
}
# cpu_ticks PID: user + system CPU time in clock ticks (getconf CLK_TCK per second).
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
