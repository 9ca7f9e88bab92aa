// The report's AF_XDP section, held by the public RunReport by name only: its members are
// instantiated here, where the type is complete. See xdp_report.hpp.
#include "sim/xdp/xdp_report.hpp"

namespace irqmod::sim {

template class OptionalSection<XdpCounters>;

}  // namespace irqmod::sim
