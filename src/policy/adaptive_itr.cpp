// i40e adaptive ITR, following drivers/net/ethernet/intel/i40e/i40e_txrx.c rule for rule.
//
// The kernel computes in `unsigned int` and stores into u16 fields; the priority comparisons
// promote u16 to `int`. Both are kept: `unsigned` locals, explicit truncation on store, `int`
// differences. Each step names the kernel expression it stands for.
#include "irqmod/policy/adaptive_itr.hpp"

#include <algorithm>
#include <cassert>
#include <string>

namespace irqmod::adaptive_itr {
namespace {

// The kernel's ITR macros (i40e_txrx.h).
constexpr bool itr_is_dynamic(std::uint16_t setting) {  // ITR_IS_DYNAMIC
  return (setting & kItrDynamic) != 0;
}
constexpr std::uint16_t itr_to_reg(std::uint16_t setting) {  // ITR_TO_REG
  return static_cast<std::uint16_t>(setting & ~kItrDynamic);
}

// "Resultant value is 256 times larger than it needs to be": the size formula from the
// adjust_by_size label on. `itr` carries the mode flag already; packets > 0.
unsigned adjust_by_size(unsigned itr, unsigned bytes, unsigned packets, LinkSpeed speed) {
  unsigned avg_wire_size = scaled_itr_for_size(bytes / packets);
  // "If we are in low latency mode halve our delay which doubles the rate".
  if ((itr & kAdaptiveLatency) != 0) avg_wire_size /= 2;
  const unsigned divisor = itr_divisor(speed);
  itr += (avg_wire_size + divisor - 1) / divisor * kAdaptiveMinInc;  // DIV_ROUND_UP(...) * 2
  if ((itr & kItrMask) > kAdaptiveMaxUsecs) {
    itr &= kAdaptiveLatency;
    itr += kAdaptiveMaxUsecs;
  }
  return itr;
}

// The body of i40e_update_itr between its early return and the clear_counts label: the new
// target. Every `goto clear_counts` is a return. May clear the latency flag of rc.target_itr in
// place, as the kernel's Tx bulk switch does.
unsigned new_target(QVector& q, RingContainer& rc, bool is_rx, std::uint64_t jiffies) {
  // "For Rx we want to push the delay up and default to low latency. for Tx we want to pull
  // the delay down and default to high latency."
  unsigned itr =
      is_rx ? (kAdaptiveMinUsecs | kAdaptiveLatency) : (kAdaptiveMaxUsecs | kAdaptiveLatency);

  // "If we didn't update within up to 1 - 2 jiffies": stale counts, back to the default.
  if (time_after(jiffies, rc.next_update)) return itr;

  // A recent write may have fired an early interrupt: keep the target, drop the counts.
  if (q.itr_countdown != 0) return rc.target_itr;

  const unsigned packets = rc.total_packets;
  const unsigned bytes = rc.total_bytes;

  if (is_rx) {
    // 1 to 3 packets and under 9000 bytes while Tx is latency driven: latency mode.
    if (packets != 0 && packets < kLatencyMaxPackets && bytes < kLatencyMaxBytes &&
        (q.tx.target_itr & kAdaptiveLatency) != 0) {
      return adjust_by_size(kAdaptiveLatency, bytes, packets, q.link_speed);
    }
  } else if (packets < kLatencyMaxPackets) {
    // Tx and Rx both at 126 us with Tx in bulk mode: reset Tx to latency mode.
    if (rc.target_itr == kAdaptiveMaxUsecs && (q.rx.target_itr & kItrMask) == kAdaptiveMaxUsecs)
      return itr;
  } else if (packets > kTxBulkPackets) {
    // "over 32 packets in a single interrupt for Tx assume we need to switch over to bulk".
    rc.target_itr = static_cast<std::uint16_t>(rc.target_itr & ~kAdaptiveLatency);
  }

  // Under 56 packets: the delay is only slightly too low, grow it by 2 us (capped at 126).
  if (packets < kStepMaxPackets) {
    itr = rc.target_itr + kAdaptiveMinInc;
    if ((itr & kItrMask) > kAdaptiveMaxUsecs) {
      itr &= kAdaptiveLatency;
      itr += kAdaptiveMaxUsecs;
    }
    return itr;
  }

  if (packets <= kHalveMaxPackets) {
    // min() of the u16 current values, latency flags included.
    itr = std::min(q.tx.current_itr, q.rx.current_itr);
    itr &= kItrMask;
    // 56..112: the "goldilocks" zone keeps the current ITR.
    if (packets <= kGoldilocksMaxPackets) return itr;
    // 113..256: a slight overrun; halve the delay.
    itr /= 2;
    itr &= kItrMask;
    if (itr < kAdaptiveMinUsecs) itr = kAdaptiveMinUsecs;
    return itr;
  }

  // Over 256 packets: bulk, by the size formula.
  return adjust_by_size(kAdaptiveBulk, bytes, packets, q.link_speed);
}

}  // namespace

Expected<LinkSpeed> link_speed_from_mbps(std::uint32_t mbps) {
  switch (mbps) {
    case 100:
      return LinkSpeed::mb100;
    case 1000:
      return LinkSpeed::gb1;
    case 2500:
      return LinkSpeed::gb2_5;
    case 5000:
      return LinkSpeed::gb5;
    case 10000:
      return LinkSpeed::gb10;
    case 20000:
      return LinkSpeed::gb20;
    case 25000:
      return LinkSpeed::gb25;
    case 40000:
      return LinkSpeed::gb40;
    default:
      break;
  }
  return Error{"link-speed", std::to_string(mbps) +
                                 " Mbit/s is not an i40e link speed; allowed: 100, 1000, 2500, "
                                 "5000, 10000, 20000, 25000, 40000"};
}

std::uint64_t to_jiffies(Instant now, Duration tick) {
  assert(tick > Duration::zero() && "a tick is positive");
  const std::int64_t ns = ns_since_epoch(now);
  const std::int64_t per_tick = tick.count();
  std::int64_t ticks = ns / per_tick;
  if (ns % per_tick != 0 && ns < 0) --ticks;  // floor, not truncation, before the epoch
  return static_cast<std::uint64_t>(ticks);
}

void update_itr(QVector& q_vector, Direction direction, std::uint64_t jiffies) {
  const bool is_rx = direction == Direction::rx;
  RingContainer& rc = is_rx ? q_vector.rx : q_vector.tx;

  // "If we don't have any rings just leave ourselves set for maximum possible latency".
  if (!rc.has_ring || !itr_is_dynamic(rc.itr_setting)) return;

  const unsigned itr = new_target(q_vector, rc, is_rx, jiffies);

  // clear_counts: write back, "next update should occur within next jiffy".
  rc.target_itr = static_cast<std::uint16_t>(itr);
  rc.next_update = jiffies + 1;
  rc.total_bytes = 0;
  rc.total_packets = 0;
}

Decision update_enable_itr(QVector& q_vector, std::uint64_t jiffies) {
  // "These will do nothing if dynamic updates are not enabled". Tx first, so Rx sees Tx's new
  // target_itr.
  update_itr(q_vector, Direction::tx, jiffies);
  update_itr(q_vector, Direction::rx, jiffies);

  RingContainer& rx = q_vector.rx;
  RingContainer& tx = q_vector.tx;
  ItrIndex itr_index = ItrIndex::none;
  std::uint16_t interval = 0;

  // u16 - u16 is an `int` subtraction in C.
  const int rx_increase = static_cast<int>(rx.target_itr) - static_cast<int>(rx.current_itr);
  const int tx_increase = static_cast<int>(tx.target_itr) - static_cast<int>(tx.current_itr);

  // The two Rx branches have the same body; the kernel keeps them apart to rank them around Tx.
  if (rx.target_itr < rx.current_itr) {  // NOLINT(bugprone-branch-clone)
    // "Rx ITR needs to be reduced, this is highest priority".
    itr_index = ItrIndex::rx;
    interval = rx.target_itr;
    rx.current_itr = rx.target_itr;
    q_vector.itr_countdown = kCountdownStart;
  } else if (tx.target_itr < tx.current_itr || rx_increase < tx_increase) {
    // "Tx ITR needs to be reduced, this is second priority; Tx ITR needs to be increased more
    // than Rx, fourth priority".
    itr_index = ItrIndex::tx;
    interval = tx.target_itr;
    tx.current_itr = tx.target_itr;
    q_vector.itr_countdown = kCountdownStart;
  } else if (rx.current_itr != rx.target_itr) {
    // "Rx ITR needs to be increased, third priority".
    itr_index = ItrIndex::rx;
    interval = rx.target_itr;
    rx.current_itr = rx.target_itr;
    q_vector.itr_countdown = kCountdownStart;
  } else if (q_vector.itr_countdown != 0) {
    // "No ITR update, lowest priority".
    --q_vector.itr_countdown;
  }

  // "Update ITR interval if necessary and enforce software interrupt if we are exiting busy
  // poll."
  const bool force_swint = q_vector.in_busy_poll;
  q_vector.in_busy_poll = false;

  Decision decision;
  decision.enabled = true;
  decision.write = itr_index;
  decision.force_swint = force_swint;
  decision.dyn_ctln = buildreg_itr(itr_index, interval, force_swint);
  if (itr_index != ItrIndex::none) {
    decision.target_itr = interval;
    decision.interval_field = static_cast<std::uint16_t>((interval >> 1) & itr::kItrIntervalMask);
    decision.interval = microseconds(interval & kItrMask);
  }
  return decision;
}

Decision napi_poll_done(QVector& q_vector, std::uint64_t jiffies, bool napi_completed,
                        bool busy_poll_exit_swint) {
  if (napi_completed) return update_enable_itr(q_vector, jiffies);
  // "Exit the polling mode, but don't re-enable interrupts if stack might poll us due to
  // busy-polling"; the fix remembers it.
  if (busy_poll_exit_swint) q_vector.in_busy_poll = true;
  return Decision{};
}

std::optional<Error> validate(const Config& config) {
  const std::string range = " is out of range; the range is 0-" +
                            std::to_string(itr::kI40eMaxItrUsecs) +
                            " us (I40E_MAX_ITR), odd values round up to even";
  if (config.rx_usecs > itr::kI40eMaxItrUsecs)
    return Error{"rx-usecs", std::to_string(config.rx_usecs) + range};
  if (config.tx_usecs > itr::kI40eMaxItrUsecs)
    return Error{"tx-usecs", std::to_string(config.tx_usecs) + range};
  if (config.tick <= Duration::zero())
    return Error{"tick", std::to_string(config.tick.count()) +
                             " ns is not a jiffy; the tick (1 s / CONFIG_HZ) must be > 0 ns"};
  return std::nullopt;
}

AdaptiveItr::AdaptiveItr(const Config& config, Instant now) : config_(config) {
  assert(!validate(config) && "validate with AdaptiveItr::create");
  const auto setting = [](std::uint32_t usecs, bool adaptive) {
    // ring->itr_setting = ITR_REG_ALIGN(usecs) | (adaptive ? I40E_ITR_DYNAMIC : 0).
    const auto aligned = static_cast<std::uint16_t>(itr::i40e_itr_reg_align(usecs));
    return static_cast<std::uint16_t>(aligned | (adaptive ? kItrDynamic : 0));
  };
  q_vector_.link_speed = config.link_speed;
  const std::uint64_t start = jiffies(now);
  for (RingContainer* rc : {&q_vector_.rx, &q_vector_.tx}) {
    const bool is_rx = rc == &q_vector_.rx;
    rc->itr_setting = is_rx ? setting(config.rx_usecs, config.adaptive_rx)
                            : setting(config.tx_usecs, config.adaptive_tx);
    // i40e_vsi_configure_msix.
    rc->next_update = start + 1;
    rc->target_itr = itr_to_reg(rc->itr_setting);
    rc->current_itr = rc->target_itr;
  }
}

Expected<AdaptiveItr> AdaptiveItr::create(const Config& config, Instant now) {
  if (std::optional<Error> error = validate(config)) return *error;
  return AdaptiveItr(config, now);
}

}  // namespace irqmod::adaptive_itr
