// The NVMe-like drive. See drive.hpp.
#include "sim/storage/drive.hpp"

#include <algorithm>
#include <cassert>

#include "sim/storage/completion_path.hpp"

namespace irqmod::sim {
namespace {

enum DriveEvent : std::uint16_t {
  kCompletion = 1,   // the oldest I/O in the drive completes: its CQE is posted
  kAggregationTime,  // Feature 08h's aggregation time ran out with CQEs not yet signalled
};

constexpr std::int64_t kPsPerNs = 1000;

}  // namespace

Drive::Drive(World& world, std::uint32_t index, const Settings& settings, Rng rng)
    : world_(world),
      index_(index),
      settings_(settings),
      rng_(rng),
      pending_(settings.slots),
      gap_ps_(settings.iops > 0 ? static_cast<std::int64_t>(1'000'000'000'000 / settings.iops)
                                : 0) {
  endpoint_ = world_.engine.bind<&Drive::on_event>(*this);
  completion_ = world_.engine.make_slot();
  aggregation_ = world_.engine.make_slot();
}

void Drive::submit(std::uint32_t n) {
  const std::int64_t now_ps = ns_since_epoch(world_.now()) * kPsPerNs;
  for (std::uint32_t i = 0; i < n; ++i) {
    // In order: no sooner than the service time, no closer than the capacity's gap.
    const std::int64_t ready = now_ps + settings_.service_time.draw(rng_).count() * kPsPerNs;
    const std::int64_t at = std::max(ready, last_ps_ + gap_ps_);
    last_ps_ = at;
    [[maybe_unused]] const bool stored = pending_.push(at_ns(at / kPsPerNs));
    assert(stored && "more I/Os submitted than the drive holds");
  }
  submitted_ += n;
  if (!world_.engine.armed(completion_)) arm_next();
}

void Drive::arm_next() {
  if (!path_ && !world_.event_per_arrival) return;  // landed by take_cq() and the books
  if (!pending_.empty()) world_.engine.arm(completion_, pending_.front(), endpoint_, kCompletion);
}

void Drive::land() {
  if (path_) return;  // an interrupting queue posts each CQE by its event
  std::uint32_t n = 0;
  while (!pending_.empty() && pending_.front() <= world_.now()) {
    pending_.pop(1);
    ++n;
  }
  posted_ += n;
}

void Drive::on_event(const Event& event) {
  switch (event.kind()) {
    case kCompletion: {
      std::uint32_t n = 0;
      while (!pending_.empty() && pending_.front() <= world_.now()) {
        pending_.pop(1);
        ++n;
      }
      posted_ += n;
      arm_next();
      if (!path_ || n == 0) return;  // a polled queue: the thread finds the CQEs
      aggregated_ += n;
      // THR or TIME 0: coalescing disabled, an MSI per CQE (Feature 08h).
      if (!coalescing() || aggregated_ >= settings_.aggregation_threshold + 1) {
        send_msi();
      } else if (!world_.engine.armed(aggregation_)) {
        world_.engine.arm(aggregation_, world_.now() + settings_.aggregation_time, endpoint_,
                          kAggregationTime);
      }
      return;
    }
    case kAggregationTime:
      if (aggregated_ > 0) send_msi();
      return;
    default:
      return;
  }
}

void Drive::send_msi() {
  aggregated_ = 0;
  world_.engine.cancel(aggregation_);
  ++msis_;
  path_->msi(vector_);
}

}  // namespace irqmod::sim
