#!/usr/bin/env python3
"""Where a lab cell's server CPU goes, from `perf script -F comm,cpu,ip,sym` of cpu-clock samples.

Each sample on SERVER_CPU is put under the process it interrupted (the idle task and every other
task by name) and, for irqmod serve's, under its system call (sendto, recvmsg, epoll_wait, other,
none: user space) and inside the call under the first of a list of kernel functions its stack
holds, innermost first (the receive softirq's sock_def_readable, which wakes the client's epoll,
before ip_rcv, before veth_poll, ...). With REQUESTS_PER_S, each share is also said as us a
request. cpu-clock samples come from an hrtimer: a sample due while interrupts are off lands where
they come back on (at a context switch, in the next task), so the split between the server and the
idle task leans towards the idle task; /proc/PID/stat's CPU (bench/server-sleeps.sh) is the
server's CPU, the split here is where inside it the time goes.
Usage: perf-cell-analyse.py PERF_SCRIPT_OUTPUT [SERVER_CPU] [REQUESTS_PER_S] [SECONDS]
"""
import collections
import re
import sys

SYSCALLS = [('__sys_sendto', 'sendto'), ('__sys_recvmsg', 'recvmsg'), ('__sys_recvfrom', 'recvfrom'),
            ('do_epoll_wait', 'epoll_wait'), ('entry_SYSCALL_64', 'other system call')]
INSIDE = ['sysvec_apic_timer_interrupt', 'sysvec_call_function_single', 'sock_def_readable',
          '__udp_enqueue_schedule_skb', 'tcp_v4_rcv', 'ip_rcv', '__netif_receive_skb', 'veth_poll',
          'net_rx_action', 'veth_xmit', '__dev_queue_xmit', 'ip_finish_output2', 'ip_output',
          'ip_make_skb', 'ip_route_output', 'tcp_sendmsg', 'udp_sendmsg', 'udp_recvmsg',
          'tcp_recvmsg', 'napi_busy_loop', '__napi_busy_loop', 'schedule', 'ep_poll']
HEAD = re.compile(r'^(\S.*?)\s+\[(\d+)\]')


def read(path):
    samples, current = [], None
    with open(path) as f:
        for line in f:
            if not line.strip():
                continue
            if not line.startswith((' ', '\t')):
                m = HEAD.match(line)
                current = (m[1].strip(), int(m[2]), []) if m else None
                if current:
                    samples.append(current)
            elif current:
                parts = line.split()
                if len(parts) > 1:
                    current[2].append(parts[1])
    return samples


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    srv = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    rate = float(sys.argv[3]) if len(sys.argv) > 3 else 0
    seconds = float(sys.argv[4]) if len(sys.argv) > 4 else 1.0
    samples = [s for s in read(sys.argv[1]) if s[1] == srv]
    if not samples:
        sys.exit(f'perf-cell-analyse: {sys.argv[1]}: no sample on CPU {srv}')
    tasks, calls, inside = collections.Counter(), collections.Counter(), collections.Counter()
    for comm, _, stack in samples:
        if not comm.startswith('irqmod'):
            tasks[re.sub(r'/\d+$', '', comm)] += 1
            continue
        tasks['irqmod'] += 1
        call = next((name for fn, name in SYSCALLS if any(f.startswith(fn) for f in stack)), 'none (user space)')
        calls[call] += 1
        where = next((fn for fn in INSIDE if any(f.startswith(fn) for f in stack)), 'the call itself')
        inside[(call, where)] += 1
    n = len(samples)
    per = lambda k: f' = {k / n * seconds * 1e6 / rate:.2f} us a request' if rate else ''
    print(f'{n} samples on CPU {srv}')
    for name, k in tasks.most_common():
        print(f'{100 * k / n:5.1f} %  {name}')
    print('irqmod serve, by system call:')
    for name, k in calls.most_common():
        print(f'{100 * k / n:5.1f} %  {name}{per(k)}')
    print('inside them (the first of the listed functions on the stack, innermost first):')
    for (call, where), k in inside.most_common():
        if 100 * k / n >= 0.5:
            print(f'{100 * k / n:5.1f} %  {call}: {where}{per(k)}')


if __name__ == '__main__':
    main()
