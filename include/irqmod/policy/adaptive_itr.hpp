// Adaptive ITR: the Intel i40e driver's per-interrupt choice of interrupt throttling interval,
// decision for decision.
//
// A rendering of `i40e_update_itr`, `i40e_update_enable_itr`, `i40e_itr_divisor`,
// `i40e_buildreg_itr` and the tail of `i40e_napi_poll` in
// drivers/net/ethernet/intel/i40e/i40e_txrx.c, with the constants of i40e_txrx.h, as they stand
// after Linux commit "i40e: Enforce software interrupt during busy-poll exit" (2024, seed 000).
//
// Latency mode and bulk mode, for a newcomer
// -------------------------------------------
// An ITR (interrupt throttle register) is a minimum gap between two interrupts of one vector.
// A long gap batches many packets into one interrupt: cheap per packet, good for a bulk stream,
// but every packet may wait up to the whole gap. A short gap answers a lone request at once:
// good for ping-pong traffic (sockperf, RPC), but a stream then costs one interrupt per packet.
// The driver guesses which kind of traffic it sees from the bytes and packets each interrupt
// cleaned, separately for Rx and Tx (one "ring container" each), and keeps the guess in bit 15
// of the target ITR (I40E_ITR_ADAPTIVE_LATENCY; the low bits are microseconds):
//  - latency mode (flag set): few packets per interrupt. Rx starts here after an idle period
//    (2 us) and Tx at 126 us. While Rx sees 1 to 3 packets and under 9000 bytes per interrupt
//    and Tx is in latency mode, the Rx interval comes from the packet size and is then halved,
//    so a small request is answered within a few microseconds.
//  - bulk mode (flag clear): Tx cleaned more than 32 packets in one interrupt, or Rx 56 or
//    more. Above 256 packets the interval comes from the packet size without halving.
// In either mode an interrupt with fewer than 56 packets adds 2 us (the gap is a little too
// short); 56-112 packets keep the smaller current interval, 113-256 halve it. Nothing exceeds
// 126 us. The link-speed divisor scales the size formula: a faster link fills a ring sooner,
// so it gets shorter intervals (40G a quarter of 10G).
// Because the flag is bit 15 of the same u16, the kernel's comparisons (which container to
// write first, the minimum of the current values) see a latency-mode value as larger than any
// bulk value. That is reproduced here, not corrected.
//
// Plumbing differences, and nothing else: time is handed in (`now`) and turned into jiffies by a
// configurable tick (1 / CONFIG_HZ); the register write is returned as a Decision instead of
// being performed; the non-MSI-X path (i40e_irq_dynamic_enable_icr0) and the "VSI down" early
// return are not modelled. Counter and field widths are the kernel's: u32 byte and packet totals
// (`unsigned int`), u16 ITR values, a u8 countdown, 64-bit `unsigned long` jiffies.
#pragma once

#include <cstdint>
#include <optional>

#include "irqmod/error.hpp"
#include "irqmod/policy/itr.hpp"
#include "irqmod/time.hpp"

namespace irqmod::adaptive_itr {

// ---- constants (drivers/net/ethernet/intel/i40e/i40e_txrx.h unless noted) -----------------

// Step by which an under-used interval grows, microseconds (I40E_ITR_ADAPTIVE_MIN_INC 0x0002).
inline constexpr std::uint16_t kAdaptiveMinInc = 0x0002;
// Smallest adaptive interval, microseconds (I40E_ITR_ADAPTIVE_MIN_USECS 0x0002).
inline constexpr std::uint16_t kAdaptiveMinUsecs = 0x0002;
// Largest adaptive interval, microseconds (I40E_ITR_ADAPTIVE_MAX_USECS 0x007e = 126).
inline constexpr std::uint16_t kAdaptiveMaxUsecs = 0x007e;
// Latency-mode flag kept in bit 15 of target_itr / current_itr (I40E_ITR_ADAPTIVE_LATENCY).
inline constexpr std::uint16_t kAdaptiveLatency = 0x8000;
// Bulk mode: the flag clear (I40E_ITR_ADAPTIVE_BULK 0x0000).
inline constexpr std::uint16_t kAdaptiveBulk = 0x0000;
// "Adaptive on" flag in a ring's itr_setting (I40E_ITR_DYNAMIC 0x8000, the same bit).
inline constexpr std::uint16_t kItrDynamic = 0x8000;
// The microsecond bits of an ITR value (I40E_ITR_MASK 0x1FFE; itr.hpp kItrUsecsMask).
inline constexpr std::uint16_t kItrMask = static_cast<std::uint16_t>(itr::kItrUsecsMask);
// Interrupts after an ITR write whose counts are thrown away (ITR_COUNTDOWN_START 3,
// i40e_txrx.c): "The act of updating the ITR will cause it to immediately trigger".
inline constexpr std::uint8_t kCountdownStart = 3;

// Packet-count thresholds of i40e_update_itr, per interrupt and container.
inline constexpr unsigned kLatencyMaxPackets = 4;       // Rx latency shortcut: 1..3 packets
inline constexpr unsigned kLatencyMaxBytes = 9000;      // ... and fewer bytes than this
inline constexpr unsigned kTxBulkPackets = 32;          // Tx above this switches to bulk
inline constexpr unsigned kStepMaxPackets = 56;         // below: grow by kAdaptiveMinInc
inline constexpr unsigned kGoldilocksMaxPackets = 112;  // 56..112: keep the current ITR
inline constexpr unsigned kHalveMaxPackets = 256;       // 113..256: halve; above: size formula

// Wire-size buckets of i40e_update_itr's "adjust_by_size" formula, bytes per packet. Each maps
// avg_wire_size to a value 256x too large for 10G, later divided by itr_divisor().
inline constexpr unsigned kSizeBucket1Max = 60;    // <= 60: 4096 ("Start at 250k ints/sec")
inline constexpr unsigned kSizeBucket2Max = 380;   // <= 380: size * 40 + 1696
inline constexpr unsigned kSizeBucket3Max = 1084;  // <= 1084: size * 15 + 11452
inline constexpr unsigned kSizeBucket4Max = 1980;  // <= 1980: size * 5 + 22420
inline constexpr unsigned kSizePlateau = 32256;    // above: 32256 ("30K ints/sec")

// ---- PFINT_DYN_CTLN register (i40e_register.h) -------------------------------------------

// INTENA, bit 0: enable the vector (I40E_PFINT_DYN_CTLN_INTENA_MASK).
inline constexpr std::uint32_t kDynCtlnIntenaMask = 0x1U << 0;
// SWINT_TRIG, bit 2: raise a software interrupt (I40E_PFINT_DYN_CTLN_SWINT_TRIG_MASK).
inline constexpr std::uint32_t kDynCtlnSwintTrigMask = 0x1U << 2;
// ITR_INDX, bits 4:3: which interval INTERVAL is written to; 3 = none.
inline constexpr unsigned kDynCtlnItrIndxShift = 3;
inline constexpr std::uint32_t kDynCtlnItrIndxMask = 0x3U << kDynCtlnItrIndxShift;
// INTERVAL, bits 16:5, in 2 us units (I40E_PFINT_DYN_CTLN_INTERVAL_MASK, 0xFFF << 5).
inline constexpr unsigned kDynCtlnIntervalShift = 5;
inline constexpr std::uint32_t kDynCtlnIntervalMask = itr::kItrIntervalMask
                                                      << kDynCtlnIntervalShift;
// SW_ITR_INDX_ENA, bit 24: let SW_ITR_INDX pick the software interrupt's throttle.
inline constexpr std::uint32_t kDynCtlnSwItrIndxEnaMask = 0x1U << 24;
// SW_ITR_INDX, bits 26:25: the ITR index that throttles the software interrupt.
inline constexpr unsigned kDynCtlnSwItrIndxShift = 25;
inline constexpr std::uint32_t kDynCtlnSwItrIndxMask = 0x3U << kDynCtlnSwItrIndxShift;

// enum i40e_dyn_idx: which of a vector's three ITR registers a write addresses.
enum class ItrIndex : std::uint8_t {
  rx = 0,    // I40E_RX_ITR = I40E_IDX_ITR0
  tx = 1,    // I40E_TX_ITR = I40E_IDX_ITR1
  sw = 2,    // I40E_SW_ITR = I40E_IDX_ITR2, rate limit of forced software interrupts (seed 000)
  none = 3,  // I40E_ITR_NONE: "don't update" any interval
};

// The interval i40e_vsi_configure_msix programs into ITRN(I40E_SW_ITR): I40E_ITR_20K = 50 us,
// so forced software interrupts come at most 20000 times a second.
inline constexpr Duration kSwItrInterval = microseconds(itr::kI40eItr20kUsecs);

// Default rx-usecs / tx-usecs: I40E_ITR_RX_DEF / I40E_ITR_TX_DEF = I40E_ITR_20K | DYNAMIC.
inline constexpr std::uint32_t kDefaultUsecs = itr::kI40eItr20kUsecs;

// ---- link speed --------------------------------------------------------------------------

// enum i40e_aq_link_speed, as far as i40e_itr_divisor distinguishes it.
enum class LinkSpeed : std::uint8_t {
  unknown,  // I40E_LINK_SPEED_UNKNOWN (the switch's default case)
  mb100,    // 100 Mbit/s
  gb1,      // 1 Gbit/s
  gb2_5,    // 2.5 Gbit/s (default case)
  gb5,      // 5 Gbit/s (default case)
  gb10,     // 10 Gbit/s
  gb20,     // 20 Gbit/s
  gb25,     // 25 Gbit/s
  gb40,     // 40 Gbit/s
};

// i40e_itr_divisor: the size formula's result is divided by this, rounded up, then counted in
// 2 us steps. 40G: MIN_INC * 1024; 25G/20G: * 512; 10G and the default: * 256; 1G/100M: * 32.
constexpr unsigned itr_divisor(LinkSpeed speed) {
  switch (speed) {
    case LinkSpeed::gb40:
      return kAdaptiveMinInc * 1024U;
    case LinkSpeed::gb25:
    case LinkSpeed::gb20:
      return kAdaptiveMinInc * 512U;
    case LinkSpeed::gb1:
    case LinkSpeed::mb100:
      return kAdaptiveMinInc * 32U;
    case LinkSpeed::unknown:
    case LinkSpeed::gb2_5:
    case LinkSpeed::gb5:
    case LinkSpeed::gb10:
      break;
  }
  return kAdaptiveMinInc * 256U;
}

// The link speed for a rate in Mbit/s as ethtool reports it (100, 1000, 2500, 5000, 10000,
// 20000, 25000, 40000). Anything else is an Error with key "link-speed" listing those.
Expected<LinkSpeed> link_speed_from_mbps(std::uint32_t mbps);

// ---- kernel state --------------------------------------------------------------------------

// Which container of a vector a rule looks at (i40e_container_is_rx tells them apart).
enum class Direction : std::uint8_t { rx, tx };

// struct i40e_ring_container plus the itr_setting of its first ring.
struct RingContainer {
  bool has_ring = true;             // rc->ring != NULL; without a ring the container is ignored
  std::uint16_t itr_setting = 0;    // ring->itr_setting: usecs | kItrDynamic when adaptive
  std::uint64_t next_update = 0;    // jiffies by which the next update must come (unsigned long)
  std::uint32_t total_bytes = 0;    // bytes cleaned since the last update, modulo 2^32
  std::uint32_t total_packets = 0;  // packets cleaned since the last update, modulo 2^32
  std::uint16_t target_itr = 0;     // wanted interval: usecs | kAdaptiveLatency
  std::uint16_t current_itr = 0;    // interval last written to the register, same encoding
};

// The parts of struct i40e_q_vector the rules use.
struct QVector {
  RingContainer rx{};                      // q_vector->rx
  RingContainer tx{};                      // q_vector->tx
  std::uint8_t itr_countdown = 0;          // interrupts left whose counts are discarded
  bool in_busy_poll = false;               // a busy poller refused the completion (2024 fix)
  LinkSpeed link_speed = LinkSpeed::gb10;  // hw.phy.link_info.link_speed
};

// time_after(a, b) from include/linux/jiffies.h: a is later than b, modulo 2^64.
constexpr bool time_after(std::uint64_t a, std::uint64_t b) {
  return static_cast<std::int64_t>(b - a) < 0;
}

// Jiffies at `now`: whole ticks since the Instant epoch, rounded down (also before the epoch),
// modulo 2^64 like the kernel's counter. Precondition: tick > 0.
std::uint64_t to_jiffies(Instant now, Duration tick);

// The size formula's scaled value for an average wire size (bytes / packets): the bucket
// arithmetic of i40e_update_itr before halving and before dividing by itr_divisor().
constexpr unsigned scaled_itr_for_size(unsigned avg_wire_size) {
  if (avg_wire_size <= kSizeBucket1Max) return 4096;
  if (avg_wire_size <= kSizeBucket2Max) return avg_wire_size * 40 + 1696;
  if (avg_wire_size <= kSizeBucket3Max) return avg_wire_size * 15 + 11452;
  if (avg_wire_size <= kSizeBucket4Max) return avg_wire_size * 5 + 22420;
  return kSizePlateau;
}

// The rules, as free functions over QVector so that tests can drive each one alone; each is the
// kernel function of the same name.

// i40e_update_itr for one container at `jiffies`: sets its target_itr, next_update = jiffies + 1
// and clears its totals, or does nothing at all when it has no ring or is not adaptive.
void update_itr(QVector& q_vector, Direction direction, std::uint64_t jiffies);

// i40e_buildreg_itr: the PFINT_DYN_CTLN word that enables the vector, writes `interval` (an ITR
// value in microseconds, flag bits ignored) to ITR index `itr_index` unless that is none, and
// with `force_swint` also triggers a software interrupt throttled by ITR index sw.
constexpr std::uint32_t buildreg_itr(ItrIndex itr_index, std::uint16_t interval, bool force_swint) {
  // "the register value is recorded in 2 microsecond units"; FIELD_PREP masks to 12 bits.
  const auto field = static_cast<std::uint32_t>(interval >> 1);
  std::uint32_t value =
      kDynCtlnIntenaMask |
      ((static_cast<std::uint32_t>(itr_index) << kDynCtlnItrIndxShift) & kDynCtlnItrIndxMask) |
      ((field << kDynCtlnIntervalShift) & kDynCtlnIntervalMask);
  if (force_swint) {
    value |= kDynCtlnSwintTrigMask | kDynCtlnSwItrIndxEnaMask |
             ((static_cast<std::uint32_t>(ItrIndex::sw) << kDynCtlnSwItrIndxShift) &
              kDynCtlnSwItrIndxMask);
  }
  return value;
}

// What one interrupt completion asks the caller to do.
struct Decision {
  bool enabled = false;              // the register was written: the interrupt is re-enabled
  ItrIndex write = ItrIndex::none;   // which interval gets a new value: rx, tx or none
  std::uint16_t target_itr = 0;      // the ITR value written (usecs | latency flag); 0 for none
  Duration interval{};               // the new interval; zero for none
  std::uint16_t interval_field = 0;  // the same in PFINT_DYN_CTLN.INTERVAL units (2 us)
  bool force_swint = false;          // a software interrupt is triggered (busy-poll exit fix)
  std::uint32_t dyn_ctln = 0;        // the PFINT_DYN_CTLN word; 0 when nothing is written
  friend constexpr bool operator==(const Decision&, const Decision&) = default;
};

// i40e_update_enable_itr (MSI-X, VSI up): updates Tx then Rx, writes at most one interval in the
// kernel's priority order (1: Rx must go down; 2: Tx must go down, or Tx must go up by more than
// Rx; 3: Rx must go up; else none and the countdown ticks), then enables the vector, forcing a
// software interrupt if in_busy_poll was set, which it clears.
Decision update_enable_itr(QVector& q_vector, std::uint64_t jiffies);

// The end of i40e_napi_poll once all work is done. `napi_completed` is napi_complete_done()'s
// result: true runs update_enable_itr; false means a busy poller owns the context, nothing is
// written, and with `busy_poll_exit_swint` (the 2024 fix) in_busy_poll is set so the next
// completion forces a software interrupt. Without the fix this is the pre-2024 driver.
Decision napi_poll_done(QVector& q_vector, std::uint64_t jiffies, bool napi_completed,
                        bool busy_poll_exit_swint);

// ---- configuration and the policy object -------------------------------------------------

// The settings of one vector, in ethtool's vocabulary.
struct Config {
  std::uint32_t rx_usecs = kDefaultUsecs;  // rx-usecs: start value, or the fixed value if static
  std::uint32_t tx_usecs = kDefaultUsecs;  // tx-usecs
  bool adaptive_rx = true;                 // adaptive-rx (I40E_ITR_RX_DEF has I40E_ITR_DYNAMIC)
  bool adaptive_tx = true;                 // adaptive-tx
  LinkSpeed link_speed = LinkSpeed::gb10;  // selects itr_divisor(); 10G is the default case
  // One jiffy, 1 / CONFIG_HZ. 1 ms is CONFIG_HZ=1000, the usual x86 server setting (seed 000
  // was measured on a Red Hat system); 250 Hz kernels want 4 ms.
  Duration tick = milliseconds(1);
  // The 2024 busy-poll exit fix (seed 000). Off reproduces the pre-fix driver and its race.
  bool busy_poll_exit_swint = true;
};

// The first violation, keyed by the setting's name: "rx-usecs" / "tx-usecs" above
// I40E_MAX_ITR (8160, i40e_set_itr_per_queue: "rx-usecs range is 0-8160"); "tick" not positive.
std::optional<Error> validate(const Config& config);

// The i40e adaptive ITR of one vector. The caller reports what each poll cleaned and calls
// on_poll_complete when a poll finished its work; nothing here reads a clock or allocates.
class AdaptiveItr {
 public:
  // Precondition: validate(config) found nothing (asserted); use create() at the edge. Like
  // i40e_vsi_configure_msix: itr_setting = ITR_REG_ALIGN(usecs) (odd values round up), target
  // and current = the setting without the dynamic flag, next_update = jiffies(now) + 1.
  AdaptiveItr(const Config& config, Instant now);

  // Validates, then constructs.
  static Expected<AdaptiveItr> create(const Config& config, Instant now);

  // A poll cleaned `packets` Rx packets of `bytes` bytes in total (i40e_update_rx_stats). Busy
  // polls count too. The totals are u32 and wrap as the kernel's do.
  void on_rx_cleaned(std::uint32_t bytes, std::uint32_t packets) {
    q_vector_.rx.total_bytes += bytes;
    q_vector_.rx.total_packets += packets;
  }
  // The same for Tx completions (i40e_clean_tx_irq).
  void on_tx_cleaned(std::uint32_t bytes, std::uint32_t packets) {
    q_vector_.tx.total_bytes += bytes;
    q_vector_.tx.total_packets += packets;
  }

  // A poll finished with work to spare; `napi_completed` is napi_complete_done()'s answer.
  Decision on_poll_complete(Instant now, bool napi_completed) {
    return napi_poll_done(q_vector_, jiffies(now), napi_completed, config_.busy_poll_exit_swint);
  }

  std::uint64_t jiffies(Instant now) const { return to_jiffies(now, config_.tick); }
  const QVector& state() const { return q_vector_; }
  const Config& config() const { return config_; }

 private:
  Config config_;
  QVector q_vector_{};
};

}  // namespace irqmod::adaptive_itr
