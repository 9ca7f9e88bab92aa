// Text and JSON renderings of ServerStats: one list of fields, two spellings.
#include "irqmod/rt/stats.hpp"

#include <cinttypes>
#include <cstdio>
#include <vector>

namespace irqmod::rt {
namespace {

// Seconds with nanosecond precision, as text: exact, and no floating point on the way.
std::string seconds_text(Duration d) {
  const std::int64_t ns = d.count();
  const std::int64_t whole = ns / 1'000'000'000;
  const std::int64_t frac = (ns < 0 ? -ns : ns) % 1'000'000'000;
  char buf[48];
  std::snprintf(buf, sizeof buf, "%s%" PRId64 ".%09" PRId64, (ns < 0 && whole == 0) ? "-" : "",
                whole, frac);
  return buf;
}

struct Field {
  std::string name;
  std::string value;  // already rendered: a count, or seconds
};

std::vector<Field> counters_of(const ServerStats& s) {
  const auto n = [](std::uint64_t v) { return std::to_string(v); };
  return {{"messages", n(s.messages)},
          {"replies", n(s.replies)},
          {"reply_failures", n(s.reply_failures)},
          {"warmup", n(s.warmup)},
          {"no_reply", n(s.no_reply)},
          {"rejected_total", n(s.rejected_total())}};
}

std::vector<Field> rejected_of(const ServerStats& s) {
  std::vector<Field> out;
  for (std::size_t i = 0; i < s.rejected.size(); ++i)
    out.push_back({std::string(sockperf::reject_name(static_cast<sockperf::Reject>(i))),
                   std::to_string(s.rejected[i])});
  return out;
}

std::vector<Field> loop_and_cpu_of(const ServerStats& s) {
  const auto n = [](std::uint64_t v) { return std::to_string(v); };
  return {{"connections_accepted", n(s.connections_accepted)},
          {"connections_closed", n(s.connections_closed)},
          {"connections_refused", n(s.connections_refused)},
          {"wakeups", n(s.wakeups)},
          {"spins", n(s.spins)},
          {"timer_sleeps", n(s.timer_sleeps)},
          {"mode_switches", n(s.mode_switches)},
          {"recheck_found_work", n(s.recheck_found_work)},
          {"mean_gap_s", seconds_text(s.mean_gap)},
          {"gap_deviation_s", seconds_text(s.gap_deviation)},
          {"spin_window_s", seconds_text(s.spin_window)},
          {"cpu_user_s", seconds_text(s.cpu_user)},
          {"cpu_system_s", seconds_text(s.cpu_system)},
          {"voluntary_switches", n(s.voluntary_switches)},
          {"involuntary_switches", n(s.involuntary_switches)}};
}

// `name=value` separated by spaces, or `"name": value` separated by commas.
void append(std::string& out, const std::vector<Field>& fields, bool json) {
  bool first = true;
  for (const Field& f : fields) {
    out += first ? "" : (json ? ", " : " ");
    out += json ? "\"" + f.name + "\": " + f.value : f.name + "=" + f.value;
    first = false;
  }
}

}  // namespace

std::uint64_t ServerStats::rejected_total() const {
  std::uint64_t total = 0;
  for (const std::uint64_t r : rejected)
    total += r;
  return total;
}

std::string format_text(const ServerStats& s, std::string_view label) {
  std::string out(label);
  out += " elapsed_s=" + seconds_text(s.elapsed) + " ";
  append(out, counters_of(s), false);
  out += " (";
  append(out, rejected_of(s), false);
  out += ") ";
  append(out, loop_and_cpu_of(s), false);
  return out;
}

std::string format_json(const ServerStats& s, std::string_view label) {
  std::string out = "{\"event\": \"" + std::string(label) + "\"";
  out += ", \"elapsed_s\": " + seconds_text(s.elapsed) + ", ";
  append(out, counters_of(s), true);
  out += ", \"rejected\": {";
  append(out, rejected_of(s), true);
  out += "}, ";
  append(out, loop_and_cpu_of(s), true);
  return out + "}";
}

}  // namespace irqmod::rt
