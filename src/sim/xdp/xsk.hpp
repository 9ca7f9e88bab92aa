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
#pragma once

#include <algorithm>
#include <cstdint>

namespace irqmod::sim {

// A ring of `size` descriptors holding `count`.
struct XskRing {
  std::uint64_t size = 0;   // descriptors
  std::uint64_t count = 0;  // filled by the producer, not yet taken by the consumer

  std::uint64_t room() const { return size - count; }
  // Adds up to `n`; returns how many fitted.
  std::uint64_t produce(std::uint64_t n) {
    const std::uint64_t fitted = std::min(n, room());
    count += fitted;
    return fitted;
  }
  // Takes up to `n`; returns how many there were.
  std::uint64_t consume(std::uint64_t n) {
    const std::uint64_t taken = std::min(n, count);
    count -= taken;
    return taken;
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
