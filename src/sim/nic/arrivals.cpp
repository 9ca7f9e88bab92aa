// Generators merged on one wire. See arrivals.hpp.
#include "sim/nic/arrivals.hpp"

namespace irqmod::sim {

void LinkArrivals::add_source(Generator generator, Rng rng, std::uint32_t first_tuple,
                              std::uint32_t tuples, Distribution jitter, Rng jitter_rng) {
  sources_.push_back(
      Source{std::move(generator), rng, first_tuple, tuples, 0, jitter, jitter_rng, Offer{}});
  Source& added = sources_.back();
  added.offer = std::visit([&](auto& g) { return added.draw(g); }, added.generator);
}

void LinkArrivals::transmit_earliest() {
  // Called at start() and right after next_ was handed out.
  if (sources_.size() == 1) {
    sent_ = 0;
    transmit(sources_.front());
    return;
  }
  std::size_t earliest = 0;
  for (std::size_t i = 1; i < sources_.size(); ++i) {
    if (sources_[i].offer.time_ps < sources_[earliest].offer.time_ps) earliest = i;
  }
  sent_ = earliest;
  transmit(sources_[earliest]);
}

}  // namespace irqmod::sim
