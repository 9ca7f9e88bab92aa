// The cross-key checks of a loaded scenario (validate, scenario.hpp): the kernel's features
// against the keys that need them, the 6.13 NAPI extensions, and every rule between keys, each
// through the policy library's own validator where there is one (policy_config). Split from
// scenario.cpp (the loading) along the seam the two already had: validate reads a Scenario only.
#include <algorithm>
#include <string>
#include <vector>

#include "irqmod/napi/kernel.hpp"
#include "irqmod/sim/scenario.hpp"
#include "irqmod/sim/units.hpp"
#include "sim/lab/lab_run.hpp"
#include "sim/policy_config.hpp"
#include "sim/scenario_loading.hpp"
#include "sim/scenario_values.hpp"
#include "sim/storage/storage_run.hpp"
#include "sim/xdp/xdp_run.hpp"

namespace irqmod::sim {
namespace {

// A key whose feature the scenario's kernel does not have, set to something but its default.
std::optional<Error> check_kernel_features(const Scenario& s) {
  if (s.kernel.empty()) return std::nullopt;
  const auto version = napi::parse_kernel_version(s.kernel);
  if (!version) return version.error();
  const Scenario defaults = default_scenario();
  for (const napi::KernelBehaviour& b : napi::kernel_behaviours()) {
    if (b.kind != napi::BehaviourKind::feature || napi::has_commit(b, *version)) continue;
    if (!b.when.empty() && !kernel_condition_holds(b.when, s)) continue;
    const KeySpec* spec = find_key(b.key);
    // The per-NAPI rows (napi.queue.N.*) are check_napi_extensions', per queue.
    if (!spec || detail::is_entry_key(*spec) ||
        spec->binding.load(s, 0) == spec->binding.load(defaults, 0))
      continue;
    const std::string scope = b.when.empty() ? "" : " with " + std::string(b.when);
    return Error{std::string(b.key),
                 "kernel = \"" + s.kernel + "\" does not have it" + scope + ": Linux " +
                     napi::to_string(b.release) + " added it (" + std::string(b.commit) + " \"" +
                     std::string(b.title) + "\"); allowed: the default (" +
                     (spec->default_value.empty() ? std::string("empty")
                                                  : std::string(spec->default_value)) +
                     "), or kernel = \"" + napi::to_string(b.release) + "\" or later"};
  }
  return std::nullopt;
}

// The per-NAPI settings (napi.queue.N) and threaded NAPI: queues that exist, kernels that have
// them. (Which runs read them at all is in the schema: check_readers.)
std::optional<Error> check_napi_extensions(const Scenario& s) {
  const NapiSection& napi = s.napi;
  if (napi.threaded && napi.poll_in_irq) {
    return Error{"napi.threaded",
                 "a poll in the interrupt handler (napi.poll-in-irq) leaves nothing for a NAPI "
                 "thread to do; allowed: false with napi.poll-in-irq = true"};
  }
  if (!napi.threaded && napi.thread_core != default_scenario().napi.thread_core) {
    return Error{"napi.thread-core",
                 "only NAPI threads use it; allowed: the default (-1), or napi.threaded = true"};
  }
  if (napi.thread_core >= 0 && static_cast<std::uint32_t>(napi.thread_core) >= s.cpu.cores) {
    return Error{"napi.thread-core", std::to_string(napi.thread_core) +
                                         " is not a core; allowed: -1 (the vector's core) or 0 "
                                         "to " +
                                         std::to_string(s.cpu.cores - 1) +
                                         " (cpu.cores = " + std::to_string(s.cpu.cores) + ")"};
  }
  std::optional<napi::KernelVersion> version;
  if (!s.kernel.empty()) {
    if (const auto v = napi::parse_kernel_version(s.kernel)) version = v.value();
  }
  for (const auto& [queue, q] : napi.queue) {
    const std::string prefix = "napi.queue." + std::to_string(queue);
    if (queue >= s.nic.queues) {
      return Error{prefix, "queue " + std::to_string(queue) + " does not exist; allowed: 0 to " +
                               std::to_string(s.nic.queues - 1) +
                               " (nic.queues = " + std::to_string(s.nic.queues) + ")"};
    }
    if (!version) continue;
    // Before 6.13 each of these is one value per device (sysfs): a queue cannot differ.
    const struct {
      std::string_view name;
      bool differs;
      std::string device_wide;
    } settings[] = {
        {"napi_defer_hard_irqs", q.defer_hard_irqs && *q.defer_hard_irqs != napi.defer_hard_irqs,
         std::to_string(napi.defer_hard_irqs)},
        {"gro_flush_timeout", q.gro_flush_timeout && *q.gro_flush_timeout != napi.gro_flush_timeout,
         std::to_string(napi.gro_flush_timeout.count()) + " ns"},
        {"irq_suspend_timeout",
         q.irq_suspend_timeout && *q.irq_suspend_timeout != napi.irq_suspend_timeout,
         std::to_string(napi.irq_suspend_timeout.count()) + " ns"},
    };
    for (const auto& setting : settings) {
      if (!setting.differs) continue;
      const std::string row_key = "napi.queue.N." + std::string(setting.name);
      for (const napi::KernelBehaviour& b : napi::kernel_behaviours()) {
        if (b.key != row_key || napi::has_commit(b, *version)) continue;
        return Error{prefix + "." + std::string(setting.name),
                     "kernel = \"" + s.kernel + "\" has one " + std::string(setting.name) +
                         " per device, not per NAPI: Linux " + napi::to_string(b.release) +
                         " added it (" + std::string(b.commit) + " \"" + std::string(b.title) +
                         "\"); allowed: the device-wide value (napi." + std::string(setting.name) +
                         " = " + setting.device_wide + "), or kernel = \"" +
                         napi::to_string(b.release) + "\" or later"};
      }
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<Diagnostic> validate(const Scenario& s, std::string_view file) {
  // No silent key: what the run's model does not read is refused first (scenario_readers.cpp).
  if (auto e = detail::check_readers(s)) return Diagnostic{std::string(file), 0, std::move(*e)};
  if (auto e = check_kernel_features(s)) return Diagnostic{std::string(file), 0, std::move(*e)};
  if (auto e = check_napi_extensions(s)) return Diagnostic{std::string(file), 0, std::move(*e)};
  // The NIC host's own rules (policy_config.cpp).
  if (auto e = validate_nic_host(s)) return Diagnostic{std::string(file), 0, std::move(*e)};
  // [storage] (seed 003): its own checks, src/sim/storage/storage_run.cpp.
  if (auto e = validate_storage(s)) return Diagnostic{std::string(file), 0, std::move(*e)};
  // [xdp] (seed 002): src/sim/xdp/xdp_run.cpp.
  if (auto e = validate_xdp(s)) return Diagnostic{std::string(file), 0, std::move(*e)};
  // [lab] (issue 28): src/sim/lab/lab_run.cpp.
  if (auto e = validate_lab(s)) return Diagnostic{std::string(file), 0, std::move(*e)};
  const auto fail = [&](Error e) { return Diagnostic{std::string(file), 0, std::move(e)}; };
  // The time series keeps every sample in memory: a million is some 50 MB per queue.
  if (const Duration step = s.scenario.series_interval; step > Duration::zero()) {
    const Duration run = s.scenario.duration;  // the warm-up included
    if (run / step > kMaxSeriesSamples) {
      return fail({"scenario.series-interval",
                   format_duration(step.count()) + " gives " + std::to_string(run / step) +
                       " samples over the run's " + format_duration(run.count()) +
                       "; allowed: 0 (automatic) or at least " +
                       format_duration((run / kMaxSeriesSamples).count() + 1)});
    }
  }
  const auto not_a_core = [&](const std::string& key, std::uint32_t core) {
    return fail({key, std::to_string(core) + " is not a core; allowed: 0 to " +
                          std::to_string(s.cpu.cores - 1) +
                          " (cpu.cores = " + std::to_string(s.cpu.cores) + ")"});
  };
  for (std::size_t i = 0; i < s.flow_count(); ++i) {
    const TrafficSection& t = s.flow(i);
    const std::string prefix = i == 0 ? "traffic." : "flow." + std::to_string(i) + ".";
    const std::string kind = prefix + "kind = \"" +
                             std::string(detail::choices_of(
                                 *find_key("traffic.kind"))[static_cast<std::size_t>(t.kind)]) +
                             "\"";
    if (t.kind == TrafficKind::pcap && t.pcap.empty()) {
      return fail({prefix + "pcap", kind + " needs a capture file; allowed: a path"});
    }
    if (t.kind == TrafficKind::on_off && t.on_time == Duration::zero()) {
      return fail(
          {prefix + "on-time", kind + " needs a burst length; allowed: a duration above 0"});
    }
    if (t.depth > 0 && t.kind != TrafficKind::request_response) {
      return fail({prefix + "depth", kind + " has no connections to keep requests outstanding on; "
                                            "allowed: 0 (the default), or traffic.kind = "
                                            "\"request-response\""});
    }
    if (t.depth > 0 && t.latency != LatencyReport::round_trip) {
      return fail({prefix + "latency",
                   "a closed loop (traffic.depth) reports as mutilate does, the "
                   "round trip + traffic.client-delay; allowed: \"rtt\""});
    }
    if (((t.kind == TrafficKind::request_response && t.depth == 0) ||
         t.kind == TrafficKind::poisson) &&
        t.rate == 0) {
      return fail(
          {prefix + "rate", kind + " needs an average rate; allowed: 1 frame/s or more" +
                                (t.kind == TrafficKind::request_response
                                     ? std::string(", or traffic.depth above 0 for a closed loop")
                                     : std::string())});
    }
    if (t.kind != TrafficKind::request_response && t.latency != LatencyReport::half_round_trip) {
      return fail({prefix + "latency", kind + " reports its own latency; allowed: \"half-rtt\" "
                                              "(the default), or traffic.kind = "
                                              "\"request-response\""});
    }
    if (t.latency != LatencyReport::round_trip && t.client_delay != Duration::zero()) {
      return fail({prefix + "client-delay",
                   "only a round-trip report adds it; allowed: 0 (the "
                   "default), or traffic.latency = \"rtt\""});
    }
    if (t.protocol == Protocol::tcp && t.kind != TrafficKind::ping_pong) {
      return fail({prefix + "protocol", kind + " has its own transport; allowed: \"udp\" (the "
                                               "default), or traffic.kind = \"ping-pong\""});
    }
    if (t.protocol != Protocol::tcp && (t.peer_hz != default_scenario().traffic.peer_hz ||
                                        t.rto_min != default_scenario().traffic.rto_min)) {
      return fail(
          {prefix + (t.peer_hz != default_scenario().traffic.peer_hz ? "peer-hz" : "rto-min"),
           "only the TCP client's loss probe uses it; allowed: the default, or "
           "traffic.protocol = \"tcp\""});
    }
    if (t.protocol == Protocol::tcp && t.peer_hz != 100 && t.peer_hz != 250 && t.peer_hz != 300 &&
        t.peer_hz != 1000) {
      return fail({prefix + "peer-hz", std::to_string(t.peer_hz) +
                                           " is not a CONFIG_HZ choice; allowed: 100, 250, 300, "
                                           "1000"});
    }
    if (t.kind != TrafficKind::ping_pong &&
        t.peer_turnaround != default_scenario().traffic.peer_turnaround) {
      return fail({prefix + "peer-turnaround",
                   "only a ping-pong client answers a reply; allowed: "
                   "the default, or traffic.kind = \"ping-pong\""});
    }
    if (t.kind == TrafficKind::ping && t.rate == 0) {
      return fail({prefix + "rate", kind + " sends one echo request per 1/rate s (ping -i); "
                                           "allowed: 1 request/s or more"});
    }
    if (t.kind == TrafficKind::ping && t.jitter != default_scenario().traffic.jitter) {
      return fail({prefix + "jitter", kind + " sends at exact intervals (ping -i's timer); "
                                             "allowed: the default"});
    }
    if (t.steering == Steering::queue && t.queue >= s.nic.queues) {
      return fail({prefix + "queue", std::to_string(t.queue) + " is not a queue; allowed: 0 to " +
                                         std::to_string(s.nic.queues - 1) +
                                         " (nic.queues = " + std::to_string(s.nic.queues) + ")"});
    }
    const TrafficSection plain = default_scenario().traffic;
    const bool tcp = t.kind == TrafficKind::tcp_maerts || t.kind == TrafficKind::tcp_stream;
    if (tcp) {
      const char* key = t.rate != plain.rate       ? "rate"
                        : t.size != plain.size     ? "size"
                        : t.jitter != plain.jitter ? "jitter"
                                                   : nullptr;
      if (key) {
        return fail({prefix + key, kind + " sends a segment whenever its window allows, of "
                                          "traffic.mss bytes plus 70 of headers; allowed: the "
                                          "default"});
      }
      if (t.window < t.mss) {
        return fail({prefix + "window", std::to_string(t.window) +
                                            " bytes is less than one segment; allowed: " +
                                            std::to_string(t.mss) + " (traffic.mss) or more"});
      }
    } else if (t.mss != plain.mss || t.window != plain.window) {
      return fail({prefix + (t.mss != plain.mss ? "mss" : "window"),
                   "only a TCP flow has segments and a window; allowed: the default, or "
                   "traffic.kind = \"tcp-maerts\" or \"tcp-stream\""});
    }
    if (t.kind == TrafficKind::tcp_stream) {
      if (t.send_buffer != 0 && t.send_buffer < t.mss) {
        return fail({prefix + "send-buffer",
                     std::to_string(t.send_buffer) +
                         " bytes is less than one segment; allowed: 0 (twice traffic.window) or " +
                         std::to_string(t.mss) + " (traffic.mss) or more"});
      }
    } else if (t.send_buffer != plain.send_buffer || t.send_size != plain.send_size) {
      return fail({prefix + (t.send_buffer != plain.send_buffer ? "send-buffer" : "send-size"),
                   "only the host's TCP sender has a send buffer and send calls; allowed: the "
                   "default, or traffic.kind = \"tcp-stream\""});
    }
    if ((t.kind == TrafficKind::tcp_stream || t.kind == TrafficKind::ping) &&
        !s.nic.tx_interrupts) {
      return fail({prefix + "kind", kind + " is modelled with the Tx path's completions; "
                                           "allowed: with nic.tx-interrupts = true"});
    }
    const std::uint32_t tx_queues = s.nic.tx_queues == 0 ? s.nic.queues : s.nic.tx_queues;
    if (t.tx_steering == TxSteering::queue && t.tx_queue >= tx_queues) {
      return fail({prefix + "tx-queue", std::to_string(t.tx_queue) +
                                            " is not a Tx queue; allowed: 0 to " +
                                            std::to_string(tx_queues - 1)});
    }
    if (t.forward && s.nic.ports < 2) {
      return fail({prefix + "forward",
                   "a forwarded flow leaves by port 1; allowed: true with "
                   "nic.ports = 2"});
    }
    if (t.forward && (t.kind == TrafficKind::ping_pong || t.kind == TrafficKind::request_response ||
                      t.kind == TrafficKind::tcp_maerts || t.kind == TrafficKind::tcp_stream ||
                      t.kind == TrafficKind::ping)) {
      return fail({prefix + "forward", kind + " expects the host to answer, not to route its "
                                              "frames; allowed: a one-way load"});
    }
    if (t.thread >= s.thread_count()) {
      return fail(
          {prefix + "thread", std::to_string(t.thread) + " is not a thread; allowed: 0 to " +
                                  std::to_string(s.thread_count() - 1) + " (thread 0 and " +
                                  std::to_string(s.threads.size()) + " [[thread]] entries)"});
    }
  }
  if (s.napi.poll_in_irq && !s.napi.rx_backlog) {
    return fail({"napi.poll-in-irq",
                 "a poll in the interrupt handler hands its frames to the "
                 "backlog (netif_rx, OpenBSD's ipintrq); allowed: true with "
                 "napi.rx-backlog = true"});
  }
  if (s.search.kind == SearchKind::rfc2544) {
    if (s.traffic.kind != TrafficKind::constant && s.traffic.kind != TrafficKind::poisson) {
      const std::string kind(
          detail::choices_of(*find_key("traffic.kind"))[static_cast<std::size_t>(s.traffic.kind)]);
      return fail({"search.kind", "the search sets [traffic]'s rate, and traffic.kind = \"" + kind +
                                      "\" has none; allowed: none, or traffic.kind = "
                                      "\"constant\" or \"poisson\""});
    }
    if (s.search.high != 0 && s.search.high <= s.search.low) {
      return fail({"search.high", std::to_string(s.search.high) +
                                      " frames/s is not above search.low; allowed: 0 (line "
                                      "rate) or more than " +
                                      std::to_string(s.search.low)});
    }
  }
  if (s.scenario.warmup >= s.scenario.duration) {
    return fail({"scenario.warmup",
                 "the warm-up must end before the run does; allowed: 0 to less "
                 "than scenario.duration"});
  }
  if (auto e = validate_policies(s)) return fail(std::move(*e));
  const NicSection& nic = s.nic;
  if (nic.ports == 2) {
    bool forwards = false;
    for (std::size_t i = 0; i < s.flow_count(); ++i)
      forwards = forwards || s.flow(i).forward;
    if (!forwards) {
      return fail({"nic.ports",
                   "port 1 only carries forwarded frames and no flow is forwarded; "
                   "allowed: 1, or traffic.forward = true on a flow"});
    }
  }
  if (nic.tx_queues != 0 && nic.tx_queues < nic.queues) {
    return fail({"nic.tx-queues", std::to_string(nic.tx_queues) +
                                      " is fewer than the queue pairs; allowed: 0 (one per pair) "
                                      "or " +
                                      std::to_string(nic.queues) +
                                      " to 256 (nic.queues = " + std::to_string(nic.queues) + ")"});
  }
  if (nic.tx_queues > nic.queues && nic.vectors == VectorLayout::separate) {
    return fail({"nic.tx-queues",
                 "Tx queues beyond the pairs share their pair's vector; allowed: "
                 "0 with nic.vectors = \"separate\""});
  }
  if ((nic.rss_table & (nic.rss_table - 1)) != 0) {
    return fail({"nic.rss-table", std::to_string(nic.rss_table) +
                                      " entries is not a power of two; allowed: 1, 2, 4, ... 4096 "
                                      "(the hardware indexes the table by the hash's low bits)"});
  }
  if (nic.refill != Refill::delay && nic.refill_delay > Duration::zero()) {
    return fail(
        {"nic.refill-delay", "with nic.refill = \"" +
                                 std::string(nic.refill == Refill::cpu ? "cpu" : "mclgeti") +
                                 "\" buffers come back when a poll refills them, not "
                                 "after a delay; allowed: 0"});
  }
  if (nic.refill == Refill::delay && nic.alloc_fail_ppm > 0) {
    return fail({"nic.alloc-fail-ppm",
                 "allocations happen only with nic.refill = \"cpu\" or \"mclgeti\"; "
                 "allowed: 0, or one of those"});
  }
  const Scenario defaults = default_scenario();
  if (nic.refill != Refill::mclgeti) {
    const char* key = nic.mclgeti_lwm != defaults.nic.mclgeti_lwm   ? "nic.mclgeti-lwm"
                      : nic.mclgeti_hwm != defaults.nic.mclgeti_hwm ? "nic.mclgeti-hwm"
                                                                    : nullptr;
    if (key) {
      return fail({key,
                   "only MCLGETI's watermark uses it; allowed: the default, or nic.refill = "
                   "\"mclgeti\""});
    }
    const bool arms = !(s.cpu.hrtimer_arm.is_constant() && s.cpu.hrtimer_arm.a_ns == 0);
    if (s.cpu.hz != defaults.cpu.hz && !arms) {
      return fail({"cpu.hz",
                   "only MCLGETI's watermark and cpu.hrtimer-arm's tick use it; allowed: the "
                   "default, nic.refill = \"mclgeti\", or a cpu.hrtimer-arm"});
    }
  } else {
    if (nic.refill_batch != defaults.nic.refill_batch) {
      return fail({"nic.refill-batch",
                   "MCLGETI refills on every poll, as far as the watermark "
                   "allows; allowed: the default"});
    }
    if (nic.queues > 1) {
      return fail({"nic.queues",
                   "MCLGETI's watermark belongs to the interface, and how several "
                   "rings would share it is not modelled (OpenBSD 5.x's ix used "
                   "one queue); allowed: 1 with nic.refill = \"mclgeti\""});
    }
    const std::uint32_t hwm = nic.mclgeti_hwm == 0 ? nic.rx_ring : nic.mclgeti_hwm;
    if (hwm > nic.rx_ring) {
      return fail({"nic.mclgeti-hwm", std::to_string(hwm) +
                                          " buffers is more than the ring "
                                          "holds; allowed: 0 (the ring) or 1 to " +
                                          std::to_string(nic.rx_ring) + " (nic.rx-ring)"});
    }
    if (nic.mclgeti_lwm > hwm) {
      return fail({"nic.mclgeti-lwm", std::to_string(nic.mclgeti_lwm) +
                                          " is above the high water mark; allowed: 1 to " +
                                          std::to_string(hwm) + " (nic.mclgeti-hwm)"});
    }
  }
  if (!nic.busy_poll_exit_swint && nic.swint_itr != default_scenario().nic.swint_itr) {
    return fail({"nic.swint-itr",
                 "only the busy-poll exit's forced software interrupt uses it; allowed: the "
                 "default, or nic.busy-poll-exit-swint = true"});
  }
  if (nic.cqe_mode_rx && nic.moderation != Moderation::coalesce &&
      nic.moderation != Moderation::dim) {
    return fail({"nic.cqe-mode-rx",
                 "only the rx-usecs timer of coalescing and DIM has a CQE mode; allowed: false, "
                 "or nic.moderation = \"coalesce\" or \"dim\""});
  }
  if (nic.dim_driver == DimDriver::enetc && nic.cqe_mode_rx && nic.moderation == Moderation::dim) {
    return fail({"nic.cqe-mode-rx",
                 "enetc's net_dim runs in EQE mode (its struct dim is zeroed and never given a "
                 "mode); allowed: false with nic.dim-driver = \"enetc\""});
  }
  if (nic.dim_driver == DimDriver::enetc) {
    // enetc_ethtool.c supports ETHTOOL_COALESCE_USECS | MAX_FRAMES | USE_ADAPTIVE, no profiles;
    // its DIM works take only moder.usec and keep the ring's packet threshold.
    for (const auto& [key, text] : {std::pair{"nic.rx-profile", &nic.rx_profile},
                                    std::pair{"nic.tx-profile", &nic.tx_profile}}) {
      if (!text->empty()) {
        return fail({key,
                     "enetc takes no net_dim profile table (its ethtool ops have no "
                     "rx-profile / tx-profile, and it uses only a profile's usec); allowed: "
                     "empty with nic.dim-driver = \"enetc\""});
      }
    }
  }
  if (nic.clean_clears_cause && nic.moderation == Moderation::lli) {
    return fail({"nic.clean-clears-cause",
                 "low-latency interrupts are the 82599's, whose causes no clean withdraws "
                 "(EICR); allowed: false with nic.moderation = \"lli\""});
  }
  if (nic.refill == Refill::cpu && nic.refill_batch > nic.rx_ring) {
    return fail(
        {"nic.refill-batch", std::to_string(nic.refill_batch) +
                                 " descriptors is more than the ring holds; allowed: 1 to " +
                                 std::to_string(nic.rx_ring) + " (nic.rx-ring)"});
  }
  const CpuSection& cpu = s.cpu;
  const auto irq_cores = parse_cpu_list(cpu.irq_cores);  // canonical: it was parsed on loading
  if (!irq_cores) return fail({"cpu.irq-cores", irq_cores.error().message});
  for (const std::uint32_t core : irq_cores.value()) {
    if (core >= cpu.cores) return not_a_core("cpu.irq-cores", core);
  }
  if (cpu.app_core >= cpu.cores) return not_a_core("cpu.app-core", cpu.app_core);
  for (std::size_t i = 0; i < s.threads.size(); ++i) {
    if (s.threads[i].core >= cpu.cores) {
      return not_a_core("thread." + std::to_string(i + 1) + ".core", s.threads[i].core);
    }
  }
  return std::nullopt;
}

}  // namespace irqmod::sim
