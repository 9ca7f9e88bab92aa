// The MSI-X table. See msix.hpp.
#include "sim/irq/msix.hpp"

#include <string>

namespace irqmod::sim {

MsixTable::MsixTable(World& world, Duration cost) : world_(world), cost_(cost) {
  entries_.reserve(256);
}

std::uint32_t MsixTable::add(Core& core, IrqHandler handler) {
  const auto vector = static_cast<std::uint32_t>(entries_.size());
  entries_.push_back(Entry{this, vector, &core, handler});
  return vector;
}

void MsixTable::raise(std::uint32_t vector, bool software) {
  Entry& entry = entries_[vector];
  world_.report.interrupts.count(vector);
  if (world_.trace) {
    world_.trace->instant(kTraceCpu, entry.core->index(),
                          software ? "interrupt (software)" : "interrupt", "interrupt",
                          world_.now());
  }
  entry.core->push(job_of(entry), Level::hardirq);
}

std::optional<Segment> MsixTable::Entry::start(Core&) {
  return Segment{table->cost_, ContextKind::hardirq, "hardirq"};
}

std::optional<Segment> MsixTable::Entry::next(Core& on) {
  handler.handle(handler.self, on);
  return std::nullopt;
}

}  // namespace irqmod::sim
