#!/usr/bin/env python3
"""How the server works through its requests, in a kernel trace and in the model's, side by side.

The kernel's: a tracefs trace of bench/trace-load.sh (irqmod load on CLIENT_CPU, irqmod serve on
SERVER_CPU; raw_syscalls, sched_switch/wakeup, ipi_send_cpu and the irq vectors). The model's: the
Chrome trace of `irqmod sim SCENARIO --variant CELL --set cpu.app-core=SERVER_CPU --set
lab.client-core=CLIENT_CPU --trace FILE` for the same cell (its cores are the threads 0 and 1).
Either may be left out ("-"). For each it prints:

- the client's send gaps (sendto to sendto): the share over 65 us, which lets a busy loop of
  busy_poll_usecs 64 time out, and over 100 us;
- replies per batch: the kernel's between two epoll_wait returns of the server; the model's
  between two epoll busy loops (three or more `busy poll` segments in a row) or a sleep;
- the time from one reply to the next inside a batch (the kernel's sendto entries; the model's
  `application` segments' ends, where the reply goes out);
- the kernel's: the round trip split at the server's sendto entry, as the model's `lab client`
  line splits it (the request half from the client's sendto entry, the reply half to the client's
  read of it returning), the k-th reply matched to the k-th request at the offset that leaves no
  half negative (the trace starts with requests in flight);
- the kernel's: the client's wake-ups done on each CPU and the IPIs each CPU sent; the interrupt
  vectors' and softirqs' durations per CPU (entry to exit).

Tracefs timestamps are in us and every traced event costs its own time: the kernel's parts are
upper bounds. docs/sim-vs-lab.md (the twenty-second run) uses it.
Usage: trace-batches.py KERNEL_TRACE|- [MODEL_TRACE.json|-] [CLIENT_CPU] [SERVER_CPU]
"""
import collections
import json
import re
import sys

LINE = re.compile(r'^\s*(.+?)-(\d+)\s+\[(\d+)\]\s+\S+\s+([\d.]+): (\w+): (.*)$')
SENDTO, RECVFROM, RECVMSG, EPOLL_WAIT = 44, 45, 47, 232
NR = re.compile(r'NR (\d+)')
COMM = 'irqmod'


def q(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))] if xs else float('nan')


def gaps_line(name, sends):
    gaps = [b - a for a, b in zip(sends, sends[1:])]
    if not gaps:
        return f'{name}: no send gaps'
    over = lambda x: sum(1 for g in gaps if g > x) / len(gaps)
    span = (sends[-1] - sends[0]) / 1e6
    return (f'{name}: {len(gaps)} send gaps, mean {sum(gaps) / len(gaps):.1f} us, p10/p50/p90 '
            f'{q(gaps, .1):.1f} {q(gaps, .5):.1f} {q(gaps, .9):.1f}; over 65 us {100 * over(65):.1f} % '
            f'({over(65) * len(gaps) / span:.0f}/s), over 100 us {100 * over(100):.1f} %')


def batches_line(name, batches):
    if not batches:
        return f'{name}: no batch'
    counts = collections.Counter(batches)
    return (f'{name}: {len(batches)} batches, {sum(batches) / len(batches):.2f} replies a batch; '
            f'of one {100 * counts[1] / len(batches):.0f} %, of two {100 * counts[2] / len(batches):.0f} %')


def cycle_line(name, cycle):
    if not cycle:
        return f'{name}: no reply followed another in a batch'
    return (f'{name}: one reply to the next in a batch p25/p50/p75/p90 {q(cycle, .25):.1f} '
            f'{q(cycle, .5):.1f} {q(cycle, .75):.1f} {q(cycle, .9):.1f} us, mean '
            f'{sum(cycle) / len(cycle):.2f} ({len(cycle)})')


def halves_line(sends, replies, reads):
    """The k-th reply (and read) matched to the (k - offset)-th send: the smallest offset with no
    negative half."""
    for offset in range(0, 64):
        pairs = list(zip(sends, replies[offset:], reads[offset:]))
        if pairs and all(r >= s and d >= r for s, r, d in pairs):
            there = [r - s for s, r, _ in pairs]
            back = [d - r for _, r, d in pairs]
            return (f'kernel: round trip split at the server\'s sendto ({len(pairs)} requests, offset '
                    f'{offset}): there p25/p50/p75 {q(there, .25):.1f} {q(there, .5):.1f} '
                    f'{q(there, .75):.1f} us, back {q(back, .25):.1f} {q(back, .5):.1f} '
                    f'{q(back, .75):.1f} us')
    return 'kernel: no offset matches the replies to the requests'


def report(name, sends, batches, cycle):
    print(gaps_line(name, sends))
    print(batches_line(name, batches))
    print(cycle_line(name, cycle))


def kernel(path, cli, srv):
    sends, batches, cycle, replies, reads = [], [], [], [], []
    in_batch, last_reply = 0, None
    wakes, ipis = collections.Counter(), collections.Counter()
    open_irq, irqs = {}, collections.defaultdict(list)
    client_pid = None
    with open(path) as f:
        for line in f:
            m = LINE.match(line)
            if not m:
                continue
            cpu, t, event, args = int(m[3]), float(m[4]), m[5], m[6]
            t *= 1e6
            mine = m[1].startswith(COMM)
            nr = NR.match(args)
            nr = int(nr[1]) if nr else None
            if cpu == cli and mine and event == 'sys_enter' and nr == SENDTO:
                sends.append(t)
                client_pid = m[2]
            elif cpu == srv and mine and event == 'sys_exit' and nr == EPOLL_WAIT:
                if in_batch:
                    batches.append(in_batch)
                in_batch, last_reply = 0, None
            elif cpu == cli and mine and event == 'sys_exit' and nr in (RECVFROM, RECVMSG):
                returned = re.search(r'= (-?\d+)', args)
                if returned and int(returned[1]) > 0:
                    reads.append(t)
            elif cpu == srv and mine and event == 'sys_enter' and nr == SENDTO:
                replies.append(t)
                if last_reply is not None:
                    cycle.append(t - last_reply)
                in_batch += 1
                last_reply = t
            elif event == 'sched_wakeup' and client_pid and f'pid={client_pid} ' in args:
                wakes[cpu] += 1
            elif event == 'ipi_send_cpu':
                target = re.search(r'cpu=(\d+)', args)
                if target:
                    ipis[(cpu, int(target[1]))] += 1
            elif event.endswith('_entry') and event != 'hrtimer_expire_entry':
                action = re.search(r'action=(\w+)', args)
                open_irq[(cpu, event[:-6])] = (t, event[:-6] + (':' + action[1] if action else ''))
            elif event.endswith('_exit') and (cpu, event[:-5]) in open_irq:
                start, name = open_irq.pop((cpu, event[:-5]))
                irqs[(cpu, name)].append(t - start)
    if not sends and not batches:
        sys.exit(f'trace-batches: {path}: no sendto of {COMM} on CPU {cli} and no epoll_wait return '
                 f'on CPU {srv}: not a trace of bench/trace-load.sh with these CPUs')
    report('kernel', sends, batches, cycle)
    print(halves_line(sends, replies, reads))
    print('kernel: the client woken ' + ', '.join(f'{n} times on CPU {c}' for c, n in sorted(wakes.items()))
          + '; IPIs ' + ', '.join(f'{a} -> {b}: {n}' for (a, b), n in sorted(ipis.items())))
    for (cpu, name), xs in sorted(irqs.items()):
        print(f'kernel: CPU {cpu} {name}: {len(xs)}, p50 {q(xs, .5):.1f} us, mean {sum(xs) / len(xs):.2f}')


def model(path, cli, srv):
    with open(path) as f:
        events = [e for e in json.load(f)['traceEvents'] if e.get('ph') == 'X']
    events.sort(key=lambda e: e['ts'])
    sends = [e['ts'] for e in events if e['tid'] == cli and e['name'] == 'load send']
    batches, cycle = [], []
    in_batch, last_reply, polls = 0, None, 0
    for e in events:
        if e['tid'] != srv:
            continue
        if e['name'] == 'busy poll':
            polls += 1
            continue
        if e['cat'] == 'idle' or (e['name'] == 'application' and polls >= 3):
            if in_batch:
                batches.append(in_batch)
            in_batch, last_reply = 0, None
        if e['name'] == 'application' and e['cat'] != 'idle':
            end = e['ts'] + e['dur']
            if last_reply is not None:
                cycle.append(end - last_reply)
            in_batch += 1
            last_reply = end
        polls = 0
    if not sends and not batches:
        sys.exit(f'trace-batches: {path}: no `load send` on core {cli} and no `application` on '
                 f'core {srv}: not a trace of a lab load cell with these cores')
    report('model', sends, batches, cycle)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    cli = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    srv = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    if sys.argv[1] != '-':
        kernel(sys.argv[1], cli, srv)
    if len(sys.argv) > 2 and sys.argv[2] != '-':
        model(sys.argv[2], cli, srv)


if __name__ == '__main__':
    main()
