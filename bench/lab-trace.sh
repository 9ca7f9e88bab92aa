# bench/lab-trace.sh — sourced by bench/trace-pingpong.sh and bench/trace-load.sh: tracefs for a
# trace of the lab on both CPUs, and the lab those scripts run in. The events: the scheduler's
# switches and wake-ups, every system call's entry and exit, the call-function (a remote wake-up's
# IPI), reschedule and local-timer vectors, softirqs and ipi_send_cpu. 20 MB of buffer bounds a
# trace; TRACE_EXTRA (e.g. "napi/napi_poll timer/hrtimer_expire_entry") adds tracefs events.
# Needs root; the lab's namespaces are removed on exit with tracing off.
T=/sys/kernel/tracing
lab=irqmod-lab-trace$$ ip=198.18.0.1 port=11111
server=

# trace_lab_up: tracefs mounted, the lab up, and its removal (tracing off first) on exit.
trace_lab_up() {
  [[ -d $T/events ]] || mount -t tracefs nodev "$T" || exit 2
  "$irqmod" lab up --name "$lab" >/dev/null || exit 1
  trap trace_lab_down EXIT
}
trace_lab_down() {
  echo 0 >"$T/tracing_on"; echo 0 >"$T/events/enable"
  [[ -n $server ]] && kill "$server" 2>/dev/null
  "$irqmod" lab down --name "$lab" >/dev/null 2>&1
}

# trace_events_on: an empty buffer, no tracer, the events above enabled; tracing still off.
trace_events_on() {
  echo 0 >"$T/tracing_on"; echo >"$T/trace"; echo 20000 >"$T/buffer_size_kb"; echo nop >"$T/current_tracer"
  local e
  for e in sched/sched_switch sched/sched_wakeup sched/sched_waking raw_syscalls/sys_enter \
    raw_syscalls/sys_exit irq_vectors/call_function_single_entry irq_vectors/call_function_single_exit \
    irq_vectors/reschedule_entry irq_vectors/reschedule_exit irq_vectors/local_timer_entry \
    irq_vectors/local_timer_exit irq/softirq_entry irq/softirq_exit ipi/ipi_send_cpu ${TRACE_EXTRA:-}; do
    [[ -d $T/events/$e ]] || { echo "lab-trace: TRACE_EXTRA: no tracefs event '$e' (see $T/available_events)" >&2; exit 2; }
    echo 1 >"$T/events/$e/enable"
  done
}

# trace_capture OUT: 0.3 s of trace to OUT.
trace_capture() {
  echo 1 >"$T/tracing_on"; sleep 0.3; echo 0 >"$T/tracing_on"
  cat "$T/trace" >"$1"
}
