// The scenario schema: every key once, with its type, range, unit, default and the source of
// that default. Adding a key is one entry here plus its field in scenario.hpp.
//
// Defaults of 0 ns in [cpu] mean "not charged": the cost model's numbers belong to the platform
// presets (DESIGN.md, "platforms"), each fitted on one seed table, not to a generic default.
#include <limits>
#include <type_traits>
#include <vector>

#include "irqmod/sim/scenario.hpp"

namespace irqmod::sim {
namespace {

// The table a key of `Section` lives in for `entry` (see Binding): [traffic] keys also serve the
// [[flow]] entries, thread keys the [[thread]] entries.
template <auto Section>
auto& table_of(Scenario& scenario, std::size_t entry) {
  if constexpr (std::is_same_v<decltype(Section), TrafficSection Scenario::*>) {
    return entry == 0 ? scenario.traffic : scenario.flows[entry - 1];
  } else if constexpr (std::is_same_v<decltype(Section), std::vector<ThreadSection> Scenario::*>) {
    return scenario.threads[entry - 1];
  } else {
    return scenario.*Section;
  }
}

template <auto Section>
const auto& table_of(const Scenario& scenario, std::size_t entry) {
  return table_of<Section>(const_cast<Scenario&>(scenario), entry);
}

template <auto Section, auto Field>
void store_field(Scenario& scenario, std::size_t entry, const Value& value) {
  auto& field = table_of<Section>(scenario, entry).*Field;
  using F = std::remove_cvref_t<decltype(field)>;
  if constexpr (std::is_same_v<F, bool>) {
    field = std::get<bool>(value);
  } else if constexpr (std::is_same_v<F, std::string>) {
    field = std::get<std::string>(value);
  } else if constexpr (std::is_same_v<F, Duration>) {
    field = Duration{std::get<std::int64_t>(value)};
  } else if constexpr (std::is_same_v<F, Distribution>) {
    field = std::get<Distribution>(value);
  } else {
    field = static_cast<F>(std::get<std::int64_t>(value));  // in range: checked by the loader
  }
}

template <auto Section, auto Field>
Value load_field(const Scenario& scenario, std::size_t entry) {
  const auto& field = table_of<Section>(scenario, entry).*Field;
  using F = std::remove_cvref_t<decltype(field)>;
  if constexpr (std::is_same_v<F, bool> || std::is_same_v<F, std::string> ||
                std::is_same_v<F, Distribution>) {
    return field;
  } else if constexpr (std::is_same_v<F, Duration>) {
    return static_cast<std::int64_t>(field.count());
  } else {
    return static_cast<std::int64_t>(field);
  }
}

template <auto Section, auto Field>
constexpr Binding bind() {
  return Binding{&store_field<Section, Field>, &load_field<Section, Field>};
}

// A per-NAPI key, napi.queue.N.KEY: entry N + 1 is queue pair N's own setting; a queue without
// one, and entry 0, read as the device-wide key (`Device`), which is what the queue's context
// then has (napi_config in policy_config.cpp). Store: entry >= 1.
template <auto Field, auto Device>
void store_queue(Scenario& scenario, std::size_t entry, const Value& value) {
  auto& field = scenario.napi.queue[static_cast<std::uint32_t>(entry - 1)].*Field;
  using F = typename std::remove_cvref_t<decltype(field)>::value_type;
  if constexpr (std::is_same_v<F, Duration>) {
    field = Duration{std::get<std::int64_t>(value)};
  } else {
    field = static_cast<F>(std::get<std::int64_t>(value));  // in range: checked by the loader
  }
}

template <auto Field, auto Device>
Value load_queue(const Scenario& scenario, std::size_t entry) {
  const auto as_value = [](const auto& v) -> Value {
    if constexpr (std::is_same_v<std::remove_cvref_t<decltype(v)>, Duration>) {
      return static_cast<std::int64_t>(v.count());
    } else {
      return static_cast<std::int64_t>(v);
    }
  };
  if (entry > 0) {
    const auto it = scenario.napi.queue.find(static_cast<std::uint32_t>(entry - 1));
    if (it != scenario.napi.queue.end() && (it->second.*Field))
      return as_value(*(it->second.*Field));
  }
  return as_value(scenario.napi.*Device);
}

template <auto Field, auto Device>
constexpr Binding bind_queue() {
  return Binding{&store_queue<Field, Device>, &load_queue<Field, Device>};
}

constexpr std::int64_t kU32 = std::numeric_limits<std::uint32_t>::max();
constexpr std::int64_t kS32 = std::numeric_limits<std::int32_t>::max();
constexpr std::int64_t kUs = 1'000;
constexpr std::int64_t kMs = 1'000'000;
constexpr std::int64_t kS = 1'000'000'000;
constexpr std::int64_t kHour = 3600 * kS;

using S = Scenario;
using V = ValueKind;

// The run kinds that read a key (KeySpec::readers): traced per field through simulation.cpp,
// builder.cpp, policy_config.cpp, run_setup.cpp, sampler.cpp and the xdp, storage and lab runs;
// a key a kind only validates is not read there. scenario_readers.cpp refuses the rest.
constexpr RunKinds kNic = RunKind::nic;
constexpr RunKinds kXdp = RunKind::xdp;
constexpr RunKinds kStorage = RunKind::storage;
constexpr RunKinds kLab = RunKind::lab;

// clang-format off
const KeySpec kSchema[] = {
  // [scenario]
  {"scenario.name", V::text, 0, 0, "", "", "",
   "the scenario file's name without its extension", kEveryRun, bind<&S::scenario, &ScenarioSection::name>()},
  {"scenario.duration", V::duration, 1, kHour, "s", "1s", "",
   "the performance goal's unit: 1 s of simulated line rate", kEveryRun, bind<&S::scenario, &ScenarioSection::duration>()},
  {"scenario.warmup", V::duration, 0, kHour, "s", "0", "",
   "0: measure from the start; a state that takes time to settle (MCLGETI's watermark, DIM) needs one",
   kNic | kLab, bind<&S::scenario, &ScenarioSection::warmup>()},
  {"scenario.seed", V::integer, 0, std::numeric_limits<std::int64_t>::max(), "", "1", "",
   "any fixed value reproduces a run; 1 is the first non-zero one", kEveryRun, bind<&S::scenario, &ScenarioSection::seed>()},

  {"scenario.series-interval", V::duration, 0, kHour, "s", "0", "",
   "0 = the run's length (warm-up included) / 500, chosen: about one sample per two pixels of irqmod sim --plot's 1000-pixel panels",
   kNic, bind<&S::scenario, &ScenarioSection::series_interval>()},

  // [link]
  {"link.speed", V::bitrate, 10'000'000, 800'000'000'000, "Mbit/s", "10G", "",
   "10GbE: seed 004's 82599 (and the X710 family of seed 000); range SPEED_10 to SPEED_800000 of ethtool.h",
   kNic | kXdp, bind<&S::link, &LinkSection::speed_bps>()},

  // [traffic]
  {"traffic.kind", V::choice, 0, 8, "", "constant",
   "constant|poisson|on-off|ping-pong|request-response|pcap|tcp-maerts|tcp-stream|ping",
   "the simplest load; seeds choose theirs", kNic, bind<&S::traffic, &TrafficSection::kind>()},
  {"traffic.rate", V::integer, 0, 2'000'000'000, "frames/s", "0", "",
   "0 = line rate: back to back on the link (the performance goal's load)", kNic | kXdp, bind<&S::traffic, &TrafficSection::rate>()},
  {"traffic.size", V::integer, 64, 9216, "bytes", "64", "",
   "minFrameSize, IEEE 802.3 clause 4.4.2: the line-rate worst case; up to 9216 B jumbo (tx_coalesce::kMaxFrameBytes)",
   kNic | kXdp, bind<&S::traffic, &TrafficSection::size>()},
  {"traffic.on-time", V::duration, 0, kHour, "us", "0", "",
   "no default burst: on-off needs it set (0 is refused there)", kNic, bind<&S::traffic, &TrafficSection::on_time>()},
  {"traffic.off-time", V::duration, 0, kHour, "us", "0", "",
   "0: bursts back to back unless set", kNic, bind<&S::traffic, &TrafficSection::off_time>()},
  {"traffic.pcap", V::path, 0, 0, "", "", "",
   "no default capture: pcap needs it set", kNic, bind<&S::traffic, &TrafficSection::pcap>()},
  {"traffic.pcap-loop", V::boolean, 0, 1, "", "false", "",
   "a replay ends with its capture unless asked to loop", kNic, bind<&S::traffic, &TrafficSection::pcap_loop>()},
  {"traffic.mps", V::integer, 0, 1'000'000'000, "messages/s", "0", "",
   "sockperf --mps=max, as seed 000 runs it", kNic, bind<&S::traffic, &TrafficSection::mps>()},
  {"traffic.msg-size", V::integer, 12, 65'507, "bytes", "12", "",
   "sockperf's default and minimum -m (12 B header); 65507 B is the largest UDP/IPv4 payload",
   kNic, bind<&S::traffic, &TrafficSection::msg_size>()},
  {"traffic.flows", V::integer, 1, 131'070, "4-tuples", "1", "",
   "one flow, as sockperf and netperf open; pktgen's flows: frames take the 4-tuples in turn (sources in RFC 2544's 198.18.0.0/15)",
   kNic, bind<&S::traffic, &TrafficSection::flows>()},
  {"traffic.steering", V::choice, 0, 1, "", "rss", "rss|queue",
   "RSS: what every multi-queue NIC does without flow rules", kNic, bind<&S::traffic, &TrafficSection::steering>()},
  {"traffic.queue", V::integer, 0, 255, "", "0", "",
   "queue 0, used only with steering = \"queue\" (an ethtool -N flow rule)", kNic, bind<&S::traffic, &TrafficSection::queue>()},
  {"traffic.tx-steering", V::choice, 0, 1, "", "xps", "xps|queue",
   "netdev_pick_tx: XPS when the driver sets it, else the flow's hash (skb_tx_hash)", kNic, bind<&S::traffic, &TrafficSection::tx_steering>()},
  {"traffic.tx-queue", V::integer, 0, 255, "", "0", "",
   "queue 0, used only with tx-steering = \"queue\" (the queue the socket's hash picked)", kNic, bind<&S::traffic, &TrafficSection::tx_queue>()},
  {"traffic.thread", V::integer, 0, 255, "", "0", "",
   "thread 0, the one of [cpu] app-core", kNic, bind<&S::traffic, &TrafficSection::thread>()},
  {"traffic.deliver-to", V::choice, 0, 1, "", "thread", "thread|incoming-cpu",
   "one socket per flow, read by traffic.thread", kNic, bind<&S::traffic, &TrafficSection::deliver_to>()},
  {"traffic.jitter", V::distribution, 0, kS, "ns", "0", "",
   "none: a generator's times are exact unless asked", kNic, bind<&S::traffic, &TrafficSection::jitter>()},
  {"traffic.mss", V::integer, 88, 9000, "bytes", "1448", "",
   "1500 MTU - 20 IP - 20 TCP - 12 timestamps (tcp_rcv_synsent_state_process)", kNic, bind<&S::traffic, &TrafficSection::mss>()},
  {"traffic.window", V::integer, 1448, 1 << 30, "bytes", "65536", "",
   "tcp_rmem[1] = 131072 with tcp_adv_win_scale = 1: 64 KiB advertised before autotuning (not modelled)",
   kNic, bind<&S::traffic, &TrafficSection::window>()},
  {"traffic.send-buffer", V::integer, 0, 1 << 30, "bytes", "0", "",
   "0 = twice traffic.window: tcp_sndbuf_expand grows sk_sndbuf to 2 x cwnd segments when netperf sets no SO_SNDBUF (net/ipv4/tcp_input.c)",
   kNic, bind<&S::traffic, &TrafficSection::send_buffer>()},
  {"traffic.send-size", V::integer, 1, 1 << 30, "bytes", "16384", "",
   "netperf -m: the send socket's size at creation, tcp_wmem[1] = 16384 (net/ipv4/tcp.c tcp_init; netperf.texi)",
   kNic, bind<&S::traffic, &TrafficSection::send_size>()},
  {"traffic.protocol", V::choice, 0, 1, "", "udp", "udp|tcp",
   "sockperf's default is UDP; tcp is sockperf --tcp (seed 000): the request's frame carries 70 B of TCP/IP, and the client's TCP probes a request left unanswered",
   kNic, bind<&S::traffic, &TrafficSection::protocol>()},
  {"traffic.peer-hz", V::integer, 100, 1000, "Hz", "1000", "",
   "CONFIG_HZ of the client's kernel: 1000 (seed 000's kernel is not named; 250 gives a stall of the same length within the timer wheel's rounding, docs/research/seed000-stall.md)",
   kNic, bind<&S::traffic, &TrafficSection::peer_hz>()},
  {"traffic.rto-min", V::duration, kMs, kS, "ms", "200ms", "",
   "TCP_RTO_MIN = HZ / 5 (include/net/tcp.h): the loss probe's floor with one segment in flight (tcp_schedule_loss_probe, 6.6+)",
   kNic, bind<&S::traffic, &TrafficSection::rto_min>()},
  {"traffic.peer-turnaround", V::distribution, 0, kS, "ns", "0", "",
   "none: the client answers at once; seed 000 fits one (the far side of a real ping-pong: switch, the client's interrupt, softirq, wake-up and TCP send, all inside sockperf's RTT)",
   kNic, bind<&S::traffic, &TrafficSection::peer_turnaround>()},
  {"traffic.latency", V::choice, 0, 1, "", "half-rtt", "half-rtt|rtt",
   "request-response: sockperf's under-load report, the round trip / 2; rtt: the whole round trip + traffic.client-delay, as a memcached client (mutilate) reports it",
   kNic, bind<&S::traffic, &TrafficSection::latency>()},
  {"traffic.client-delay", V::duration, 0, kS, "us", "0", "",
   "0: the client's host and the network between take no time (not simulated); with latency = rtt, a fixed time they add to each round trip",
   kNic, bind<&S::traffic, &TrafficSection::client_delay>()},
  {"traffic.depth", V::integer, 0, 1024, "requests", "0", "",
   "0: open loop (Poisson at traffic.rate, answered or not); N: mutilate -d N (its default 1), each of traffic.flows connections with at most N requests outstanding, at traffic.rate or, with rate 0, as fast as the answers come back (mutilate without -q, its MAX)",
   kNic, bind<&S::traffic, &TrafficSection::depth>()},
  {"traffic.forward", V::boolean, 0, 1, "", "false", "",
   "off: frames are for the host's own sockets; on: the host routes them out of port 1 (ip_forward), as seed 004's router",
   kNic, bind<&S::traffic, &TrafficSection::forward>()},

  // [nic]
  {"nic.ports", V::integer, 1, 2, "ports", "1", "",
   "one port; a router (seed 004) forwards from port 0 to port 1", kNic, bind<&S::nic, &NicSection::ports>()},
  {"nic.queues", V::integer, 1, 256, "queue pairs", "1", "",
   "one queue and vector: the seeds' single-flow tests", kNic, bind<&S::nic, &NicSection::queues>()},
  {"nic.tx-queues", V::integer, 0, 256, "queues", "0", "",
   "0 = one per queue pair (i40e, ixgbe); enetc has 8 Tx rings for 2 Rx rings: Tx queue t is served by vector t mod nic.queues",
   kNic, bind<&S::nic, &NicSection::tx_queues>()},
  {"nic.xps", V::boolean, 0, 1, "", "true", "",
   "i40e and ixgbe map Tx queue i to CPU i (i40e_config_xps_tx_ring, ixgbe_configure_tx_ring); enetc sets no XPS",
   kNic, bind<&S::nic, &NicSection::xps>()},
  {"nic.vectors", V::choice, 0, 1, "", "pair", "pair|separate",
   "one vector per queue pair with its Rx and Tx causes: i40e_map_vector_to_qp, ixgbe_configure_msix (\"TxRx\" vectors)",
   kNic, bind<&S::nic, &NicSection::vectors>()},
  {"nic.rss-table", V::integer, 1, 4096, "entries", "512", "",
   "I40E_HLUT_ARRAY_SIZE = 512 (i40e PF); 82599: 128, ice PF: 2048; a power of two",
   kNic, bind<&S::nic, &NicSection::rss_table>()},
  {"nic.rx-ring", V::integer, 1, 65'536, "descriptors", "512", "",
   "IXGBE_DEFAULT_RXD and I40E_DEFAULT_NUM_DESCRIPTORS = 512; up to tx_coalesce::kMaxQueueFrames",
   kNic | kXdp, bind<&S::nic, &NicSection::rx_ring>()},
  {"nic.tx-ring", V::integer, 1, 65'536, "descriptors", "512", "",
   "IXGBE_DEFAULT_TXD and I40E_DEFAULT_NUM_DESCRIPTORS = 512", kNic | kXdp, bind<&S::nic, &NicSection::tx_ring>()},
  {"nic.dma-delay", V::duration, 0, kS, "ns", "0", "",
   "0 = write-back at reception: a platform preset sets the PCIe latency", kNic, bind<&S::nic, &NicSection::dma_delay>()},
  {"nic.refill-delay", V::duration, 0, kS, "ns", "0", "",
   "0 = buffers usable at once; seed 004's starvation needs a slow refill set", kNic, bind<&S::nic, &NicSection::refill_delay>()},
  {"nic.refill", V::choice, 0, 2, "", "delay", "delay|cpu|mclgeti",
   "the first simulator's rule (buffers back after refill-delay), so that scenarios without a refill cost keep their numbers",
   kNic, bind<&S::nic, &NicSection::refill>()},
  {"nic.refill-batch", V::integer, 1, 65'536, "descriptors", "32", "",
   "I40E_RX_BUFFER_WRITE = 32 (i40e before 6.4; ring/2 since, ixgbe and enetc 16)", kNic, bind<&S::nic, &NicSection::refill_batch>()},
  {"nic.mclgeti-lwm", V::integer, 1, 65'536, "buffers", "4", "",
   "OpenBSD ix: m_clsetwms(ifp, MCLBYTES, 4, sc->num_rx_desc) (if_ix.c 1.60, seed 004's driver)", kNic, bind<&S::nic, &NicSection::mclgeti_lwm>()},
  {"nic.mclgeti-hwm", V::integer, 0, 65'536, "buffers", "0", "",
   "0 = the ring: OpenBSD ix sets the high water mark to sc->num_rx_desc (if_ix.c 1.60)", kNic, bind<&S::nic, &NicSection::mclgeti_hwm>()},
  {"nic.alloc-fail-ppm", V::integer, 0, 1'000'000, "per million", "0", "",
   "0: allocations do not fail (i40e counts failures in alloc_page_failed)", kNic, bind<&S::nic, &NicSection::alloc_fail_ppm>()},
  {"nic.rx-clean", V::choice, 0, 1, "", "at-poll-start", "at-poll-start|per-descriptor",
   "the first simulator's rule (the poll takes what was written back when it began), so that scenarios keep their numbers; drivers loop per descriptor",
   kNic, bind<&S::nic, &NicSection::rx_clean>()},
  {"nic.clean-clears-cause", V::boolean, 0, 1, "", "false", "",
   "Intel's causes stay latched until the next interrupt (ixgbe EICR, i40e); enetc clears a cleaned frame's (the IDR write in enetc_clean_rx_ring / enetc_clean_tx_ring)",
   kNic, bind<&S::nic, &NicSection::clean_clears_cause>()},
  {"nic.moderation", V::choice, 0, 5, "", "coalesce", "none|coalesce|itr|dim|adaptive-itr|lli",
   "ethtool -C coalescing: what every driver offers", kNic, bind<&S::nic, &NicSection::moderation>()},
  {"nic.rx-usecs", V::integer, 0, kU32, "us", "50", "",
   "I40E_ITR_20K = 50 us, i40e's Rx default (itr::kI40eItr20kUsecs); u32 as struct ethtool_coalesce; 0 on nic.driver i40e or ice is throttling off, an interrupt per frame (their ITR register at 0); on enetc 0 needs rx-frames > 0 (ethtool.h)",
   kNic | kXdp, bind<&S::nic, &NicSection::rx_usecs>()},
  {"nic.rx-frames", V::integer, 0, kU32, "frames", "0", "",
   "0 = off, as `ethtool -c` shows for i40e (no frame threshold)", kNic, bind<&S::nic, &NicSection::rx_frames>()},
  {"nic.rx-usecs-irq", V::integer, 0, kU32, "us", "0", "",
   "0 = not set (ethtool)", kNic, bind<&S::nic, &NicSection::rx_usecs_irq>()},
  {"nic.rx-frames-irq", V::integer, 0, kU32, "frames", "0", "",
   "0 = not set (ethtool)", kNic, bind<&S::nic, &NicSection::rx_frames_irq>()},
  {"nic.adaptive-rx", V::boolean, 0, 1, "", "false", "",
   "off: rate bands only when asked (adaptive-itr and dim are their own moderation kinds)",
   kNic, bind<&S::nic, &NicSection::adaptive_rx>()},
  {"nic.cqe-mode-rx", V::boolean, 0, 1, "", "false", "",
   "off: the rx-usecs timer runs from the first un-signalled completion (every driver but mlx5); on: it restarts at every completion and dim uses the CQE-based tables (ethtool cqe-mode-rx; mlx5's default where the device has cq_period_start_from_cqe)",
   kNic, bind<&S::nic, &NicSection::cqe_mode_rx>()},
  {"nic.dim-driver", V::choice, 0, 1, "", "mlx5", "mlx5|enetc",
   "mlx5 (mlx5e_handle_rx_dim / _tx_dim: a sample at every completed poll, events = interrupts, the profile written at once), the first net_dim driver; enetc: seed 001's patch v1 (13 Jul 2020, 6/6), events = completed polls (comp_cnt), a direction sampled only after a poll that cleaned work of it, the profile's usec written by enetc_msix at the next interrupt",
   kNic, bind<&S::nic, &NicSection::dim_driver>()},
  {"nic.rx-profile", V::text, 0, 0, "", "", "",
   "empty: net_dim's own Rx table (lib/dim/net_dim.c, EQE or CQE per nic.cqe-mode-rx); else ethtool -C rx-profile's syntax (Documentation/networking/net_dim.rst: up to 5 'usec,pkts,comps' joined by '_', 'n' keeps a value), Linux 6.11's user profiles (f750dfe825b9); needs nic.moderation = dim",
   kNic, bind<&S::nic, &NicSection::rx_profile>()},
  {"nic.tx-profile", V::text, 0, 0, "", "", "",
   "empty: net_dim's own Tx table (EQE); else ethtool -C tx-profile's syntax, Linux 6.11 (f750dfe825b9); needs nic.tx-moderation = dim",
   kNic, bind<&S::nic, &NicSection::tx_profile>()},
  {"nic.tx-usecs", V::integer, 0, kU32, "us", "50", "",
   "I40E_ITR_20K = 50 us, i40e's Tx default; 0 as for nic.rx-usecs", kNic | kXdp, bind<&S::nic, &NicSection::tx_usecs>()},
  {"nic.tx-frames", V::integer, 0, kU32, "frames", "0", "",
   "0 = off (ethtool)", kNic, bind<&S::nic, &NicSection::tx_frames>()},
  {"nic.tx-interrupts", V::boolean, 0, 1, "", "false", "",
   "off: a Tx descriptor is free once its frame left the wire (the first simulator's rule); on: NAPI cleans completions, as every driver does",
   kNic, bind<&S::nic, &NicSection::tx_interrupts>()},
  {"nic.tx-moderation", V::choice, 0, 2, "", "coalesce", "coalesce|dim|link-speed",
   "ethtool tx-usecs / tx-frames, what every driver offers", kNic, bind<&S::nic, &NicSection::tx_moderation>()},
  {"nic.tx-queue-len", V::integer, 0, kU32, "packets", "1000", "",
   "DEFAULT_TX_QUEUE_LEN = 1000 (include/uapi/linux/if_ether.h, ip link txqueuelen)", kNic, bind<&S::nic, &NicSection::tx_queue_len>()},
  {"nic.pkt-rate-low", V::integer, 0, kU32, "frames/s", "0", "",
   "0 = low band off (ethtool)", kNic, bind<&S::nic, &NicSection::pkt_rate_low>()},
  {"nic.pkt-rate-high", V::integer, 0, kU32, "frames/s", "0", "",
   "0 = high band off (ethtool)", kNic, bind<&S::nic, &NicSection::pkt_rate_high>()},
  {"nic.rx-usecs-low", V::integer, 0, kU32, "us", "0", "",
   "0 = not set (ethtool)", kNic, bind<&S::nic, &NicSection::rx_usecs_low>()},
  {"nic.rx-usecs-high", V::integer, 0, kU32, "us", "0", "",
   "0 = not set (ethtool)", kNic, bind<&S::nic, &NicSection::rx_usecs_high>()},
  {"nic.sample-interval", V::integer, 0, kU32, "s", "0", "",
   "0 = not set (ethtool); adaptive-rx needs it", kNic, bind<&S::nic, &NicSection::sample_interval>()},
  {"nic.itr-device", V::text, 0, 0, "", "82599", "",
   "seed 004's NIC (itr::find_device names the others)", kNic, bind<&S::nic, &NicSection::itr_device>()},
  {"nic.itr-rate", V::integer, 0, kU32, "interrupts/s", "8000", "",
   "seed 004's table: 8000 interrupts/s", kNic, bind<&S::nic, &NicSection::itr_rate>()},
  {"nic.lli-ring-threshold", V::integer, 0, 448, "free descriptors", "64", "",
   "seed 004: LLI below 64 free descriptors (lli::kSeed004RingThreshold)", kNic, bind<&S::nic, &NicSection::lli_ring_threshold>()},
  {"nic.lli-interval", V::duration, 0, 60 * kUs, "us", "60", "",
   "the 60 us cap of seed 004 (lli::kMaxLlInterval)", kNic, bind<&S::nic, &NicSection::lli_interval>()},
  {"nic.lli-hold", V::boolean, 0, 1, "", "false", "",
   "false: an LLI cause within the interval is dropped (lli::Settings::hold, the conservative reading); true: held to the interval's end",
   kNic, bind<&S::nic, &NicSection::lli_hold>()},
  {"nic.busy-poll-exit-swint", V::boolean, 0, 1, "", "true", "",
   "seed 000's fix is in the kernel since 2024; false reproduces the race", kNic, bind<&S::nic, &NicSection::busy_poll_exit_swint>()},
  {"nic.driver", V::choice, 0, 2, "", "i40e", "i40e|ice|enetc",
   "whose rows of the kernel table (irqmod kernel-diff) `kernel` applies: i40e (seed 000's NIC, the model's defaults), ice (its busy-poll-exit software interrupt: unthrottled from 5.13, b7306b42beaf, throttled from 5.16, 23be7075b318) or enetc (seed 001's NIC: no driver row); the vector model is the same",
   kNic, bind<&S::nic, &NicSection::driver>()},
  {"nic.off-affinity-force-wb", V::boolean, 0, 1, "", "true", "",
   "i40e_napi_poll (i40e_txrx.c): a poll that used its budget on a core other than the vector's (a busy poller elsewhere, a watchdog armed there) completes, forces a write-back interrupt through ITR index 0 (i40e_force_wb) and returns budget - 1, so the work moves to the vector's core; its commit is not known (docs/research/kernel-switches.md item 10). false: a driver without the branch",
   kNic | kXdp, bind<&S::nic, &NicSection::off_affinity_force_wb>()},
  {"nic.xdp-tx-irq", V::boolean, 0, 1, "", "false", "",
   "read by an AF_XDP run only; off: its Tx completions raise no interrupt; on: i40e's XDP Tx ring has its queue cause (QINT_TQCTL CAUSE_ENA, ITR index 1, i40e_vsi_configure_msix), set when the RS-marked descriptor i40e_xmit_zc leaves on each call's last frame completes (\"Request an interrupt for the last frame\", i40e_xsk.c, 5.2); it fires the queue's interrupt when enabled, no sooner than nic.tx-usecs after the last",
   kXdp, bind<&S::nic, &NicSection::xdp_tx_irq>()},
  {"nic.xdp-tx-clean-budget", V::integer, 0, 65'535, "completions", "0", "",
   "read by an AF_XDP run only; 0: a poll cleans every written-back Tx completion; else at most this many, i40e_clean_xdp_tx_irq's budget = vsi->work_limit (I40E_DEFAULT_IRQ_WORK 256, i40e 5.2; raised to the ring and made O(1) by \"i40e: optimize AF_XDP Tx completion path\", June 2020); 5.2 passes the same work_limit to i40e_xmit_zc, which is xdp.tx-budget here: a 5.2 driver has both alike",
   kXdp, bind<&S::nic, &NicSection::xdp_tx_clean_budget>()},
  {"nic.xdp-tx-unfinished", V::boolean, 0, 1, "", "false", "",
   "read by an AF_XDP run only; off: the Tx ring never keeps a poll going; on: i40e_napi_poll (5.2) counts a Tx ring not done (more completions ready than nic.xdp-tx-clean-budget, or i40e_xmit_zc finding the ring full with budget left or running out of frames after budget - 1) as a poll that did not finish: it returns the budget, or off the vector's core takes the off-affinity branch",
   kXdp, bind<&S::nic, &NicSection::xdp_tx_unfinished>()},
  {"nic.swint-itr", V::duration, 0, kMs, "us", "50us", "",
   "I40E_ITR_20K = 50 us on ITR index 2 (i40e's fix, seed 000); 0 = unthrottled, ice's first fix (b7306b42beaf) that stormed",
   kNic, bind<&S::nic, &NicSection::swint_itr>()},

  // [napi]
  {"napi.weight", V::integer, 1, 65'535, "frames", "64", "",
   "NAPI_POLL_WEIGHT = 64 (include/linux/netdevice.h)", kNic | kXdp | kLab, bind<&S::napi, &NapiSection::weight>()},
  {"napi.netdev_budget", V::integer, 1, kS32, "frames", "300", "",
   "net.core.netdev_budget = 300 (net/core/hotdata.c)", kNic | kXdp | kLab, bind<&S::napi, &NapiSection::netdev_budget>()},
  {"napi.netdev_budget_usecs", V::duration, kUs, kS32 * kUs, "us", "2000", "",
   "2 * USEC_PER_SEC / HZ = 2000 us at HZ = 1000 (net/core/hotdata.c)", kNic | kXdp | kLab, bind<&S::napi, &NapiSection::netdev_budget_usecs>()},
  {"napi.ksoftirqd", V::boolean, 0, 1, "", "true", "",
   "Linux: after MAX_SOFTIRQ_RESTART passes or MAX_SOFTIRQ_TIME, NET_RX goes on in ksoftirqd (kernel/softirq.c); false: a BSD's softnet, which runs at interrupt priority until its work is done",
   kNic | kXdp | kLab, bind<&S::napi, &NapiSection::ksoftirqd>()},
  {"napi.rx-backlog", V::boolean, 0, 1, "", "false", "",
   "off: the driver's poll runs the stack (napi_gro_receive); on: it queues frames on the core's backlog, the stack runs in the backlog's poll (netif_rx / process_backlog; OpenBSD's ipintrq and ipintr)",
   kNic, bind<&S::napi, &NapiSection::rx_backlog>()},
  {"napi.netdev_max_backlog", V::integer, 1, kS32, "frames", "1000", "",
   "netdev_max_backlog = 1000 (net/core/hotdata.c); OpenBSD's ipintrq: IFQ_MAXLEN = 256",
   kNic | kLab, bind<&S::napi, &NapiSection::max_backlog>()},
  {"napi.poll-in-irq", V::boolean, 0, 1, "", "false", "",
   "off: NAPI, the handler schedules a softirq poll; on: the handler cleans the rings itself and re-enables the interrupt (OpenBSD's ixgbe_intr, pre-NAPI Linux)",
   kNic, bind<&S::napi, &NapiSection::poll_in_irq>()},
  {"napi.napi_defer_hard_irqs", V::integer, 0, kS32, "polls", "0", "",
   "sysfs default 0: re-enable the interrupt at the first empty poll", kNic | kXdp | kLab, bind<&S::napi, &NapiSection::defer_hard_irqs>()},
  {"napi.gro_flush_timeout", V::duration, 0, kHour, "ns", "0", "",
   "sysfs default 0 ns", kNic | kXdp | kLab, bind<&S::napi, &NapiSection::gro_flush_timeout>()},
  {"napi.irq_suspend_timeout", V::duration, 0, kHour, "ns", "0", "",
   "netdev netlink default 0 ns: IRQ suspension off", kNic | kXdp | kLab, bind<&S::napi, &NapiSection::irq_suspend_timeout>()},
  // [napi.queue.N]: one queue pair's NAPI context (netdev netlink napi-set, Linux 6.13: 1287c1ae0fc2
  // "netdev-genl: Support setting per-NAPI config values"); unset = the device-wide key.
  {"napi.queue.N.napi_defer_hard_irqs", V::integer, 0, kS32, "polls", "", "",
   "unset: napi.napi_defer_hard_irqs (the device's value until napi-set sets the queue's)",
   kNic, bind_queue<&NapiQueueSettings::defer_hard_irqs, &NapiSection::defer_hard_irqs>()},
  {"napi.queue.N.gro_flush_timeout", V::duration, 0, kHour, "ns", "", "",
   "unset: napi.gro_flush_timeout (the device's value until napi-set sets the queue's)",
   kNic, bind_queue<&NapiQueueSettings::gro_flush_timeout, &NapiSection::gro_flush_timeout>()},
  {"napi.queue.N.irq_suspend_timeout", V::duration, 0, kHour, "ns", "", "",
   "unset: napi.irq_suspend_timeout (the device's value until napi-set sets the queue's)",
   kNic, bind_queue<&NapiQueueSettings::irq_suspend_timeout, &NapiSection::irq_suspend_timeout>()},
  {"napi.busy_read", V::duration, 0, kS32 * kUs, "us", "0", "",
   "net.core.busy_read default 0 us: off (Documentation/admin-guide/sysctl/net.rst)", kNic | kXdp | kLab, bind<&S::napi, &NapiSection::busy_read>()},
  {"napi.busy_poll", V::duration, 0, kS32 * kUs, "us", "0", "",
   "net.core.busy_poll default 0 us: off", kNic | kLab, bind<&S::napi, &NapiSection::busy_poll>()},
  {"napi.prefer_busy_poll", V::boolean, 0, 1, "", "false", "",
   "SO_PREFER_BUSY_POLL is off on a new socket", kNic | kXdp | kLab, bind<&S::napi, &NapiSection::prefer_busy_poll>()},
  {"napi.epoll-prefer-busy-loop", V::boolean, 0, 1, "", "false", "",
   "before Linux 6.13 epoll_wait busy-polls only with a busy_poll time; true: ab5b28b007a7 \"eventpoll: Trigger napi_busy_loop, if prefer_busy_poll is set\" (6.13), prefer_busy_poll alone busy-polls, one iteration when the time is 0",
   kNic | kLab, bind<&S::napi, &NapiSection::epoll_prefer_busy_loop>()},
  {"napi.gro-timer-after-final-poll", V::boolean, 0, 1, "", "false", "",
   "where busy_poll_stop arms the deferral timer. false: before its final poll (7fd3253a7de6, Linux 5.11), so a watchdog that expires during a final poll longer than gro_flush_timeout is lost and a full-budget final poll leaves the context idle, its interrupt masked, with no timer; true: after that poll released SCHED, 58e2330bd455 \"net: napi: Avoid gro timer misfiring at end of busypoll\" (7.1; stable 6.18.34, 7.0.11)",
   kNic | kXdp | kLab, bind<&S::napi, &NapiSection::gro_timer_after_final_poll>()},
  {"napi.watchdog-in-softirq", V::boolean, 0, 1, "", "false", "",
   "false: the NAPI watchdog (an hrtimer not marked HARD) expires in hard interrupt context, also during busy_poll_stop's final poll; true: a PREEMPT_RT kernel, where such timers expire in softirq (f5c2f0215e36 \"hrtimer: Move unmarked hrtimers to soft interrupt expiry on RT\", 5.4), held until the final poll's local_bh_enable(). Only the watchdog's timing is modelled, not the rest of PREEMPT_RT",
   kNic | kXdp | kLab, bind<&S::napi, &NapiSection::watchdog_in_softirq>()},
  {"napi.busy_poll_budget", V::integer, 1, 65'535, "frames", "8", "",
   "BUSY_POLL_BUDGET = 8 (include/net/busy_poll.h); SO_BUSY_POLL_BUDGET is a u16", kNic | kXdp | kLab, bind<&S::napi, &NapiSection::busy_poll_budget>()},
  {"napi.threaded", V::boolean, 0, 1, "", "false", "",
   "/sys/class/net/DEV/threaded is 0 unless a driver sets dev->threaded: NAPI polls in NET_RX; true: a kernel thread per NAPI (napi/DEV-ID) is woken instead and polls until napi_complete (29863d41bb6e \"net: implement threaded-able napi poll loop support\", 5fdd2f0e5c64's sysfs file; Linux 5.12)",
   kNic | kLab, bind<&S::napi, &NapiSection::threaded>()},
  {"napi.thread-core", V::integer, -1, 255, "", "-1", "",
   "-1: each NAPI thread on its vector's core (cpu.irq-cores). The kernel leaves the thread unbound (napi_kthread_create: kthread_run, no kthread_bind) and the scheduler picks a CPU at each wake-up; the model has no migration, and the interrupt's core is where a wakee of an interrupt is placed when that core is idle (an assumption). N: every NAPI thread pinned to core N (taskset, irqmod lab --napi-cpu)",
   kNic | kLab, bind<&S::napi, &NapiSection::thread_core>()},

  // [cpu]
  {"cpu.cores", V::integer, 1, 256, "cores", "1", "",
   "one core takes the interrupt and runs the application: the seeds' single-queue setups", kEveryRun, bind<&S::cpu, &CpuSection::cores>()},
  {"cpu.irq-cores", V::cpu_list, 0, 255, "", "0", "",
   "every vector on the first core; Intel's set_irq_affinity spreads them one per core (\"0-3\")", kNic | kXdp, bind<&S::cpu, &CpuSection::irq_cores>()},
  {"cpu.app-core", V::integer, 0, 255, "", "0", "",
   "the first core (shared with the interrupt unless set)", kNic | kXdp | kLab, bind<&S::cpu, &CpuSection::app_core>()},
  {"cpu.app-wait", V::choice, 0, 3, "", "recv", "recv|epoll|adaptive-poll|spin",
   "a blocking recv, as sockperf's server with its default options", kNic | kLab, bind<&S::cpu, &CpuSection::app_wait>()},
  {"cpu.epoll-timeout", V::duration, 0, kHour, "ms", "0", "",
   "0: epoll_wait without a timeout (-1), irqmod serve's default; the lab's fullbusy mode runs --epoll-timeout 1",
   kNic | kLab, bind<&S::cpu, &CpuSection::epoll_timeout>()},
  {"cpu.hypervisor", V::boolean, 0, 1, "", "false", "",
   "bare metal, as the sources' servers; true: a guest (the CPU flag 'hypervisor'), where irqmod serve --mode adaptive sleeps across gaps up to Seastar's 2000 us instead of 200 (rt::host_max_predicted_gap); irqmod calibrate writes what it finds",
   kNic | kLab, bind<&S::cpu, &CpuSection::hypervisor>()},
  {"cpu.hz", V::integer, 1, 10'000, "ticks/s", "100", "",
   "the kernel's tick rate: OpenBSD's HZ = 100 (sys/conf/param.c), the tick of seed 004's livelock detection; on Linux CONFIG_HZ (calibrate reads it), the tick behind which an hrtimer is not its core's earliest (cpu.hrtimer-arm)", kNic | kLab, bind<&S::cpu, &CpuSection::hz>()},
  {"cpu.sched-slice", V::duration, 0, kS, "us", "0", "",
   "0 = the kernel's: sysctl_sched_base_slice 0.70 ms x (1 + ilog2(min(cores, 8))) (2ae891b82695, Linux 6.15)",
   kEveryRun, bind<&S::cpu, &CpuSection::sched_slice>()},
  {"cpu.irq-entry", V::distribution, 0, kMs, "ns", "0", "", "not charged until a platform preset sets it", kEveryRun, bind<&S::cpu, &CpuSection::irq_entry>()},
  {"cpu.irq-handler", V::distribution, 0, kMs, "ns", "0", "", "not charged until a platform preset sets it", kNic | kXdp, bind<&S::cpu, &CpuSection::irq_handler>()},
  {"cpu.napi-poll", V::distribution, 0, kMs, "ns", "0", "", "not charged until a platform preset sets it", kNic | kXdp, bind<&S::cpu, &CpuSection::napi_poll>()},
  {"cpu.rx-packet", V::distribution, 0, kMs, "ns", "0", "", "not charged until a platform preset sets it", kNic | kLab, bind<&S::cpu, &CpuSection::rx_packet>()},
  {"cpu.tx-packet", V::distribution, 0, kMs, "ns", "0", "", "not charged until a platform preset sets it", kNic | kLab, bind<&S::cpu, &CpuSection::tx_packet>()},
  {"cpu.app-message", V::distribution, 0, kMs, "ns", "0", "", "not charged until a platform preset sets it", kNic | kLab, bind<&S::cpu, &CpuSection::app_message>()},
  {"cpu.syscall", V::distribution, 0, kMs, "ns", "0", "", "not charged until a platform preset sets it", kEveryRun, bind<&S::cpu, &CpuSection::syscall>()},
  {"cpu.wakeup", V::distribution, 0, kMs, "ns", "0", "", "not charged until a platform preset sets it", kEveryRun, bind<&S::cpu, &CpuSection::wakeup>()},
  {"cpu.context-switch", V::distribution, 0, kMs, "ns", "0", "", "not charged until a platform preset sets it", kEveryRun, bind<&S::cpu, &CpuSection::context_switch>()},
  {"cpu.busy-poll-iteration", V::distribution, 0, kMs, "ns", "0", "", "not charged until a platform preset sets it", kNic | kXdp | kLab, bind<&S::cpu, &CpuSection::busy_poll_iteration>()},
  {"cpu.rx-refill", V::distribution, 0, kMs, "ns", "0", "", "not charged until a platform preset sets it", kNic, bind<&S::cpu, &CpuSection::rx_refill>()},
  {"cpu.tx-clean", V::distribution, 0, kMs, "ns", "0", "", "not charged until a platform preset sets it", kNic | kXdp, bind<&S::cpu, &CpuSection::tx_clean>()},
  {"cpu.tcp-skb", V::distribution, 0, kMs, "ns", "0", "", "not charged until a platform preset sets it", kNic, bind<&S::cpu, &CpuSection::tcp_skb>()},
  {"cpu.copy-kb", V::distribution, 0, kMs, "ns", "0", "", "not charged until a platform preset sets it", kNic, bind<&S::cpu, &CpuSection::copy_kb>()},
  {"cpu.forward", V::distribution, 0, kMs, "ns", "0", "", "not charged until a platform preset sets it", kNic, bind<&S::cpu, &CpuSection::forward>()},
  {"cpu.gso-segment", V::distribution, 0, kMs, "ns", "0", "", "not charged until a platform preset sets it", kNic, bind<&S::cpu, &CpuSection::gso_segment>()},
  // [cpu] the host's costs of the lab runs ([lab]) and the cores' latencies: not charged until a
  // platform preset sets them (irqmod calibrate measures them: docs/calibration.md).
  {"cpu.epoll-wait", V::distribution, 0, kMs, "ns", "0", "", "not charged until a platform preset sets it; a whole epoll_wait call (system call included) that returns ready events", kNic | kLab, bind<&S::cpu, &CpuSection::epoll_wait>()},
  {"cpu.recv-empty", V::distribution, 0, kMs, "ns", "0", "", "not charged until a platform preset sets it; a whole non-blocking recv (system call included) that finds the socket empty: the last of a drain, a spinning loop's turn", kNic | kLab, bind<&S::cpu, &CpuSection::recv_empty>()},
  {"cpu.wakeup-remote", V::distribution, 0, kMs, "ns", "0", "", "0: a thread woken on an idle core starts at once; else the latency from the wake-up on another core to the thread running (the IPI and the idle core's exit after a short idle; cpu.wakeup-idle adds its growth with the idle's length)", kNic | kLab, bind<&S::cpu, &CpuSection::wakeup_remote>()},
  {"cpu.wakeup-ipi", V::distribution, 0, kMs, "ns", "0", "", "0: waking a thread on another core costs the waker nothing beyond the wake-up; else what the waker's core spends sending the IPI when that core is idle (ttwu_queue_wakelist) or its running thread is preempted (the reschedule IPI): its next segment is that much longer (on a virtual machine the APIC write exits to the hypervisor; calibrate measures it)", kNic | kLab, bind<&S::cpu, &CpuSection::wakeup_ipi>()},
  {"cpu.wakeup-run", V::distribution, 0, kMs, "ns", "0", "", "0: a remote wake-up's latency (cpu.wakeup-remote and cpu.wakeup-idle) is the woken core idle; else the part of it at its end that the woken core spends running the woken thread (its switch-in and the return to user space; on a virtual machine the exits on that path): busy, not idle, for that long, the latency unchanged (at most the whole of it; calibrate measures it as the wakee's own CPU time)", kNic | kLab, bind<&S::cpu, &CpuSection::wakeup_run>()},
  {"cpu.wakeup-run-local", V::distribution, 0, kMs, "ns", "0", "", "0: a thread woken by its own core's interrupt work while that core ran its idle task (a NAPI poll in softirq over idle, its own timer) starts with cpu.wakeup and cpu.context-switch only; else its first segment is that much longer too: the idle task's switch to it and its return to user space (on a virtual machine the exits on that path; calibrate measures it as the thread's own CPU time across an epoll_wait its own timerfd ends)", kNic | kLab, bind<&S::cpu, &CpuSection::wakeup_run_local>()},
  {"cpu.wakeup-idle", V::text, 0, 0, "", "", "",
   "empty: the idle exit does not depend on how long the core idled; else \"IDLE:ADDED, ...\" (durations, IDLE increasing): what a wake-up after IDLE of idle adds to cpu.wakeup-remote's, linear between the points, the last point's beyond it (a vCPU idle longer is later to run again; calibrate measures the curve)",
   kNic | kLab, bind<&S::cpu, &CpuSection::wakeup_idle>()},
  {"cpu.hrtimer-late", V::distribution, 0, kMs, "ns", "0", "", "0: timers fire on time; else how late an hrtimer fires after its expiry (napi->timer for gro_flush_timeout and irq_suspend_timeout, an epoll_pwait2 timeout), the idle exit of its core included", kNic | kLab, bind<&S::cpu, &CpuSection::hrtimer_late>()},
  {"cpu.hrtimer-arm", V::distribution, 0, kMs, "ns", "0", "", "0: arming a timer is free; else what reprogramming a core's clock-event device costs the job that does it: an hrtimer_start that makes the timer its core's earliest, or an hrtimer_cancel of the earliest (the NAPI watchdog, an epoll_wait timeout), for a timer due within a tick (1/cpu.hz) (on a virtual machine the TSC-deadline write exits to the hypervisor; calibrate measures it)", kNic | kLab, bind<&S::cpu, &CpuSection::hrtimer_arm>()},
  {"cpu.timer-irq", V::distribution, 0, kMs, "ns", "0", "", "0: a NAPI watchdog's timer interrupt costs cpu.irq-entry after its lateness and a sleeper's timer costs nothing; else a timer interrupt's whole cost (entry, hrtimer_interrupt, the next expiry programmed, exit) as the last part of cpu.hrtimer-late: busy at hardirq level for that long before the callback, the lateness unchanged (at most the whole of it; calibrate measures it)", kNic | kLab, bind<&S::cpu, &CpuSection::timer_irq>()},
  {"cpu.noise-interval", V::distribution, 0, 10 * kS, "ns", "0", "", "0: the host never takes a core from what it runs; else the time between two of its events (the tick, interrupts of devices the model does not have, other tasks, a virtual machine's exits), each stopping its core for a draw of cpu.noise, whatever runs there: charged as the work it interrupted, or over the idle task to nothing, an interrupt or wake-up meanwhile waiting for its end (a vCPU the host does not run); calibrate measures both as the gaps of up to 256 us a spinning thread sees in its clock", kNic | kLab, bind<&S::cpu, &CpuSection::noise_interval>()},
  {"cpu.noise", V::distribution, 0, kS, "ns", "0", "", "0: a noise event (cpu.noise-interval) takes nothing; else how long one stops its core", kNic | kLab, bind<&S::cpu, &CpuSection::noise>()},
  {"cpu.noise-long-interval", V::distribution, 0, 100 * kS, "ns", "0", "", "0: no long noise events; else the time between two of a second source of noise, as cpu.noise-interval's: the host's rarer, longer absences (on a virtual machine its scheduler running another task on the vCPU's CPU; calibrate measures them as the gaps over 256 us a spinning thread sees)", kNic | kLab, bind<&S::cpu, &CpuSection::noise_long_interval>()},
  {"cpu.noise-long", V::distribution, 0, kS, "ns", "0", "", "0: a long noise event (cpu.noise-long-interval) takes nothing; else how long one stops its core", kNic | kLab, bind<&S::cpu, &CpuSection::noise_long>()},
  {"cpu.veth-xmit", V::distribution, 0, kMs, "ns", "0", "", "not charged until a platform preset sets it; veth_xmit on the sending core per frame (forward, ptr_ring produce, __veth_xdp_flush)", kLab, bind<&S::cpu, &CpuSection::veth_xmit>()},
  {"cpu.veth-poll", V::distribution, 0, kMs, "ns", "0", "", "not charged until a platform preset sets it; one veth_poll call's fixed part with NAPI's own work around it", kLab, bind<&S::cpu, &CpuSection::veth_poll>()},
  {"cpu.veth-packet", V::distribution, 0, kMs, "ns", "0", "", "not charged until a platform preset sets it; per frame in veth_poll (ptr_ring consume, veth_xdp_rcv_skb, napi_gro_receive), before the receive stack (cpu.rx-packet)", kLab, bind<&S::cpu, &CpuSection::veth_packet>()},
  {"cpu.backlog-enqueue", V::distribution, 0, kMs, "ns", "0", "", "not charged until a platform preset sets it; loopback_xmit and netif_rx to the sending core's backlog, per frame", kLab, bind<&S::cpu, &CpuSection::backlog_enqueue>()},
  {"cpu.backlog-poll", V::distribution, 0, kMs, "ns", "0", "", "not charged until a platform preset sets it; one process_backlog call's fixed part with NAPI's own work around it", kLab, bind<&S::cpu, &CpuSection::backlog_poll>()},
  {"cpu.tcp-tx-packet", V::distribution, 0, kMs, "ns", "0", "", "not charged until a platform preset sets it; cpu.tx-packet for a TCP message (tcp_sendmsg to the device's xmit)", kLab, bind<&S::cpu, &CpuSection::tcp_tx_packet>()},
  {"cpu.tcp-rx-packet", V::distribution, 0, kMs, "ns", "0", "", "not charged until a platform preset sets it; cpu.rx-packet for a TCP segment (ip_rcv to the socket, the ACK decision)", kLab, bind<&S::cpu, &CpuSection::tcp_rx_packet>()},
  {"cpu.tcp-app-message", V::distribution, 0, kMs, "ns", "0", "", "not charged until a platform preset sets it; cpu.app-message for a TCP read (tcp_recvmsg's copy and the window update)", kLab, bind<&S::cpu, &CpuSection::tcp_app_message>()},
  // [cpu] costs of the storage path (seed 003): not charged until a platform preset sets them.
  {"cpu.nvme-irq", V::distribution, 0, kMs, "ns", "0", "", "not charged until a platform preset sets it", kStorage, bind<&S::cpu, &CpuSection::nvme_irq>()},
  {"cpu.nvme-cqe", V::distribution, 0, kMs, "ns", "0", "", "not charged until a platform preset sets it", kStorage, bind<&S::cpu, &CpuSection::nvme_cqe>()},
  {"cpu.uring-submit", V::distribution, 0, kMs, "ns", "0", "", "not charged until a platform preset sets it", kStorage, bind<&S::cpu, &CpuSection::uring_submit>()},
  {"cpu.uring-complete", V::distribution, 0, kMs, "ns", "0", "", "not charged until a platform preset sets it", kStorage, bind<&S::cpu, &CpuSection::uring_complete>()},
  {"cpu.uring-poll", V::distribution, 0, kMs, "ns", "0", "", "not charged until a platform preset sets it", kStorage, bind<&S::cpu, &CpuSection::uring_poll>()},
  {"cpu.pir-scan", V::distribution, 0, kMs, "ns", "0", "", "not charged until a platform preset sets it", kStorage, bind<&S::cpu, &CpuSection::pir_scan>()},
  // [cpu] costs of the AF_XDP path (seed 002): not charged until a platform preset sets them.
  {"cpu.xdp-rx", V::distribution, 0, kMs, "ns", "0", "", "not charged until a platform preset sets it", kXdp, bind<&S::cpu, &CpuSection::xdp_rx>()},
  {"cpu.xdp-tx", V::distribution, 0, kMs, "ns", "0", "", "not charged until a platform preset sets it", kXdp, bind<&S::cpu, &CpuSection::xdp_tx>()},
  {"cpu.xsk-rx", V::distribution, 0, kMs, "ns", "0", "", "not charged until a platform preset sets it", kXdp, bind<&S::cpu, &CpuSection::xsk_rx>()},
  {"cpu.xsk-tx", V::distribution, 0, kMs, "ns", "0", "", "not charged until a platform preset sets it", kXdp, bind<&S::cpu, &CpuSection::xsk_tx>()},
  {"cpu.xsk-fwd", V::distribution, 0, kMs, "ns", "0", "", "not charged until a platform preset sets it", kXdp, bind<&S::cpu, &CpuSection::xsk_fwd>()},
  {"cpu.xsk-cache-line", V::distribution, 0, kMs, "ns", "0", "", "not charged until a platform preset sets it; per xsk ring cache line (entries, producer index) read on a core other than the one that wrote it", kXdp, bind<&S::cpu, &CpuSection::xsk_cache_line>()},
  {"cpu.poll-call", V::distribution, 0, kMs, "ns", "0", "", "not charged until a platform preset sets it; what xdpsock's poll() on its socket costs beyond cpu.syscall (do_sys_poll, the fd, the socket's poll op)", kXdp, bind<&S::cpu, &CpuSection::poll_call>()},
  {"cpu.socket-call", V::distribution, 0, kMs, "ns", "0", "", "not charged until a platform preset sets it; what xdpsock's sendto() / recvfrom() costs beyond cpu.syscall before the driver's wake-up (fd lookup, sock_sendmsg, xsk_sendmsg's checks)", kXdp, bind<&S::cpu, &CpuSection::socket_call>()},

  // [search]
  {"search.kind", V::choice, 0, 1, "", "none", "none|rfc2544",
   "one run at traffic.rate; rfc2544 searches the highest traffic.rate with no frame lost (RFC 2544 section 26.1)",
   kNic, bind<&S::search, &SearchSection::kind>()},
  {"search.low", V::integer, 1, 2'000'000'000, "frames/s", "1000", "",
   "1 kframe/s: a rate every device forwards", kNic, bind<&S::search, &SearchSection::low>()},
  {"search.high", V::integer, 0, 2'000'000'000, "frames/s", "0", "",
   "0 = line rate for traffic.size: RFC 2544 starts at the medium's maximum", kNic, bind<&S::search, &SearchSection::high>()},
  {"search.resolution", V::integer, 1, 2'000'000'000, "frames/s", "1000", "",
   "1 kframe/s: the seeds' tables give kpps", kNic, bind<&S::search, &SearchSection::resolution>()},

  // [storage]: NVMe-like drives and t/io_uring-like submitters (seed 003)
  {"storage.drives", V::integer, 0, 64, "drives", "0", "",
   "0: no storage model, the network host runs; seed 003 ran 4", kStorage, bind<&S::storage, &StorageSection::drives>()},
  {"storage.mode", V::choice, 0, 2, "", "interrupts", "interrupts|polled|posted-msi",
   "Linux's default: a completion interrupt per queue (no IOPOLL ring, no posted_msi boot option)",
   kStorage, bind<&S::storage, &StorageSection::mode>()},
  {"storage.iops", V::integer, 1, 100'000'000, "IOPS", "5100000", "",
   "seed 003: gen2 Optane, \"about 5.1M/drive, which is what they can deliver\" (512 B random reads, polled)",
   kStorage, bind<&S::storage, &StorageSection::iops>()},
  {"storage.service-time", V::distribution, 0, kS, "us", "uniform(4us, 6us)", "",
   "estimate, range 4-6 us: an Optane (3D XPoint) drive's unloaded read latency; the seed does not give one",
   kStorage, bind<&S::storage, &StorageSection::service_time>()},
  {"storage.aggregation-threshold", V::integer, 0, 255, "CQEs - 1", "0", "",
   "NVMe Interrupt Coalescing (Feature 08h) THR, 0-based; 0 (the reset default) or TIME 0 = coalescing off, an interrupt per CQE",
   kStorage, bind<&S::storage, &StorageSection::aggregation_threshold>()},
  {"storage.aggregation-time", V::integer, 0, 255, "100 us", "0", "",
   "NVMe Interrupt Coalescing (Feature 08h) TIME in 100 us units; 0 (the reset default; Linux never sets it) or THR 0 = coalescing off, an interrupt per CQE",
   kStorage, bind<&S::storage, &StorageSection::aggregation_time>()},
  {"storage.queue-depth", V::integer, 1, 65'535, "I/Os", "128", "",
   "t/io_uring's default depth (DEPTH 128, fio t/io_uring.c)", kStorage, bind<&S::storage, &StorageSection::queue_depth>()},
  {"storage.batch-submit", V::integer, 1, 65'535, "I/Os", "32", "",
   "t/io_uring's BATCH_SUBMIT 32; seed 003 prints IOS/call=32/31", kStorage, bind<&S::storage, &StorageSection::batch_submit>()},
  {"storage.batch-complete", V::integer, 1, 65'535, "I/Os", "32", "",
   "t/io_uring's BATCH_COMPLETE 32", kStorage, bind<&S::storage, &StorageSection::batch_complete>()},
  {"storage.thread-cores", V::cpu_list, 0, 255, "", "0", "",
   "every submitter on the first core; seed 003 does not say where its threads ran (its scenarios state what they assume)",
   kStorage, bind<&S::storage, &StorageSection::thread_cores>()},
  {"storage.irq-cores", V::cpu_list, 0, 255, "", "0", "",
   "every completion vector on the first core; nvme-pci's managed affinity gives each CPU's queue a vector on that CPU",
   kStorage, bind<&S::storage, &StorageSection::irq_cores>()},
  {"storage.max-coalescing-loop", V::integer, 1, 255, "PIR scans", "3", "",
   "MAX_POSTED_MSI_COALESCING_LOOP = 3 in mainline arch/x86/kernel/irq.c (final scan included); the v1 seed 003 ran scans 4",
   kStorage, bind<&S::storage, &StorageSection::max_coalescing_loop>()},

  // [xdp]: one AF_XDP socket in zero-copy mode and an xdpsock application (seed 002)
  {"xdp.app", V::choice, 0, 3, "", "none", "none|rxdrop|txpush|l2fwd",
   "none: no AF_XDP model; the others are xdpsock's benchmarks (samples/bpf/xdpsock_user.c: -r, -t, -l)",
   kXdp, bind<&S::xdp, &XdpSection::app>()},
  {"xdp.method", V::choice, 0, 2, "", "r-t-c", "r-t-c|poll|busypoll",
   "xdpsock without -p spins on the rings (seed 002's r-t-c); poll is -p; busypoll is seed 002's RFC (poll() busy-polls)",
   kXdp, bind<&S::xdp, &XdpSection::method>()},
  {"xdp.irqs", V::boolean, 0, 1, "", "true", "",
   "the queue's NAPI context has its interrupt (seed 002's irqs = y, the normal case)",
   kXdp, bind<&S::xdp, &XdpSection::irqs>()},
  {"xdp.need-wakeup", V::boolean, 0, 1, "", "false", "",
   "seed 002's xdpsock (May 2019) made no Rx system call in r-t-c; XDP_USE_NEED_WAKEUP (Linux 5.4, 77cd0d7b3f25) and xdpsock's default since then make the app call recvfrom() when the fill ring's flag is set",
   kXdp, bind<&S::xdp, &XdpSection::need_wakeup>()},
  {"xdp.frames", V::integer, 1, 1'048'576, "frames", "4096", "",
   "xdpsock's NUM_FRAMES (4 * 1024), samples/bpf/xdpsock_user.c", kXdp, bind<&S::xdp, &XdpSection::frames>()},
  {"xdp.fill-ring", V::integer, 1, 1'048'576, "descriptors", "2048", "",
   "XSK_RING_PROD__DEFAULT_NUM_DESCS 2048 (libbpf xsk.h, libxdp)", kXdp, bind<&S::xdp, &XdpSection::fill_ring>()},
  {"xdp.comp-ring", V::integer, 1, 1'048'576, "descriptors", "2048", "",
   "XSK_RING_CONS__DEFAULT_NUM_DESCS 2048 (libbpf xsk.h, libxdp)", kXdp, bind<&S::xdp, &XdpSection::comp_ring>()},
  {"xdp.rx-ring", V::integer, 1, 1'048'576, "descriptors", "2048", "",
   "XSK_RING_CONS__DEFAULT_NUM_DESCS 2048 (libbpf xsk.h, libxdp)", kXdp, bind<&S::xdp, &XdpSection::rx_ring>()},
  {"xdp.tx-ring", V::integer, 1, 1'048'576, "descriptors", "2048", "",
   "XSK_RING_PROD__DEFAULT_NUM_DESCS 2048 (libbpf xsk.h, libxdp)", kXdp, bind<&S::xdp, &XdpSection::tx_ring>()},
  {"xdp.batch", V::integer, 1, 65'535, "descriptors", "64", "",
   "xdpsock's BATCH_SIZE 64 (samples/bpf/xdpsock_user.c, 2019)", kXdp, bind<&S::xdp, &XdpSection::batch>()},
  {"xdp.tx-budget", V::integer, 1, 65'535, "descriptors", "256", "",
   "seed 002: i40e does not honour the NAPI budget on Tx and sets it to 256", kXdp, bind<&S::xdp, &XdpSection::tx_budget>()},
  {"xdp.report-tx-work", V::boolean, 0, 1, "", "false", "",
   "seed 002: i40e's Tx work is not reported back to NAPI", kXdp, bind<&S::xdp, &XdpSection::report_tx_work>()},
  {"xdp.busy-loop-end", V::choice, 0, 2, "", "rx-empty-tx-full", "rx-empty-tx-full|once|poll-events",
   "seed 002's RFC: busy_loop_end ends the loop when the driver's Rx ring is empty or its Tx ring is full; poll-events = the RFC's loop as Sridhar Samudrala's review of patch 5/7 asked (xskq_empty_desc on the socket's Rx ring, xskq_full_desc on its Tx ring: the loop ends when poll() has an event to report); once = mainline since 5.11 (sk_busy_loop(sk, 1) in xsk recvmsg/sendmsg/poll)",
   kXdp, bind<&S::xdp, &XdpSection::busy_loop_end>()},
  {"xdp.busy-poll-batch", V::integer, 0, 64, "frames", "0", "",
   "seed 002's RFC: the socket's busy-poll budget, XDP_BUSY_POLL_BATCH_SIZE (\"[RFC bpf-next 4/7]\" and 5/7, 2 May 2019: 1 to NAPI_POLL_WEIGHT), never merged; 0 = no such option, busy polls use napi.busy_poll_budget (8 before Linux 5.11)",
   kXdp, bind<&S::xdp, &XdpSection::busy_poll_batch>()},

  // [lab]: a server and its client on one machine (irqmod lab, loopback)
  {"lab.device", V::choice, 0, 2, "", "none", "none|veth|loopback",
   "none: no lab model, the NIC host runs; veth is irqmod lab's pair (GRO on, TSO off: the NAPI path), loopback 127.0.0.1",
   kLab, bind<&S::lab, &LabSection::device>()},
  {"lab.client", V::choice, 0, 1, "", "sockperf", "sockperf|load",
   "sockperf ping-pong, as bench/serve-vs-sockperf.sh runs it; load is irqmod load (bench/lab-modes.sh)",
   kLab, bind<&S::lab, &LabSection::client>()},
  {"lab.tcp", V::boolean, 0, 1, "", "false", "",
   "UDP, sockperf's default", kLab, bind<&S::lab, &LabSection::tcp>()},
  {"lab.connections", V::integer, 1, 1024, "connections", "1", "",
   "sockperf pp's one socket; bench/lab-modes.sh runs irqmod load with 4", kLab, bind<&S::lab, &LabSection::connections>()},
  {"lab.rate", V::integer, 0, 1'000'000, "requests/s", "10000", "",
   "sockperf's --mps default (10000 msg/s for ping-pong); 0 = as fast as replies come (--mps=max; sockperf only)",
   kLab, bind<&S::lab, &LabSection::rate>()},
  {"lab.msg-size", V::integer, 14, 65'507, "bytes", "64", "",
   "the benches' -m 64 / --size 64 (sockperf's 14-byte header included)", kLab, bind<&S::lab, &LabSection::msg_size>()},
  {"lab.client-core", V::integer, 0, 255, "", "0", "",
   "bench/lab-common.sh's BENCH_CLIENT_CPU (0); the server on cpu.app-core", kLab, bind<&S::lab, &LabSection::client_core>()},
  {"lab.ring", V::integer, 1, 65'536, "frames", "256", "",
   "VETH_RING_SIZE 256 (drivers/net/veth.c)", kLab, bind<&S::lab, &LabSection::ring>()},

  // [[thread]]: application threads 1, 2, ...
  {"thread.core", V::integer, 0, 255, "", "0", "",
   "the first core", kNic, bind<&S::threads, &ThreadSection::core>()},
  {"thread.wait", V::choice, 0, 3, "", "recv", "recv|epoll|adaptive-poll|spin",
   "a blocking recv, as thread 0", kNic, bind<&S::threads, &ThreadSection::wait>()},
};
// clang-format on

}  // namespace

std::span<const KeySpec> schema() {
  return kSchema;
}

const KeySpec* find_key(std::string_view dotted) {
  for (const KeySpec& spec : kSchema) {
    if (spec.name == dotted) return &spec;
  }
  return nullptr;
}

}  // namespace irqmod::sim
