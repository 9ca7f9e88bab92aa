// A queue vector (i40e's q_vector, ixgbe's, enetc's int_vector): one MSI-X vector, its NAPI
// context and the queue it serves. It holds the library's napi::Vector (masking, throttle, the
// software trigger), napi::Context (NAPI_STATE_*), napi::Driver (the tail of i40e_napi_poll) and
// the Rx moderator in front of the vector; it owns their events (the vector's interrupt, the
// coalescing deadline, the NAPI watchdog, adaptive-rx's sample timer).
//
// It is polled two ways: by NET_RX on the core whose poll list holds it (NapiOps), and by a
// thread that busy-polls it (host/busy_poll.hpp), through the same poll_begin / complete steps.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "irqmod/napi/context.hpp"
#include "irqmod/napi/driver.hpp"
#include "irqmod/napi/vector.hpp"
#include "irqmod/sim/ring.hpp"
#include "irqmod/sim/scenario.hpp"
#include "sim/cpu/net_rx.hpp"
#include "sim/host/stack.hpp"
#include "sim/irq/msix.hpp"
#include "sim/nic/moderator.hpp"
#include "sim/nic/rx_queue.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {

// The frames that reached the NIC but are not landed yet are landed by whoever reads a ring:
// this brings every ring up to `now` (the port's land) and says when the next frame is written
// back. It is the one call from a queue back to the port, and it only catches up on the past.
struct LazyArrivals {
  void (*land)(void* self, Instant now) = nullptr;
  Instant (*next_writeback)(const void* self) = nullptr;
  void* self = nullptr;
};

// CPU costs a queue vector's work is charged (cpu.*).
struct PollCosts {
  Distribution napi_poll{};  // fixed cost of one poll call
  Distribution rx_packet{};  // per frame cleaned
  Distribution irq_entry{};  // a timer interrupt's entry and exit (the NAPI watchdog)
};

class QueueVector {
 public:
  // `index`: the queue's number (and its NAPI id); `cores`' NET_RX objects by core index.
  QueueVector(World& world, const Scenario& scenario, std::uint32_t index, RxQueue& rx,
              MsixTable& msix, Core& irq_core, std::vector<NetRx*> net_rx, Stack& stack,
              const Peers& peers, LazyArrivals arrivals, PollCosts costs);
  QueueVector(const QueueVector&) = delete;
  QueueVector& operator=(const QueueVector&) = delete;

  std::uint32_t index() const { return index_; }
  // The context's NAPI id: the queue's number + 1 (0 means "none", as below MIN_NAPI_ID).
  std::uint32_t napi_id() const { return index_ + 1; }
  RxQueue& rx() { return rx_; }
  napi::Context& napi() { return napi_; }
  const napi::Vector& vector() const { return vector_; }
  std::uint32_t msix_vector() const { return msix_vector_; }
  std::uint32_t irq_core() const { return irq_core_; }

  // ---- the device side ----
  // A frame reaches the ring at `writeback` (landing, from the port): a descriptor or a drop,
  // then moderation.
  void land(const Packet& packet, Instant writeback);
  // Raise a coalescing deadline that passed before `t` (the port lands frames late).
  void catch_up(Instant t);
  // The device must react to this queue's next write-back.
  bool wants_next_frame() const { return moderator_.wants_next_frame(vector_); }
  // Trace: the moderation setting at the start.
  void trace_start();

  // ---- polling (NET_RX and busy poll) ----
  // Takes up to `budget` frames from the ring (landing what arrived first). The number taken;
  // they are delivered when the poll completes.
  int scan(int budget, Core& core);
  int polled() const { return static_cast<int>(polled_.size()); }
  // After any poll of `core`: the driver's completion, the NAPI timer, net_dim's sample, the
  // interrupt re-enabled or not, delivery to the sockets.
  void complete(const napi::PollResult& result, int work, Core& core);
  // hrtimer_start(..., HRTIMER_MODE_REL_PINNED): the watchdog runs on the core that armed it.
  void arm_napi_timer(Instant at, Core& core);
  // The context is scheduled (interrupt, watchdog, resume_irqs, repoll) on `core`'s list.
  void schedule_on(Core& core);
  Instant next_writeback() const { return arrivals_.next_writeback(arrivals_.self); }
  // Lands what arrived up to now (a busy loop does before each iteration).
  void catch_up_arrivals() { arrivals_.land(arrivals_.self, world_.now()); }
  const PollCosts& costs() const { return costs_; }
  std::uint64_t rx_dropped() const { return rx_dropped_; }
  std::uint64_t rx_cleaned() const { return rx_cleaned_; }

  // ---- NAPI as net_rx_action sees it (NapiOps) ----
  bool take(const Core& core);
  Duration poll_begin(Core& core);
  int poll_end(Core& core);
  NapiRef napi_ref() { return NapiRef{&kNapiOps, this}; }

 private:
  static const NapiOps kNapiOps;

  // The NAPI watchdog's timer interrupt on the core that armed it.
  struct TimerIrq {
    QueueVector* owner = nullptr;
    std::optional<Segment> start(Core& core);
    std::optional<Segment> next(Core& core);
  };

  void on_event(const Event& event);
  void on_vector_due();
  void on_napi_timer();
  void on_hardirq(Core& core);
  void apply(const Arm& arm);
  void arm_vector(std::optional<Instant> due);
  void arm_at(SlotId slot, Instant at, std::uint16_t kind);
  void deliver_polled(Core& core);
  void trace_ring();

  World& world_;
  std::uint32_t index_;
  RxQueue& rx_;
  MsixTable& msix_;
  std::vector<NetRx*> net_rx_;  // by core index
  Stack& stack_;
  const Peers& peers_;
  LazyArrivals arrivals_;
  PollCosts costs_;

  napi::Context napi_;
  napi::Vector vector_;
  napi::Driver driver_;
  RxModerator moderator_;
  std::uint32_t msix_vector_ = 0;
  std::uint32_t irq_core_ = 0;   // the core its MSI-X message goes to
  Ring<Packet> polled_;          // taken by the running poll, delivered at its end
  std::uint32_t napi_core_ = 0;  // the core whose poll list holds the context
  Core* timer_core_ = nullptr;   // the core that armed napi->timer last
  std::uint64_t polled_packets_ = 0;
  std::uint64_t polled_bytes_ = 0;
  std::uint64_t interrupts_ = 0;
  std::uint64_t rx_dropped_ = 0;  // frames dropped at this vector's Rx ring
  std::uint64_t rx_cleaned_ = 0;  // frames its polls took from the ring
  TimerIrq timer_irq_{};

  EndpointId endpoint_{};
  SlotId vector_slot_{}, deadline_slot_{}, timer_slot_{};
  std::string ring_counter_;  // trace counter names
};

}  // namespace irqmod::sim
