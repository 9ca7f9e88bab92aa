// Parsing /proc/interrupts, /proc/softirqs and /proc/net/netstat, and rates (proc_counters.hpp).
#include "irqmod/rt/proc_counters.hpp"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>

namespace irqmod::rt::proc {
namespace {

// The kernel prints interrupt and softirq counts as unsigned int (show_interrupts, show_softirqs)
// and SNMP/netstat counters as unsigned long.
constexpr int kInterruptCounterBits = 32;
constexpr int kNetstatCounterBits = 64;

std::vector<std::string_view> split_words(std::string_view line) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
      ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t')
      ++i;
    if (i > start) words.push_back(line.substr(start, i - start));
  }
  return words;
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::optional<std::uint64_t> to_number(std::string_view word) {
  std::uint64_t v = 0;
  const auto r = std::from_chars(word.data(), word.data() + word.size(), v);
  if (r.ec != std::errc{} || r.ptr != word.data() + word.size()) return std::nullopt;
  return v;
}

Expected<std::string> read_file(const char* path) {
  std::ifstream in(path);
  if (!in) return Error{"", std::string("cannot read ") + path + ": " + std::strerror(errno)};
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<double> per_second(const std::vector<std::uint64_t>& before,
                               const std::vector<std::uint64_t>& after, double seconds) {
  std::vector<double> rates;
  for (std::size_t i = 0; i < before.size() && i < after.size(); ++i)
    rates.push_back(static_cast<double>(counter_delta(before[i], after[i], kInterruptCounterBits)) /
                    seconds);
  return rates;
}

}  // namespace

std::vector<Vector> parse_interrupts(std::string_view text) {
  const auto lines = split_lines(text);
  if (lines.empty()) return {};
  const std::size_t cpus = split_words(lines[0]).size();  // "CPU0 CPU1 ..."
  std::vector<Vector> vectors;
  for (std::size_t l = 1; l < lines.size(); ++l) {
    const std::string_view line = lines[l];
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    Vector v;
    const auto label = split_words(line.substr(0, colon));
    if (label.empty()) continue;
    v.label = std::string(label[0]);
    const auto words = split_words(line.substr(colon + 1));
    std::size_t w = 0;
    for (; w < words.size() && v.per_cpu.size() < cpus; ++w) {
      const auto n = to_number(words[w]);
      if (!n) break;
      v.per_cpu.push_back(*n);
    }
    for (; w < words.size(); ++w)
      v.description += (v.description.empty() ? "" : " ") + std::string(words[w]);
    vectors.push_back(std::move(v));
  }
  return vectors;
}

std::vector<std::uint64_t> parse_softirq_row(std::string_view text, std::string_view row) {
  for (const std::string_view line : split_lines(text)) {
    const auto words = split_words(line);
    if (words.empty() || words[0].substr(0, words[0].size() - 1) != row || words[0].back() != ':')
      continue;
    std::vector<std::uint64_t> counts;
    for (std::size_t w = 1; w < words.size(); ++w)
      if (const auto n = to_number(words[w])) counts.push_back(*n);
    return counts;
  }
  return {};
}

std::optional<std::uint64_t> parse_netstat(std::string_view text, std::string_view group,
                                           std::string_view name) {
  const auto lines = split_lines(text);
  const std::string prefix = std::string(group) + ":";
  for (std::size_t l = 0; l + 1 < lines.size(); ++l) {
    const auto names = split_words(lines[l]);
    const auto values = split_words(lines[l + 1]);
    if (names.empty() || names[0] != prefix || values.empty() || values[0] != prefix) continue;
    for (std::size_t i = 1; i < names.size() && i < values.size(); ++i)
      if (names[i] == name) return to_number(values[i]);
    return std::nullopt;
  }
  return std::nullopt;
}

Expected<Snapshot> read_snapshot(Instant now) {
  Snapshot s;
  s.taken = now;
  const auto interrupts = read_file("/proc/interrupts");
  if (!interrupts) return interrupts.error();
  s.interrupts = parse_interrupts(*interrupts);
  const auto softirqs = read_file("/proc/softirqs");
  if (!softirqs) return softirqs.error();
  s.net_rx = parse_softirq_row(*softirqs, "NET_RX");
  s.net_tx = parse_softirq_row(*softirqs, "NET_TX");
  // /proc/self/net follows the reading thread's network namespace (after a setns too).
  if (const auto netstat = read_file("/proc/self/net/netstat"))
    s.busy_poll_rx_packets = parse_netstat(*netstat, "TcpExt", "BusyPollRxPackets");
  return s;
}

std::uint64_t counter_delta(std::uint64_t before, std::uint64_t after, int bits) {
  if (bits >= 64) return after - before;  // unsigned arithmetic wraps at 2^64 by itself
  const std::uint64_t mask = (std::uint64_t{1} << bits) - 1;
  return (after - before) & mask;
}

std::optional<Rates> rates_between(const Snapshot& before, const Snapshot& after) {
  const Duration elapsed = after.taken - before.taken;
  if (elapsed <= Duration::zero()) return std::nullopt;
  Rates r;
  r.seconds = static_cast<double>(elapsed.count()) / 1e9;
  for (const Vector& b : before.interrupts) {
    for (const Vector& a : after.interrupts) {
      if (a.label != b.label) continue;
      Rates::VectorRate v{a.label, a.description, 0, per_second(b.per_cpu, a.per_cpu, r.seconds)};
      for (const double cpu : v.per_cpu)
        v.per_second += cpu;
      r.interrupts.push_back(std::move(v));
      break;
    }
  }
  r.net_rx = per_second(before.net_rx, after.net_rx, r.seconds);
  r.net_tx = per_second(before.net_tx, after.net_tx, r.seconds);
  if (before.busy_poll_rx_packets && after.busy_poll_rx_packets)
    r.busy_poll_rx_packets =
        static_cast<double>(counter_delta(*before.busy_poll_rx_packets, *after.busy_poll_rx_packets,
                                          kNetstatCounterBits)) /
        r.seconds;
  return r;
}

}  // namespace irqmod::rt::proc
