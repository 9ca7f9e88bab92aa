#!/usr/bin/env bash
# serve_sockperf.sh IRQMOD MODE PROTO SOCKPERF_MODE
# Starts `irqmod serve` on a free loopback port (--port 0; the port is read from its start line),
# drives it with the real sockperf client for one second, stops it with SIGINT and checks counts:
#   pp: sockperf reports 0 dropped messages, and the server answered at least every reply the
#       client received, and no more than it sent;
#   ul, tp: answered only pong requests (some in ul, none in tp), rejected nothing, failed no
#       reply; over TCP also saw every message sockperf sent (and, in ul, 0 dropped). Over UDP
#       neither mode is flow-controlled, so a full socket buffer may lose datagrams.
# Counts only, never timings: a noisy 2-core CI machine must not make it fail.
set -u
irqmod=$1; mode=$2; proto=$3; test=$4
command -v sockperf >/dev/null || { echo "sockperf is not installed (scripts/install-deps.sh)"; exit 1; }
work=$(mktemp -d)
server_pid=
cleanup() {
  [[ -n $server_pid ]] && kill -KILL "$server_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL ($mode $proto $test): $*"; echo "-- server:"; cat "$work/server"; echo "-- sockperf:"; cat "$work/client"; exit 1; }

proto_flag=; [[ $proto == tcp ]] && proto_flag=--tcp
"$irqmod" serve $proto_flag --port 0 --mode "$mode" --json >"$work/server" 2>&1 &
server_pid=$!
port=
for _ in $(seq 100); do  # up to 10 s for the start line
  port=$(grep -o '"port": [0-9]*' "$work/server" | grep -o '[0-9]*$')
  [[ -n $port ]] && break
  kill -0 "$server_pid" 2>/dev/null || fail "the server exited at start-up"
  sleep 0.1
done
[[ -n $port ]] || fail "no start line"

timeout 60 sockperf "$test" $proto_flag -i 127.0.0.1 -p "$port" -t 1 -m 64 >"$work/client" 2>&1
client_status=$?
kill -INT "$server_pid"
for _ in $(seq 100); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
wait "$server_pid"; server_status=$?; server_pid=
[[ $client_status -eq 0 ]] || fail "sockperf exited with $client_status"
[[ $server_status -eq 0 ]] || fail "irqmod serve exited with $server_status"

final=$(grep '"event": "final"' "$work/server") || fail "no final statistics line"
field() { grep -o "\"$1\": [0-9]*" <<<"$final" | head -1 | grep -o '[0-9]*$'; }
messages=$(field messages); replies=$(field replies); rejected=$(field rejected_total)
failures=$(field reply_failures)
sent=$(grep -o 'Total Run.*SentMessages=[0-9]*' "$work/client" | grep -o '[0-9]*$')
[[ $rejected -eq 0 ]] || fail "the server rejected $rejected of sockperf's messages"
[[ $failures -eq 0 ]] || fail "$failures replies failed"
case $test in
  pp)
    received=$(grep -o 'Total Run.*ReceivedMessages=[0-9]*' "$work/client" | grep -o '[0-9]*$')
    grep -q '# dropped messages = 0;' "$work/client" || fail "sockperf reports dropped messages"
    [[ -n $received && $received -gt 0 ]] || fail "sockperf received no reply"
    ((replies >= received && replies <= sent)) ||
      fail "replies $replies outside [received $received, sent $sent]"
    ;;
  ul)
    # Under-load is not flow-controlled: over UDP a server delayed by a loaded CI machine loses
    # datagrams in its full socket buffer (default ~200 KiB, ~270 of these), and sockperf then
    # counts their replies as dropped. TCP loses nothing, so there every message must arrive.
    if [[ $proto == tcp ]]; then
      grep -q '# dropped messages = 0;' "$work/client" || fail "sockperf reports dropped messages"
      ((messages >= sent)) || fail "the server saw $messages of $sent messages"
    fi
    ((replies > 0 && replies < messages)) || fail "replies $replies: expected only pong requests"
    ;;
  tp)
    ((replies == 0)) || fail "throughput mode asks for no reply, yet $replies were sent"
    if [[ $proto == tcp ]]; then ((messages >= sent)) || fail "saw $messages of $sent"; fi
    ((messages > 0)) || fail "the server saw no message"
    ;;
esac
echo "ok: $mode $proto $test: sockperf sent $sent, server messages $messages replies $replies"
