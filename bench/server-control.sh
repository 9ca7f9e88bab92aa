# bench/server-control.sh — sourced by bench/serve-vs-sockperf.sh and bench/lab-common.sh: stop
# the server started in the background ($server_pid) and read a process's CPU time.
stop_server() {
  kill -INT "$server_pid" 2>/dev/null
  for _ in $(seq 50); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$server_pid" 2>/dev/null
  wait "$server_pid" 2>/dev/null
  server_pid=
}
# cpu_ticks PID: user + system CPU time in clock ticks (getconf CLK_TCK per second); with
# `children`, also the time of its children it has waited for (cutime + cstime). The fields are
# counted after the command's closing parenthesis, which may hold spaces (proc(5): utime and
# stime are fields 14 and 15). Empty when the process is gone.
cpu_ticks() {
  local rest
  rest=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
  rest=${rest##*) }
  awk -v all="${2:-}" '{ print $12 + $13 + (all == "children" ? $14 + $15 : 0) }' <<<"$rest"
}
