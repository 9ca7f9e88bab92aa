// Counters, the conservation check, and the three report formats.
#include "irqmod/sim/metrics.hpp"

#include <cinttypes>
#include <cstdio>
#include <numeric>
#include <optional>

#include "irqmod/sim/json.hpp"

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
  }
}

void subtract_warmup(RunReport& r, const RunReport& w) {
  r.sim_time -= w.sim_time;
  r.warmup = w.sim_time;
  r.interrupts.subtract(w.interrupts);
  r.cpu.subtract(w.cpu);
  r.delivered_packets -= w.delivered_packets;
  r.delivered_bytes -= w.delivered_bytes;
  r.drops.subtract(w.drops);
  r.sockperf.dropped -= w.sockperf.dropped;
  r.sockperf.duplicated -= w.sockperf.duplicated;
  r.sockperf.out_of_order -= w.sockperf.out_of_order;
  r.tcp_loss_probes -= w.tcp_loss_probes;
  r.probe_answers -= w.probe_answers;
  r.stranded_frames -= w.stranded_frames;
  for (std::size_t q = 0; q < r.queues.size(); ++q) {
    r.queues[q].rx_frames -= w.queues[q].rx_frames;
    r.queues[q].rx_dropped -= w.queues[q].rx_dropped;
    r.queues[q].rx_cleaned -= w.queues[q].rx_cleaned;
    r.queues[q].sw_interrupts -= w.queues[q].sw_interrupts;
    r.queues[q].released_without_timer -= w.queues[q].released_without_timer;
    r.queues[q].tx_frames -= w.queues[q].tx_frames;
  }
  for (std::size_t q = 0; q < r.egress_queues.size(); ++q) {
    r.egress_queues[q].tx_frames -= w.egress_queues[q].tx_frames;
    r.egress_queues[q].dropped -= w.egress_queues[q].dropped;
  }
  for (std::size_t t = 0; t < r.tx_only_queues.size(); ++t) {
    r.tx_only_queues[t].tx_frames -= w.tx_only_queues[t].tx_frames;
    r.tx_only_queues[t].dropped -= w.tx_only_queues[t].dropped;
  }
  for (std::size_t t = 0; t < r.napi_threads.size() && t < w.napi_threads.size(); ++t) {
    r.napi_threads[t].wakeups -= w.napi_threads[t].wakeups;
    r.napi_threads[t].polls -= w.napi_threads[t].polls;
    r.napi_threads[t].yields -= w.napi_threads[t].yields;
  }
  for (std::size_t c = 0; c < r.cores.size(); ++c) {
    r.cores[c].interrupts -= w.cores[c].interrupts;
    r.cores[c].polls -= w.cores[c].polls;
  }
  if (r.tcp && w.tcp) {
    r.tcp->received_bytes -= w.tcp->received_bytes;
    r.tcp->sent_bytes -= w.tcp->sent_bytes;
  }
  if (r.ping && w.ping) {
    r.ping->sent -= w.ping->sent;
    r.ping->lost -= w.ping->lost;
  }
  if (r.mclgeti && w.mclgeti) {
    r.mclgeti->livelocks -= w.mclgeti->livelocks;
    r.mclgeti->cwm_area -= w.mclgeti->cwm_area;
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

std::string printf_string(const char* format, double a) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, a);
  return buf;
}

// "99.999", "99.990", ..., "25.000": sockperf's %6.3lf of 100 x p, from parts per 100 000.
std::string percentile_label(std::uint32_t parts_per_100000) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%2u.%03u", parts_per_100000 / 1000, parts_per_100000 % 1000);
  return buf;
}

// count per second over `elapsed`; empty when no time elapsed (not reliable, not infinite).
std::optional<double> per_second(std::uint64_t count, Duration elapsed) {
  if (elapsed <= Duration::zero()) return std::nullopt;
  return static_cast<double>(count) * 1e9 / static_cast<double>(elapsed.count());
}

std::optional<double> fraction(Duration part, Duration whole) {
  if (whole <= Duration::zero()) return std::nullopt;
  return static_cast<double>(part.count()) / static_cast<double>(whole.count());
}

void optional_value(JsonWriter& json, std::optional<double> v) {
  if (v) {
    json.value(*v);
  } else {
    json.null();
  }
}

std::string percent(std::optional<double> f) {
  return f ? printf_string("%.1f%%", *f * 100.0) : std::string("n/a");
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
    out += prefix + "# dropped messages = " + std::to_string(options.dropped) +
           "; # duplicated messages = " + std::to_string(options.duplicated) +
           "; # out-of-order messages = " + std::to_string(options.out_of_order) + "\n";
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

void write_text(std::ostream& out, const RunReport& r) {
  out << "scenario " << r.scenario << ", seed " << r.seed << ", simulated "
      << format_usec(r.sim_time.count()) << " us";
  if (r.warmup > Duration::zero())
    out << " after " << format_usec(r.warmup.count()) << " us of warm-up";
  out << ", " << r.events << " events";
  if (r.wall_ns >= 0) out << ", wall " << format_usec(r.wall_ns) << " us";
  out << "\n";
  if (!r.kernel.empty()) {
    // The core rows and nic.driver's (irqmod kernel-diff lists every driver's).
    out << "kernel " << r.kernel << " (core and " << r.kernel_driver << " behaviours):\n";
    for (const KernelSetting& k : r.kernel_settings) {
      out << "  " << k.key << " = " << k.value << "  ";
      if (k.by_scenario) out << "set by the scenario; kernel " << r.kernel << " is ";
      out << (k.kernel_has ? "with " : "before ") << k.commit << " \"" << k.title << "\" ("
          << k.release << ")\n";
    }
  }
  if (r.search) {
    out << "search: RFC 2544 throughput " << r.search->rate << " frames/s without loss";
    if (r.search->lost_rate > 0) out << " (" << r.search->lost_rate << " lost frames)";
    out << ", " << r.search->trials << " trials; this run is at that rate\n";
  }
  // An AF_XDP or storage run has no sockperf-like client: its own lines below say what happened,
  // and "No messages were received from the server" would be false.
  if (r.latency.count() > 0 || (!r.xdp && !r.storage))
    out << sockperf_summary(r.latency, r.sockperf);
  if (r.stranded_frames > 0) {
    out << "stranded frames: " << r.stranded_frames
        << " (left in a ring, unsignalled, when a poll re-enabled its interrupt)\n";
  }
  if (r.tcp_loss_probes > 0) {
    out << "tcp loss probes: " << r.tcp_loss_probes
        << "; replies that waited for one: " << r.probe_answers << "\n";
  }
  const auto ips = per_second(r.interrupts.total(), r.sim_time);
  out << "interrupts: " << r.interrupts.total() << " ("
      << (ips ? printf_string("%.0f", *ips) : "n/a") << "/s)";
  for (std::size_t v = 0; v < r.interrupts.vectors(); ++v) {
    const auto vps = per_second(r.interrupts.count_of(v), r.sim_time);
    out << "; vector " << v << ": " << r.interrupts.count_of(v) << " ("
        << (vps ? printf_string("%.0f", *vps) : "n/a") << "/s)";
  }
  out << "\n";
  for (std::size_t c = 0; c < r.cpu.cores(); ++c) {
    out << "cpu " << c << ": busy " << percent(fraction(r.cpu.busy(c), r.sim_time)) << " (";
    for (std::size_t k = 0; k < kNumContextKinds; ++k) {
      const auto kind = static_cast<ContextKind>(k);
      out << (k ? ", " : "") << to_string(kind) << " "
          << percent(fraction(r.cpu.busy(c, kind), r.sim_time));
    }
    out << ")";
    if (c < r.cores.size()) {
      out << "; " << r.cores[c].interrupts << " interrupts, " << r.cores[c].polls << " polls";
    }
    out << "\n";
  }
  for (std::size_t q = 0; q < r.queues.size(); ++q) {
    const QueueCounters& c = r.queues[q];
    out << "queue " << q << " (vector " << c.rx_vector << " on cpu " << c.irq_core;
    if (c.tx_vector && *c.tx_vector != c.rx_vector) out << ", Tx vector " << *c.tx_vector;
    out << "): rx " << c.rx_frames << " frames, " << c.rx_dropped << " dropped, " << c.rx_cleaned
        << " cleaned; tx " << c.tx_frames << " frames";
    if (c.sw_interrupts > 0) out << "; " << c.sw_interrupts << " software interrupts";
    if (c.released_without_timer > 0) {
      out << "; " << c.released_without_timer
          << " busy-poll exits left it masked with no timer (fixed by 58e2330bd455)";
    }
    out << "\n";
  }
  for (const NapiThreadCounters& t : r.napi_threads) {
    out << "napi thread napi/eth0-" << t.napi_id << " (cpu " << t.core << "): " << t.wakeups
        << " wake-ups, " << t.polls << " polls, " << t.yields << " yields to other threads\n";
  }
  if (r.mclgeti) {
    const MclgetiCounters& m = *r.mclgeti;
    out << "mclgeti: watermark " << printf_string("%.1f", m.cwm_mean(r.sim_time))
        << " clusters on average (" << m.cwm_min << " to " << m.cwm_max << ", " << m.cwm_end
        << " at the end); " << m.livelocks << " livelocks\n";
  }
  for (std::size_t t = 0; t < r.tx_only_queues.size(); ++t) {
    const EgressQueueCounters& c = r.tx_only_queues[t];
    out << "tx queue " << r.queues.size() + t;
    if (c.tx_vector) out << " (vector " << *c.tx_vector << ")";
    out << ": tx " << c.tx_frames << " frames, " << c.dropped << " dropped\n";
  }
  for (std::size_t q = 0; q < r.egress_queues.size(); ++q) {
    const EgressQueueCounters& c = r.egress_queues[q];
    out << "port 1 queue " << q;
    if (c.tx_vector) out << " (Tx vector " << *c.tx_vector << ")";
    out << ": tx " << c.tx_frames << " forwarded frames, " << c.dropped << " dropped\n";
  }
  if (r.storage) {
    const StorageCounters& st = *r.storage;
    const auto rate = [&](std::uint64_t n) {
      const auto v = per_second(n, r.sim_time);
      return v ? printf_string("%.0f", *v) : std::string("n/a");
    };
    out << "storage: " << rate(st.completed) << " IOPS (" << st.completed << " completed of "
        << st.submitted << " submitted, " << st.submit_calls
        << " io_uring_enter calls); device MSIs " << rate(st.device_msis) << "/s, CPU interrupts "
        << rate(st.cpu_interrupts) << "/s, notifications " << rate(st.notifications)
        << "/s; handler calls " << rate(st.handler_calls) << "/s (" << st.empty_calls
        << " empty), merged MSIs " << st.merged << ", PIR scans " << st.pir_scans
        << ", empty notifications " << st.empty_notifications << "\n";
  }
  if (r.xdp) {
    const XdpCounters& x = *r.xdp;
    out << "af_xdp: " << x.redirected << " frames redirected to the socket, " << x.sent << " sent; "
        << x.refill_misses << " polls found the fill ring short, " << x.kicks
        << " wake-ups; application: " << x.syscalls << " system calls, " << x.sleeps << " sleeps; "
        << x.busy_polls << " busy polls; " << x.tx_interrupts << " Tx completion interrupts, "
        << x.tx_unfinished << " polls left Tx not done\n";
  }
  const auto pps = per_second(r.delivered_packets, r.sim_time);
  const auto bps = per_second(r.delivered_bytes * 8, r.sim_time);
  out << "throughput: " << (pps ? printf_string("%.0f", *pps) : "n/a") << " pps, "
      << (bps ? printf_string("%.0f", *bps) : "n/a") << " bit/s\n";
  if (r.tcp) {
    const auto in = per_second(r.tcp->received_bytes * 8, r.sim_time);
    const auto out_bps = per_second(r.tcp->sent_bytes * 8, r.sim_time);
    out << "tcp goodput: in " << (in ? printf_string("%.0f", *in) : "n/a") << " bit/s, out "
        << (out_bps ? printf_string("%.0f", *out_bps) : "n/a") << " bit/s\n";
  }
  if (r.ping) {
    const LatencyHistogram& h = r.ping->rtt;
    out << "ping: " << r.ping->sent << " sent, " << h.count() << " answered, " << r.ping->lost
        << " lost";
    if (h.count() > 0) {
      out << "; rtt min " << format_usec(h.min()) << " p50 " << format_usec(h.percentile(50'000))
          << " p99 " << format_usec(h.percentile(99'000)) << " max " << format_usec(h.max())
          << " us";
    }
    out << "\n";
  }
  out << "drops: " << r.drops.total();
  for (std::size_t d = 0; d < kNumDropReasons; ++d) {
    const auto reason = static_cast<DropReason>(d);
    if (r.drops.count(reason)) out << "; " << to_string(reason) << " " << r.drops.count(reason);
  }
  out << "\n";
  const Conservation& c = r.conservation;
  out << "conservation: entered " << c.entered << " = delivered " << c.delivered << " + dropped "
      << c.dropped << " + in flight " << c.in_flight << ": " << (c.ok() ? "ok" : "BROKEN") << "\n";
  const Conservation& t = r.tx_conservation;
  if (t.entered > 0) {
    out << "tx conservation: made " << t.entered << " = sent " << t.delivered << " + dropped "
        << t.dropped << " + waiting " << t.in_flight << ": " << (t.ok() ? "ok" : "BROKEN") << "\n";
  }
}

void write_json(std::ostream& out, const RunReport& r) {
  JsonWriter json(out);
  json.begin_object();
  json.field("scenario", r.scenario);
  json.field("seed", r.seed);
  json.field("sim_time_ns", static_cast<std::int64_t>(r.sim_time.count()));
  if (r.warmup > Duration::zero())
    json.field("warmup_ns", static_cast<std::int64_t>(r.warmup.count()));
  if (r.wall_ns >= 0) json.field("wall_ns", r.wall_ns);
  json.field("events", r.events);

  const LatencyHistogram& h = r.latency;
  json.key("latency_ns");
  json.begin_object();
  json.field("count", h.count());
  json.field("min", h.min());
  static constexpr std::array<const char*, kSockperfPercentiles.size()> kNames = {
      "p25", "p50", "p75", "p90", "p99", "p99_9", "p99_99", "p99_999"};
  for (std::size_t i = 0; i < kSockperfPercentiles.size(); ++i) {
    json.field(kNames[i], h.percentile(kSockperfPercentiles[i]));
  }
  json.field("max", h.max());
  json.field("avg", h.mean());
  json.field("stddev", h.stddev());
  json.field("round_trip", r.sockperf.round_trip);
  json.end_object();

  json.key("interrupts");
  json.begin_object();
  json.field("total", r.interrupts.total());
  json.key("per_second");
  optional_value(json, per_second(r.interrupts.total(), r.sim_time));
  json.key("per_vector");
  json.begin_object();
  for (std::size_t v = 0; v < r.interrupts.vectors(); ++v) {
    json.key(std::to_string(v));
    json.begin_object();
    json.field("total", r.interrupts.count_of(v));
    json.key("per_second");
    optional_value(json, per_second(r.interrupts.count_of(v), r.sim_time));
    json.end_object();
  }
  json.end_object();
  json.end_object();

  json.key("queues");
  json.begin_array();
  for (std::size_t q = 0; q < r.queues.size(); ++q) {
    const QueueCounters& c = r.queues[q];
    json.begin_object();
    json.field("queue", static_cast<std::uint64_t>(q));
    json.field("rx_vector", static_cast<std::uint64_t>(c.rx_vector));
    json.field("irq_core", static_cast<std::uint64_t>(c.irq_core));
    json.key("tx_vector");
    if (c.tx_vector) {
      json.value(static_cast<std::uint64_t>(*c.tx_vector));
    } else {
      json.null();
    }
    json.field("rx_frames", c.rx_frames);
    json.field("rx_dropped", c.rx_dropped);
    json.field("rx_cleaned", c.rx_cleaned);
    json.field("tx_frames", c.tx_frames);
    json.field("sw_interrupts", c.sw_interrupts);
    json.field("released_without_timer", c.released_without_timer);
    json.end_object();
  }
  json.end_array();
  if (!r.napi_threads.empty()) {
    json.key("napi_threads");
    json.begin_array();
    for (const NapiThreadCounters& t : r.napi_threads) {
      json.begin_object();
      json.field("napi_id", static_cast<std::uint64_t>(t.napi_id));
      json.field("core", static_cast<std::uint64_t>(t.core));
      json.field("wakeups", t.wakeups);
      json.field("polls", t.polls);
      json.field("yields", t.yields);
      json.end_object();
    }
    json.end_array();
  }
  if (!r.kernel.empty()) {
    json.key("kernel");
    json.begin_object();
    json.field("version", r.kernel);
    json.field("driver", r.kernel_driver);
    json.key("switches");
    json.begin_array();
    for (const KernelSetting& k : r.kernel_settings) {
      json.begin_object();
      json.field("key", k.key);
      json.field("value", k.value);
      json.field("kernel_has_commit", k.kernel_has);
      json.field("set_by_scenario", k.by_scenario);
      json.field("commit", k.commit);
      json.field("title", k.title);
      json.field("release", k.release);
      json.end_object();
    }
    json.end_array();
    json.end_object();
  }
  if (r.search) {
    json.key("search");
    json.begin_object();
    json.field("kind", std::string("rfc2544"));
    json.field("rate", r.search->rate);
    json.field("lost_rate", r.search->lost_rate);
    json.field("trials", static_cast<std::uint64_t>(r.search->trials));
    json.end_object();
  }
  if (r.tcp) {
    json.key("tcp");
    json.begin_object();
    json.field("received_bytes", r.tcp->received_bytes);
    json.field("sent_bytes", r.tcp->sent_bytes);
    json.end_object();
  }
  if (r.ping) {
    const LatencyHistogram& rtt = r.ping->rtt;
    json.key("ping");
    json.begin_object();
    json.field("sent", r.ping->sent);
    json.field("answered", rtt.count());
    json.field("lost", r.ping->lost);
    json.field("rtt_min_ns", rtt.min());
    json.field("rtt_p50_ns", rtt.percentile(50'000));
    json.field("rtt_p99_ns", rtt.percentile(99'000));
    json.field("rtt_max_ns", rtt.max());
    json.end_object();
  }
  if (r.storage) {
    const StorageCounters& st = *r.storage;
    const auto rate_field = [&](std::string_view name, std::uint64_t n) {
      json.key(name);
      if (const auto v = per_second(n, r.sim_time)) {
        json.value(*v);
      } else {
        json.null();
      }
    };
    json.key("storage");
    json.begin_object();
    json.field("submitted", st.submitted);
    json.field("completed", st.completed);
    rate_field("iops", st.completed);
    json.field("device_msis", st.device_msis);
    rate_field("device_msis_per_second", st.device_msis);
    json.field("cpu_interrupts", st.cpu_interrupts);
    rate_field("cpu_interrupts_per_second", st.cpu_interrupts);
    json.field("notifications", st.notifications);
    rate_field("notifications_per_second", st.notifications);
    json.field("handler_calls", st.handler_calls);
    json.field("empty_calls", st.empty_calls);
    json.field("merged", st.merged);
    json.field("pir_scans", st.pir_scans);
    json.field("empty_notifications", st.empty_notifications);
    json.field("submit_calls", st.submit_calls);
    json.end_object();
  }
  if (r.xdp) {
    const XdpCounters& x = *r.xdp;
    json.key("af_xdp");
    json.begin_object();
    json.field("redirected", x.redirected);
    json.field("sent", x.sent);
    json.field("refill_misses", x.refill_misses);
    json.field("kicks", x.kicks);
    json.field("syscalls", x.syscalls);
    json.field("sleeps", x.sleeps);
    json.field("busy_polls", x.busy_polls);
    json.field("tx_interrupts", x.tx_interrupts);
    json.field("tx_unfinished", x.tx_unfinished);
    json.end_object();
  }
  if (r.mclgeti) {
    const MclgetiCounters& m = *r.mclgeti;
    json.key("mclgeti");
    json.begin_object();
    json.field("livelocks", m.livelocks);
    json.field("cwm_mean", m.cwm_mean(r.sim_time));
    json.field("cwm_min", static_cast<std::uint64_t>(m.cwm_min));
    json.field("cwm_max", static_cast<std::uint64_t>(m.cwm_max));
    json.field("cwm_end", static_cast<std::uint64_t>(m.cwm_end));
    json.end_object();
  }
  // Tx queues without an Rx queue of their own, numbered from `first`.
  const auto egress = [&](std::string_view key, const std::vector<EgressQueueCounters>& queues,
                          std::size_t first) {
    if (queues.empty()) return;
    json.key(key);
    json.begin_array();
    for (std::size_t q = 0; q < queues.size(); ++q) {
      const EgressQueueCounters& c = queues[q];
      json.begin_object();
      json.field("queue", static_cast<std::uint64_t>(first + q));
      json.key("tx_vector");
      if (c.tx_vector) {
        json.value(static_cast<std::uint64_t>(*c.tx_vector));
      } else {
        json.null();
      }
      json.field("tx_frames", c.tx_frames);
      json.field("dropped", c.dropped);
      json.end_object();
    }
    json.end_array();
  };
  egress("tx_only_queues", r.tx_only_queues, r.queues.size());
  egress("egress_queues", r.egress_queues, 0);

  json.key("cpu");
  json.begin_object();
  Duration all_busy{};
  for (std::size_t c = 0; c < r.cpu.cores(); ++c)
    all_busy += r.cpu.busy(c);
  json.key("utilization");
  optional_value(json, fraction(all_busy, r.sim_time * static_cast<std::int64_t>(r.cpu.cores())));
  json.key("per_core");
  json.begin_array();
  for (std::size_t c = 0; c < r.cpu.cores(); ++c) {
    json.begin_object();
    json.field("core", static_cast<std::uint64_t>(c));
    json.key("busy_fraction");
    optional_value(json, fraction(r.cpu.busy(c), r.sim_time));
    for (std::size_t k = 0; k < kNumContextKinds; ++k) {
      const auto kind = static_cast<ContextKind>(k);
      json.key(to_string(kind));
      optional_value(json, fraction(r.cpu.busy(c, kind), r.sim_time));
    }
    if (c < r.cores.size()) {
      json.field("interrupts", r.cores[c].interrupts);
      json.field("polls", r.cores[c].polls);
    }
    json.end_object();
  }
  json.end_array();
  json.end_object();

  if (r.tcp_loss_probes > 0) {
    json.field("tcp_loss_probes", r.tcp_loss_probes);
    json.field("probe_answers", r.probe_answers);
  }
  if (r.stranded_frames > 0) json.field("stranded_frames", r.stranded_frames);
  json.key("throughput");
  json.begin_object();
  json.key("pps");
  optional_value(json, per_second(r.delivered_packets, r.sim_time));
  json.key("bps");
  optional_value(json, per_second(r.delivered_bytes * 8, r.sim_time));
  json.end_object();

  json.key("drops");
  json.begin_object();
  json.field("total", r.drops.total());
  for (std::size_t d = 0; d < kNumDropReasons; ++d) {
    const auto reason = static_cast<DropReason>(d);
    json.field(to_string(reason), r.drops.count(reason));
  }
  json.end_object();

  const Conservation& cons = r.conservation;
  json.key("conservation");
  json.begin_object();
  json.field("entered", cons.entered);
  json.field("delivered", cons.delivered);
  json.field("dropped", cons.dropped);
  json.field("in_flight", cons.in_flight);
  json.field("ok", cons.ok());
  json.end_object();
  const Conservation& tx = r.tx_conservation;
  json.key("tx_conservation");
  json.begin_object();
  json.field("made", tx.entered);
  json.field("sent", tx.delivered);
  json.field("dropped", tx.dropped);
  json.field("waiting", tx.in_flight);
  json.field("ok", tx.ok());
  json.end_object();
  json.end_object();
  out << "\n";
}

void write_csv(std::ostream& out, const RunReport& r, bool header) {
  if (header) {
    out << "scenario,seed,sim_time_ns,events,latency_count,latency_min_ns,latency_p25_ns,"
           "latency_p50_ns,latency_p75_ns,latency_p90_ns,latency_p99_ns,latency_p99_9_ns,"
           "latency_p99_99_ns,latency_p99_999_ns,latency_max_ns,latency_avg_ns,latency_stddev_ns,"
           "interrupts,interrupts_per_second,cpu_busy_ns,pps,bps,drops,entered,delivered,"
           "dropped,in_flight,conservation_ok\n";
  }
  const LatencyHistogram& h = r.latency;
  // A scenario name with a comma or quote is quoted, CSV style (RFC 4180).
  std::string name = r.scenario;
  if (name.find_first_of(",\"\n") != std::string::npos) {
    std::string quoted = "\"";
    for (char ch : name)
      quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    name = quoted + "\"";
  }
  out << name << ',' << r.seed << ',' << r.sim_time.count() << ',' << r.events << ',' << h.count()
      << ',' << h.min();
  for (std::uint32_t p : kSockperfPercentiles)
    out << ',' << h.percentile(p);
  out << ',' << h.max() << ',' << printf_string("%.3f", h.mean()) << ','
      << printf_string("%.3f", h.stddev());
  Duration busy{};
  for (std::size_t c = 0; c < r.cpu.cores(); ++c)
    busy += r.cpu.busy(c);
  const auto ips = per_second(r.interrupts.total(), r.sim_time);
  const auto pps = per_second(r.delivered_packets, r.sim_time);
  const auto bps = per_second(r.delivered_bytes * 8, r.sim_time);
  out << ',' << r.interrupts.total() << ',' << (ips ? printf_string("%.3f", *ips) : "") << ','
      << busy.count() << ',' << (pps ? printf_string("%.3f", *pps) : "") << ','
      << (bps ? printf_string("%.3f", *bps) : "") << ',' << r.drops.total() << ','
      << r.conservation.entered << ',' << r.conservation.delivered << ',' << r.conservation.dropped
      << ',' << r.conservation.in_flight << ',' << (r.conservation.ok() ? "true" : "false") << '\n';
}

}  // namespace irqmod::sim
