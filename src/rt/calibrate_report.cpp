// Percentiles, the fit in the cost syntax, and the platform file and JSON (calibrate_report.hpp).
#include "irqmod/rt/calibrate_report.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>

namespace irqmod::rt::calibrate {
namespace {

// The standard normal's 0.9 quantile: p10 and p90 of a normal lie this many sd from its median.
constexpr double kZ90 = 1.2815515655446004;
// ln(9) = ln(1 - 0.1) - ln(1 - 0.9): an exponential tail's p10-p90 span in units of its mean.
constexpr double kExponentialSpan = 2.1972245773362196;
// A uniform's p10-p90 span is 0.8 of its width.
constexpr double kUniformSpan = 0.8;
// The simulator refuses a lognormal cv above 10 (distribution.hpp) and keeps 6 decimals; three
// are written, finer than any measurement here.
constexpr double kLargestCv = 10.0;

std::int64_t whole_ns(double ns) {
  return std::llround(ns);
}

std::string ns_text(double ns) {
  return std::to_string(whole_ns(ns)) + "ns";
}

// "0.046": three decimals, trailing zeros dropped.
std::string decimal_text(double value) {
  std::array<char, 32> text{};
  std::snprintf(text.data(), text.size(), "%.3f", value);
  std::string s = text.data();
  while (!s.empty() && s.back() == '0')
    s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

// A candidate form placed at the median: its own p10 and p90, and whether its parameters are
// ones the simulator takes.
struct Candidate {
  Fit fit;
  double p10 = 0;
  double p90 = 0;
  bool valid = false;
};

Candidate uniform_at(const Summary& s) {
  const double half = (s.p90 - s.p10) / kUniformSpan / 2;
  Candidate c;
  c.valid = s.p50 - half >= 0;
  c.p10 = s.p50 - half * kUniformSpan;
  c.p90 = s.p50 + half * kUniformSpan;
  c.fit = {Form::uniform, "uniform(" + ns_text(s.p50 - half) + ", " + ns_text(s.p50 + half) + ")",
           "uniform"};
  return c;
}

Candidate exponential_at(const Summary& s) {
  const double tail = (s.p90 - s.p10) / kExponentialSpan;
  const double floor = s.p50 - tail * std::log(2.0);
  Candidate c;
  c.valid = floor >= 0;
  c.p10 = floor - tail * std::log(0.9);
  c.p90 = floor - tail * std::log(0.1);
  const std::string mean = ns_text(floor + tail);
  c.fit = {Form::exponential,
           whole_ns(floor) == 0 ? "exponential(" + mean + ")"
                                : "exponential(" + mean + ", min=" + ns_text(floor) + ")",
           "exponential with a floor"};
  return c;
}

Candidate lognormal_at(const Summary& s) {
  Candidate c;
  if (!(s.p10 > 0)) return c;
  const double sigma = std::log(s.p90 / s.p10) / (2 * kZ90);
  const double cv = std::sqrt(std::expm1(sigma * sigma));
  c.valid = cv <= kLargestCv && decimal_text(cv) != "0";
  c.p10 = s.p50 * std::exp(-kZ90 * sigma);
  c.p90 = s.p50 * std::exp(kZ90 * sigma);
  const double mean = s.p50 * std::exp(sigma * sigma / 2);
  c.fit = {Form::lognormal, "lognormal(" + ns_text(mean) + ", cv=" + decimal_text(cv) + ")",
           "lognormal"};
  return c;
}

// A JSON string literal of `text` (RFC 8259: quotes, backslashes and control characters escaped).
std::string json_string(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      std::array<char, 8> escape{};
      std::snprintf(escape.data(), escape.size(), "\\u%04x", static_cast<unsigned>(c));
      out += escape.data();
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string spread_text(const Summary& s) {
  return "p10/p50/p90 " + std::to_string(whole_ns(s.p10)) + "/" + std::to_string(whole_ns(s.p50)) +
         "/" + std::to_string(whole_ns(s.p90)) + " ns; n " + std::to_string(s.n);
}

// "cpu.syscall" -> {"cpu", "syscall"}; a key without a dot has no section.
std::pair<std::string, std::string> split_key(const std::string& key) {
  const auto dot = key.find('.');
  if (dot == std::string::npos) return {"", key};
  return {key.substr(0, dot), key.substr(dot + 1)};
}

enum class Kind { key, no_key_yet, skipped, measured };

Kind kind_of(const Entry& e, const KeyKnown& known) {
  if (e.raw) return Kind::measured;
  if (!e.skipped.empty()) return Kind::skipped;
  return known(e.key) ? Kind::key : Kind::no_key_yet;
}

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::key:
      return "key";
    case Kind::no_key_yet:
      return "no-key-yet";
    case Kind::skipped:
      return "skipped";
    case Kind::measured:
      return "measured";
  }
  return "?";
}

// "= VALUE  # method; spread; fit: why" of a measured key.
std::string assignment(const Entry& e) {
  if (e.literal) return " = " + e.text + "  # " + e.method;
  if (!e.chosen.empty())
    return " = \"" + e.text + "\"  # " + e.method + "; " + spread_text(e.summary) +
           "; fit: " + e.chosen;
  if (!e.text.empty()) return " = \"" + e.text + "\"  # " + e.method;
  const Fit fit = fit_distribution(e.summary);
  return " = \"" + fit.text + "\"  # " + e.method + "; " + spread_text(e.summary) +
         "; fit: " + fit.why;
}

}  // namespace

double percentile(std::span<const double> sorted, double q) {
  const double rank = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(rank));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  const double weight = rank - static_cast<double>(below);
  return sorted[below] + weight * (sorted[above] - sorted[below]);
}

Summary summarise(const Samples& samples) {
  if (samples.empty()) return {};
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  return Summary{sorted.size(), percentile(sorted, 0.1), percentile(sorted, 0.5),
                 percentile(sorted, 0.9)};
}

Fit fit_distribution(const Summary& s) {
  if (!(s.p50 > 0.5))
    return {Form::constant, "0ns",
            "0: the median is at or below 0 ns, the difference within the noise"};
  if (whole_ns(s.p90) == whole_ns(s.p10)) return {Form::constant, ns_text(s.p50), "constant"};
  std::array<Candidate, 3> candidates{lognormal_at(s), exponential_at(s), uniform_at(s)};
  const Candidate* best = nullptr;
  double best_error = std::numeric_limits<double>::infinity();
  for (const Candidate& c : candidates) {
    const double error = std::abs(c.p10 - s.p10) + std::abs(c.p90 - s.p90);
    if (c.valid && error < best_error) {
      best = &c;
      best_error = error;
    }
  }
  if (!best)
    return {Form::constant, ns_text(s.p50),
            "constant at the median: no form fits a p10 at or below 0 ns"};
  Fit fit = best->fit;
  fit.why += " at the median, p10-p90 span matched (its p10/p90 " +
             std::to_string(whole_ns(best->p10)) + "/" + std::to_string(whole_ns(best->p90)) +
             ": the nearest of the three forms)";
  return fit;
}

Samples derive(const Samples& main, double subtract, double divide) {
  Samples out;
  out.reserve(main.size());
  for (const std::int64_t x : main)
    out.push_back(whole_ns((static_cast<double>(x) - subtract) / divide));
  return out;
}

void write_platform(std::ostream& out, const Report& report, const KeyKnown& known) {
  const Header& h = report.header;
  out << "# irqmod calibrate: what this host's kernel costs, measured for the simulator's cost\n"
         "# model (docs/calibration.md, \"irqmod calibrate\": how each number is measured).\n"
      << "# cpu: " << h.cpu_model << " (" << h.cpus << " CPUs)\n"
      << "# kernel: " << h.kernel << "\n"
      << "# date: " << h.date << "\n"
      << "# command: " << h.command << "\n"
      << "# run: " << decimal_text(h.seconds) << " s, " << (h.quick ? "--quick" : "full")
      << ", nice " << h.nice << "; load average " << h.load << "\n"
      << "# root measurements (the lab's namespaces): " << h.lab << "\n"
      << "#\n"
         "# A key's line is its value in the cost syntax (docs/simulator.md: a duration, uniform,\n"
         "# exponential or lognormal), then \"# how it was measured; p10/p50/p90 in ns; n "
         "samples;\n"
         "# the fit\". A key the simulator does not have yet is the same line as a comment, \"# "
         "no\n"
         "# key yet: KEY = ...\"; what was not measured is \"# skipped: KEY: why\"; the \"# "
         "measured:\"\n"
         "# lines at the end are the raw measurements the keys are derived from.\n";
  std::vector<std::string> sections;
  for (const Entry& e : report.entries)
    if (!e.raw) {
      const std::string section = split_key(e.key).first;
      if (std::find(sections.begin(), sections.end(), section) == sections.end())
        sections.push_back(section);
    }
  for (const std::string& section : sections) {
    out << "\n";
    if (!section.empty()) out << "[" << section << "]\n";
    for (const Entry& e : report.entries) {
      if (e.raw || split_key(e.key).first != section) continue;
      switch (kind_of(e, known)) {
        case Kind::key:
          out << split_key(e.key).second << assignment(e) << "\n";
          break;
        case Kind::no_key_yet:
          out << "# no key yet: " << e.key << assignment(e) << "\n";
          break;
        case Kind::skipped:
          out << "# skipped: " << e.key << ": " << e.skipped << "\n";
          break;
        case Kind::measured:
          break;
      }
    }
  }
  bool first = true;
  for (const Entry& e : report.entries) {
    if (!e.raw) continue;
    if (first) out << "\n";
    first = false;
    if (e.skipped.empty())
      out << "# measured: " << e.key << ": " << spread_text(e.summary) << "; " << e.method << "\n";
    else
      out << "# measured: " << e.key << ": skipped: " << e.skipped << "\n";
  }
}

void write_json(std::ostream& out, const Report& report, const KeyKnown& known) {
  const Header& h = report.header;
  out << "{\"cpu_model\": " << json_string(h.cpu_model) << ", \"cpus\": " << h.cpus
      << ", \"kernel\": " << json_string(h.kernel) << ", \"date\": " << json_string(h.date)
      << ", \"command\": " << json_string(h.command) << ", \"seconds\": " << decimal_text(h.seconds)
      << ", \"quick\": " << (h.quick ? "true" : "false") << ", \"load\": " << json_string(h.load)
      << ", \"nice\": " << json_string(h.nice) << ", \"lab\": " << json_string(h.lab)
      << ", \"entries\": [";
  for (std::size_t i = 0; i < report.entries.size(); ++i) {
    const Entry& e = report.entries[i];
    const Kind kind = kind_of(e, known);
    const bool measured = e.skipped.empty();
    out << (i ? ", " : "") << "{\"key\": " << json_string(e.key)
        << ", \"kind\": " << json_string(kind_name(kind)) << ", \"value\": ";
    if (measured && !e.raw && !e.chosen.empty()) {
      out << json_string(e.text) << ", \"fit\": " << json_string(e.chosen);
    } else if (measured && !e.raw && !e.text.empty()) {
      out << json_string(e.text) << ", \"fit\": null";
    } else if (measured && !e.raw) {
      const Fit fit = fit_distribution(e.summary);
      out << json_string(fit.text) << ", \"fit\": " << json_string(fit.why);
    } else {
      out << "null, \"fit\": null";
    }
    for (const auto& [name, value] :
         {std::pair{"p10", e.summary.p10}, std::pair{"p50", e.summary.p50},
          std::pair{"p90", e.summary.p90}}) {
      out << ", \"" << name << "\": ";
      if (measured)
        out << whole_ns(value);
      else
        out << "null";
    }
    out << ", \"n\": " << e.summary.n << ", \"method\": " << json_string(e.method)
        << ", \"skipped\": " << (measured ? "null" : json_string(e.skipped)) << "}";
  }
  out << "]}\n";
}

}  // namespace irqmod::rt::calibrate
