// Interrupt coalescing with ethtool semantics: `struct ethtool_coalesce` in
// include/uapi/linux/ethtool.h, with the parameter names of `ethtool -C`.
//
// Each (usecs, frames) pair says: interrupt when
//   (usecs > 0 && time_since_first_completion >= usecs) ||
//   (frames > 0 && pending_completions >= frames)
// usecs = 0, frames = 1 is "no coalescing"; usecs = 0, frames = 0 is illegal (nothing would fire).
// The -irq pair applies while an interrupt is being serviced; with adaptive-rx / adaptive-tx on,
// the packet rate measured over each sample interval selects the low, normal or high pair.
//
// Settings and the parser live at the configuration edge (they allocate and report Errors).
// A Coalescer is the run-time state machine for one direction of one queue: time is handed in,
// it never reads a clock, allocates, logs or calls through a virtual function.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "irqmod/error.hpp"
#include "irqmod/time.hpp"

namespace irqmod::coalesce {

// Which side of the queue a Coalescer moderates.
enum class Direction : std::uint8_t {
  rx,  // receive completions (packets written back to the Rx ring)
  tx,  // transmit completions (descriptors written back after a send)
};

// One ethtool (usecs, frames) pair. Both are u32, as in struct ethtool_coalesce; no tighter limit
// is needed: u32 microseconds (4.3e15 ns) and u32 seconds (4.3e18 ns) both fit Duration's int64.
struct Thresholds {
  std::uint32_t usecs = 0;   // delay from the first un-signalled completion, microseconds; 0 = off
  std::uint32_t frames = 0;  // pending completions that force an interrupt; 0 = off
  friend constexpr bool operator==(const Thresholds&, const Thresholds&) = default;
};

// usecs = 0, frames = 1: an interrupt per completion (ethtool.h: "To disable coalescing ...").
inline constexpr Thresholds kNoCoalescing{0, 1};

// The settings of one direction: rx-* or tx-*.
struct DirectionSettings {
  // rx-usecs / rx-frames. Defaults to no coalescing so that a default Settings is valid.
  Thresholds normal = kNoCoalescing;
  // rx-usecs-irq / rx-frames-irq, in effect while an interrupt is being serviced. Both zero means
  // "not set: the normal (or band) pair applies", which is what `ethtool -c` shows for drivers
  // without them; if only one is nonzero, the pair is used as is (the zero criterion is off).
  Thresholds irq{};
  // rx-usecs-low / rx-frames-low, in effect when adaptive and the rate is below pkt-rate-low.
  Thresholds low{};
  // rx-usecs-high / rx-frames-high, in effect when adaptive and the rate is above pkt-rate-high.
  Thresholds high{};
  // adaptive-rx: let the packet rate select low / normal / high (the driver-specific adaptive
  // algorithms of real NICs are other policies, e.g. dim.hpp).
  bool adaptive = false;
  // cqe-mode-rx / cqe-mode-tx (ETHTOOL_A_COALESCE_USE_CQE_MODE_*): the usecs timer restarts at
  // every new completion (mlx5's MLX5_CQ_PERIOD_MODE_START_FROM_CQE) instead of running from the
  // first un-signalled one. Off: the timer of every other driver.
  bool cqe_mode = false;
};

// The part of struct ethtool_coalesce this policy uses (with the netlink-only CQE mode).
// stats-block-usecs and the Tx aggregation fields are out of scope.
struct Settings {
  DirectionSettings rx{};  // rx-* and adaptive-rx
  DirectionSettings tx{};  // tx-* and adaptive-tx
  // pkt-rate-low, packets per second; 0 = the low band is off (no rate is below 0 anyway).
  std::uint32_t pkt_rate_low = 0;
  // pkt-rate-high, packets per second; 0 = the high band is off. A choice: taken literally any
  // traffic would be "above 0", but 0 is what `ethtool -c` shows when it is not set.
  std::uint32_t pkt_rate_high = 0;
  // sample-interval (rate_sample_interval), seconds; must not be zero with adaptive on.
  std::uint32_t sample_interval = 0;

  const DirectionSettings& direction(Direction d) const { return d == Direction::rx ? rx : tx; }
  DirectionSettings& direction(Direction d) { return d == Direction::rx ? rx : tx; }
};

// Checks the rules of ethtool.h on a whole Settings; the first violation is returned, keyed by
// the ethtool -C parameter name, with a message saying what is allowed. It rejects:
//  - usecs and frames both 0 for a direction's normal pair, and for its low (high) pair when
//    that direction is adaptive and pkt-rate-low (pkt-rate-high) is nonzero;
//  - pkt-rate-low >= pkt-rate-high when both are nonzero and either direction is adaptive;
//  - sample-interval 0 when either direction is adaptive.
// Out-of-range values cannot be represented (every field is u32); the parser rejects them.
std::optional<Error> validate(const Settings& settings);

// The ethtool -C parameter names the parser accepts, in struct ethtool_coalesce order.
std::span<const std::string_view> parameter_names();

// Parses ethtool-style settings: "key value" pairs and/or "key=value" tokens, e.g.
// {"rx-usecs", "50", "rx-frames=32", "adaptive-rx", "on"}. Numbers are decimal u32 (0 to
// 4294967295); adaptive-rx / adaptive-tx take "on" or "off". Keys not given keep `base`'s value;
// a key given twice takes the later value. Rejects unknown keys (listing the allowed ones),
// missing, non-numeric and out-of-range values and flag words other than on/off, then runs
// validate() on the result.
Expected<Settings> parse_tokens(std::span<const std::string_view> tokens,
                                const Settings& base = Settings{});
// The same over one string whose tokens are separated by whitespace.
Expected<Settings> parse_settings(std::string_view text, const Settings& base = Settings{});

// Which rate band selected the pair in effect.
enum class Band : std::uint8_t {
  low = 0,     // measured rate < pkt-rate-low: rx-usecs-low / rx-frames-low
  normal = 1,  // between the thresholds, adaptive off, or no reliable sample yet
  high = 2,    // measured rate > pkt-rate-high: rx-usecs-high / rx-frames-high
};

std::string_view to_string(Band band);

// What one call to Coalescer::on_sample measured and decided.
struct SampleResult {
  bool reliable = false;       // false for the first sample and when no time has elapsed
  bool changed = false;        // the band (and so the pair in effect) changed
  Band band = Band::normal;    // the band in effect after this sample
  std::uint64_t rate_pps = 0;  // packets per second over the window, rounded down; 0 unreliable
};

// Packets per second for `packets` over `elapsed`, rounded down and saturated at 2^64 - 1; no
// value when elapsed <= 0 (a rate over no time is "not reliable", not infinity).
std::optional<std::uint64_t> packets_per_second(std::uint64_t packets, Duration elapsed);

// The coalescing state machine of one direction of one queue. The caller reports events with
// their time and asks due() / deadline() after each one; every answer depends on the servicing
// state and the band, so it must be asked again after any call.
class Coalescer {
 public:
  // Precondition: validate(settings) returned no error (asserted); use create() at the edge.
  Coalescer(const Settings& settings, Direction direction);

  // Validates, then constructs.
  static Expected<Coalescer> create(const Settings& settings, Direction direction);

  // A completion was written back and is not yet signalled. The timer starts at the first
  // completion after the last interrupt, also when that completion arrives during servicing;
  // in CQE mode it restarts at every completion.
  void on_completion(Instant now) {
    if (pending_ == 0 || cqe_mode_) first_pending_ = now;
    ++pending_;
    ++completions_;
  }

  // The device would raise an interrupt now under the pair in effect (the -irq pair while
  // servicing). The Coalescer does not mask: a host that keeps the vector masked while servicing
  // does not deliver it then, and asks again after on_irq_enabled().
  bool due(Instant now) const {
    if (pending_ == 0) return false;
    const Thresholds& t = thresholds();
    return (t.frames > 0 && pending_ >= t.frames) ||
           (t.usecs > 0 && now - first_pending_ >= microseconds(t.usecs));
  }

  // When the usecs timer of the pair in effect expires: first un-signalled completion (CQE mode:
  // the last) + usecs.
  // Empty with nothing pending or usecs = 0. The frames criterion is reported by due() only.
  std::optional<Instant> deadline() const {
    const Thresholds& t = thresholds();
    if (pending_ == 0 || t.usecs == 0) return std::nullopt;
    return first_pending_ + microseconds(t.usecs);
  }

  // The interrupt fired: pending completions are signalled (the timer stops) and servicing
  // begins. Also valid with nothing pending (a forced software interrupt) and while servicing
  // (a second interrupt under the -irq pair; servicing continues from its first start).
  void on_interrupt(Instant now) {
    pending_ = 0;
    ++interrupts_;
    last_interrupt_ = now;
    if (!servicing_) servicing_since_ = now;
    servicing_ = true;
  }

  // The driver re-enabled the interrupt (NAPI complete): servicing is over and the normal / band
  // pair applies again. Completions that arrived meanwhile keep their timer start, so an
  // interrupt that is already due under that pair is due at once. A no-op when not servicing.
  void on_irq_enabled(Instant now) {
    if (!servicing_) return;
    servicing_ = false;
    servicing_time_ += now - servicing_since_;
  }

  // One rate sample, taken by the caller every sample_interval() (a driver's timer, a simulator
  // event) from a cumulative packet counter (modulo 2^64: deltas are modular). The rate is over
  // the time actually elapsed since the previous reliable sample, so a late timer does not skew
  // it. The first sample only opens the window; a sample at zero or negative elapsed time is
  // "not reliable" and keeps the band and the window start. With adaptive off the band stays
  // normal but the rate is still reported. A band change applies at once, also to pending
  // completions (the deadline moves with it), as a rewritten moderation register would.
  SampleResult on_sample(Instant now, std::uint64_t cumulative_packets);

  // Pending completions will never be signalled: the device dropped their causes (a
  // write-back-only mode while a busy poller owns the queue, napi/vector.hpp). The timer stops
  // without an interrupt.
  void discard_pending() { pending_ = 0; }

  // The driver rewrote the normal pair (a DIM work handler programming a new profile). Pending
  // completions keep their timer start, as with a band change.
  void program_normal(const Thresholds& normal) {
    bands_[static_cast<std::size_t>(Band::normal)] = normal;
  }

  // The pair in effect now: the -irq pair while servicing when it is set, else the band's pair.
  const Thresholds& thresholds() const {
    return servicing_ && irq_set_ ? irq_ : bands_[static_cast<std::size_t>(band_)];
  }
  // The pair a band selects.
  const Thresholds& band_thresholds(Band band) const {
    return bands_[static_cast<std::size_t>(band)];
  }

  Direction direction() const { return direction_; }
  Band band() const { return band_; }
  bool servicing() const { return servicing_; }
  // How often the caller should call on_sample (sample-interval); zero when adaptive is off.
  Duration sample_interval() const { return sample_interval_; }

  std::uint64_t pending() const { return pending_; }            // un-signalled completions
  std::uint64_t completions() const { return completions_; }    // completions seen, total
  std::uint64_t interrupts() const { return interrupts_; }      // interrupts raised, total
  std::uint64_t band_changes() const { return band_changes_; }  // band switches, total
  Instant last_interrupt() const { return last_interrupt_; }    // epoch before the first one
  Duration servicing_time() const { return servicing_time_; }   // closed servicing spans, total

 private:
  Band select_band(std::uint64_t rate_pps) const;

  // Indexed by Band: low, normal, high.
  std::array<Thresholds, 3> bands_{};
  Thresholds irq_{};
  bool irq_set_ = false;
  bool adaptive_ = false;
  bool cqe_mode_ = false;  // the timer restarts at every completion
  Direction direction_ = Direction::rx;
  Band band_ = Band::normal;
  bool servicing_ = false;
  bool has_window_ = false;
  std::uint32_t pkt_rate_low_ = 0;
  std::uint32_t pkt_rate_high_ = 0;
  Duration sample_interval_{};

  std::uint64_t pending_ = 0;
  Instant first_pending_{};
  Instant window_start_{};
  std::uint64_t window_packets_ = 0;

  std::uint64_t completions_ = 0;
  std::uint64_t interrupts_ = 0;
  std::uint64_t band_changes_ = 0;
  Instant last_interrupt_{};
  Instant servicing_since_{};
  Duration servicing_time_{};
};

}  // namespace irqmod::coalesce
