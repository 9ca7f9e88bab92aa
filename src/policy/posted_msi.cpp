// The posted MSI notification handler, step by step as sysvec_posted_msi_notification and
// handle_pending_pir run it (arch/x86/kernel/irq.c, Linux 6.10+).
#include "irqmod/policy/posted_msi.hpp"

#include <string>

namespace irqmod::posted_msi {

Expected<std::uint8_t> device_vector(std::int64_t value, std::string_view key) {
  if (value < std::int64_t{kFirstExternalVector} || value >= std::int64_t{kFirstSystemVector}) {
    return Error{std::string(key),
                 std::to_string(value) +
                     " is not a device vector; allowed: 32 to 234 (FIRST_EXTERNAL_VECTOR 0x20 up "
                     "to, not including, the posted MSI notification vector 0xeb)"};
  }
  return static_cast<std::uint8_t>(value);
}

Expected<std::uint8_t> max_coalescing_loop(std::int64_t value, std::string_view key) {
  if (value < 1 || value > 0xff) {
    return Error{std::string(key), std::to_string(value) +
                                       " is out of range; allowed: 1 to 255 PIR scans per "
                                       "notification, final scan included (the kernel uses 3)"};
  }
  return static_cast<std::uint8_t>(value);
}

void PostedMsiDescriptor::begin_notification() {
  assert(phase_ == Phase::idle && "a notification cannot start before the previous EOI");
  assert(notification_pending() && "no notification was sent");
  assert(on_ && "ON stays set from the posting that notified until the handler clears it");
  ++counters_.handler_runs;
  loop_passes_ = 0;
  delivered_this_run_ = 0;
  // `while (++i < MAX_POSTED_MSI_COALESCING_LOOP)` from i = 0: with MAX = 1 no loop pass runs.
  phase_ = max_loop_passes_ > 0 ? Phase::demux_loop : Phase::loop_done;
}

PassResult PostedMsiDescriptor::take_pending(bool final) {
  PassResult result;
  result.final = final;
  // The kernel reads all four words, then xchg's the non-zero ones with 0, then calls the
  // handlers of the bits it took: one atomic step here (see the header).
  result.vectors.words_ = pir_.words_;
  pir_.words_ = {};
  const unsigned taken = pending_;
  assert(taken == result.vectors.count());
  pending_ = 0;
  ++counters_.passes;
  if (taken == 0) ++counters_.empty_passes;
  counters_.delivered += taken;
  delivered_this_run_ += taken;
  return result;
}

PassResult PostedMsiDescriptor::demux_pass() {
  assert(phase_ == Phase::demux_loop && "demux_pass() outside the coalescing loop");
  PassResult result = take_pending(false);
  ++loop_passes_;
  // `if (!handle_pending_pir(...)) break;` and the loop bound.
  if (result.vectors.empty() || loop_passes_ >= max_loop_passes_) phase_ = Phase::loop_done;
  return result;
}

void PostedMsiDescriptor::clear_outstanding() {
  assert(phase_ == Phase::loop_done && "ON is cleared once, after the coalescing loop");
  on_ = false;
  phase_ = Phase::on_cleared;
}

PassResult PostedMsiDescriptor::final_pass() {
  assert(phase_ == Phase::on_cleared && "the final pass follows clear_outstanding()");
  PassResult result = take_pending(true);
  phase_ = Phase::final_done;
  return result;
}

void PostedMsiDescriptor::eoi() {
  assert(phase_ == Phase::final_done && "EOI comes after the final pass");
  ++counters_.eois;
  if (delivered_this_run_ == 0) ++counters_.empty_runs;
  phase_ = Phase::idle;
}

std::string_view to_string(Phase phase) {
  switch (phase) {
    case Phase::idle:
      return "idle";
    case Phase::demux_loop:
      return "demux_loop";
    case Phase::loop_done:
      return "loop_done";
    case Phase::on_cleared:
      return "on_cleared";
    case Phase::final_done:
      return "final_done";
  }
  return "?";
}

}  // namespace irqmod::posted_msi
