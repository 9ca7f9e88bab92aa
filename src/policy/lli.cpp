// Low-latency interrupts: validation at the edge, classification, and the RDMTS / GPIE / EITR
// encodings checked at compile time.
#include "irqmod/policy/lli.hpp"

#include <cassert>
#include <string>

namespace irqmod::lli {
namespace {

// Seed 004: the longest LLI interval is 60 us, "16 666 intr/s".
static_assert(kMaxLlInterval == microseconds(60));
static_assert(seconds(1) / kMaxLlInterval == 16666);
// The drivers' "0xf << IXGBE_GPIE_LLI_DELAY_SHIFT" is the maximum interval.
static_assert(Config{}.gpie_ll_interval_bits() == (0xFU << 7));
// RDMTS: 64 descriptors is field value 1; the largest threshold fills the mask.
static_assert(Config{}.srrctl_rdmts_bits() == (1U << 22));
static_assert((kMaxRingThreshold / kRdmtsUnitDescriptors) << kSrrctlRdmtsShift == kSrrctlRdmtsMask);

std::string duration_text(Duration d) {
  return std::to_string(d.count()) + " ns";
}

std::optional<Error> check_matcher(const Matcher& m, std::size_t index) {
  const std::string where = "filter " + std::to_string(index + 1) + ": ";
  switch (m.cause) {
    case Cause::ring_low:
      return Error{"filters", where +
                                  "ring_low is not a filter; set ring-threshold instead "
                                  "(allowed filters: port, tcp_push, size, vlan_priority, "
                                  "ethertype)"};
    case Cause::port:
      if (m.value == 0)
        return Error{"LLIPort", where + "port 0 is not allowed; 1-65535 (0 means off)"};
      return std::nullopt;
    case Cause::tcp_push:
      return std::nullopt;
    case Cause::size:
      if (m.value == 0 || m.value > kMaxLliSize)
        return Error{"LLISize", where + "size " + std::to_string(m.value) +
                                    " is not allowed; 1-1500 bytes (0 means off)"};
      return std::nullopt;
    case Cause::vlan_priority:
      if (m.value == 0 || m.value > kMaxLliVlanPriority)
        return Error{"LLIVLANP", where + "priority " + std::to_string(m.value) +
                                     " is not allowed; 1-7 (0 means off)"};
      return std::nullopt;
    case Cause::ethertype:
      if (m.value == 0 || m.value > kMaxLliEtherType)
        return Error{"LLIEType", where + "EtherType " + std::to_string(m.value) +
                                     " is not allowed; 1-0x8fff (0 means off)"};
      return std::nullopt;
  }
  return Error{"filters", where + "unknown cause"};
}

}  // namespace

std::string_view to_string(Cause cause) {
  switch (cause) {
    case Cause::ring_low:
      return "ring_low";
    case Cause::port:
      return "port";
    case Cause::tcp_push:
      return "tcp_push";
    case Cause::size:
      return "size";
    case Cause::vlan_priority:
      return "vlan_priority";
    case Cause::ethertype:
      return "ethertype";
  }
  return "?";
}

Expected<Config> make_config(const Settings& settings) {
  if (settings.ring_threshold % kRdmtsUnitDescriptors != 0 ||
      settings.ring_threshold > kMaxRingThreshold) {
    return Error{"ring-threshold",
                 std::to_string(settings.ring_threshold) +
                     " descriptors is not allowed; a multiple of 64 from 0 to 448 (SRRCTL.RDMTS "
                     "holds 0-7 units of 64; 0 turns the ring trigger off)"};
  }
  const Duration interval = settings.interval;
  if (interval < Duration::zero() || interval % kLlIntervalUnit != Duration::zero() ||
      interval > kMaxLlInterval) {
    return Error{"ll-interval", duration_text(interval) +
                                    " is not allowed; a multiple of 4 us from 0 to 60 us (GPIE "
                                    "LL Interval 0-15; 0 leaves LLIs unmoderated)"};
  }
  if (settings.filters.size() > kMaxMatchers) {
    return Error{"filters",
                 std::to_string(settings.filters.size()) + " filters is too many; at most 8"};
  }
  Config config;
  config.ring_threshold = settings.ring_threshold;
  config.interval = interval;
  config.hold = settings.hold;
  for (std::size_t i = 0; i < settings.filters.size(); ++i) {
    if (std::optional<Error> error = check_matcher(settings.filters[i], i)) return *error;
    config.matchers[i] = settings.filters[i];
  }
  config.matcher_count = static_cast<std::uint8_t>(settings.filters.size());
  return config;
}

std::optional<Cause> classify(const Config& config, std::uint32_t free_descriptors,
                              const PacketInfo& packet) {
  if (free_descriptors < config.ring_threshold) return Cause::ring_low;
  for (const Matcher& m : config.filters()) {
    if (m.matches(packet)) return m.cause;
  }
  return std::nullopt;
}

LowLatencyInterrupts::LowLatencyInterrupts(const Config& config)
    : config_(config), throttle_(config.interval) {
  assert(config.ring_threshold % kRdmtsUnitDescriptors == 0 &&
         config.ring_threshold <= kMaxRingThreshold && "use make_config");
  assert(config.interval >= Duration::zero() && config.interval <= kMaxLlInterval &&
         config.interval % kLlIntervalUnit == Duration::zero() && "use make_config");
  assert(config.matcher_count <= kMaxMatchers && "use make_config");
}

}  // namespace irqmod::lli
