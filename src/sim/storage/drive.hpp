// An NVMe-like drive with one submission/completion queue pair (seed 003): I/Os complete in
// order, no sooner than their service time after submission and no closer together than the
// drive's IOPS capacity allows; each completion posts a CQE, and the queue's MSI-X vector fires
// per CQE or, with NVMe Interrupt Coalescing (Feature 08h), per aggregation threshold or time.
// Feature 08h: "If either the TIME or the THR fields are cleared to 0h, then interrupt coalescing
// is implicitly disabled": coalescing runs only when both are non-zero.
// Assumption (no datasheet checked): without coalescing the controller sends one MSI per CQE,
// also while the host's handler is still reading the CQ (it does not wait for the CQ head
// doorbell); CQEs posted at the same instant share one MSI.
//
// The queue of an io_uring IOPOLL ring has no interrupt (nvme-pci's poll queues): its CQEs wait
// until the submitting thread polls them.
#pragma once

#include <cstdint>
#include <optional>

#include "irqmod/sim/distribution.hpp"
#include "irqmod/sim/engine.hpp"
#include "irqmod/sim/random.hpp"
#include "irqmod/sim/ring.hpp"
#include "irqmod/time.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {

namespace stream {
inline constexpr std::uint64_t kStorage = 5'000'000;  // + drive: its service-time draws
}  // namespace stream

class CompletionPath;

class Drive {
 public:
  struct Settings {
    std::uint64_t iops = 0;                   // completions per second, at most
    Distribution service_time;                // submission -> CQE when the drive is idle
    std::uint32_t aggregation_threshold = 0;  // Feature 08h THR: 0-based CQEs per interrupt
    Duration aggregation_time{};  // Feature 08h TIME, converted from 100 us units; coalescing
                                  // only when it and THR are both non-zero
    std::uint32_t slots = 0;      // I/Os it can hold (the submitter's queue depth)
  };

  Drive(World& world, std::uint32_t index, const Settings& settings, Rng rng);
  Drive(const Drive&) = delete;
  Drive& operator=(const Drive&) = delete;

  // The completion queue's vector and where its MSIs go; without it the queue is polled.
  void connect(CompletionPath& path, std::uint8_t vector) {
    path_ = &path;
    vector_ = vector;
  }
  // CQEs are not events: a polled queue's are landed by whoever reads the CQ or the books
  // (nothing reacts to them in between). An interrupting queue needs each CQE's time for its
  // MSI. World::event_per_arrival keeps an event per CQE anyway: a test compares the two.

  // `n` I/Os submitted now (the SQ doorbell). Precondition: in_device() + n <= slots.
  void submit(std::uint32_t n);
  // The driver reads the CQ (nvme_poll_cq): every CQE posted so far, as a count.
  std::uint32_t take_cq() {
    land();
    const std::uint64_t n = posted_ - taken_;
    taken_ = posted_;
    return static_cast<std::uint32_t>(n);
  }
  // When the next CQE is posted, if an I/O is in the drive.
  std::optional<Instant> next_completion() const {
    if (pending_.empty()) return std::nullopt;
    return pending_.front();
  }

  std::uint32_t index() const { return index_; }
  std::uint64_t submitted() const { return submitted_; }
  std::uint64_t posted() const { return posted_; }  // CQEs written
  std::uint64_t msis() const { return msis_; }      // MSIs sent
  std::uint64_t in_device() const { return submitted_ - posted_; }
  // Posts the CQEs due by now without an event (a polled queue; see connect()).
  void land();
  std::uint64_t in_cq() const { return posted_ - taken_; }

 private:
  void on_event(const Event& event);
  void arm_next();
  void send_msi();
  bool coalescing() const {
    return settings_.aggregation_threshold > 0 && settings_.aggregation_time > Duration::zero();
  }

  World& world_;
  std::uint32_t index_;
  Settings settings_;
  Rng rng_;
  EndpointId endpoint_{};
  SlotId completion_{};      // the next CQE
  SlotId aggregation_{};     // the aggregation time's end
  Ring<Instant> pending_;    // completion times of the I/Os in the drive, in order
  std::int64_t gap_ps_ = 0;  // 1 / iops
  std::int64_t last_ps_ = -(std::int64_t{1} << 60);  // the latest completion, ps since epoch
  std::uint32_t aggregated_ = 0;                     // CQEs since the last MSI
  CompletionPath* path_ = nullptr;
  std::uint8_t vector_ = 0;
  std::uint64_t submitted_ = 0;
  std::uint64_t posted_ = 0;
  std::uint64_t taken_ = 0;
  std::uint64_t msis_ = 0;
};

}  // namespace irqmod::sim
