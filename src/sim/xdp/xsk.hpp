// One AF_XDP socket's shared state (net/xdp/xsk_queue.h, include/uapi/linux/if_xdp.h): the UMEM's
// frames and the four single-producer single-consumer rings between the application and the
// driver. Rings are counters, not descriptors: every frame of a UMEM is alike (64 B at line
// rate), so only how many sit where matters, and a batch moves as one subtraction and one
// addition.
//
//   fill ring        application -> driver: empty frames for the NIC's Rx descriptors
//   Rx ring          driver -> application: received frames (XDP_REDIRECT into the socket)
//   Tx ring          application -> driver: frames to send
//   completion ring  driver -> application: sent frames, free again
//
// need_wakeup (the fill ring's flag, seed 002's "retry flag"): the driver tried once to take
// buffers from the fill ring and found too few; it stops trying until the application makes a
// system call (poll(), recvfrom()) that schedules its NAPI context again.
//
// Cache lines between cores (cpu.xsk-cache-line): a ring's entries and its producer index are
// written by one side and read by the other. When the two run on different cores, every line
// the consumer reads was modified in the other core's cache and moves (a modified line's
// core-to-core transfer); on one core it is a hit. A ring remembers the core that produced last
// and the consumer's position, so a take can count the lines it reads: those its entries cover
// (struct xdp_ring_offset's layout, include/uapi/linux/if_xdp.h and net/xdp/xsk_queue.h of 5.2:
// the producer and consumer indices on cache lines of their own, the entries from a line
// boundary on, 16 B xdp_desc on Rx and Tx, 8 B addresses on the fill and completion rings), plus
// the producer index's line. A line split between two takes counts in both (the producer wrote
// its rest in between). The producer's read of the consumer index is left out: both sides cache
// the other's index and re-read it only when their cached view runs out (xskq_nb_free,
// xsk_prod_nb_free), about once per ring's worth of entries.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>

namespace irqmod::sim {

inline constexpr std::uint64_t kCacheLineBytes = 64;

// A ring of `size` descriptors holding `count`.
struct XskRing {
  std::uint64_t size = 0;               // descriptors
  std::uint64_t count = 0;              // filled by the producer, not yet taken by the consumer
  std::uint64_t entry_bytes = 0;        // 16 (xdp_desc: Rx, Tx) or 8 (an address: fill, completion)
  std::uint64_t taken = 0;              // entries ever taken: the consumer's position
  std::optional<std::uint32_t> writer;  // the core that produced last (none: before bind)

  std::uint64_t room() const { return size - count; }
  // Adds up to `n` from `core` (none: before the socket is bound); returns how many fitted.
  std::uint64_t produce(std::uint64_t n, std::optional<std::uint32_t> core) {
    const std::uint64_t fitted = std::min(n, room());
    count += fitted;
    if (fitted > 0) writer = core;
    return fitted;
  }
  // Takes up to `n`; returns how many there were.
  std::uint64_t consume(std::uint64_t n) {
    const std::uint64_t took = std::min(n, count);
    count -= took;
    taken += took;
    return took;
  }
  // The cache lines a consumer on `core` reads from another core to take the next `n` entries
  // (at most `count`): the entries' lines and the producer index's; none on the writer's core.
  std::uint64_t remote_lines(std::uint64_t n, std::uint32_t core) const {
    n = std::min(n, count);
    if (n == 0 || !writer || *writer == core) return 0;
    const std::uint64_t first = taken * entry_bytes / kCacheLineBytes;
    const std::uint64_t last = (taken + n - 1) * entry_bytes / kCacheLineBytes;
    return last - first + 2;
  }
};

struct Xsk {
  XskRing fill;
  XskRing completion;
  XskRing rx;
  XskRing tx;
  bool fill_needs_wakeup = false;  // XDP_RING_NEED_WAKEUP on the fill ring
};

}  // namespace irqmod::sim
