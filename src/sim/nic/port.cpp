// The port: lazy landing of arrivals. See port.hpp.
#include "sim/nic/port.hpp"

#include <algorithm>

namespace irqmod::sim {
namespace {

enum PortEvent : std::uint16_t {
  kArrivalWatch = 1,  // the next write-back, while a queue must react to it
  kInjected,          // a single frame's write-back (payload: its slot)
};

}  // namespace

Port::Port(World& world, std::uint64_t link_bps, Duration dma_delay)
    : world_(world),
      link_(link_bps),
      tx_wire_(link_bps),
      dma_delay_(dma_delay),
      arrivals_(Link(link_bps)) {
  endpoint_ = world_.engine.bind<&Port::on_event>(*this);
  watch_ = world_.engine.make_slot();
}

LazyArrivals Port::lazy_arrivals() {
  return LazyArrivals{
      [](void* self, Instant now) { static_cast<Port*>(self)->land(now); },
      [](const void* self) { return static_cast<const Port*>(self)->next_writeback(); }, this};
}

void Port::inject(const Packet& packet) {
  std::size_t slot = injected_.size();
  if (free_slots_.empty()) {
    injected_.emplace_back();
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
  }
  const Instant writeback = at_ns(packet.arrival_ns) + dma_delay_;
  injected_[slot] = Injected{packet, writeback, true};
  world_.engine.schedule(writeback, endpoint_, kInjected, slot);
}

void Port::on_event(const Event& event) {
  switch (event.kind()) {
    case kArrivalWatch:
      break;  // the frames were landed before the event was handled
    case kInjected: {
      // A copy: landing may inject again, into this slot.
      const Packet packet = injected_[event.payload].packet;
      injected_[event.payload].pending = false;
      free_slots_.push_back(static_cast<std::uint32_t>(event.payload));
      queue_of(packet).land(packet, world_.now());
      break;
    }
  }
}

void Port::land(Instant until) {
  if (!tx_.empty()) {
    land_merged(until);
    return;
  }
  if (arrivals_.empty()) return;
  arrivals_.take_until(until - dma_delay_, [&](const Packet& p) {
    const Instant writeback = at_ns(p.arrival_ns) + dma_delay_;
    QueueVector& queue = queue_of(p);
    queue.catch_up(writeback);
    queue.land(p, writeback);
  });
  for (QueueVector* queue : queues_)
    queue->catch_up(until);
}

// Rx arrivals and Tx write-backs in time order (an arrival first on a tie).
void Port::land_merged(Instant until) {
  while (true) {
    const Instant rx = arrivals_.empty() || arrivals_.next_arrival() == Instant::max()
                           ? Instant::max()
                           : arrivals_.next_arrival() + dma_delay_;
    const Instant tx = next_tx_writeback();
    const Instant next = std::min(rx, tx);
    if (next > until || next == Instant::max()) break;
    if (rx <= tx) {
      arrivals_.take_until(next - dma_delay_, [&](const Packet& p) {
        QueueVector& queue = queue_of(p);
        queue.catch_up(next);
        queue.land(p, next);
      });
      continue;
    }
    for (const TxCompletions& c : tx_) {
      if (c.queue->next_writeback() != next) continue;
      c.queue->land_next(next);
      c.vector->catch_up(next);
      c.vector->land_tx_completion(next);
      break;
    }
  }
  for (QueueVector* queue : queues_)
    queue->catch_up(until);
  for (const TxCompletions& c : tx_)
    c.vector->catch_up(until);
}

Instant Port::next_tx_writeback() const {
  Instant next = Instant::max();
  for (const TxCompletions& c : tx_)
    next = std::min(next, c.queue->next_writeback());
  return next;
}

Instant Port::next_writeback() const {
  Instant next = next_tx_writeback();
  if (arrivals_.next_arrival() != Instant::max()) {
    next = std::min(next, arrivals_.next_arrival() + dma_delay_);
  }
  for (const Injected& injected : injected_) {
    if (injected.pending) next = std::min(next, injected.writeback);
  }
  return next;
}

void Port::update_watch() {
  if (arrivals_.empty() && tx_.empty()) return;  // single frames have their own event
  bool watch = false;
  Instant at = Instant::max();
  if (!arrivals_.empty()) {
    bool rx = world_.event_per_arrival;
    for (std::size_t i = 0; !rx && i < queues_.size(); ++i)
      rx = queues_[i]->wants_next_frame();
    if (rx) {
      watch = true;
      if (arrivals_.next_arrival() != Instant::max()) at = arrivals_.next_arrival() + dma_delay_;
    }
  }
  for (const TxCompletions& c : tx_) {
    if (world_.event_per_arrival || c.vector->wants_next_tx()) {
      watch = true;
      at = std::min(at, c.queue->next_writeback());
    }
  }
  if (!watch) {
    world_.engine.cancel(watch_);
    return;
  }
  if (at == Instant::max()) return;
  at = std::max(at, world_.now());
  if (!world_.engine.armed(watch_) || world_.engine.deadline(watch_) != at) {
    world_.engine.arm(watch_, at, endpoint_, kArrivalWatch);
  }
}

}  // namespace irqmod::sim
