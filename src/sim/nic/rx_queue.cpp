// The Rx descriptor ring. See rx_queue.hpp.
#include "sim/nic/rx_queue.hpp"

#include <algorithm>

namespace irqmod::sim {

RxQueue::RxQueue(std::uint32_t descriptors, Duration refill_delay, bool by_cpu)
    : ring_(descriptors), refills_(descriptors), refill_delay_(refill_delay), by_cpu_(by_cpu) {}

void RxQueue::release_refills(Instant t) {
  const std::int64_t t_ns = ns_since_epoch(t);
  while (!refills_.empty() && refills_.front().ready_ns <= t_ns) {
    refilling_ -= refills_.front().count;
    refills_.pop();
  }
}

RxQueue::Landing RxQueue::land(const Packet& packet, Instant writeback) {
  ++arrived_;
  release_refills(writeback);
  if (ring_.full()) {
    ++dropped_;
    return Landing{false, DropReason::rx_ring_full};
  }
  if (ring_.size() + refilling_ + unrefilled_ >= ring_.capacity()) {
    ++dropped_;
    return Landing{false, DropReason::rx_no_buffer};
  }
  ring_.push(packet);
  return Landing{true, DropReason::rx_ring_full};
}

int RxQueue::take(int budget, Instant now, Ring<Packet>& out) {
  const int n =
      static_cast<int>(std::min<std::size_t>(ring_.size(), static_cast<std::size_t>(budget)));
  for (int i = 0; i < n; ++i) {
    out.push(ring_.front());
    ring_.pop();
  }
  if (n > 0 && by_cpu_) {
    unrefilled_ += static_cast<std::uint32_t>(n);
  } else if (n > 0 && refill_delay_ > Duration::zero()) {
    refills_.push(Refill{ns_since_epoch(now + refill_delay_), static_cast<std::uint32_t>(n)});
    refilling_ += static_cast<std::uint32_t>(n);
  }
  return n;
}

std::uint32_t RxQueue::refill(std::uint32_t count, Instant ready) {
  const std::uint32_t n = std::min(count, unrefilled_);
  if (n == 0) return 0;
  unrefilled_ -= n;
  refills_.push(Refill{ns_since_epoch(ready), n});
  refilling_ += n;
  return n;
}

}  // namespace irqmod::sim
