#!/usr/bin/env python3
"""What one request costs the server's CPU, from a tracefs trace of bench/trace-pingpong.sh.

Per request on the server's CPU, from the call-function IPI that wakes the server in the idle
task to the server's switch back to idle: the IPI handler, the return of the blocked recvmsg, the
sendto of the reply with the NET_RX softirq inside it (veth-cli's NAPI poll, which wakes the
client and sends its IPI), the next recvmsg up to the switch. Medians in us. tracefs timestamps
are 1 us and each event adds its own cost, so the parts are upper bounds.
Usage: trace-pingpong-analyse.py TRACE [CPU] [COMM]
"""
import re
import statistics
import sys

LINE = re.compile(r'^\s*(.+?)-(\d+)\s+\[(\d+)\]\s+\S+\s+([\d.]+): (\w+): (.*)$')


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    cpu = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    comm = sys.argv[3] if len(sys.argv) > 3 else 'irqmod'
    events = []
    with open(sys.argv[1]) as f:
        for line in f:
            m = LINE.match(line)
            if m and int(m[3]) == cpu:
                events.append((float(m[4]) * 1e6, m[1], m[5], m[6]))
    parts = {k: [] for k in ('ipi handler', 'to recvmsg return', 'sendto', 'softirq in sendto',
                             'ipi send to softirq end', 'recvmsg to switch-out', 'whole request')}
    req = None
    for t, who, event, args in events:
        if event == 'call_function_single_entry' and who.startswith('<idle>'):
            req = {'start': t}
        elif req is None:
            continue
        elif event == 'call_function_single_exit' and 'handler_end' not in req:
            req['handler_end'] = t
        elif event == 'sys_exit' and 'recv_exit' not in req and who.startswith(comm):
            req['recv_exit'] = t
        elif event == 'sys_enter' and 'NR 44 ' in args:
            req['send_enter'] = t
        elif event == 'softirq_entry' and 'send_enter' in req:
            req['soft_enter'] = t
        elif event == 'ipi_send_cpu' and 'soft_enter' in req:
            req['ipi'] = t
        elif event == 'softirq_exit' and 'soft_enter' in req:
            req['soft_exit'] = t
        elif event == 'sys_exit' and 'NR 44 ' in args:
            req['send_exit'] = t
        elif event == 'sys_enter' and 'send_exit' in req:
            req['next_recv'] = t
        elif event == 'sched_switch' and args.startswith('prev_comm=' + comm):
            keys = ('handler_end', 'recv_exit', 'send_enter', 'soft_enter', 'ipi', 'soft_exit',
                    'send_exit', 'next_recv')
            if all(k in req for k in keys):
                parts['ipi handler'].append(req['handler_end'] - req['start'])
                parts['to recvmsg return'].append(req['recv_exit'] - req['handler_end'])
                parts['sendto'].append(req['send_exit'] - req['send_enter'])
                parts['softirq in sendto'].append(req['soft_exit'] - req['soft_enter'])
                parts['ipi send to softirq end'].append(req['soft_exit'] - req['ipi'])
                parts['recvmsg to switch-out'].append(t - req['next_recv'])
                parts['whole request'].append(t - req['start'])
            req = None
    n = len(parts['whole request'])
    print(f'cpu {cpu}, {comm}: {n} requests traced in full')
    if n == 0:
        return 1
    for name, values in parts.items():
        print(f'  {name:26s} median {statistics.median(values):6.1f} us')
    return 0


if __name__ == '__main__':
    sys.exit(main())
