// Traffic generators and the arrival stream that carries them over a link.
//
// A generator is a "next offer" function: when the sender next wants to send a frame, and its
// size. The ArrivalStream puts each offer on a Link (which serialises it behind the frames
// before) and hands the resulting arrivals to a sink in a loop, as many as happen up to a given
// time. No event is scheduled per packet: the NIC model asks for every arrival up to the time of
// the event it is handling and lands them in its descriptor ring in one batch. That is exact
// because between two events a ring only fills (nothing drains it but the CPU, whose work is an
// event), so a frame finds the ring full or not regardless of when the batch is landed.
//
// Generators are alternatives of a std::variant: the stream visits once per batch and loops
// inside, so the per-packet step is a direct call, never a virtual one.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "irqmod/error.hpp"
#include "irqmod/sim/link.hpp"
#include "irqmod/sim/random.hpp"
#include "irqmod/time.hpp"

namespace irqmod::sim {

// A time that never comes: the generator has nothing more to send.
inline constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();

inline constexpr std::int64_t kPicosecondsPerSecond = 1'000'000'000'000;

// What a generator wants to send next.
struct Offer {
  std::int64_t time_ps = kNever;  // when the sender has the frame ready; kNever: no more frames
  std::uint32_t frame_bytes = 0;  // frame size, FCS included (tx_coalesce.hpp's convention)
};

// One frame as the receiver sees it.
struct Packet {
  std::int64_t arrival_ns = 0;    // when its last bit reached the NIC, ns since the epoch
  std::uint32_t frame_bytes = 0;  // frame size, FCS included
  std::uint32_t flow = 0;         // which stream sent it (ArrivalStream's flow number)
  // A lab server's reply: when its sendto handed it to the device (Stack::send_reply), ns since
  // the epoch, so the client can split the round trip; 0 on every other frame.
  std::int64_t replied_ns = 0;
};

// An exact gap between offers: 1e12 / rate picoseconds, kept as quotient and remainder so that
// k gaps add up to exactly k x 1e12 / rate (rounded down), with no drift over a long run.
class Spacing {
 public:
  // `rate` offers per second. Precondition: rate > 0.
  static Spacing per_second(std::uint64_t rate) {
    return Spacing(kPicosecondsPerSecond / static_cast<std::int64_t>(rate),
                   static_cast<std::uint64_t>(kPicosecondsPerSecond) % rate, rate);
  }
  // A whole number of picoseconds, e.g. a frame's time on the wire (back to back at line rate).
  static Spacing fixed(std::int64_t gap_ps) { return Spacing(gap_ps, 0, 1); }

  // The next gap.
  std::int64_t next() {
    remainder_acc_ += remainder_;
    if (remainder_acc_ >= denominator_) {
      remainder_acc_ -= denominator_;
      return whole_ps_ + 1;
    }
    return whole_ps_;
  }

  std::int64_t whole_ps() const { return whole_ps_; }

 private:
  Spacing(std::int64_t whole_ps, std::uint64_t remainder, std::uint64_t denominator)
      : whole_ps_(whole_ps), remainder_(remainder), denominator_(denominator) {}

  std::int64_t whole_ps_;
  std::uint64_t remainder_;
  std::uint64_t denominator_;
  std::uint64_t remainder_acc_ = 0;
};

// Frames of one size at a constant rate, the first at `start_ps`.
class ConstantRate {
 public:
  ConstantRate(Spacing spacing, std::uint32_t frame_bytes, std::int64_t start_ps = 0)
      : spacing_(spacing), frame_bytes_(frame_bytes), next_ps_(start_ps) {}

  Offer next(Rng&) {
    const Offer offer{next_ps_, frame_bytes_};
    next_ps_ += spacing_.next();
    return offer;
  }

 private:
  Spacing spacing_;
  std::uint32_t frame_bytes_;
  std::int64_t next_ps_;
};

// Frames of one size with exponential gaps (a Poisson process of `rate` per second); the first
// one an exponential gap after `start_ps`. Gaps are rounded to whole picoseconds.
class Poisson {
 public:
  // Precondition: rate > 0.
  Poisson(std::uint64_t rate, std::uint32_t frame_bytes, std::int64_t start_ps = 0)
      : mean_gap_ps_(static_cast<double>(kPicosecondsPerSecond) / static_cast<double>(rate)),
        frame_bytes_(frame_bytes),
        last_ps_(start_ps) {}

  Offer next(Rng& rng) {
    last_ps_ += static_cast<std::int64_t>(rng.exponential(mean_gap_ps_) + 0.5);
    return Offer{last_ps_, frame_bytes_};
  }

 private:
  double mean_gap_ps_;
  std::uint32_t frame_bytes_;
  std::int64_t last_ps_;
};

// Bursts: during `on_ps` frames follow each other at `spacing`, then nothing for `off_ps`, and
// again. Every burst starts on its period boundary (start + k x (on + off)), so bursts never
// drift, and a burst sends every frame whose offer time falls inside its on time.
class OnOff {
 public:
  // Preconditions: on_ps > 0, off_ps >= 0.
  OnOff(Spacing spacing, std::uint32_t frame_bytes, std::int64_t on_ps, std::int64_t off_ps,
        std::int64_t start_ps = 0)
      : spacing_(spacing),
        frame_bytes_(frame_bytes),
        on_ps_(on_ps),
        period_ps_(on_ps + off_ps),
        burst_start_ps_(start_ps),
        next_ps_(start_ps) {}

  Offer next(Rng&) {
    if (next_ps_ >= burst_start_ps_ + on_ps_) {
      burst_start_ps_ += period_ps_;
      next_ps_ = burst_start_ps_;
    }
    const Offer offer{next_ps_, frame_bytes_};
    next_ps_ += spacing_.next();
    return offer;
  }

 private:
  Spacing spacing_;
  std::uint32_t frame_bytes_;
  std::int64_t on_ps_;
  std::int64_t period_ps_;
  std::int64_t burst_start_ps_;
  std::int64_t next_ps_;
};

// One frame of a recorded trace.
struct TraceRecord {
  std::int64_t offset_ns = 0;     // capture time minus the first frame's, ns (never decreasing)
  std::uint32_t frame_bytes = 0;  // frame size on the wire, FCS included
};

// A capture's timestamps and frame sizes, loaded once.
struct Trace {
  std::string file;                  // where it came from, for messages
  std::vector<TraceRecord> records;  // in capture order; at least one
};

// Reads a pcap or pcapng capture of Ethernet frames (DLT_EN10MB) through libpcap, timestamps at
// nanosecond precision. A captured frame's size is its original length (`len`, not the snapped
// `caplen`) plus the 4-byte FCS, which captures leave out; runts are padded to 64 B as the wire
// pads them. Errors name the file (Error::key) and, for a bad frame, its 1-based number: a file
// libpcap cannot open or read, another link type, a timestamp earlier than the one before, a
// frame larger than tx_coalesce::kMaxFrameBytes (a capture taken above TSO/GRO), no frame at all.
Expected<Trace> load_pcap(const std::string& path);

// Replays a trace: frame i is offered at start + its offset. Without `loop`, offers stop (kNever)
// after the last frame. With `loop`, the trace starts again one average gap after its last frame:
// period = span + span / (frames - 1), rounded down to ns; a one-frame trace repeats every 1 s
// (it has no gap to average), and a trace whose frames share one timestamp repeats back to back.
class TraceReplay {
 public:
  TraceReplay(std::shared_ptr<const Trace> trace, bool loop, std::int64_t start_ps = 0);

  Offer next(Rng&) {
    if (index_ == trace_->records.size()) {
      if (!loop_) return Offer{};
      index_ = 0;
      base_ps_ += period_ps_;
    }
    const TraceRecord& r = trace_->records[index_++];
    return Offer{base_ps_ + r.offset_ns * kPicosecondsPerNanosecond, r.frame_bytes};
  }

 private:
  std::shared_ptr<const Trace> trace_;
  bool loop_;
  std::int64_t period_ps_ = 0;
  std::int64_t base_ps_;
  std::size_t index_ = 0;
};

using Generator = std::variant<ConstantRate, Poisson, OnOff, TraceReplay>;

// A generator's frames after crossing a link: the arrivals at one NIC port.
class ArrivalStream {
 public:
  // `rng` is this stream's own (Rng(seed, stream number)); `flow` tags its packets.
  ArrivalStream(Generator generator, Link link, Rng rng, std::uint32_t flow = 0)
      : generator_(std::move(generator)), link_(link), rng_(rng), flow_(flow) {
    std::visit([this](auto& g) { advance(g); }, generator_);
  }

  // When the next frame arrives; Instant::max() when the generator has finished.
  Instant next_arrival() const {
    return next_.arrival_ns == kNever ? Instant::max() : at_ns(next_.arrival_ns);
  }

  // Hands every frame arriving at or before `until` to sink(const Packet&), in arrival order.
  // Returns how many.
  template <typename Sink>
  std::uint64_t take_until(Instant until, Sink&& sink) {
    const std::int64_t until_ns = ns_since_epoch(until);
    return std::visit(
        [&](auto& g) {
          std::uint64_t n = 0;
          while (next_.arrival_ns <= until_ns) {
            sink(static_cast<const Packet&>(next_));
            ++n;
            advance(g);
          }
          taken_ += n;
          return n;
        },
        generator_);
  }

  std::uint64_t taken() const { return taken_; }  // frames handed out so far
  const Link& link() const { return link_; }

 private:
  template <typename G>
  void advance(G& generator) {
    const Offer offer = generator.next(rng_);
    if (offer.time_ps == kNever) {
      next_ = Packet{kNever, 0, flow_};
      return;
    }
    const std::int64_t arrival_ps = link_.transmit(offer.time_ps, offer.frame_bytes);
    next_ = Packet{arrival_ps / kPicosecondsPerNanosecond, offer.frame_bytes, flow_};
  }

  Generator generator_;
  Link link_;
  Rng rng_;
  std::uint32_t flow_;
  Packet next_{};
  std::uint64_t taken_ = 0;
};

}  // namespace irqmod::sim
