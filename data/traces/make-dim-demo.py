#!/usr/bin/env python3
"""Writes dim-demo.csv, the trace `irqmod demo` replays through net_dim.

A synthetic receive queue sampled once per NAPI completion, in five traffic phases. Each phase
gives the gap between completions, the packets per completion and the frame size; a fixed-seed
linear congruential generator adds +-5 % jitter to the gap so that windows are not identical.
The counters are cumulative and are deliberately started close to their kernel widths (u16
events, u32 packets and bytes) so that the replay also exercises wrap-around.

Regenerate with: python3 data/traces/make-dim-demo.py > data/traces/dim-demo.csv
"""

PHASES = [
    # name, completions, gap between completions (ns), packets per completion, bytes per packet
    ("idle: one 64 B packet per ms", 256, 1_000_000, 1, 64),
    ("request/response: 64 B every 25 us", 1280, 25_000, 1, 64),
    ("bulk: 10 GbE of 1500 B frames, 8 per poll", 2560, 9_800, 8, 1500),
    ("bulk at 1 Gbit/s: 2 frames per poll", 1280, 24_400, 2, 1500),
    ("request/response again", 1280, 25_000, 1, 64),
]

def main():
    seed = 12345
    t = 1_000_000_000
    events = 65_000          # u16 wraps during the first busy phase
    packets = 4_294_960_000  # u32 wraps early
    nbytes = 4_290_000_000   # u32 wraps early
    print("# net_dim demo trace: see make-dim-demo.py for how it was made")
    print("time_ns,events,packets,bytes")
    for name, count, gap, pkts, size in PHASES:
        print(f"# phase: {name}")
        for _ in range(count):
            seed = (seed * 1103515245 + 12345) % 2**31
            jitter = (seed % 1001 - 500) / 10_000  # -5 % .. +5 %
            t += int(gap * (1 + jitter))
            events += 1
            packets += pkts
            nbytes += pkts * size
            print(f"{t},{events},{packets},{nbytes}")

if __name__ == "__main__":
    main()
