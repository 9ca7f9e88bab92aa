// The MSI-X table: each vector's message goes to one core (its IRQ affinity). Raising a vector
// counts the interrupt (/proc/interrupts), marks it on the timeline and starts a hardirq job on
// the vector's core: interrupt entry and exit plus the driver's handler, after which the handler
// itself runs (for a NIC queue: napi_schedule on that core).
//
// A handler is bound per vector at set-up (a function and its component): the table does not
// know what it signals.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "irqmod/time.hpp"
#include "sim/cpu/core.hpp"

namespace irqmod::sim {

// The driver's hard interrupt handler, run on `core` when the hardirq job's time has passed.
struct IrqHandler {
  void (*handle)(void* self, Core& core) = nullptr;
  void* self = nullptr;
};

class MsixTable {
 public:
  // Interrupt entry and exit plus the driver's handler, charged as hardirq.
  MsixTable(World& world, Distribution entry, Distribution handler);
  MsixTable(const MsixTable&) = delete;
  MsixTable& operator=(const MsixTable&) = delete;

  // A vector whose messages go to `core`, handled by `handler`. Vectors are numbered in the order
  // they are added.
  std::uint32_t add(Core& core, IrqHandler handler);

  // The vector fired: count it and start its hardirq job. `software`: raised by a software
  // trigger alone (the trace says so).
  void raise(std::uint32_t vector, bool software);

  Core& core_of(std::uint32_t vector) { return *entries_[vector].core; }
  std::size_t vectors() const { return entries_.size(); }

 private:
  struct Entry {
    MsixTable* table = nullptr;
    std::uint32_t vector = 0;
    Core* core = nullptr;
    IrqHandler handler;
    // The hardirq job of this vector (its interrupts do not overlap: the vector is masked while
    // one is handled, and a second message waits behind the first on the core's stack).
    std::optional<Segment> start(Core& on);
    std::optional<Segment> next(Core& on);
  };

  World& world_;
  Distribution entry_cost_;
  Distribution handler_cost_;
  std::vector<Entry> entries_;  // reserved at set-up; addresses stay put once the run starts
};

}  // namespace irqmod::sim
