// The frames of the peer's generators as they reach one port: every generator (one per [traffic]
// or [[flow]] entry that sends a stream) offers its next frame; the earliest offer goes on the
// shared wire next (ties: the entry listed first), so several generators are serialised on one
// link the way one sender's NIC would. Each entry's frames take its 4-tuples in turn
// (traffic.flows), and each offer may be delayed by the entry's arrival jitter.
//
// No event per frame: the port asks for every arrival up to the time of the event it handles.
// With one generator the loop visits its variant once per batch; with several, once per frame.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "irqmod/sim/distribution.hpp"
#include "irqmod/sim/link.hpp"
#include "irqmod/sim/random.hpp"
#include "irqmod/sim/traffic.hpp"

namespace irqmod::sim {

class LinkArrivals {
 public:
  explicit LinkArrivals(Link link) : link_(link) {}

  // A generator whose frames take the 4-tuples first_tuple .. first_tuple + tuples - 1 in turn.
  // `rng` is its own stream; `jitter` delays each offer (drawn from `jitter_rng`; a constant
  // draws nothing). Add every source, then start().
  void add_source(Generator generator, Rng rng, std::uint32_t first_tuple, std::uint32_t tuples,
                  Distribution jitter, Rng jitter_rng);
  // Puts the first frame on the wire. Before it, next_arrival() is Instant::max().
  void start() { transmit_earliest(); }

  bool empty() const { return sources_.empty(); }

  // When the next frame arrives; Instant::max() when every generator has finished.
  Instant next_arrival() const {
    return next_.arrival_ns == kNever ? Instant::max() : at_ns(next_.arrival_ns);
  }

  // Hands every frame arriving at or before `until` to sink(const Packet&), in arrival order.
  template <typename Sink>
  std::uint64_t take_until(Instant until, Sink&& sink) {
    const std::int64_t until_ns = ns_since_epoch(until);
    std::uint64_t n = 0;
    if (sources_.size() == 1) {
      Source& only = sources_.front();
      n = std::visit(
          [&](auto& g) {
            std::uint64_t taken = 0;
            while (next_.arrival_ns <= until_ns) {
              sink(static_cast<const Packet&>(next_));
              ++taken;
              only.offer = only.draw(g);
              transmit(only);
            }
            return taken;
          },
          only.generator);
    } else {
      while (next_.arrival_ns <= until_ns) {
        sink(static_cast<const Packet&>(next_));
        ++n;
        Source& sent = sources_[sent_];
        sent.offer = std::visit([&](auto& g) { return sent.draw(g); }, sent.generator);
        transmit_earliest();
      }
    }
    taken_ += n;
    return n;
  }

  std::uint64_t taken() const { return taken_; }  // frames handed out so far
  const Link& link() const { return link_; }

 private:
  struct Source {
    Generator generator;
    Rng rng;
    std::uint32_t first_tuple = 0;
    std::uint32_t tuples = 1;
    std::uint32_t next_tuple = 0;  // offset of the next frame's tuple
    Distribution jitter;
    Rng jitter_rng;
    Offer offer;  // the generator's next frame, not yet on the wire

    template <typename G>
    Offer draw(G& g) {
      Offer o = g.next(rng);
      if (o.time_ps != kNever)
        o.time_ps += jitter.draw(jitter_rng).count() * kPicosecondsPerNanosecond;
      return o;
    }
  };

  // Puts `source`'s offer on the wire as the next arrival.
  void transmit(Source& source) {
    if (source.offer.time_ps == kNever) {
      next_ = Packet{kNever, 0, 0};
      return;
    }
    const std::int64_t arrival_ps = link_.transmit(source.offer.time_ps, source.offer.frame_bytes);
    next_ = Packet{arrival_ps / kPicosecondsPerNanosecond, source.offer.frame_bytes,
                   source.first_tuple + source.next_tuple};
    if (++source.next_tuple == source.tuples) source.next_tuple = 0;
  }
  void transmit_earliest();

  Link link_;
  std::vector<Source> sources_;
  std::size_t sent_ = 0;  // the source whose offer is next_
  Packet next_{kNever, 0, 0};
  std::uint64_t taken_ = 0;
};

}  // namespace irqmod::sim
