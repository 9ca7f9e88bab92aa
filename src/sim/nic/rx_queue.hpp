// An Rx descriptor ring: frames take a free descriptor when they are written back, or are
// dropped (rx_ring_full; rx_no_buffer while cleaned descriptors wait for their buffer). A poll
// takes up to its budget from the head. The descriptors it cleaned get a buffer again either by
// themselves after nic.refill-delay, or (nic.refill = "cpu") when a poll refills them: the driver
// allocates and posts buffers once enough are waiting (i40e every I40E_RX_BUFFER_WRITE, ixgbe
// every 16), and they are usable when that poll ends (the tail register is written then).
#pragma once

#include <cstdint>

#include "irqmod/sim/metrics.hpp"
#include "irqmod/sim/ring.hpp"
#include "irqmod/sim/traffic.hpp"
#include "irqmod/time.hpp"

namespace irqmod::sim {

class RxQueue {
 public:
  // `by_cpu`: cleaned descriptors wait for refill() instead of `refill_delay`.
  RxQueue(std::uint32_t descriptors, Duration refill_delay, bool by_cpu = false);

  // A frame written back at `writeback`: true when it took a descriptor, else the drop's reason.
  struct Landing {
    bool taken = false;
    DropReason reason = DropReason::rx_ring_full;
  };
  Landing land(const Packet& packet, Instant writeback);

  // Takes up to `budget` frames from the head into `out` at `now`; their buffers are refilled
  // after the refill delay. The number taken.
  int take(int budget, Instant now, Ring<Packet>& out);

  std::size_t size() const { return ring_.size(); }
  std::size_t capacity() const { return ring_.capacity(); }
  // Refill by the CPU: buffers for up to `count` of the cleaned descriptors, usable from
  // `ready` on. The number given.
  std::uint32_t refill(std::uint32_t count, Instant ready);
  // Cleaned descriptors waiting for the CPU to refill them.
  std::uint32_t unrefilled() const { return unrefilled_; }
  // No descriptor holds a buffer or a frame, nor will without a refill (if_rxr_inuse == 0).
  bool bare() const { return unrefilled_ == ring_.capacity(); }
  // Refill by the CPU from an empty ring: no descriptor has a buffer until refill() gives one
  // (MCLGETI fills the ring only as far as its watermark allows, from the start).
  void start_without_buffers() { unrefilled_ = static_cast<std::uint32_t>(ring_.capacity()); }

  // Descriptors free for a new frame: neither holding one nor waiting for a buffer.
  std::uint32_t free_descriptors() const {
    return static_cast<std::uint32_t>(ring_.capacity() - ring_.size() - refilling_ - unrefilled_);
  }
  const Packet& newest() const { return ring_[ring_.size() - 1]; }
  std::uint64_t arrived() const { return arrived_; }  // frames offered to the ring, drops included
  std::uint64_t dropped() const { return dropped_; }  // ... that found no descriptor
  std::uint64_t written_back() const { return arrived_ - dropped_; }

 private:
  void release_refills(Instant t);

  struct Refill {
    std::int64_t ready_ns;  // when the buffers are usable again
    std::uint32_t count;
  };
  Ring<Packet> ring_;             // written-back descriptors not yet cleaned
  Ring<Refill> refills_;          // cleaned descriptors waiting for their buffer
  std::uint32_t refilling_ = 0;   // descriptors in refills_
  std::uint32_t unrefilled_ = 0;  // cleaned, no buffer asked for yet (refill by the CPU)
  Duration refill_delay_;
  bool by_cpu_;
  std::uint64_t arrived_ = 0;
  std::uint64_t dropped_ = 0;
};

}  // namespace irqmod::sim
