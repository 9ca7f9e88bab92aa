// Tx interrupt coalescing computed from the link speed instead of adapted at run time (seed 001).
//
// Jakub Kicinski on enetc's Tx DIM: "For TX the only thing we care about is that no queue in the
// system underflows. So the calculation is simply timeout = queue len / speed." Claudiu Manoil:
// the device handles 10 Mbit/s to 2.5 Gbit/s, so "a set of precomputed values based on link
// speed" could replace Tx DIM. This file is that calculation:
//
//   timeout   = usable_frames x wire time of one frame at the link speed
//   usable    = queue_frames - reserve   (the part that may drain before the interrupt)
//   tx-usecs  = timeout in whole microseconds, tx-frames = usable
//
// Wire time counts what the link really spends per frame: preamble + SFD (8 B) and the
// inter-frame gap (12 B) on top of the frame (64 B minimum, FCS included): 64 B at 10 Gbit/s is
// 84 B = 672 bit = 67.2 ns, 14.88 Mpps.
//
// Why half the queue is kept in reserve by default: when the interrupt fires, the frames still
// queued keep the link busy while the CPU takes the interrupt, cleans the ring and the stack
// refills it. Keeping half means the CPU gets as long to respond as the device took to send the
// first half (double buffering), and it is what enetc itself uses: ENETC_TXIC_PKTTHR =
// min(128, ENETC_TX_RING_DEFAULT_SIZE / 2) and ENETC_DEFAULT_TX_WORK = ring / 2
// (drivers/net/ethernet/freescale/enetc/enetc.h).
//
// Which frame size to plan for: a NIC with both thresholds (ethtool tx-usecs and tx-frames, as
// enetc's ICTT and ICPT) interrupts at whichever comes first. Planned with full-size frames, the
// two fire together for full-size traffic at line rate; smaller frames reach tx-frames first, so
// the queue never drains into its reserve whatever the frame size, and bulk traffic is not
// interrupted more often than it must be. For a device without a frame threshold, plan with
// kMinFrameBytes instead (the worst case for the timer alone).
//
// "Queue" is the smallest queue feeding the link (Kicinski: "TX ring, TSQ etc."): for TCP, TSQ
// limits a socket to about 1 ms of data at its pacing rate, so at low speeds the ring is rarely
// the smallest queue and the caller should pass the TSQ budget in frames instead.
//
// All computation is integer and constexpr; every rounding goes down, toward an earlier
// interrupt, which is the side that cannot underflow.
#pragma once

#include <array>
#include <cassert>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "irqmod/error.hpp"
#include "irqmod/time.hpp"

namespace irqmod::tx_coalesce {

// Picoseconds, for wire times that are not whole nanoseconds (67.2 ns).
using Picoseconds = std::chrono::duration<std::int64_t, std::pico>;

// Preamble (7 B) + start frame delimiter (1 B) before every frame (IEEE 802.3 clause 3.2.1-3.2.2).
inline constexpr std::uint32_t kPreambleSfdBytes = 8;
// Inter-frame gap: interPacketGap = 96 bit times (IEEE 802.3 clause 4.4.2).
inline constexpr std::uint32_t kInterFrameGapBytes = 12;
// Ethernet header: destination + source MAC + EtherType (IEEE 802.3 clause 3.2.3-3.2.6).
inline constexpr std::uint32_t kEthernetHeaderBytes = 14;
// Frame check sequence (IEEE 802.3 clause 3.2.9).
inline constexpr std::uint32_t kFcsBytes = 4;
// minFrameSize = 512 bit, FCS included (IEEE 802.3 clause 4.4.2).
inline constexpr std::uint32_t kMinFrameBytes = 64;
// maxUntaggedFrameSize (IEEE 802.3 clause 4.4.2): a 1500 B MTU + header + FCS.
inline constexpr std::uint32_t kMaxStandardFrameBytes = 1518;
// Largest jumbo frame accepted: 9216 B is the common switch jumbo limit (9000 B MTU + headroom).
inline constexpr std::uint32_t kMaxFrameBytes = 9216;
// Link speed bounds: SPEED_10 and SPEED_800000 (Mbit/s) in include/uapi/linux/ethtool.h. The
// lower one keeps tx-usecs inside u32; the upper one is a sanity bound only (no arithmetic
// depends on it), to be raised when SPEED_1600000 lands.
inline constexpr std::uint64_t kMinLinkBps = 10'000'000;
inline constexpr std::uint64_t kMaxLinkBps = 800'000'000'000;
// Largest queue accepted, frames. Above every driver Tx ring we know (ice 8160, mlx5 8192) and it
// keeps queue x bits x 1e9 inside 64 bits (see the static_assert in tx_timeout()).
inline constexpr std::uint32_t kMaxQueueFrames = 65536;
// Default reserve: half the queue stays queued when the interrupt fires (see the file comment).
inline constexpr std::uint32_t kDefaultReservePercent = 50;
// Queue of the precomputed table: enetc's Tx ring when seed 001 was written
// (ENETC_TX_RING_DEFAULT_SIZE = 256 in enetc.h, 2020; raised to 2048 later).
inline constexpr std::uint32_t kReferenceQueueFrames = 256;

// The frame a given MTU produces: MTU + Ethernet header + FCS (no VLAN tag).
constexpr std::uint32_t frame_bytes_for_mtu(std::uint32_t mtu) {
  return mtu + kEthernetHeaderBytes + kFcsBytes;
}

// Bits the link spends on one frame of `frame_bytes`: preamble, SFD, frame and inter-frame gap.
constexpr std::uint64_t wire_bits(std::uint32_t frame_bytes) {
  return (std::uint64_t{frame_bytes} + kPreambleSfdBytes + kInterFrameGapBytes) * 8;
}

// Time to send one frame at `link_bps`, rounded down to whole nanoseconds (64 B at 10 Gbit/s:
// 67.2 ns -> 67 ns). Down because every use bounds how long a queue lasts, and a shorter bound
// interrupts earlier. Use wire_time_ps() or tx_timeout() where the fraction matters.
// Preconditions: link_bps in [kMinLinkBps, kMaxLinkBps], frame_bytes <= kMaxFrameBytes.
constexpr Duration wire_time(std::uint64_t link_bps, std::uint32_t frame_bytes) {
  assert(link_bps >= kMinLinkBps && link_bps <= kMaxLinkBps && frame_bytes <= kMaxFrameBytes);
  return Duration{static_cast<std::int64_t>(wire_bits(frame_bytes) * 1'000'000'000 / link_bps)};
}

// The same, rounded down to picoseconds: exact for every speed of the table (67.2 ns = 67200 ps).
constexpr Picoseconds wire_time_ps(std::uint64_t link_bps, std::uint32_t frame_bytes) {
  assert(link_bps >= kMinLinkBps && link_bps <= kMaxLinkBps && frame_bytes <= kMaxFrameBytes);
  return Picoseconds{
      static_cast<std::int64_t>(wire_bits(frame_bytes) * 1'000'000'000'000 / link_bps)};
}

// Line rate in frames per second, rounded down (64 B at 10 Gbit/s: 14 880 952).
constexpr std::uint64_t frames_per_second(std::uint64_t link_bps, std::uint32_t frame_bytes) {
  return link_bps / wire_bits(frame_bytes);
}

// Frames that may complete before the interrupt: the queue minus `reserve_percent` of it,
// rounded down. Preconditions: queue_frames <= kMaxQueueFrames, reserve_percent <= 99.
constexpr std::uint32_t usable_frames(std::uint32_t queue_frames,
                                      std::uint32_t reserve_percent = kDefaultReservePercent) {
  assert(queue_frames <= kMaxQueueFrames && reserve_percent < 100);
  return static_cast<std::uint32_t>(std::uint64_t{queue_frames} * (100 - reserve_percent) / 100);
}

// The Tx coalescing timeout: usable frames x the exact wire time, rounded down to nanoseconds
// once (not per frame). Preconditions: those of wire_time() and usable_frames().
constexpr Duration tx_timeout(std::uint64_t link_bps, std::uint32_t queue_frames,
                              std::uint32_t frame_bytes,
                              std::uint32_t reserve_percent = kDefaultReservePercent) {
  // The largest numerator: 65536 frames x 73888 bit x 1e9 = 4.8e18 < 2^64 = 1.8e19.
  static_assert(std::uint64_t{kMaxQueueFrames} * wire_bits(kMaxFrameBytes) <=
                std::numeric_limits<std::uint64_t>::max() / 1'000'000'000);
  assert(link_bps >= kMinLinkBps && link_bps <= kMaxLinkBps && frame_bytes <= kMaxFrameBytes);
  const std::uint64_t bits = usable_frames(queue_frames, reserve_percent) * wire_bits(frame_bytes);
  return Duration{static_cast<std::int64_t>(bits * 1'000'000'000 / link_bps)};
}

// ethtool tx-usecs for a timeout: whole microseconds, rounded down. A timeout under 1 us gives 0,
// which drivers read as "no delay" (an interrupt at the first completion): the safe side.
// The bounds above keep the largest timeout (484 s at 10 Mbit/s) inside u32 microseconds.
constexpr std::uint32_t tx_usecs(Duration timeout) {
  assert(timeout >= Duration::zero() &&
         timeout.count() / 1000 <= std::numeric_limits<std::uint32_t>::max());
  return static_cast<std::uint32_t>(timeout.count() / 1000);
}

// What the calculation needs. Field names with dashes are the Error keys of plan().
struct TxConfig {
  std::uint64_t link_bps = 0;      // link-speed: bit/s, kMinLinkBps to kMaxLinkBps
  std::uint32_t queue_frames = 0;  // tx-ring: the smallest Tx queue, frames (descriptors)
  std::uint32_t frame_bytes = kMaxStandardFrameBytes;      // frame-bytes: planned frame, FCS incl.
  std::uint32_t reserve_percent = kDefaultReservePercent;  // reserve-percent: kept queued, 0-99
};

// The result: what to program, and the numbers it came from.
struct TxCoalesce {
  std::uint64_t link_bps = 0;           // link speed, bit/s
  Duration wire_time{};                 // one planned frame on the wire, rounded down to ns
  std::uint64_t frames_per_second = 0;  // line rate for that frame, rounded down
  std::uint32_t usable_frames = 0;      // frames that may complete before the interrupt
  Duration timeout{};                   // usable_frames x exact wire time, rounded down to ns
  std::uint32_t tx_usecs = 0;           // ethtool tx-usecs: timeout in whole us, rounded down
  std::uint32_t tx_frames = 0;          // ethtool tx-frames: usable_frames
  friend constexpr bool operator==(const TxCoalesce&, const TxCoalesce&) = default;
};

// The calculation on a valid config (precondition; plan() checks it).
constexpr TxCoalesce compute(const TxConfig& c) {
  TxCoalesce r;
  r.link_bps = c.link_bps;
  r.wire_time = wire_time(c.link_bps, c.frame_bytes);
  r.frames_per_second = frames_per_second(c.link_bps, c.frame_bytes);
  r.usable_frames = usable_frames(c.queue_frames, c.reserve_percent);
  r.timeout = tx_timeout(c.link_bps, c.queue_frames, c.frame_bytes, c.reserve_percent);
  r.tx_usecs = tx_usecs(r.timeout);
  r.tx_frames = r.usable_frames;
  return r;
}

// Validates `config` at the configuration edge, then computes. The Error's key is the field's
// name in TxConfig's comment (link-speed, tx-ring, frame-bytes, reserve-percent).
Expected<TxCoalesce> plan(const TxConfig& config);

// Link speeds of the precomputed table, bit/s: enetc's 10 Mbit/s to 2.5 Gbit/s and on to 100G.
inline constexpr std::array<std::uint64_t, 10> kTableSpeeds = {
    10'000'000,     100'000'000,    1'000'000'000,  2'500'000'000,  5'000'000'000,
    10'000'000'000, 25'000'000'000, 40'000'000'000, 50'000'000'000, 100'000'000'000};

// A table for any queue, frame and reserve. Precondition: they make a valid TxConfig (plan())
// at every speed of kTableSpeeds.
constexpr std::array<TxCoalesce, kTableSpeeds.size()> make_table(
    std::uint32_t queue_frames, std::uint32_t frame_bytes,
    std::uint32_t reserve_percent = kDefaultReservePercent) {
  std::array<TxCoalesce, kTableSpeeds.size()> table{};
  for (std::size_t i = 0; i < kTableSpeeds.size(); ++i)
    table[i] = compute(TxConfig{kTableSpeeds[i], queue_frames, frame_bytes, reserve_percent});
  return table;
}

// The precomputed values Manoil asks for: a 256-frame ring (kReferenceQueueFrames), full-size
// 1518 B frames, half kept in reserve, so tx-frames = 128 (enetc's ENETC_TXIC_PKTTHR) and
// tx-usecs = 128 x 12304 bit / speed: 157491 us at 10 Mbit/s, 1574 us at 1 Gbit/s, 629 us at
// 2.5 Gbit/s, 157 us at 10 Gbit/s, 15 us at 100 Gbit/s.
inline constexpr std::array<TxCoalesce, kTableSpeeds.size()> kTable =
    make_table(kReferenceQueueFrames, kMaxStandardFrameBytes);

// The row of kTable for exactly `link_bps`, or nullptr when the speed is not in the table (then
// call plan() for that speed).
const TxCoalesce* find_in_table(std::uint64_t link_bps);

}  // namespace irqmod::tx_coalesce
