// The MSI-X table. See msix.hpp.
#include "sim/irq/msix.hpp"

#include <string>

namespace irqmod::sim {

MsixTable::MsixTable(World& world, Distribution entry, Distribution handler)
    : world_(world), entry_cost_(entry), handler_cost_(handler) {}

std::uint32_t MsixTable::add(Core& core, IrqHandler handler) {
  const auto vector = static_cast<std::uint32_t>(entries_.size());
  entries_.push_back(Entry{this, vector, &core, handler});
  return vector;
}

void MsixTable::raise(std::uint32_t vector, bool software) {
  Entry& entry = entries_[vector];
  world_.report.interrupts.count(vector);
  ++world_.report.cores[entry.core->index()].device_irqs;
  if (world_.trace) {
    world_.trace->instant(kTraceCpu, entry.core->index(),
                          software ? "interrupt (software)" : "interrupt", "interrupt",
                          world_.now());
  }
  entry.core->push(job_of(entry), Level::hardirq);
}

std::optional<Segment> MsixTable::Entry::start(Core& on) {
  return Segment{on.cost(table->entry_cost_) + on.cost(table->handler_cost_), ContextKind::hardirq,
                 "hardirq"};
}

std::optional<Segment> MsixTable::Entry::next(Core& on) {
  handler.handle(handler.self, on);
  return std::nullopt;
}

}  // namespace irqmod::sim
