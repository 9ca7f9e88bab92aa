// The driver's clean: what a poll of a queue vector takes from its rings and what that costs,
// with the refill of the Rx ring (by a delay, by the CPU, or OpenBSD's MCLGETI) and the hand-off
// of the frames to the stack. i40e_napi_poll's shape: Tx completions first, up to their own work
// limit and not counted against the budget, then Rx frames up to the budget (i40e_clean_rx_irq,
// ixgbe_rxeof, enetc_clean_rx_ring).
//
// When the poll sees its Rx frames is nic.rx-clean: all at its start (scan), or per descriptor:
// a loop after the poll's fixed part and its Tx cleaning, round after round, each round taking
// the frames written back while the one before was worked on, until a round finds none; the
// stack's work on the frames follows. The frames are delivered when the poll completes.
//
// The stack is reached through an endpoint (RxStack): the driver hands frames up and asks what
// the stack's work on them will cost, never including the stack.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "irqmod/sim/distribution.hpp"
#include "irqmod/sim/random.hpp"
#include "irqmod/sim/ring.hpp"
#include "irqmod/sim/traffic.hpp"
#include "sim/cpu/core.hpp"
#include "sim/napi/device.hpp"
#include "sim/nic/mclgeti.hpp"
#include "sim/nic/rx_queue.hpp"
#include "sim/nic/tx_queue.hpp"
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

// CPU costs of the clean (cpu.*).
struct PollCosts {
  Distribution napi_poll{};  // fixed cost of one poll call
  Distribution rx_packet{};  // per frame cleaned
  Distribution tx_clean{};   // per Tx completion cleaned
  Distribution rx_refill{};  // per Rx buffer allocated and posted
  Distribution forward{};    // per frame routed out of the egress port (nic.ports = 2)
  Distribution tcp_skb{};    // per GRO skb handed to TCP
  Distribution tx_packet{};  // per frame the stack sends itself (a TCP ACK)
};

// What one poll took: Rx frames (delivered when it completes) and Tx completions (cleaned), and
// with refill by the CPU the buffers it posts.
struct Scan {
  int rx = 0;
  int tx = 0;
  bool tx_finished = true;     // no Tx completion left behind by the work limit
  int forwarded = 0;           // of the Rx frames, those routed out of the egress port
  int tcp_skbs = 0;            // GRO skbs of TCP connections
  int acks = 0;                // TCP ACKs they make
  int refilled = 0;            // Rx buffers allocated and posted (nic.refill = "cpu")
  bool refill_failed = false;  // an allocation failed: i40e reports the whole budget
};

// Refill by the CPU (nic.refill = "cpu" or "mclgeti").
struct RefillSettings {
  bool by_cpu = false;
  std::uint32_t batch = 32;    // nic.refill-batch: cleaned descriptors per refill
  std::uint32_t fail_ppm = 0;  // nic.alloc-fail-ppm
  Mclgeti* mclgeti = nullptr;  // nic.refill = "mclgeti": every poll, as far as the watermark allows
};

// The clean's settings (policy_config.hpp builds them from a scenario).
struct RingCleanConfig {
  PollCosts costs{};
  RefillSettings refill{};
  bool per_descriptor = false;      // nic.rx-clean = "per-descriptor"
  std::uint32_t polled_frames = 1;  // the most frames a poll can hold (nic.rx-ring)
};

class RingClean {
 public:
  // The clean of vector `index`'s `rx` and/or `tx` queues; `refill_rng`: allocation failures.
  RingClean(World& world, std::uint32_t index, RxQueue* rx, TxQueue* tx, LazyArrivals arrivals,
            RxStack stack, const RingCleanConfig& config, Rng refill_rng);
  RingClean(const RingClean&) = delete;
  RingClean& operator=(const RingClean&) = delete;

  // Another Tx queue whose completions this vector cleans.
  void add_tx(TxQueue& queue) { more_tx_.push_back(&queue); }
  const std::vector<TxQueue*>& more_tx() const { return more_tx_; }

  // Lands what arrived up to `now`; when the next frame is written back.
  void land(Instant now) { arrivals_.land(arrivals_.self, now); }
  Instant next_writeback() const { return arrivals_.next_writeback(arrivals_.self); }

  // The whole clean at once: Tx completions, then up to `budget` Rx frames (landing what
  // arrived first). It becomes the running poll's (last()).
  Scan scan(int budget, Core& core);
  // The CPU time of a poll that took `scan` (the poll call's fixed part with `fixed`).
  Duration poll_cost(const Scan& scan, Core& core, bool fixed);

  // nic.rx-clean = "per-descriptor": the poll's first part (the fixed part and the Tx rings).
  Duration begin_loop(int budget, Core& core);
  // The next part of that poll (the clean loop's next round, then the stack's work), or none when
  // the poll is done. `rx_finished` is set when this call ended the Rx loop.
  std::optional<Duration> loop_more(Core& core, bool& rx_finished);
  bool per_descriptor() const { return config_.per_descriptor; }

  // What the running (or last) poll took.
  const Scan& last() const { return last_; }
  // Frames taken and not delivered yet, and their bytes.
  int polled() const { return static_cast<int>(polled_.size()); }
  std::uint32_t polled_bytes() const;
  // Tx completions cleaned since the driver last heard of them (taken: counted as heard).
  struct Unreported {
    std::uint32_t frames = 0;
    std::uint32_t bytes = 0;
  };
  Unreported take_unreported_tx();
  // The polled frames go up the stack from `core`, as NAPI context `napi_id`'s.
  void deliver(Core& core, std::uint32_t napi_id);

  // Totals (net_dim's samples, the report).
  std::uint64_t rx_packets() const { return polled_packets_; }  // delivered
  std::uint64_t rx_bytes() const { return polled_bytes_; }
  std::uint64_t tx_packets() const { return tx_cleaned_packets_; }
  std::uint64_t tx_bytes() const { return tx_cleaned_bytes_; }
  std::uint64_t rx_cleaned() const { return rx_cleaned_; }  // taken off the ring
  std::uint64_t alloc_failures() const { return alloc_failures_; }

 private:
  void on_event(const Event& event);
  bool allocation_fails();
  void clean_tx(TxQueue& queue, Scan& scan);
  void clean_tx_rings(Scan& scan);
  // After the Rx frames were taken: the stack's plan, refill, the ring's trace.
  void finish_rx(Scan& scan, std::size_t first, const Core& core);
  // The CPU time of a poll's part after its clean loop (refill, forwarding, TCP, ACKs); the
  // refilled buffers are usable once `before` and the refill's own time have passed.
  Duration stack_cost(const Scan& scan, Core& core, Duration before);
  std::uint32_t refill_by_mclgeti();
  void retry_refill();
  void trace_ring();

  World& world_;
  RxQueue* rx_;
  TxQueue* tx_;
  std::vector<TxQueue*> more_tx_;
  LazyArrivals arrivals_;
  RxStack stack_;
  RingCleanConfig config_;
  Rng refill_rng_;  // allocation failures
  std::uint64_t alloc_failures_ = 0;

  Ring<Packet> polled_;                     // taken by the running poll, delivered at its end
  std::vector<std::uint32_t> tcp_planned_;  // TCP connections with ACKs due at the poll's end
  Scan last_{};                             // what the running poll took
  std::uint64_t polled_packets_ = 0;
  std::uint64_t polled_bytes_ = 0;
  std::uint64_t tx_cleaned_packets_ = 0;
  std::uint64_t tx_cleaned_bytes_ = 0;
  Unreported unreported_{};       // Tx cleaned since the driver last heard
  std::uint64_t rx_cleaned_ = 0;  // frames its polls took from the ring
  // The per-descriptor poll's progress: its Rx rounds, then the stack's part.
  enum class LoopPhase : std::uint8_t { none, rx, stack };
  LoopPhase phase_ = LoopPhase::none;
  int loop_budget_ = 0;
  std::size_t loop_first_ = 0;  // polled_'s first frame of this poll

  EndpointId endpoint_{};
  SlotId refill_slot_{};
  std::string ring_counter_;  // trace counter names
  std::string free_counter_;
  std::string written_back_counter_;
  std::string dropped_counter_;
};

}  // namespace irqmod::sim
