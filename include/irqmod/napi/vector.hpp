// The device side of one queue's MSI-X vector: when a completed descriptor, or a software
// trigger, turns into an interrupt.
//
// Modelled on the Intel 700-series (i40e) PFINT_DYN_CTLN register and its three ITR indexes:
// the queue's cause is throttled by the Rx interval (ITR index 0), a software interrupt
// (SWINT_TRIG) by ITR index 2 when SW_ITR_INDX_ENA picks it (20K/s in i40e after seed 000;
// unthrottled, index 3, in ice's first fix b7306b42beaf). An interrupt masks the vector (the
// driver's handler leaves it disabled, "automask") until the driver writes DYN_CTLN with INTENA.
//
// The three states, and an assumption
// -----------------------------------
//  - armed:   a cause raises an interrupt as soon as its throttle allows.
//  - masked:  after an interrupt, while NAPI works. A cause is latched and fires when the driver
//             re-enables the vector (the pending-bit behaviour that makes normal NAPI safe).
//  - writeback_only: after a poll whose napi_complete_done() returned false (a busy poller owns
//             the context, or the deferral is active). Descriptors are written back but their
//             cause is not kept: ice enters WB_ON_ITR here explicitly (ice_set_wb_on_itr); for
//             i40e the seed-000 symptom (a descriptor nobody is told about) implies the same, and
//             the driver comment "Hardware errata 28" says a DYN_CTLN write can clear a pending
//             event. That causes are lost in this state is an inference from those sources, not
//             datasheet text; `latch_in_writeback_only` switches it off to show the race vanish.
//
// The vector reads no clock: calls take `now` and return the instant at which the host must call
// fire(). A fire() that finds nothing due (the due time moved, or the vector was masked) returns
// nothing, so the host may cancel lazily.
#pragma once

#include <cstdint>
#include <optional>

#include "irqmod/error.hpp"
#include "irqmod/policy/adaptive_itr.hpp"
#include "irqmod/policy/itr.hpp"
#include "irqmod/time.hpp"

namespace irqmod::napi {

enum class VectorState : std::uint8_t {
  armed,           // INTENA set: causes fire when their throttle allows
  masked,          // after an interrupt: causes latch until re-enabled
  writeback_only,  // after a false completion: causes are not kept (see above)
};

// Why an interrupt fired.
enum class Cause : std::uint8_t {
  queue,     // a descriptor write-back (Rx or Tx completion)
  software,  // SWINT_TRIG: the busy-poll exit fix of seed 000
};

struct VectorConfig {
  // The queue cause's minimum gap (the Rx ITR, rx-usecs). Zero: no throttling. i40e's default
  // rx-usecs is I40E_ITR_20K = 50 us (i40e_txrx.h).
  Duration itr_interval = adaptive_itr::kSwItrInterval;
  // The software interrupt's minimum gap: ITR index 2, I40E_ITR_20K = 50 us in i40e
  // (i40e_vsi_configure_msix). Zero reproduces ice's unthrottled first fix.
  Duration sw_itr_interval = adaptive_itr::kSwItrInterval;
  // Keep causes that arrive in writeback_only and fire them on re-enable. False is the hardware
  // behaviour behind seed 000 (see above); true removes the race.
  bool latch_in_writeback_only = false;
};

// "itr_interval" or "sw_itr_interval" negative.
std::optional<Error> validate(const VectorConfig& config);

struct VectorCounters {
  std::uint64_t interrupts = 0;        // interrupts delivered (/proc/interrupts)
  std::uint64_t software = 0;          // ... of which raised by a software trigger alone
  std::uint64_t causes = 0;            // descriptor write-backs reported
  std::uint64_t causes_latched = 0;    // ... that found the vector masked and were kept
  std::uint64_t causes_lost = 0;       // ... that found it writeback_only and were dropped
  std::uint64_t causes_withdrawn = 0;  // pending queue causes the driver cleared (withdraw)
  std::uint64_t swint_requests = 0;    // DYN_CTLN writes with SWINT_TRIG
  std::uint64_t enables = 0;           // DYN_CTLN writes with INTENA
};

class Vector {
 public:
  // Precondition: validate(config) found nothing (asserted). Starts armed with nothing pending,
  // as after request_irq and the driver's first enable.
  explicit Vector(const VectorConfig& config);
  static Expected<Vector> create(const VectorConfig& config);

  // A descriptor was written back at `now`. Returns when the interrupt will fire if one is (or
  // already was) due; nullopt if none is due (masked, or the cause was lost).
  std::optional<Instant> on_cause(Instant now);

  // A cause that bypasses the queue's ITR (an 82599 low-latency interrupt, lli.hpp, which keeps
  // its own interval): due at once when armed; latched or lost like any cause otherwise.
  std::optional<Instant> on_immediate_cause(Instant now);

  // The driver cleared the queue's interrupt-detect bits because it cleaned every descriptor
  // that raised them (enetc writes the ring's IDR per cleaned frame): a queue cause waiting
  // for INTENA or for its throttle is gone; a software trigger stays. Returns when the
  // interrupt will fire if one is still due. Intel's vectors have no such write (causes stay
  // latched until the next interrupt), so their drivers never call it.
  std::optional<Instant> withdraw_queue_cause(Instant now);

  // The driver writes DYN_CTLN with INTENA (re-enables the vector), with SWINT_TRIG if `swint`.
  // Returns when the interrupt will fire if one is due.
  std::optional<Instant> enable(Instant now, bool swint);

  // i40e_force_wb: DYN_CTLN with INTENA, SWINT_TRIG and SW_ITR_INDX_ENA with index 0, so the
  // software interrupt waits for the Rx ITR (ITR index 0), not for ITR index 2.
  std::optional<Instant> force_writeback(Instant now);

  // The driver's poll ended with napi_complete_done() false: no re-enable (see above). A queue
  // cause still waiting for its throttle is dropped with the rest (unless latching).
  void enter_writeback_only();

  // The host at a due instant. Returns the cause of the interrupt that fires now, which masks
  // the vector, or nullopt when nothing is due at `now`.
  std::optional<Cause> fire(Instant now);

  // A new queue-cause interval (an ITR write) at `now`; the gap counts from the last interrupt.
  // Returns the new due time when a cause is pending.
  std::optional<Instant> set_itr_interval(Instant now, Duration interval);

  VectorState state() const { return state_; }
  bool queue_pending() const { return queue_pending_; }
  bool software_pending() const { return software_pending_; }
  std::optional<Instant> due() const { return due_; }
  Duration itr_interval() const { return queue_throttle_.interval(); }
  const VectorCounters& counters() const { return counters_; }
  const VectorConfig& config() const { return config_; }

 private:
  // Recomputes due_ from the pending causes and their throttles, at or after `now`.
  std::optional<Instant> update_due(Instant now);

  VectorConfig config_;
  VectorState state_ = VectorState::armed;
  bool queue_pending_ = false;       // a descriptor cause is waiting for its throttle or INTENA
  bool queue_immediate_ = false;     // ... and it bypasses the throttle (on_immediate_cause)
  bool software_pending_ = false;    // a software trigger is waiting for ITR index 2
  bool forced_pending_ = false;      // a software trigger is waiting for ITR index 0
  itr::Throttle queue_throttle_;     // ITR index 0: gap since the last interrupt of the vector
  itr::Throttle software_throttle_;  // ITR index 2: gap since the last software interrupt
  std::optional<Instant> due_;       // when the next interrupt fires, if one is due
  VectorCounters counters_{};
};

}  // namespace irqmod::napi
