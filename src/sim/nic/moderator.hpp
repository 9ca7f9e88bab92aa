// Interrupt moderation in front of a queue vector, one per direction: one variant, so that the
// kinds of nic.moderation and nic.tx-moderation differ in one place instead of a switch at every
// step.
//
//   Immediate   Rx with none, itr, adaptive-itr: every write-back is a cause of the vector at once;
//               the vector's throttle (EITR / i40e's ITR, fixed or adapted by the driver) does the
//               rest
//   Coalescing  Rx with coalesce and dim: ethtool's rx-usecs / rx-frames (and the -irq pair, the
//               rate bands); for dim, net_dim reprograms the pair after a completed poll (mlx5),
//               or its usecs at the vector's next interrupt (enetc: nic.dim-driver, DimFeed).
//               Tx always: tx-usecs / tx-frames as set (coalesce), chosen by net_dim's Tx profiles
//               (dim), or computed from the link speed and the Tx ring (link-speed, seed 001)
//   LowLatency  Rx with lli: a static ITR plus 82599 low-latency interrupts that bypass it
//
// Each step returns what to arm (the vector's due time, the coalescing deadline) instead of
// arming it: the queue vector owns the events.
#pragma once

#include <cstdint>
#include <optional>
#include <variant>

#include "irqmod/napi/vector.hpp"
#include "irqmod/policy/coalesce.hpp"
#include "irqmod/policy/dim.hpp"
#include "irqmod/policy/lli.hpp"
#include "irqmod/time.hpp"

namespace irqmod::sim {

// What a moderation step wants armed.
struct Arm {
  std::optional<Instant> vector_due;  // the vector's interrupt is due then
  std::optional<Instant> deadline;    // the coalescer's usecs deadline (its own event)
};

// What net_dim sees after a completed poll (mlx5e_handle_rx_dim, enetc): cumulative counters.
struct DimCounters {
  std::uint64_t events = 0;   // interrupts of the vector
  std::uint64_t packets = 0;  // frames cleaned
  std::uint64_t bytes = 0;    // their bytes
};

// What a completed poll feeds to net_dim, per nic.dim-driver: the event count of the samples,
// and which directions are sampled.
//   mlx5   mlx5e_napi_poll -> mlx5e_handle_rx_dim / mlx5e_handle_tx_dim: both, every completion,
//          with the CQ's interrupt count (mlx5e_completion_event: cq->event_ctr++)
//   enetc  enetc_net_dim (seed 001's patch v1): v->comp_cnt++ at every completion is the event
//          count of both; Rx is sampled only if a poll since the last completion cleaned Rx
//          frames (v->rx_napi_work), Tx only if one cleaned Tx completions (v->tx_napi_work)
// The driver's net_dim glue (nic.dim-driver; policy_config maps the key).
enum class DimGlue : std::uint8_t { mlx5, enetc };

class DimFeed {
 public:
  explicit DimFeed(DimGlue driver) : driver_(driver) {}

  struct Samples {
    std::uint64_t events = 0;  // the samples' event counter
    bool rx = false;           // feed Rx net_dim
    bool tx = false;           // feed Tx net_dim
  };
  // A poll completed and the driver re-enables; the counters are cumulative: the vector's
  // interrupts, its Rx frames cleaned and its Tx completions cleaned.
  Samples on_completed_poll(std::uint64_t interrupts, std::uint64_t rx_packets,
                            std::uint64_t tx_packets);

 private:
  DimGlue driver_;
  std::uint64_t completions_ = 0;
  std::uint64_t rx_at_completion_ = 0;  // rx_packets at the last completion
  std::uint64_t tx_at_completion_ = 0;
};

// What moderates one direction, as policy_config.hpp builds it from nic.moderation or
// nic.tx-moderation: nothing (every cause interrupts when the vector allows), a coalescer (with
// net_dim choosing its pair), or low-latency interrupts.
struct ModeratorConfig {
  enum class Kind : std::uint8_t { immediate, coalesce, lli };
  Kind kind = Kind::immediate;
  coalesce::Direction direction = coalesce::Direction::rx;
  coalesce::Settings coalesce{};   // Kind::coalesce: the pairs (with net_dim: its first profile)
  std::optional<dim::NetDim> dim;  // Kind::coalesce: net_dim in front of the coalescer
  std::optional<lli::Config> lli;  // Kind::lli: a validated configuration (lli::make_config)
  DimGlue dim_driver = DimGlue::mlx5;  // nic.dim-driver: when a new profile is written
};

class Moderator {
 public:
  explicit Moderator(const ModeratorConfig& config);

  // A frame was written back at `t`. `free_descriptors`: the ring's free descriptors after it
  // (LLI's ring trigger); `frame_bytes`: its size (LLI's size trigger).
  Arm on_writeback(napi::Vector& vector, Instant t, std::uint32_t free_descriptors,
                   std::uint32_t frame_bytes);

  // Coalescing: a deadline that passed between two events, found while landing frames late. The
  // cause was raised at the deadline, under the pair in effect then (still in effect: only
  // events change it). Once per deadline.
  Arm catch_up(napi::Vector& vector, Instant t);

  // A cheap test before catch_up(): a coalescing deadline at or before `t` not raised yet.
  bool may_catch_up(Instant t) const {
    const auto* c = std::get_if<Coalescing>(&state_);
    if (!c) return false;
    const auto d = c->coalescer.deadline();
    return d && *d <= t && c->caught_up != d;
  }

  // Coalescing: the decision after anything that changed it (a deadline event, the -irq pair
  // ending, a rate band, a DIM profile): a cause now if due, else the deadline.
  Arm recheck(napi::Vector& vector, Instant t);

  // The device must react to the next write-back (so an event must land it): the vector is armed
  // and nothing is already due that more frames would not change.
  bool wants_next_frame(const napi::Vector& vector) const;

  // The vector's interrupt. Returns the usecs written to the device now: with
  // nic.dim-driver = enetc, the profile net_dim chose since the last one (enetc_msix writes
  // v->rx_ictt / v->tx_ictt to RBICR1 / TBICR1 at every interrupt).
  std::optional<std::uint32_t> on_interrupt(Instant t);
  // The driver re-enabled the interrupt.
  Arm on_enabled(napi::Vector& vector, Instant t);
  // A poll completed and the driver will re-enable (rearm): net_dim's sample. `usecs` is set
  // when a new profile was applied now (mlx5); enetc's waits for the next interrupt.
  Arm on_completed_poll(napi::Vector& vector, Instant t, const DimCounters& counters,
                        std::optional<std::uint32_t>& usecs);
  // The vector dropped its queue cause (write-back-only mode): the coalescer forgets its frames.
  // True when it had a deadline to cancel.
  bool on_causes_dropped(const napi::Vector& vector);

  // The driver cleaned every frame that counted toward the coalescer (nic.clean-clears-cause):
  // its frame count and timer start over at the next write-back. True when it had frames
  // pending (its deadline, if armed, is to be cancelled).
  bool on_all_cleaned();

  // Coalescing with adaptive-rx: the sample-interval timer, zero when there is none.
  Duration sample_interval() const;
  Arm on_sample(napi::Vector& vector, Instant t, std::uint64_t frames_arrived);

  // The setting in effect (the trace, the time series): rx-usecs of a coalescer, else none.
  std::optional<std::uint32_t> coalescing_usecs() const;
  // net_dim's current profile index, -1 without net_dim.
  std::int32_t dim_profile() const;

 private:
  struct Immediate {};
  struct Coalescing {
    coalesce::Coalescer coalescer;
    std::optional<dim::NetDim> dim;
    std::optional<Instant> caught_up;  // the deadline catch_up() last raised
    // enetc: the usec the DIM work stored (v->rx_ictt / v->tx_ictt), not yet written
    std::optional<std::uint32_t> stored_usecs;
  };
  struct LowLatency {
    lli::LowLatencyInterrupts lli;
  };

  static std::variant<Immediate, Coalescing, LowLatency> make(const ModeratorConfig& config);
  static bool drops_causes(const napi::Vector& vector) {
    return vector.state() == napi::VectorState::writeback_only &&
           !vector.config().latch_in_writeback_only;
  }

  std::variant<Immediate, Coalescing, LowLatency> state_;
  DimGlue dim_driver_;
};

}  // namespace irqmod::sim
