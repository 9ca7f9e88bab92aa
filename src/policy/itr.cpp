// Static interrupt throttling: validation at the edge, then the header's constexpr register
// arithmetic. Messages are built only on the error path.
#include "irqmod/policy/itr.hpp"

#include <cstdint>
#include <limits>
#include <string>

namespace irqmod::itr {
namespace {

// The usecs ranges in kDevices are the ones whose 1000000 / usecs lands inside the driver's rate
// limits (82598: IXGBE_{MIN,MAX}_INT_RATE; e1000: MIN_ITR / MAX_ITR); checked here.
static_assert(1000000 / 3 <= kIxgbeMaxIntRate && 1000000 / 2 > kIxgbeMaxIntRate);
static_assert(1000000 / 1046 >= kIxgbeMinIntRate && 1000000 / 1047 < kIxgbeMinIntRate);
static_assert(1000000 / kE1000MinItrUsecs == kE1000MaxItrRate);
static_assert(1000000 / kE1000MaxItrUsecs == kE1000MinItrRate);
// The 82598 limits fit the field ixgbe shares across MACs (IXGBE_MIN_EITR .. IXGBE_MAX_EITR).
static_assert(ints_per_sec_to_256ns(kIxgbeMaxIntRate) == kIxgbeMinEitr);
static_assert(ints_per_sec_to_256ns(kIxgbeMinIntRate) <= kIxgbeEitrIntervalMask);
// The e1000 limits fit the 16-bit field.
static_assert(ints_per_sec_to_256ns(kE1000MinItrRate) <= kE1000ItrIntervalMask);
// Seed 004: 8000 interrupts/s is 0x1F0 by OpenBSD's rule, and so is Linux's 125 us.
static_assert(eitr_82599_from_rate_openbsd(kOpenbsdIntsPerSec) == 0x1F0);
static_assert(eitr_82599_from_usecs_linux(125) == 0x1F0);

char lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

bool equal_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

std::string range_text(const Range& r) {
  return std::to_string(r.min) + ".." + std::to_string(r.max);
}

Error rate_error(const Device& device, std::uint32_t rate) {
  const std::string allowed = std::string(device.name) + " accepts " + range_text(device.rate) +
                              " interrupts/s (" + std::string(device.rate_rule) + ")";
  if (rate == 0) return Error{"rate", "rate must be > 0 interrupts/s; " + allowed};
  return Error{"rate", "rate " + std::to_string(rate) +
                           " interrupts/s is outside what the register can hold or the driver "
                           "accepts; " +
                           allowed};
}

Error usecs_error(const Device& device, std::string_view value) {
  std::string message = "usecs " + std::string(value) + " is not allowed; " +
                        std::string(device.name) + " accepts " + range_text(device.usecs) + " us";
  if (device.family == Family::ice) message += ", even values only";
  if (device.family == Family::ixgbe_82599)
    message += " but 1 (ixgbe's dynamic ITR, not an interval)";
  if (device.usecs.min == 0) message += "; 0 = no throttling, as ethtool -C rx-usecs 0";
  if (device.family == Family::e1000) message += " (0..4 select driver modes, not intervals)";
  return Error{"usecs", message + " (" + std::string(device.usecs_rule) + ")"};
}

}  // namespace

Expected<Device> find_device(std::string_view name) {
  for (const Device& d : kDevices) {
    if (equal_ignoring_case(d.name, name)) return d;
  }
  std::string allowed;
  for (const Device& d : kDevices) {
    if (!allowed.empty()) allowed += ", ";
    allowed += d.name;
  }
  return Error{"device", "unknown device '" + std::string(name) + "'; allowed: " + allowed};
}

Expected<Encoding> encode_rate(const Device& device, std::uint32_t rate) {
  if (!device.rate.contains(rate)) return rate_error(device, rate);
  return decode(device, register_from_rate(device, rate));
}

Expected<Encoding> encode_rate(std::string_view device, std::uint32_t rate) {
  const Expected<Device> d = find_device(device);
  if (!d) return d.error();
  return encode_rate(*d, rate);
}

Expected<Encoding> encode_usecs(const Device& device, std::uint32_t usecs) {
  if (!usecs_allowed(device, usecs)) return usecs_error(device, std::to_string(usecs));
  return decode(device, register_from_usecs(device, usecs));
}

Expected<Encoding> encode_usecs(std::string_view device, std::uint32_t usecs) {
  const Expected<Device> d = find_device(device);
  if (!d) return d.error();
  return encode_usecs(*d, usecs);
}

Expected<Encoding> encode_interval(const Device& device, Duration interval) {
  const std::int64_t usecs = interval.count() / 1000;  // truncates toward zero, like rx-usecs
  if (interval < Duration::zero() || usecs > std::numeric_limits<std::uint32_t>::max()) {
    return usecs_error(device, std::to_string(interval.count()) + " ns");
  }
  return encode_usecs(device, static_cast<std::uint32_t>(usecs));
}

}  // namespace irqmod::itr
