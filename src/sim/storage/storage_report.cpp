// The report's storage section, held by the public RunReport by name only: its members are
// instantiated here, where the type is complete. See storage_report.hpp.
#include "sim/storage/storage_report.hpp"

namespace irqmod::sim {

template class OptionalSection<StorageCounters>;

}  // namespace irqmod::sim
