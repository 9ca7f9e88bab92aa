// The driver's end of a NAPI poll: what i40e_napi_poll does once the engine has answered.
//
// i40e_napi_poll (drivers/net/ethernet/intel/i40e/i40e_txrx.c, after seed 000's 2024 fix):
//
//     if (likely(napi_complete_done(napi, work_done)))
//             i40e_update_enable_itr(vsi, q_vector);   // maybe a new ITR, then INTENA
//     else
//             q_vector->in_busy_poll = true;           // remember: force SWINT next time
//
// and i40e_update_enable_itr ORs SWINT_TRIG (throttled by ITR index 2) into the enabling write
// when in_busy_poll was set. The interval comes from the i40e adaptive ITR (adaptive_itr.hpp) or
// stays at the configured rx-usecs. With the fix switched off this is the pre-2024 driver: a
// false completion leaves nothing behind, and the next re-enable is a plain INTENA write.
#pragma once

#include <optional>

#include "irqmod/napi/context.hpp"
#include "irqmod/napi/vector.hpp"
#include "irqmod/policy/adaptive_itr.hpp"
#include "irqmod/time.hpp"

namespace irqmod::napi {

struct DriverConfig {
  // Seed 000's fix: a software interrupt on the first re-enable after a false completion.
  bool busy_poll_exit_swint = true;
  // The i40e adaptive ITR; nullopt keeps the vector's interval fixed (adaptive-rx off). Its own
  // busy_poll_exit_swint is overridden by the field above, so there is one switch.
  std::optional<adaptive_itr::Config> adaptive;
  // i40e_napi_poll's branch for a poll that used its budget on a CPU outside the vector's
  // affinity mask ("if the cpu is pegged at 100%, polling will never exit while traffic
  // continues and the interrupt will be stuck on this cpu"): napi_complete_done (its answer
  // ignored), i40e_force_wb, and return budget - 1 so that polling stops. The commit that added
  // it is not known (docs/research/kernel-switches.md, item 10); every i40e since 4.x has it.
  bool off_affinity_force_wb = true;
};

// What the driver did at the end of one poll.
struct DriverAction {
  bool enabled = false;             // DYN_CTLN written with INTENA
  bool swint = false;               // ... with SWINT_TRIG
  bool forced_wb = false;           // ... by i40e_force_wb (the off-affinity branch)
  std::optional<Duration> new_itr;  // the Rx interval written, if any
  std::optional<Instant> fire_at;   // when the vector will interrupt, if a cause is due
  friend constexpr bool operator==(const DriverAction&, const DriverAction&) = default;
};

class Driver {
 public:
  // Precondition: a valid adaptive config if any (adaptive_itr::validate; asserted there).
  Driver(const DriverConfig& config, Instant now);

  // A poll cleaned `packets` Rx descriptors of `bytes` bytes (i40e_update_rx_stats); feeds the
  // adaptive ITR, ignored when it is off.
  void on_rx_cleaned(std::uint32_t bytes, std::uint32_t packets) {
    if (adaptive_) adaptive_->on_rx_cleaned(bytes, packets);
  }
  // Tx completions the poll cleaned (i40e_clean_tx_irq's totals, for the Tx ring container).
  void on_tx_cleaned(std::uint32_t bytes, std::uint32_t packets) {
    if (adaptive_) adaptive_->on_tx_cleaned(bytes, packets);
  }

  // What i40e_napi_poll returns for a poll that cleaned `work` of `budget` (budget when it did
  // not finish) on a CPU inside the vector's affinity mask or not: budget - 1 when the
  // off-affinity branch is taken, which then makes on_poll force a write-back.
  int poll_return(int work, int budget, bool on_affinity_cpu);

  // The end of i40e_napi_poll for `result` at `now`, applied to `vector`.
  DriverAction on_poll(Instant now, const PollResult& result, Vector& vector);

  // A false completion was seen and the next re-enable will force a software interrupt.
  bool in_busy_poll() const { return adaptive_ ? adaptive_->state().in_busy_poll : in_busy_poll_; }
  const DriverConfig& config() const { return config_; }

 private:
  DriverConfig config_;
  std::optional<adaptive_itr::AdaptiveItr> adaptive_;
  bool in_busy_poll_ = false;  // q_vector->in_busy_poll, when the adaptive ITR is off
  bool force_wb_ = false;      // poll_return took the off-affinity branch
};

}  // namespace irqmod::napi
