// Low-latency interrupts (LLI): conditions under which an Rx queue interrupts at once, bypassing
// its EITR moderation, with their own, separate minimum interval (seed 004).
//
// Modelled on the Intel 82599 (ixgbe) as the drivers program it:
//  - ring depletion: the queue's SRRCTL.RDMTS field. While fewer free descriptors than the
//    threshold are left, every received packet is an LLI cause. This is the one cause on by
//    default, and the one that stormed in seed 004: the driver kept the ring under 64 free
//    descriptors, LLIs stole the time it needed to refill it, the ring stayed low ("a positive
//    feedback"). Writing 0 to RDMTS turns the cause off; that is seed 004's fix.
//  - filters: packets matching a TCP/UDP destination port, the TCP PSH flag, a size, a VLAN
//    priority or an EtherType, as Intel's out-of-tree ixgbe driver offers them (module parameters
//    LLIPort, LLIPush, LLISize, LLIVLANP, LLIEType; hardware L34T_IMIR / FTQF / SDPQF / LLITHRESH
//    / IMIRVP / ETQF). A small fixed list of matchers stands for the filter tables.
//  - moderation: with EITR.LLI_MOD set, LLIs are limited by GPIE's LL Interval field. Seed 004:
//    "the longest inter-interrupt interval Intel allows us to set up for LLI is 60 us. That
//    accounts for 16 666 intr/s"; drivers write the field's maximum, 0xF.
//
// Sources, and what they could not confirm:
//  - Register layout from Linux ixgbe_type.h: IXGBE_SRRCTL_RDMTS_SHIFT 22 / _MASK 0x01C00000
//    (3 bits), IXGBE_GPIE_LLI_DELAY_SHIFT 7 (the next field, IXGBE_GPIE_RSC_DELAY_SHIFT, is 11:
//    4 bits), IXGBE_EITR_LLI_MOD 0x8000; "gpie |= 0xf << IXGBE_GPIE_LLI_DELAY_SHIFT" with "Set
//    LL interval to max" in Linux ixgbe and OpenBSD if_ix.c (ixgbe_config_gpie).
//  - RDMTS units of 64 descriptors: not from the 82599 datasheet, which is not among the sources.
//    Inferred from seed 004 (the reset value, untouched by the old driver, meant 64) and from the
//    same Intel family's i40e Rx queue threshold, "immediately interrupt when there are fewer
//    than N*64 packets left in the ring" (Linux commit 7362be9eeed0). The I210 uses 16.
//  - LL Interval units of 4 us: inferred from seed 004 (0xF is the longest, 60 us). The datasheet
//    text was not available.
//  - "Below": seed 004 and the i40e commit say "below" / "fewer than"; the I210 datasheet says
//    "less or equal". This model uses strictly fewer.
//  - LLISize triggers for packets shorter than the size, LLIVLANP for priorities at or above the
//    threshold: the drivers' parameter names ("on Packet Size", "on VLAN priority threshold")
//    suggest it, no source states it.
//  - The 82599 limits LLIs with credits in EITR; whether a suppressed LLI is held until the
//    interval ends or dropped is not documented in the sources. Here it is dropped and counted
//    (the packet still arrives with the next regular EITR interrupt), so under a constant trigger
//    the LLIs land on the first packet at or after next_allowed().
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "irqmod/error.hpp"
#include "irqmod/policy/itr.hpp"
#include "irqmod/time.hpp"

namespace irqmod::lli {

// ---- 82599 registers -----------------------------------------------------------------------

// SRRCTL.RDMTS, the ring-depletion threshold: bits 24:22 (IXGBE_SRRCTL_RDMTS_SHIFT / _MASK).
inline constexpr unsigned kSrrctlRdmtsShift = 22;
inline constexpr std::uint32_t kSrrctlRdmtsMask = 0x01C00000;
// Largest RDMTS field value: 3 bits.
inline constexpr std::uint32_t kRdmtsMaxField = kSrrctlRdmtsMask >> kSrrctlRdmtsShift;
// Free descriptors per RDMTS count (inferred, see above).
inline constexpr std::uint32_t kRdmtsUnitDescriptors = 64;
// Largest threshold the field holds: 7 * 64 = 448 descriptors.
inline constexpr std::uint32_t kMaxRingThreshold = kRdmtsMaxField * kRdmtsUnitDescriptors;
// The threshold in effect in seed 004 before the fix: "when rx ring shrinks below 64".
inline constexpr std::uint32_t kSeed004RingThreshold = 64;

// GPIE LL Interval: bits 10:7 (IXGBE_GPIE_LLI_DELAY_SHIFT 7 up to IXGBE_GPIE_RSC_DELAY_SHIFT 11).
inline constexpr unsigned kGpieLlIntervalShift = 7;
inline constexpr std::uint32_t kGpieLlIntervalMaxField = 0xF;
inline constexpr std::uint32_t kGpieLlIntervalMask = kGpieLlIntervalMaxField
                                                     << kGpieLlIntervalShift;
// Time per LL Interval count (inferred from seed 004: 0xF = 60 us).
inline constexpr Duration kLlIntervalUnit = microseconds(4);
// The longest LLI interval, 60 us: 16 666 LLIs a second (seed 004).
inline constexpr Duration kMaxLlInterval = kLlIntervalUnit * kGpieLlIntervalMaxField;

// Matchers a Config holds: the 8 filters of the I210's LLI mechanism ("There are 8 2-tuple
// filters") and Intel's adapter guide ("Up to eight ports may be specified").
inline constexpr std::size_t kMaxMatchers = 8;

// Limits of Intel's out-of-tree ixgbe module parameters (ixgbe_param.c); 0 there means off.
inline constexpr std::uint32_t kMaxLliSize = 1500;         // LLISize: 0 - 1500 bytes
inline constexpr std::uint32_t kMaxLliVlanPriority = 7;    // LLIVLANP: 0 - 7
inline constexpr std::uint32_t kMaxLliEtherType = 0x8fff;  // LLIEType: 0 - 0x8fff

// ---- what can cause an LLI -----------------------------------------------------------------

// An LLI cause. ring_low comes from the ring; the others are matchers.
enum class Cause : std::uint8_t {
  ring_low = 0,       // free descriptors below the RDMTS threshold
  port = 1,           // destination port (LLIPort)
  tcp_push = 2,       // TCP PSH flag (LLIPush)
  size = 3,           // frame shorter than a size (LLISize)
  vlan_priority = 4,  // VLAN priority at or above a threshold (LLIVLANP)
  ethertype = 5,      // EtherType (LLIEType)
};
inline constexpr std::size_t kNumCauses = 6;

std::string_view to_string(Cause cause);

// Transport protocol of a received packet.
enum class L4 : std::uint8_t { other, tcp, udp };

// Which transport a port matcher applies to (FTQF's protocol field, or masked out).
enum class PortProtocol : std::uint8_t { tcp, udp, tcp_or_udp };

// What the hardware parsed from one received frame.
struct PacketInfo {
  std::uint32_t length = 0;          // frame length in bytes
  std::uint16_t ethertype = 0x0800;  // EtherType after any VLAN tag; IPv4 by default
  L4 l4 = L4::other;                 // transport protocol
  std::uint16_t dst_port = 0;        // TCP/UDP destination port; ignored for other
  bool tcp_push = false;             // TCP PSH flag
  bool vlan_tagged = false;          // an 802.1Q tag was present
  std::uint8_t vlan_priority = 0;    // its PCP, 0-7; ignored when untagged
};

// One filter. Build with the factories; make_config validates the value.
struct Matcher {
  Cause cause = Cause::port;                  // never ring_low
  PortProtocol protocol = PortProtocol::tcp;  // port matchers only
  std::uint16_t value = 0;                    // port, size, priority or EtherType
  friend constexpr bool operator==(const Matcher&, const Matcher&) = default;

  static constexpr Matcher port(PortProtocol on, std::uint16_t number) {
    return Matcher{Cause::port, on, number};
  }
  static constexpr Matcher tcp_push() { return Matcher{Cause::tcp_push, PortProtocol::tcp, 0}; }
  // Frames shorter than `bytes`.
  static constexpr Matcher size_below(std::uint16_t bytes) {
    return Matcher{Cause::size, PortProtocol::tcp, bytes};
  }
  // Tagged frames with priority >= `priority`.
  static constexpr Matcher vlan_priority_at_least(std::uint8_t priority) {
    return Matcher{Cause::vlan_priority, PortProtocol::tcp, priority};
  }
  static constexpr Matcher ethertype(std::uint16_t type) {
    return Matcher{Cause::ethertype, PortProtocol::tcp, type};
  }

  constexpr bool matches(const PacketInfo& p) const {
    switch (cause) {
      case Cause::port:
        if (p.dst_port != value) return false;
        if (protocol == PortProtocol::tcp) return p.l4 == L4::tcp;
        if (protocol == PortProtocol::udp) return p.l4 == L4::udp;
        return p.l4 == L4::tcp || p.l4 == L4::udp;
      case Cause::tcp_push:
        return p.l4 == L4::tcp && p.tcp_push;
      case Cause::size:
        return p.length < value;
      case Cause::vlan_priority:
        return p.vlan_tagged && p.vlan_priority >= value;
      case Cause::ethertype:
        return p.ethertype == value;
      case Cause::ring_low:
        break;
    }
    return false;
  }
};

// ---- configuration -------------------------------------------------------------------------

// What the user asks for, in their units.
struct Settings {
  // "ring-threshold": free descriptors below which every packet is an LLI cause; a multiple of
  // 64 up to 448 (RDMTS); 0 turns the cause off (seed 004's fix).
  std::uint32_t ring_threshold = kSeed004RingThreshold;
  // "ll-interval": minimum gap between two LLIs; a multiple of 4 us up to 60 us; 0 leaves LLIs
  // unmoderated (EITR.LLI_MOD clear), seed 004's state before moderation. Default: the maximum
  // the drivers program.
  Duration interval = kMaxLlInterval;
  // "filters": at most kMaxMatchers, checked in order.
  std::span<const Matcher> filters{};
  // "hold": a cause that comes within the interval is held and raised when the interval ends
  // (the way EITR treats its causes) instead of being dropped. Which one the 82599 does is not in
  // the documents at hand; seed 004's "precise number" (exactly 16 666/s while causes come in
  // bursts) is what holding gives. Off by default: dropping is the conservative reading.
  bool hold = false;
};

// A validated configuration; build it with make_config.
struct Config {
  std::uint32_t ring_threshold = kSeed004RingThreshold;  // descriptors, multiple of 64, <= 448
  Duration interval = kMaxLlInterval;                    // multiple of 4 us, <= 60 us
  std::array<Matcher, kMaxMatchers> matchers{};          // the first matcher_count are used
  std::uint8_t matcher_count = 0;                        // <= kMaxMatchers
  bool hold = false;                                     // Settings::hold

  std::span<const Matcher> filters() const { return {matchers.data(), matcher_count}; }
  // SRRCTL.RDMTS bits in place (threshold / 64 << 22).
  constexpr std::uint32_t srrctl_rdmts_bits() const {
    return (ring_threshold / kRdmtsUnitDescriptors) << kSrrctlRdmtsShift;
  }
  // GPIE LL Interval bits in place (interval / 4 us << 7).
  constexpr std::uint32_t gpie_ll_interval_bits() const {
    return static_cast<std::uint32_t>(interval / kLlIntervalUnit) << kGpieLlIntervalShift;
  }
  // EITR bits this configuration adds to the queue vector's EITR: LLI_MOD when moderated.
  constexpr std::uint32_t eitr_lli_bits() const {
    return interval > Duration::zero() ? itr::kIxgbeEitrLliMod : 0;
  }
};

// Validates `settings`. Errors name the key: "ring-threshold" (not a multiple of 64, or above
// 448), "ll-interval" (negative, not a multiple of 4 us, above 60 us), "filters" (more than 8, or
// a ring_low matcher), and per matcher the Intel parameter it stands for: "LLIPort" (port 0),
// "LLISize" (0 or above 1500), "LLIVLANP" (0 or above 7), "LLIEType" (0 or above 0x8fff).
Expected<Config> make_config(const Settings& settings);

// ---- the policy object -----------------------------------------------------------------------

// The first cause that applies to a packet: ring_low first, then the matchers in order; none if
// no cause applies.
std::optional<Cause> classify(const Config& config, std::uint32_t free_descriptors,
                              const PacketInfo& packet);

// What happened to LLI causes so far.
struct Counters {
  std::uint64_t packets = 0;     // on_rx calls
  std::uint64_t fired = 0;       // LLIs raised
  std::uint64_t suppressed = 0;  // causes that came within the LLI interval (dropped, or held)
  std::array<std::uint64_t, kNumCauses> fired_by{};       // fired, by the cause classify chose
  std::array<std::uint64_t, kNumCauses> suppressed_by{};  // suppressed, by that cause
};

// The LLI logic of one Rx queue vector. Time is handed in; nothing allocates or reads a clock.
class LowLatencyInterrupts {
 public:
  // Precondition: `config` came from make_config (its invariants are asserted).
  explicit LowLatencyInterrupts(const Config& config);

  // A packet was received at `now`, leaving `free_descriptors` free in the ring. True when an
  // LLI fires now; the interval then restarts.
  bool on_rx(Instant now, std::uint32_t free_descriptors, const PacketInfo& packet) {
    ++counters_.packets;
    const std::optional<Cause> cause = classify(config_, free_descriptors, packet);
    if (!cause) return false;
    const auto index = static_cast<std::size_t>(*cause);
    if (!throttle_.may_fire(now)) {
      ++counters_.suppressed;
      ++counters_.suppressed_by[index];
      if (config_.hold && !held_) held_ = cause;
      return false;
    }
    fire(now, *cause);
    return true;
  }

  // Config::hold: a cause is held for the end of the interval.
  bool held() const { return held_.has_value(); }
  // The held cause fires if the interval has ended by `now`: true when it does.
  bool release(Instant now) {
    if (!held_ || !throttle_.may_fire(now)) return false;
    fire(now, *held_);
    return true;
  }

  // The earliest instant another LLI may fire; Instant::min() before the first.
  Instant next_allowed() const { return throttle_.next_allowed(); }

  const Counters& counters() const { return counters_; }
  const Config& config() const { return config_; }

 private:
  Config config_;
  void fire(Instant now, Cause cause) {
    throttle_.fired(now);
    held_.reset();
    ++counters_.fired;
    ++counters_.fired_by[static_cast<std::size_t>(cause)];
  }

  itr::Throttle throttle_;  // the LLI interval: same min-gap rule as EITR, its own interval
  Counters counters_{};
  std::optional<Cause> held_;  // a cause waiting for the interval's end (Config::hold)
};

}  // namespace irqmod::lli
