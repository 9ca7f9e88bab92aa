// Constant and random durations: sampling, and the text a scenario writes them in.
#include "irqmod/sim/distribution.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "irqmod/sim/units.hpp"

namespace irqmod::sim {
namespace {

constexpr std::int64_t kLargestNs = std::numeric_limits<std::int64_t>::max();

// A lognormal draw is capped at this many times its mean (distribution.hpp says why).
constexpr std::int64_t kLognormalCapTimesMean = 1000;

constexpr std::uint32_t kPartsPerMillion = 1'000'000;

// cv 10: beyond it almost every draw is far below the mean and the mean is carried by rare
// draws near the cap, so the cap would visibly lower it.
constexpr std::uint32_t kLargestCvPpm = 10 * kPartsPerMillion;

// How each kind is written: its name, how many plain values it takes, the one named setting it
// accepts ("min=", "cv="; empty: none) and whether that setting is required.
struct KindForm {
  DistributionKind kind;
  std::string_view name;
  std::size_t values;         // plain (unnamed) values between the parentheses
  std::string_view setting;   // the named setting it takes, empty when none
  bool setting_required;      // the setting must be given
  std::string_view examples;  // how it is written, for error messages
};

constexpr std::array<KindForm, 4> kForms = {{
    {DistributionKind::constant, "constant", 1, "", false, "constant(760ns)"},
    {DistributionKind::uniform, "uniform", 2, "", false, "uniform(600ns, 900ns)"},
    {DistributionKind::exponential, "exponential", 1, "min", false,
     "exponential(760ns) or exponential(760ns, min=600ns)"},
    {DistributionKind::lognormal, "lognormal", 1, "cv", true, "lognormal(760ns, cv=0.3)"},
}};

constexpr std::string_view kAllowedForms =
    "a duration (760ns), constant(760ns), uniform(600ns, 900ns), exponential(760ns), "
    "exponential(760ns, min=600ns) or lognormal(760ns, cv=0.3)";

const KindForm& form_of(DistributionKind kind) {
  for (const KindForm& form : kForms) {
    if (form.kind == kind) return form;
  }
  return kForms[0];
}

Error failure(std::string message) {
  return Error{"", std::move(message)};
}

std::string quoted(std::string_view text) {
  return "'" + std::string(text) + "'";
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  return text;
}

// `x` (>= 0) rounded half away from zero to whole ns, and at most `largest`. The comparison
// happens in double before converting, since a double past int64's range cannot be converted.
std::int64_t round_at_most(double x, std::int64_t largest) {
  const double rounded = std::round(x);
  if (!(rounded < static_cast<double>(largest))) return largest;
  return std::min(static_cast<std::int64_t>(rounded), largest);
}

// A standard normal value by Marsaglia's polar method. One arithmetic operation per statement:
// a compiler may fuse "a * b + c" within one expression (clang does by default, and on AArch64
// the fused result differs in the last bit), which would change the stream from build to build.
double standard_normal(Rng& rng) {
  for (;;) {
    const double u = rng.uniform();
    const double v = rng.uniform();
    const double twice_u = 2.0 * u;
    const double twice_v = 2.0 * v;
    const double x = twice_u - 1.0;
    const double y = twice_v - 1.0;
    const double x_squared = x * x;
    const double y_squared = y * y;
    const double s = x_squared + y_squared;
    if (s > 0.0 && s < 1.0) {
      const double minus_twice_log = -2.0 * std::log(s);
      return x * std::sqrt(minus_twice_log / s);
    }
  }
}

std::int64_t draw_lognormal(std::int64_t mean_ns, std::uint32_t cv_ppm, Rng& rng) {
  const double cv = static_cast<double>(cv_ppm) / kPartsPerMillion;
  const double cv_squared = cv * cv;
  const double sigma_squared = std::log(1.0 + cv_squared);
  const double sigma = std::sqrt(sigma_squared);
  const double z = standard_normal(rng);
  const double spread = sigma * z;
  const double exponent = spread - sigma_squared / 2.0;
  const double value = static_cast<double>(mean_ns) * std::exp(exponent);
  const std::int64_t cap =
      mean_ns > kLargestNs / kLognormalCapTimesMean ? kLargestNs : mean_ns * kLognormalCapTimesMean;
  return round_at_most(value, cap);
}

// ---- Parsing ----

// One value between the parentheses: "600ns" (name empty) or "min=600ns".
struct Argument {
  std::string_view name;
  std::string_view value;
};

Expected<std::int64_t> parse_value_ns(std::string_view text, std::string_view unit) {
  if (const auto ns = parse_duration_ns(text, unit)) return *ns;
  if (text.empty()) return failure("a value is missing; expected a duration such as 760ns");
  if (text.front() == '-') {
    return failure("negative duration " + quoted(text) + "; durations are 0 or more");
  }
  std::string message = quoted(text) +
                        " is not a duration: expected a whole number of nanoseconds with a unit "
                        "ns, us, ms or s";
  if (!unit.empty()) message += " (a bare number is in " + std::string(unit) + ")";
  return failure(std::move(message));
}

// "0.3" -> 300 000: a plain decimal, exact to a millionth, in (0, 10].
Expected<std::uint32_t> parse_cv_ppm(std::string_view text) {
  const std::string complaint =
      "lognormal's cv " + quoted(text) + " is not a decimal number such as 0.3";
  std::uint64_t whole = 0;
  std::uint64_t millionths = 0;
  int decimals = 0;
  bool digits = false;
  bool point = false;
  for (const char c : text) {
    if (c == '.' && !point) {
      point = true;
      continue;
    }
    if (!std::isdigit(static_cast<unsigned char>(c))) return failure(complaint);
    const auto digit = static_cast<std::uint64_t>(c - '0');
    digits = true;
    if (!point) {
      whole = std::min<std::uint64_t>(whole * 10 + digit, 100);  // past 10 is refused anyway
    } else if (decimals < 6) {
      millionths = millionths * 10 + digit;
      ++decimals;
    } else if (digit != 0) {
      return failure("lognormal's cv " + std::string(text) +
                     " is finer than a millionth; at most 6 decimals");
    }
  }
  if (!digits) return failure(complaint);
  for (; decimals < 6; ++decimals)
    millionths *= 10;
  const std::uint64_t ppm = whole * kPartsPerMillion + millionths;
  if (ppm == 0) {
    return failure(
        "lognormal's cv must be above 0, and at most 10; a cost that does not vary is a "
        "constant, written as its duration alone");
  }
  if (ppm > kLargestCvPpm) {
    return failure("lognormal's cv " + std::string(text) + " is above 10, the largest allowed");
  }
  return static_cast<std::uint32_t>(ppm);
}

// The inside of "kind( ... )" split at commas, each part trimmed and split at '='.
Expected<std::vector<Argument>> split_arguments(std::string_view inside) {
  std::vector<Argument> arguments;
  if (trim(inside).empty()) return arguments;
  for (;;) {
    const std::size_t comma = inside.find(',');
    const std::string_view part = trim(inside.substr(0, comma));
    Argument argument{{}, part};
    if (const std::size_t equals = part.find('='); equals != std::string_view::npos) {
      argument.name = trim(part.substr(0, equals));
      argument.value = trim(part.substr(equals + 1));
      if (argument.name.empty()) return failure(quoted(part) + " has no setting name before '='");
    }
    arguments.push_back(argument);
    if (comma == std::string_view::npos) break;
    inside.remove_prefix(comma + 1);
  }
  return arguments;
}

// Checks the arguments against the form: the right number of plain values, only its setting,
// at most once, and present when required. Returns the setting's value, if given.
Expected<std::optional<std::string_view>> check_arguments(const KindForm& form,
                                                          const std::vector<Argument>& arguments) {
  std::size_t values = 0;
  std::optional<std::string_view> setting;
  for (const Argument& argument : arguments) {
    if (argument.name.empty()) {
      ++values;
      continue;
    }
    if (argument.name != form.setting) {
      return failure(std::string(form.name) + " has no setting " + quoted(argument.name) +
                     "; it is written " + std::string(form.examples));
    }
    if (setting) return failure(quoted(argument.name) + " is given twice");
    setting = argument.value;
  }
  if (values != form.values) {
    return failure(std::string(form.name) + " takes " + std::to_string(form.values) +
                   (form.values == 1 ? " value" : " values") + ", not " + std::to_string(values) +
                   "; it is written " + std::string(form.examples));
  }
  if (form.setting_required && !setting) {
    return failure(std::string(form.name) + " needs its " + std::string(form.setting) +
                   "; it is written " + std::string(form.examples));
  }
  return setting;
}

// The plain values of `arguments`, in order, as ns.
Expected<std::array<std::int64_t, 2>> plain_values_ns(const std::vector<Argument>& arguments,
                                                      std::string_view unit) {
  std::array<std::int64_t, 2> values{};
  std::size_t count = 0;
  for (const Argument& argument : arguments) {
    if (!argument.name.empty()) continue;
    const auto ns = parse_value_ns(argument.value, unit);
    if (!ns) return ns.error();
    values[count++] = *ns;
  }
  return values;
}

Expected<Distribution> build(const KindForm& form, const std::vector<Argument>& arguments,
                             std::string_view unit) {
  const auto setting = check_arguments(form, arguments);
  if (!setting) return setting.error();
  const auto values = plain_values_ns(arguments, unit);
  if (!values) return values.error();
  const auto [first, second] = *values;

  switch (form.kind) {
    case DistributionKind::constant:
      return Distribution::constant_ns(first);
    case DistributionKind::uniform:
      if (first > second) {
        return failure("uniform's minimum " + format_duration(first) + " is above its maximum " +
                       format_duration(second) + "; it is written uniform(min, max)");
      }
      return Distribution{DistributionKind::uniform, first, second, 0};
    case DistributionKind::exponential: {
      std::int64_t minimum = 0;
      if (*setting) {
        const auto ns = parse_value_ns(**setting, unit);
        if (!ns) return ns.error();
        minimum = *ns;
      }
      if (first < minimum) {
        return failure("exponential's mean " + format_duration(first) + " is below its minimum " +
                       format_duration(minimum) +
                       "; the mean includes the minimum, so it is at least the minimum");
      }
      return Distribution{DistributionKind::exponential, minimum, first, 0};
    }
    case DistributionKind::lognormal: {
      const auto cv_ppm = parse_cv_ppm(**setting);  // required: check_arguments saw it
      if (!cv_ppm) return cv_ppm.error();
      return Distribution{DistributionKind::lognormal, first, 0, *cv_ppm};
    }
  }
  return failure("unknown distribution");
}

// 300 000 -> "0.3", 250 000 -> "0.25", 1 000 000 -> "1".
std::string format_cv(std::uint32_t cv_ppm) {
  std::string text = std::to_string(cv_ppm / kPartsPerMillion);
  const std::uint32_t millionths = cv_ppm % kPartsPerMillion;
  if (millionths == 0) return text;
  std::string decimals = std::to_string(millionths);
  decimals.insert(0, 6 - decimals.size(), '0');
  decimals.erase(decimals.find_last_not_of('0') + 1);
  return text + "." + decimals;
}

}  // namespace

Duration Distribution::mean() const {
  switch (kind) {
    case DistributionKind::constant:
      return Duration{a_ns};
    case DistributionKind::uniform:
      return Duration{a_ns + (b_ns - a_ns) / 2};  // (a + b) / 2 without overflowing
    case DistributionKind::exponential:
      return Duration{b_ns};
    case DistributionKind::lognormal:
      return Duration{a_ns};
  }
  return Duration{a_ns};
}

Duration Distribution::quantile(double q) const {
  switch (kind) {
    case DistributionKind::constant:
      return Duration{a_ns};
    case DistributionKind::uniform:
      return Duration{
          a_ns + static_cast<std::int64_t>(std::floor(q * static_cast<double>(b_ns - a_ns) + 0.5))};
    case DistributionKind::exponential:
      return Duration{a_ns + static_cast<std::int64_t>(std::floor(
                                 -static_cast<double>(b_ns - a_ns) * std::log(1.0 - q) + 0.5))};
    case DistributionKind::lognormal: {
      // z with Phi(z) = q, Phi(z) = erfc(-z / sqrt 2) / 2, which rises with z.
      double low = -10;
      double high = 10;
      while (high - low > 1e-9) {
        const double mid = (low + high) / 2;
        (std::erfc(-mid / std::sqrt(2.0)) / 2 < q ? low : high) = mid;
      }
      const double cv = static_cast<double>(cv_ppm) / kPartsPerMillion;
      const double sigma_squared = std::log(1.0 + cv * cv);
      const double z = (low + high) / 2;
      return Duration{static_cast<std::int64_t>(std::floor(
          static_cast<double>(a_ns) * std::exp(std::sqrt(sigma_squared) * z - sigma_squared / 2) +
          0.5))};
    }
  }
  return Duration{a_ns};
}

Duration Distribution::draw_random(Rng& rng) const {
  switch (kind) {
    case DistributionKind::constant:
      return Duration{a_ns};
    case DistributionKind::uniform: {
      // Unsigned: max - min + 1 is at most 2^63, which int64 cannot hold.
      const std::uint64_t span =
          static_cast<std::uint64_t>(b_ns) - static_cast<std::uint64_t>(a_ns) + 1;
      return Duration{a_ns + static_cast<std::int64_t>(rng.below(span))};
    }
    case DistributionKind::exponential: {
      const double tail = rng.exponential(static_cast<double>(b_ns - a_ns));
      return Duration{a_ns + round_at_most(tail, kLargestNs - a_ns)};
    }
    case DistributionKind::lognormal:
      return Duration{draw_lognormal(a_ns, cv_ppm, rng)};
  }
  return Duration{a_ns};
}

Expected<Distribution> parse_distribution(std::string_view text, std::string_view unit) {
  text = trim(text);
  if (text.empty()) return failure("no value; expected " + std::string(kAllowedForms));

  // A kind's name starts with a letter; anything else is read as a plain duration.
  if (!std::isalpha(static_cast<unsigned char>(text.front()))) {
    const auto ns = parse_value_ns(text, unit);
    if (!ns) return ns.error();
    return Distribution::constant_ns(*ns);
  }

  std::size_t name_end = 0;
  while (name_end < text.size() &&
         (std::isalnum(static_cast<unsigned char>(text[name_end])) || text[name_end] == '_'))
    ++name_end;
  const std::string_view name = text.substr(0, name_end);
  const auto form = std::find_if(kForms.begin(), kForms.end(),
                                 [&](const KindForm& candidate) { return candidate.name == name; });
  if (form == kForms.end()) {
    return failure("unknown distribution " + quoted(name) +
                   "; allowed: " + std::string(kAllowedForms));
  }

  const std::string_view rest = trim(text.substr(name_end));
  if (rest.empty() || rest.front() != '(') {
    return failure(std::string(name) +
                   " needs its values in parentheses: " + std::string(form->examples));
  }
  const std::size_t close = rest.find(')');
  if (close == std::string_view::npos) {
    return failure(std::string(name) +
                   " is missing its closing ')': " + std::string(form->examples));
  }
  if (const std::string_view after = trim(rest.substr(close + 1)); !after.empty()) {
    return failure("unexpected " + quoted(after) + " after " + std::string(name) +
                   "(...); it is written " + std::string(form->examples));
  }

  const auto arguments = split_arguments(rest.substr(1, close - 1));
  if (!arguments) return arguments.error();
  return build(*form, *arguments, unit);
}

std::string format_distribution(const Distribution& distribution) {
  const Distribution& d = distribution;
  const std::string name(form_of(d.kind).name);
  switch (d.kind) {
    case DistributionKind::constant:
      return format_duration(d.a_ns);
    case DistributionKind::uniform:
      return name + "(" + format_duration(d.a_ns) + ", " + format_duration(d.b_ns) + ")";
    case DistributionKind::exponential:
      if (d.a_ns == 0) return name + "(" + format_duration(d.b_ns) + ")";
      return name + "(" + format_duration(d.b_ns) + ", min=" + format_duration(d.a_ns) + ")";
    case DistributionKind::lognormal:
      return name + "(" + format_duration(d.a_ns) + ", cv=" + format_cv(d.cv_ppm) + ")";
  }
  return format_duration(d.a_ns);
}

}  // namespace irqmod::sim
