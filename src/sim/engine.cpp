// The engine's slow paths: compaction and the two fatal errors, kept out of line.
#include "irqmod/sim/engine.hpp"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>

namespace irqmod::sim {

void Engine::purge_stale() {
  settle_top();
  heap_.erase_if([this](const Event& event) {
    return event.slot != 0 && slots_[event.slot - 1].armed_order != event.order;
  });
  stale_ = 0;
  ++stats_.purges;
}

void Engine::time_ran_backwards(std::int64_t at_ns_value) const {
  std::fprintf(stderr,
               "irqmod sim: event scheduled at %" PRId64 " ns, before now = %" PRId64
               " ns: time never runs backwards\n",
               at_ns_value, now_ns_);
  std::abort();
}

void Engine::sequence_exhausted() {
  std::fprintf(stderr, "irqmod sim: more than 2^48 events scheduled; sequence numbers exhausted\n");
  std::abort();
}

}  // namespace irqmod::sim
