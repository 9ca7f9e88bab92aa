// Coalescing with ethtool semantics: validation, the ethtool -C style parser and the rate-band
// sampler. The per-completion state machine is inline in the header.
#include "irqmod/policy/coalesce.hpp"

#include <cassert>
#include <charconv>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace irqmod::coalesce {
namespace {

// Rate arithmetic needs packets * 1e9 before dividing by nanoseconds: up to 2^94.
__extension__ typedef unsigned __int128 Uint128;

constexpr std::uint64_t kNanosecondsPerSecond = 1'000'000'000;
constexpr std::uint64_t kMaxU32 = std::numeric_limits<std::uint32_t>::max();

using NumberField = std::uint32_t& (*)(Settings&);
using FlagField = bool& (*)(Settings&);

// One ethtool -C parameter: a u32 number or an on/off flag.
struct Key {
  std::string_view name;  // the ethtool -C name
  NumberField number;     // the field it sets, when a number
  FlagField flag;         // the field it sets, when a flag
};

constexpr Key number_key(std::string_view name, NumberField field) {
  return {name, field, nullptr};
}
constexpr Key flag_key(std::string_view name, FlagField field) {
  return {name, nullptr, field};
}

// In struct ethtool_coalesce order, which is also ethtool -c's.
constexpr std::array kKeys = {
    number_key(
        "rx-usecs", [](Settings& s) -> auto& { return s.rx.normal.usecs; }),
    number_key(
        "rx-frames", [](Settings& s) -> auto& { return s.rx.normal.frames; }),
    number_key(
        "rx-usecs-irq", [](Settings& s) -> auto& { return s.rx.irq.usecs; }),
    number_key(
        "rx-frames-irq", [](Settings& s) -> auto& { return s.rx.irq.frames; }),
    number_key(
        "tx-usecs", [](Settings& s) -> auto& { return s.tx.normal.usecs; }),
    number_key(
        "tx-frames", [](Settings& s) -> auto& { return s.tx.normal.frames; }),
    number_key(
        "tx-usecs-irq", [](Settings& s) -> auto& { return s.tx.irq.usecs; }),
    number_key(
        "tx-frames-irq", [](Settings& s) -> auto& { return s.tx.irq.frames; }),
    flag_key(
        "adaptive-rx", [](Settings& s) -> auto& { return s.rx.adaptive; }),
    flag_key(
        "adaptive-tx", [](Settings& s) -> auto& { return s.tx.adaptive; }),
    number_key(
        "pkt-rate-low", [](Settings& s) -> auto& { return s.pkt_rate_low; }),
    number_key(
        "rx-usecs-low", [](Settings& s) -> auto& { return s.rx.low.usecs; }),
    number_key(
        "rx-frames-low", [](Settings& s) -> auto& { return s.rx.low.frames; }),
    number_key(
        "tx-usecs-low", [](Settings& s) -> auto& { return s.tx.low.usecs; }),
    number_key(
        "tx-frames-low", [](Settings& s) -> auto& { return s.tx.low.frames; }),
    number_key(
        "pkt-rate-high", [](Settings& s) -> auto& { return s.pkt_rate_high; }),
    number_key(
        "rx-usecs-high", [](Settings& s) -> auto& { return s.rx.high.usecs; }),
    number_key(
        "rx-frames-high", [](Settings& s) -> auto& { return s.rx.high.frames; }),
    number_key(
        "tx-usecs-high", [](Settings& s) -> auto& { return s.tx.high.usecs; }),
    number_key(
        "tx-frames-high", [](Settings& s) -> auto& { return s.tx.high.frames; }),
    number_key(
        "sample-interval", [](Settings& s) -> auto& { return s.sample_interval; }),
};

constexpr auto kNames = [] {
  std::array<std::string_view, kKeys.size()> names{};
  for (std::size_t i = 0; i < kKeys.size(); ++i)
    names[i] = kKeys[i].name;
  return names;
}();

// "text", quoted, for error messages.
std::string quoted(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out += '"';
  out += text;
  out += '"';
  return out;
}

const Key* find_key(std::string_view name) {
  for (const Key& key : kKeys)
    if (key.name == name) return &key;
  return nullptr;
}

std::string allowed_keys() {
  std::string list;
  for (const std::string_view name : kNames) {
    if (!list.empty()) list += ", ";
    list += name;
  }
  return list;
}

constexpr std::string_view kAllowedNumber = "allowed: a decimal integer from 0 to 4294967295";
constexpr std::string_view kAllowedFlag = "allowed: on or off";

// Both criteria of a pair off: ethtool.h calls it illegal, as no interrupt would ever fire.
// `band` is "", "-low" or "-high"; `when` says why the band is in use.
Error zero_pair_error(std::string_view direction, std::string_view band, std::string_view when) {
  const std::string usecs = std::string(direction) + "-usecs" + std::string(band);
  const std::string frames = std::string(direction) + "-frames" + std::string(band);
  return Error{usecs, usecs + " and " + frames + " are both 0" + std::string(when) +
                          ", so no interrupt would ever fire; allowed: " + usecs + " > 0 or " +
                          frames + " > 0 (" + usecs + " 0 " + frames + " 1 disables coalescing)"};
}

std::optional<Error> check_direction(const DirectionSettings& d, std::string_view direction,
                                     const Settings& s) {
  constexpr Thresholds kOff{};
  if (d.normal == kOff) return zero_pair_error(direction, "", "");
  if (!d.adaptive) return std::nullopt;
  const std::string adaptive_on = " with adaptive-" + std::string(direction) + " on";
  if (s.pkt_rate_low != 0 && d.low == kOff)
    return zero_pair_error(direction, "-low", adaptive_on + " and pkt-rate-low > 0");
  if (s.pkt_rate_high != 0 && d.high == kOff)
    return zero_pair_error(direction, "-high", adaptive_on + " and pkt-rate-high > 0");
  return std::nullopt;
}

}  // namespace

std::optional<Error> validate(const Settings& settings) {
  if (auto error = check_direction(settings.rx, "rx", settings)) return error;
  if (auto error = check_direction(settings.tx, "tx", settings)) return error;
  if (!settings.rx.adaptive && !settings.tx.adaptive) return std::nullopt;
  if (settings.sample_interval == 0)
    return Error{"sample-interval",
                 "is 0 with adaptive-rx or adaptive-tx on, so the packet rate is never sampled; "
                 "allowed: 1 to 4294967295 (seconds)"};
  if (settings.pkt_rate_low != 0 && settings.pkt_rate_high != 0 &&
      settings.pkt_rate_low >= settings.pkt_rate_high)
    return Error{"pkt-rate-low",
                 std::to_string(settings.pkt_rate_low) + " is not below pkt-rate-high (" +
                     std::to_string(settings.pkt_rate_high) +
                     "); allowed: pkt-rate-low < pkt-rate-high (packets per second), or 0 to "
                     "turn either band off"};
  return std::nullopt;
}

std::span<const std::string_view> parameter_names() {
  return kNames;
}

Expected<Settings> parse_tokens(std::span<const std::string_view> tokens, const Settings& base) {
  Settings settings = base;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    std::string_view name = tokens[i];
    std::optional<std::string_view> value;
    if (const std::size_t eq = name.find('='); eq != std::string_view::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    } else if (i + 1 < tokens.size()) {
      value = tokens[++i];
    }
    const Key* key = find_key(name);
    if (key == nullptr)
      return Error{std::string(name), "unknown coalescing parameter; allowed: " + allowed_keys()};
    const std::string allowed{key->number != nullptr ? kAllowedNumber : kAllowedFlag};
    if (!value || value->empty()) return Error{std::string(name), "missing value; " + allowed};

    if (key->flag != nullptr) {
      if (*value != "on" && *value != "off")
        return Error{std::string(name), quoted(*value) + " is not a flag; " + allowed};
      key->flag(settings) = *value == "on";
      continue;
    }
    std::uint64_t number = 0;
    const char* end = value->data() + value->size();
    const auto [ptr, ec] = std::from_chars(value->data(), end, number);
    const bool digits_only = ec != std::errc::invalid_argument && ptr == end;
    if (!digits_only)
      return Error{std::string(name), quoted(*value) + " is not a number; " + allowed};
    if (ec == std::errc::result_out_of_range || number > kMaxU32)
      return Error{std::string(name), std::string(*value) + " is out of range; " + allowed};
    key->number(settings) = static_cast<std::uint32_t>(number);
  }
  if (auto error = validate(settings)) return *std::move(error);
  return settings;
}

Expected<Settings> parse_settings(std::string_view text, const Settings& base) {
  constexpr std::string_view kSpace = " \t\n\r\f\v";
  std::vector<std::string_view> tokens;
  while (true) {
    const std::size_t start = text.find_first_not_of(kSpace);
    if (start == std::string_view::npos) break;
    text.remove_prefix(start);
    const std::size_t stop = text.find_first_of(kSpace);
    tokens.push_back(text.substr(0, stop));
    if (stop == std::string_view::npos) break;
    text.remove_prefix(stop);
  }
  return parse_tokens(tokens, base);
}

std::string_view to_string(Band band) {
  switch (band) {
    case Band::low:
      return "low";
    case Band::normal:
      return "normal";
    case Band::high:
      return "high";
  }
  return "?";
}

std::optional<std::uint64_t> packets_per_second(std::uint64_t packets, Duration elapsed) {
  if (elapsed <= Duration::zero()) return std::nullopt;
  const Uint128 rate =
      Uint128{packets} * kNanosecondsPerSecond / static_cast<std::uint64_t>(elapsed.count());
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  return rate > kMax ? kMax : static_cast<std::uint64_t>(rate);
}

Coalescer::Coalescer(const Settings& settings, Direction direction)
    : irq_(settings.direction(direction).irq),
      irq_set_(irq_ != Thresholds{}),
      adaptive_(settings.direction(direction).adaptive),
      cqe_mode_(settings.direction(direction).cqe_mode),
      direction_(direction),
      pkt_rate_low_(settings.pkt_rate_low),
      pkt_rate_high_(settings.pkt_rate_high) {
  assert(!validate(settings) && "Coalescer needs validated settings; use Coalescer::create");
  const DirectionSettings& d = settings.direction(direction);
  bands_[static_cast<std::size_t>(Band::low)] = d.low;
  bands_[static_cast<std::size_t>(Band::normal)] = d.normal;
  bands_[static_cast<std::size_t>(Band::high)] = d.high;
  if (adaptive_) sample_interval_ = seconds(settings.sample_interval);
}

Expected<Coalescer> Coalescer::create(const Settings& settings, Direction direction) {
  if (auto error = validate(settings)) return *std::move(error);
  return Coalescer(settings, direction);
}

// Strict comparisons, as ethtool.h words it: "below pkt_rate_low", "above pkt_rate_high".
Band Coalescer::select_band(std::uint64_t rate_pps) const {
  if (!adaptive_) return Band::normal;
  if (pkt_rate_low_ != 0 && rate_pps < pkt_rate_low_) return Band::low;
  if (pkt_rate_high_ != 0 && rate_pps > pkt_rate_high_) return Band::high;
  return Band::normal;
}

SampleResult Coalescer::on_sample(Instant now, std::uint64_t cumulative_packets) {
  if (!has_window_) {
    has_window_ = true;
    window_start_ = now;
    window_packets_ = cumulative_packets;
    return SampleResult{false, false, band_, 0};
  }
  // Modular delta: correct across one wrap of the cumulative counter.
  const std::uint64_t packets = cumulative_packets - window_packets_;
  const std::optional<std::uint64_t> rate = packets_per_second(packets, now - window_start_);
  if (!rate) return SampleResult{false, false, band_, 0};
  window_start_ = now;
  window_packets_ = cumulative_packets;
  const Band next = select_band(*rate);
  const bool changed = next != band_;
  if (changed) ++band_changes_;
  band_ = next;
  return SampleResult{true, changed, band_, *rate};
}

}  // namespace irqmod::coalesce
