// Counters by drop reason, vector and core, the conservation check, and sockperf's lines. The
// report's sections are written by report_text.cpp, report_json.cpp and report.cpp (CSV).
#include "irqmod/sim/metrics.hpp"

#include <cinttypes>
#include <cstdio>
#include <numeric>
#include <optional>
#include <sstream>

#include "sim/report_format.hpp"

namespace irqmod::sim {

std::string_view to_string(DropReason reason) {
  switch (reason) {
    case DropReason::rx_ring_full:
      return "rx_ring_full";
    case DropReason::rx_no_buffer:
      return "rx_no_buffer";
    case DropReason::tx_ring_full:
      return "tx_ring_full";
    case DropReason::qdisc_full:
      return "qdisc_full";
    case DropReason::egress_queue_full:
      return "egress_queue_full";
    case DropReason::backlog_full:
      return "backlog_full";
    case DropReason::socket_queue_full:
      return "socket_queue_full";
    case DropReason::kCount:
      break;
  }
  return "unknown";
}

std::string_view to_string(ContextKind kind) {
  switch (kind) {
    case ContextKind::hardirq:
      return "hardirq";
    case ContextKind::softirq:
      return "softirq";
    case ContextKind::ksoftirqd:
      return "ksoftirqd";
    case ContextKind::thread:
      return "thread";
    case ContextKind::busy_poll:
      return "busy_poll";
    case ContextKind::kCount:
      break;
  }
  return "unknown";
}

std::uint64_t DropCounters::total() const {
  return std::accumulate(by_reason_.begin(), by_reason_.end(), std::uint64_t{0});
}

std::uint64_t InterruptCounters::total() const {
  return std::accumulate(per_vector_.begin(), per_vector_.end(), std::uint64_t{0});
}

Duration CpuTime::busy(std::size_t core) const {
  return Duration{std::accumulate(busy_[core].begin(), busy_[core].end(), std::int64_t{0})};
}

std::optional<double> CpuTime::utilization(Duration measured) const {
  if (measured <= Duration::zero() || busy_.empty()) return std::nullopt;
  Duration all{};
  for (std::size_t c = 0; c < busy_.size(); ++c)
    all += busy(c);
  const Duration whole = measured * static_cast<std::int64_t>(busy_.size());
  return static_cast<double>(all.count()) / static_cast<double>(whole.count());
}

void DropCounters::subtract(const DropCounters& earlier) {
  for (std::size_t i = 0; i < by_reason_.size(); ++i)
    by_reason_[i] -= earlier.by_reason_[i];
}

void InterruptCounters::subtract(const InterruptCounters& earlier) {
  for (std::size_t v = 0; v < per_vector_.size(); ++v)
    per_vector_[v] -= earlier.per_vector_[v];
}

void CpuTime::subtract(const CpuTime& earlier) {
  for (std::size_t c = 0; c < busy_.size(); ++c) {
    for (std::size_t k = 0; k < kNumContextKinds; ++k)
      busy_[c][k] -= earlier.busy_[c][k];
    over_idle_[c] -= earlier.over_idle_[c];
  }
}

std::optional<Error> Conservation::check() const {
  if (ok()) return std::nullopt;
  return Error{"conservation", "entered " + std::to_string(entered) + " != delivered " +
                                   std::to_string(delivered) + " + dropped " +
                                   std::to_string(dropped) + " + in flight " +
                                   std::to_string(in_flight) + " = " +
                                   std::to_string(delivered + dropped + in_flight) +
                                   "; a model lost or invented packets"};
}

std::string format_usec(std::int64_t ns, int width) {
  const bool negative = ns < 0;
  const std::uint64_t magnitude =
      negative ? 0 - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%s%" PRIu64 ".%03" PRIu64, negative ? "-" : "", magnitude / 1000,
                magnitude % 1000);
  std::string text(buf);
  if (static_cast<int>(text.size()) < width) {
    text.insert(0, static_cast<std::size_t>(width) - text.size(), ' ');
  }
  return text;
}

namespace {

// "99.999", "99.990", ..., "25.000": sockperf's %6.3lf of 100 x p, from parts per 100 000.
std::string percentile_label(std::uint32_t parts_per_100000) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%2u.%03u", parts_per_100000 / 1000, parts_per_100000 % 1000);
  return buf;
}

}  // namespace

std::string sockperf_summary(const LatencyHistogram& latency, const SockperfOptions& options) {
  const std::string prefix = "sockperf: ";
  std::string out;
  if (latency.count() == 0) {
    return prefix + "No messages were received from the server. Is the server down?\n";
  }
  const char* label = options.round_trip ? "rtt" : "latency";
  out += prefix + "====> avg-" + label + "=" + printf_string("%.3f", latency.mean() / 1000.0) +
         " (std-dev=" + printf_string("%.3f", latency.stddev() / 1000.0) + ")\n";
  if (options.one_way) {
    out += prefix +
           "# dropped messages = n/a: one-way traffic, no message is answered (frames "
           "dropped: see drops)\n";
  } else {
    std::ostringstream messages;
    write_row_text(messages, kSockperfMessages, options, Duration::zero());
    out += prefix + messages.str();
  }
  out += prefix + "Summary: " + (options.round_trip ? "Round trip" : "Latency") + " is " +
         printf_string("%.3f", latency.mean() / 1000.0) + " usec\n";
  out += prefix + "Total " + std::to_string(latency.count()) +
         " observations; each percentile contains " +
         printf_string("%.2f", static_cast<double>(latency.count()) / 100.0) + " observations\n";
  out += prefix + "---> <MAX> observation = " + format_usec(latency.max(), 8) + "\n";
  for (auto it = kSockperfPercentiles.rbegin(); it != kSockperfPercentiles.rend(); ++it) {
    if (LatencyHistogram::sockperf_rank(*it, latency.count()) == 0) continue;
    out += prefix + "---> percentile " + percentile_label(*it) + " = " +
           format_usec(latency.percentile(*it), 8) + "\n";
  }
  out += prefix + "---> <MIN> observation = " + format_usec(latency.min(), 8) + "\n";
  return out;
}

}  // namespace irqmod::sim
