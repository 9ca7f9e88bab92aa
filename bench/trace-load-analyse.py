#!/usr/bin/env python3
"""A request's round trip split into parts, from a tracefs trace of bench/trace-load.sh.

irqmod load (client, CLIENT_CPU) sends a request with send() (sendto), whose NET_RX softirq polls
veth-srv's NAPI on the client's CPU and wakes the server (serve --mode epoll, SERVER_CPU) with an
IPI; the server returns from epoll_wait, reads (recvmsg), answers with sendto, whose softirq polls
veth-cli's NAPI on the server's CPU and wakes the client with an IPI; the client returns from
epoll_pwait2. A request counts only when it is alone in flight: no other send of the client
between its send and its reply's return (at 5000 requests/s most are), and every part below is
found in order (in the busy-poll modes the server takes the request itself, with no IPI: none
is). Then how often the server went to sleep (switched out in state S) and for how long, what sets
the two humps of a busy-poll mode's latency. Medians and p10/p90 in us; tracefs timestamps are 1 us and each event adds its own
cost, so the parts are upper bounds. The parts are those the model has too (irqmod sim --trace).
Usage: trace-load-analyse.py TRACE [CLIENT_CPU] [SERVER_CPU] [COMM]
"""
import re
import statistics
import sys

LINE = re.compile(r'^\s*(.+?)-(\d+)\s+\[(\d+)\]\s+\S+\s+([\d.]+): (\w+): (.*)$')
SENDTO, RECVMSG, EPOLL_WAIT, EPOLL_PWAIT2 = 44, 47, 232, 441
NR = re.compile(r'NR (\d+)')
TARGET = re.compile(r'cpu=(\d+)')

# (name, the event that ends it); each part starts where the one before ended.
PARTS = [
    ('client send -> its NET_RX softirq', 'cli_soft'),
    ('softirq -> IPI to the server', 'srv_ipi_send'),
    ('IPI sent -> server CPU takes it', 'srv_ipi'),
    ('server IPI -> epoll_wait returns', 'srv_wait_exit'),
    ('epoll_wait return -> reply sendto', 'srv_send'),
    ('sendto -> its NET_RX softirq', 'srv_soft'),
    ('softirq -> IPI to the client', 'cli_ipi_send'),
    ('IPI sent -> client CPU takes it', 'cli_ipi'),
    ('client IPI -> epoll_pwait2 returns', 'cli_wait_exit'),
]


def read(path, cpus):
    events = []
    with open(path) as f:
        for line in f:
            m = LINE.match(line)
            if m and int(m[3]) in cpus:
                nr = NR.match(m[6])
                events.append((float(m[4]) * 1e6, m[1], int(m[3]), m[5],
                               int(nr[1]) if nr else None, m[6]))
    return events


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    cli = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    srv = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    comm = sys.argv[4] if len(sys.argv) > 4 else 'irqmod'
    events = read(sys.argv[1], (cli, srv))
    done, dropped = [], 0
    req = None
    order = [p[1] for p in PARTS]
    for t, who, cpu, event, nr, args in events:
        mine = who.startswith(comm)
        if event == 'sys_enter' and nr == SENDTO and cpu == cli and mine:
            if req is not None:
                dropped += 1  # another request before this one's reply: not alone
            req = {'send': t}
            continue
        if req is None:
            continue
        want = next((k for k in order if k not in req), None)
        if want == 'cli_soft' and cpu == cli and event == 'softirq_entry' and 'NET_RX' in args:
            req[want] = t
        elif want == 'srv_ipi_send' and cpu == cli and event == 'ipi_send_cpu':
            if TARGET.search(args) and int(TARGET.search(args)[1]) == srv:
                req[want] = t
        elif want == 'srv_ipi' and cpu == srv and event == 'call_function_single_entry':
            req[want] = t
        elif want == 'srv_wait_exit' and cpu == srv and mine and event == 'sys_exit' and \
                nr == EPOLL_WAIT:
            req[want] = t
        elif want == 'srv_send' and cpu == srv and mine and event == 'sys_enter' and nr == SENDTO:
            req[want] = t
        elif want == 'srv_soft' and cpu == srv and event == 'softirq_entry' and 'NET_RX' in args:
            req[want] = t
        elif want == 'cli_ipi_send' and cpu == srv and event == 'ipi_send_cpu':
            if TARGET.search(args) and int(TARGET.search(args)[1]) == cli:
                req[want] = t
        elif want == 'cli_ipi' and cpu == cli and event == 'call_function_single_entry':
            req[want] = t
        elif want == 'cli_wait_exit' and cpu == cli and mine and event == 'sys_exit' and \
                nr == EPOLL_PWAIT2:
            req[want] = t
            done.append(req)
            req = None
    sleeps, span = server_sleeps(events, srv, comm)
    if not done and not sleeps:
        sys.exit('trace-load-analyse: no request found alone in flight with every part in order, '
                 'and no sleep of the server')
    if sleeps:
        print(f'server (cpu {srv}): {len(sleeps)} sleeps in {span / 1e3:.1f} ms '
              f'({len(sleeps) / span * 1e6:.0f}/s), asleep {sum(sleeps) / span * 100:.1f} %; '
              f'a sleep p10/p50/p90 {q(sorted(sleeps), .1):.1f} {q(sorted(sleeps), .5):.1f} '
              f'{q(sorted(sleeps), .9):.1f} us')
    if not done:
        print('no request alone in flight with every part in order')
        return
    print(f"{len(done)} requests alone in flight with every part ({dropped} left out: the next send came first, or a part was missing); us")
    print(f'{"part":40s} {"p10":>6s} {"p50":>6s} {"p90":>6s}')
    start = 'send'
    for name, key in PARTS:
        xs = sorted(r[key] - r[start] for r in done)
        print(f'{name:40s} {q(xs, .1):6.1f} {q(xs, .5):6.1f} {q(xs, .9):6.1f}')
        start = key
    rtt = sorted(r['cli_wait_exit'] - r['send'] for r in done)
    print(f'{"round trip (half: what irqmod load says)":40s} {q(rtt, .1):6.1f} {q(rtt, .5):6.1f} '
          f'{q(rtt, .9):6.1f}  ({statistics.median(rtt) / 2:.1f})')


def server_sleeps(events, srv, comm):
    """The server's sleeps on its CPU: from its switch out in state S to its switch back in."""
    sleeps, out, first, last = [], None, None, None
    for t, _, cpu, event, _, args in events:
        if cpu != srv:
            continue
        first = t if first is None else first
        last = t
        if event != 'sched_switch':
            continue
        if f'prev_comm={comm} ' in args and 'prev_state=S' in args:
            out = t
        elif f'next_comm={comm} ' in args and out is not None:
            sleeps.append(t - out)
            out = None
    return sleeps, (last - first if sleeps else 0)


def q(xs, p):
    return xs[min(len(xs) - 1, int(p * len(xs)))]


if __name__ == '__main__':
    main()
