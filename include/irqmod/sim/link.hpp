// An Ethernet link: one frame at a time, each occupying the wire for its serialisation time
// including preamble, start frame delimiter and inter-frame gap.
//
// The conventions are those of policy/tx_coalesce.hpp, whose functions this file uses: a frame's
// size counts the Ethernet header, payload and FCS (64 B minimum, 1518 B for a 1500 B MTU), and
// the wire adds preamble + SFD (8 B) before it and the inter-frame gap (12 B) after it. 64 B at
// 10 Gbit/s is 84 B = 672 bit = 67.2 ns: 14 880 952 frames/s.
//
// Time on the link is kept in picoseconds so that 67.2 ns gaps do not drift: after a million
// frames the millionth arrives at exactly 67.2 ms. Times handed to the rest of the simulator are
// whole nanoseconds, rounded down.
#pragma once

#include <algorithm>
#include <cstdint>

#include "irqmod/error.hpp"
#include "irqmod/policy/tx_coalesce.hpp"
#include "irqmod/time.hpp"

namespace irqmod::sim {

using tx_coalesce::Picoseconds;

inline constexpr std::int64_t kPicosecondsPerNanosecond = 1000;

class Link {
 public:
  // Precondition: link_bps in [tx_coalesce::kMinLinkBps, kMaxLinkBps]; create() checks it.
  explicit Link(std::uint64_t link_bps) : bps_(link_bps) {}

  // Validates the speed ("link.speed": 10 Mbit/s to 800 Gbit/s, ethtool's SPEED_10 to
  // SPEED_800000).
  static Expected<Link> create(std::uint64_t link_bps);

  std::uint64_t bps() const { return bps_; }

  // Time the wire is busy with one frame: preamble + SFD + frame + inter-frame gap.
  // Precondition: frame_bytes <= tx_coalesce::kMaxFrameBytes.
  std::int64_t occupancy_ps(std::uint32_t frame_bytes) const {
    return tx_coalesce::wire_time_ps(bps_, frame_bytes).count();
  }

  // Time from the first preamble bit to the frame's last bit (its FCS): when the receiver has
  // the whole frame. The inter-frame gap follows it.
  std::int64_t reception_ps(std::uint32_t frame_bytes) const {
    return static_cast<std::int64_t>((std::uint64_t{frame_bytes} + tx_coalesce::kPreambleSfdBytes) *
                                     8 * 1'000'000'000'000 / bps_);
  }

  // Sends a frame the sender offers at `offered_ps`: it starts when both the sender has it and
  // the wire is free, and the wire stays busy until the end of its inter-frame gap. Returns when
  // the frame's last bit reaches the receiver, in picoseconds.
  std::int64_t transmit(std::int64_t offered_ps, std::uint32_t frame_bytes) {
    const std::int64_t start = std::max(offered_ps, free_at_ps_);
    free_at_ps_ = start + occupancy_ps(frame_bytes);
    ++frames_;
    bytes_ += frame_bytes;
    return start + reception_ps(frame_bytes);
  }

  std::int64_t free_at_ps() const { return free_at_ps_; }  // when the wire is next idle
  std::uint64_t frames() const { return frames_; }         // frames sent
  std::uint64_t bytes() const { return bytes_; }           // frame bytes sent (FCS included)

 private:
  std::uint64_t bps_;
  std::int64_t free_at_ps_ = 0;
  std::uint64_t frames_ = 0;
  std::uint64_t bytes_ = 0;
};

}  // namespace irqmod::sim
