// EEVDF for equal-weight threads. See scheduler.hpp.
#include "sim/cpu/scheduler.hpp"

#include <algorithm>
#include <bit>

namespace irqmod::sim {

Duration kernel_slice(std::uint32_t cores) {
  const std::uint32_t cpus = std::clamp<std::uint32_t>(cores, 1, 8);
  const auto factor = static_cast<std::int64_t>(std::bit_width(cpus));  // = 1 + ilog2(cpus)
  return kBaseSlice * factor;
}

std::uint32_t FairScheduler::add() {
  threads_.push_back(Thread{});
  return static_cast<std::uint32_t>(threads_.size() - 1);
}

std::int64_t FairScheduler::average_vruntime() const {
  if (runnable_ == 0) return last_average_;
  // ns of CPU time: a few hundred threads over hours stay far below 2^63.
  std::int64_t sum = 0;
  for (const Thread& t : threads_) {
    if (t.runnable) sum += t.vruntime;
  }
  return sum / static_cast<std::int64_t>(runnable_);
}

void FairScheduler::wake(std::uint32_t thread) {
  Thread& t = threads_[thread];
  if (t.runnable) return;
  // place_entity with PLACE_LAG: back at V - lag. Equal weights make the kernel's inflation of
  // the lag by (W + w) / W exact enough to leave out.
  t.vruntime = average_vruntime() - t.lag;
  t.deadline = t.vruntime + slice_.count();
  t.runnable = true;
  ++runnable_;
}

void FairScheduler::block(std::uint32_t thread) {
  Thread& t = threads_[thread];
  if (!t.runnable) return;
  const std::int64_t average = average_vruntime();
  // update_entity_lag: the lag is clamped to about two slices (entity_lag's limit).
  const std::int64_t limit = 2 * slice_.count();
  t.lag = std::clamp(average - t.vruntime, -limit, limit);
  t.runnable = false;
  --runnable_;
  if (runnable_ == 0) last_average_ = average;
}

void FairScheduler::ran(std::uint32_t thread, Duration d) {
  threads_[thread].vruntime += d.count();
}

bool FairScheduler::slice_used(std::uint32_t thread) const {
  return threads_[thread].vruntime >= threads_[thread].deadline;
}

void FairScheduler::renew(std::uint32_t thread) {
  threads_[thread].deadline = threads_[thread].vruntime + slice_.count();
}

Duration FairScheduler::slice_left(std::uint32_t thread) const {
  return Duration{std::max<std::int64_t>(threads_[thread].deadline - threads_[thread].vruntime, 0)};
}

std::optional<std::uint32_t> FairScheduler::pick(std::optional<std::uint32_t> current) const {
  if (runnable_ == 0) return std::nullopt;
  const std::int64_t average = average_vruntime();
  if (current && threads_[*current].runnable && eligible(threads_[*current], average) &&
      !slice_used(*current) &&
      threads_[*current].deadline == threads_[*current].protected_deadline) {
    return current;  // RUN_TO_PARITY: the current thread keeps the slice it was picked for
  }
  std::optional<std::uint32_t> best;
  for (std::uint32_t i = 0; i < threads_.size(); ++i) {
    const Thread& t = threads_[i];
    if (!t.runnable || !eligible(t, average)) continue;
    if (!best || t.deadline < threads_[*best].deadline) best = i;
  }
  if (best) return best;
  // No thread is eligible only through rounding; the earliest deadline then.
  for (std::uint32_t i = 0; i < threads_.size(); ++i) {
    if (threads_[i].runnable && (!best || threads_[i].deadline < threads_[*best].deadline))
      best = i;
  }
  return best;
}

}  // namespace irqmod::sim
