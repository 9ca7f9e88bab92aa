// What a simulation run counts, and how it is reported: interrupts per vector, CPU time per core
// and context kind, drops by reason, the conservation check, and the report in text (with
// sockperf's summary lines), JSON and CSV.
//
// Counters are plain members and arrays sized at set-up; counting never allocates. Each section
// of plain counters has a table beside its struct (counter_table.hpp): its entries are what the
// report subtracts at the warm-up and prints, in the order they print.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "irqmod/error.hpp"
#include "irqmod/napi/context.hpp"
#include "irqmod/napi/vector.hpp"
#include "irqmod/sim/client_metrics.hpp"
#include "irqmod/sim/counter_table.hpp"
#include "irqmod/sim/histogram.hpp"
#include "irqmod/sim/optional_section.hpp"
#include "irqmod/time.hpp"

namespace irqmod::sim {

// Why a packet was dropped. Each has a counter; a drop without a reason is not possible.
enum class DropReason : std::uint8_t {
  rx_ring_full,       // the Rx descriptor ring had no free descriptor when the frame arrived
  rx_no_buffer,       // a descriptor was free but had no buffer yet (refill too slow, seed 004)
  tx_ring_full,       // the Tx ring was full and there is no qdisc (txqueuelen 0)
  socket_queue_full,  // the receiving socket's queue was at its limit (SO_RCVBUF)
  qdisc_full,         // the Tx ring and the qdisc in front of it (txqueuelen) were full
  egress_queue_full,  // a forwarded frame found port 1's Tx ring and qdisc full
  backlog_full,       // the core's receive backlog was full (netdev_max_backlog, ipintrq)
  kCount,
};
inline constexpr std::size_t kNumDropReasons = static_cast<std::size_t>(DropReason::kCount);
std::string_view to_string(DropReason reason);

class DropCounters {
 public:
  void add(DropReason reason, std::uint64_t n = 1) {
    by_reason_[static_cast<std::size_t>(reason)] += n;
  }
  std::uint64_t count(DropReason reason) const {
    return by_reason_[static_cast<std::size_t>(reason)];
  }
  std::uint64_t total() const;
  // What was counted since `earlier` (a copy of these counters taken before).
  void subtract(const DropCounters& earlier);

 private:
  std::array<std::uint64_t, kNumDropReasons> by_reason_{};
};

// Interrupts raised per MSI-X vector.
class InterruptCounters {
 public:
  explicit InterruptCounters(std::size_t vectors = 0) : per_vector_(vectors, 0) {}
  void count(std::size_t vector) { ++per_vector_[vector]; }
  std::uint64_t count_of(std::size_t vector) const { return per_vector_[vector]; }
  std::size_t vectors() const { return per_vector_.size(); }
  std::uint64_t total() const;
  void subtract(const InterruptCounters& earlier);

 private:
  std::vector<std::uint64_t> per_vector_;
};

// The kind of context a core spends time in. Idle is what is left.
enum class ContextKind : std::uint8_t {
  hardirq,    // interrupt entry, the driver's handler, exit
  softirq,    // NET_RX softirq on interrupt exit: NAPI polls
  ksoftirqd,  // the same work deferred to the ksoftirqd thread
  thread,     // application threads: system calls, copies, the application's own work
  busy_poll,  // a thread polling the device queue (busy_read / busy_poll / prefer_busy_poll)
  kCount,
};
inline constexpr std::size_t kNumContextKinds = static_cast<std::size_t>(ContextKind::kCount);
std::string_view to_string(ContextKind kind);

// Busy time per core and context kind.
class CpuTime {
 public:
  explicit CpuTime(std::size_t cores = 0) : busy_(cores), over_idle_(cores) {}
  void charge(std::size_t core, ContextKind kind, Duration d) {
    busy_[core][static_cast<std::size_t>(kind)] += d.count();
  }
  // Of the busy time, interrupt work (hardirq, softirq) that ran with no thread on the core: the
  // kernel charges it to the idle task, so it is in no process's CPU time (/proc/PID/stat).
  void charge_over_idle(std::size_t core, Duration d) { over_idle_[core] += d.count(); }
  Duration over_idle(std::size_t core) const { return Duration{over_idle_[core]}; }
  Duration busy(std::size_t core, ContextKind kind) const {
    return Duration{busy_[core][static_cast<std::size_t>(kind)]};
  }
  Duration busy(std::size_t core) const;
  std::size_t cores() const { return busy_.size(); }
  // What "cpu %" means in every output (report, `irqmod run`, sweep CSV, tune, seed rows): the
  // busy time of all cores over `measured`, as a fraction of all of them (1 = every core busy
  // for the whole time; mpstat's "all" row). None when no time was measured or no core exists.
  std::optional<double> utilization(Duration measured) const;
  void subtract(const CpuTime& earlier);

 private:
  std::vector<std::array<std::int64_t, kNumContextKinds>> busy_;
  std::vector<std::int64_t> over_idle_;
};

// Every packet that entered the system is delivered, dropped or still in flight at the end.
struct Conservation {
  std::uint64_t entered = 0;    // frames that arrived at the NIC
  std::uint64_t delivered = 0;  // frames the application consumed
  std::uint64_t dropped = 0;    // frames dropped, any reason (DropCounters::total())
  std::uint64_t in_flight = 0;  // frames in rings, queues and sockets when the run ended

  bool ok() const { return entered == delivered + dropped + in_flight; }
  // An Error keyed "conservation" spelling out both sides when the books do not balance.
  std::optional<Error> check() const;
};

// sockperf's summary for a histogram (client_statistics / printPercentiles in sockperf 3.x):
//   sockperf: ====> avg-latency=24.571 (std-dev=93.297)
//   sockperf: # dropped messages = 0; # duplicated messages = 0; # out-of-order messages = 0
//   sockperf: Summary: Latency is 24.571 usec
//   sockperf: Total 2429473 observations; each percentile contains 24294.73 observations
//   sockperf: ---> <MAX> observation = 103294.331
//   sockperf: ---> percentile 99.999 =   45.633   (then 99.990 ... 25.000)
//   sockperf: ---> <MIN> observation =   12.220
// Values are microseconds with three decimals. A ping-pong run records RTT/2 per message
// (sockperf's default, "latency"); `round_trip` labels full round trips instead ("rtt", sockperf
// --full-rtt). sockperf 3.10 adds mean-ad, median-ad, siqr, cv, std-error and a confidence
// interval to the avg line; the first two need every observation, which a fixed-memory histogram
// does not keep, so the line stops at std-dev.
struct SockperfOptions {
  bool round_trip = false;         // values are full round trips, not RTT/2
  std::uint64_t dropped = 0;       // messages sent and never answered
  std::uint64_t duplicated = 0;    // answers received twice
  std::uint64_t out_of_order = 0;  // answers received out of order
  // No message client (a stream, a capture, a router's tester): the message counters do not
  // apply, and the dropped-messages line points at the frames' drops instead of saying 0.
  bool one_way = false;
};
// sockperf's message counters: its second line (after "sockperf: "); not in the JSON.
inline constexpr Counter<SockperfOptions> kSockperfMessageEntries[] = {
    {"dropped", at<&SockperfOptions::dropped>, Unit::count, Warmup::subtract},
    {"duplicated", at<&SockperfOptions::duplicated>, Unit::count, Warmup::subtract},
    {"out_of_order", at<&SockperfOptions::out_of_order>, Unit::count, Warmup::subtract},
};
inline constexpr CounterTable<SockperfOptions> kSockperfMessages{
    "",
    "# dropped messages = {dropped}; # duplicated messages = {duplicated}; # out-of-order "
    "messages = {out_of_order}\n",
    kSockperfMessageEntries};

std::string sockperf_summary(const LatencyHistogram& latency, const SockperfOptions& options = {});

// ns as microseconds with exactly three decimals ("45.633"), right-aligned in `width`.
std::string format_usec(std::int64_t ns, int width = 0);

// A NAPI context's polls by what ran them, counted where the core's are (CoreCounters): NET_RX's
// (ksoftirqd, threaded NAPI and a poll in the handler included) after a device interrupt or a
// repoll, NET_RX's after the NAPI timer scheduled it, and a busy loop's turns and final poll.
struct NapiPolls {
  std::uint64_t softirq = 0;
  std::uint64_t timer = 0;
  std::uint64_t busy = 0;
};

// What one queue pair saw (/proc/interrupts and ethtool -S, per queue).
struct QueueCounters {
  std::uint32_t rx_vector = 0;             // the MSI-X vector its Rx causes raise
  std::uint32_t irq_core = 0;              // the core that vector interrupts
  std::optional<std::uint32_t> tx_vector;  // the vector its Tx completions raise (tx-interrupts)
  std::uint64_t rx_frames = 0;             // frames that reached its Rx ring, dropped ones included
  std::uint64_t rx_dropped = 0;            // ... dropped there (ring full, no buffer)
  std::uint64_t rx_cleaned = 0;            // frames NAPI took from the ring
  std::uint64_t tx_frames = 0;             // frames sent on its Tx queue
  // Copies of its vector's and its NAPI context's own counters at the end of the run: the table
  // below prints some of them, and only those count from the warm-up's end.
  napi::VectorCounters vector;
  napi::Counters napi;
  NapiPolls polls;  // its vector's NAPI context's polls (the model's count, beside napi's)
};
namespace detail {
inline bool tx_vector_of_its_own(const QueueCounters& q) {
  return q.tx_vector && *q.tx_vector != q.rx_vector;
}
}  // namespace detail
inline constexpr Counter<QueueCounters> kQueueCounterEntries[] = {
    {"rx_vector", at<&QueueCounters::rx_vector>, Unit::id, Warmup::keep},
    {"irq_core", at<&QueueCounters::irq_core>, Unit::id, Warmup::keep},
    // The text names a Tx vector only when it is not the Rx one.
    {.name = "tx_vector",
     .at = at<&QueueCounters::tx_vector>,
     .unit = Unit::id,
     .warmup = Warmup::keep,
     .shown = detail::tx_vector_of_its_own},
    {"rx_frames", at<&QueueCounters::rx_frames>, Unit::count, Warmup::subtract},
    {"rx_dropped", at<&QueueCounters::rx_dropped>, Unit::count, Warmup::subtract},
    {"rx_cleaned", at<&QueueCounters::rx_cleaned>, Unit::count, Warmup::subtract},
    {"tx_frames", at<&QueueCounters::tx_frames>, Unit::count, Warmup::subtract},
    // Its vector's interrupts raised by a software trigger alone.
    {"sw_interrupts", at<&QueueCounters::vector, &napi::VectorCounters::software>, Unit::count,
     Warmup::subtract},
    // busy_poll_stop's full final polls that released the context with its interrupt masked and
    // no timer (before 58e2330bd455): the queue waits for the next busy poll.
    {"released_without_timer", at<&QueueCounters::napi, &napi::Counters::released_without_timer>,
     Unit::count, Warmup::subtract},
    // Busy-poll iterations that found the context owned (SCHED or IN_BUSY_POLL already set, as
    // __napi_busy_loop finds it) and polled nothing.
    {"busy_poll_misses", at<&QueueCounters::napi, &napi::Counters::busy_poll_misses>, Unit::count,
     Warmup::subtract},
    {"softirq_polls", at<&QueueCounters::polls, &NapiPolls::softirq>, Unit::count,
     Warmup::subtract},
    {"timer_polls", at<&QueueCounters::polls, &NapiPolls::timer>, Unit::count, Warmup::subtract},
    {"busy_polls", at<&QueueCounters::polls, &NapiPolls::busy>, Unit::count, Warmup::subtract},
};
inline constexpr CounterTable<QueueCounters> kQueueCounters{
    "queues",
    "queue {#} (vector {rx_vector} on cpu {irq_core}[, Tx vector {tx_vector}]): rx {rx_frames} "
    "frames, {rx_dropped} dropped, {rx_cleaned} cleaned; tx {tx_frames} frames; napi polls: "
    "softirq {softirq_polls}, timer {timer_polls}, busy {busy_polls}[; {sw_interrupts} "
    "software interrupts][; {released_without_timer} busy-poll exits left it masked with no timer "
    "(fixed by 58e2330bd455)][; {busy_poll_misses} busy-poll iterations found it owned]\n",
    kQueueCounterEntries, "queue"};

// One Tx queue of a router's egress port (nic.ports = 2), or beyond the queue pairs.
struct EgressQueueCounters {
  std::optional<std::uint32_t> tx_vector;  // the vector its completions raise (tx-interrupts)
  std::uint64_t tx_frames = 0;             // forwarded frames sent on it
  std::uint64_t dropped = 0;               // forwarded frames its ring and qdisc had no room for
};
inline constexpr Counter<EgressQueueCounters> kEgressQueueCounterEntries[] = {
    {"tx_vector", at<&EgressQueueCounters::tx_vector>, Unit::id, Warmup::keep},
    {"tx_frames", at<&EgressQueueCounters::tx_frames>, Unit::count, Warmup::subtract},
    {"dropped", at<&EgressQueueCounters::dropped>, Unit::count, Warmup::subtract},
};
// Tx queues beyond the pairs (nic.tx-queues), numbered after them.
inline constexpr CounterTable<EgressQueueCounters> kTxOnlyQueueCounters{
    "tx_only_queues",
    "tx queue {#}[ (vector {tx_vector})]: tx {tx_frames} frames, {dropped} dropped\n",
    kEgressQueueCounterEntries, "queue"};
// Port 1's queues (a router).
inline constexpr CounterTable<EgressQueueCounters> kEgressQueueCounters{
    "egress_queues",
    "port 1 queue {#}[ (Tx vector {tx_vector})]: tx {tx_frames} forwarded frames, {dropped} "
    "dropped\n",
    kEgressQueueCounterEntries, "queue"};

// A NAPI context's kernel thread (napi.threaded): "napi/<dev>-<napi id>" in ps.
struct NapiThreadCounters {
  std::uint32_t napi_id = 0;  // the context's NAPI id (its vector + 1)
  std::uint32_t core = 0;     // the core it runs on
  std::uint64_t wakeups = 0;  // times a schedule woke it from sleep
  std::uint64_t polls = 0;    // polls it ran
  std::uint64_t yields = 0;   // cond_resched calls that gave the core to another thread
};
inline constexpr Counter<NapiThreadCounters> kNapiThreadCounterEntries[] = {
    {"napi_id", at<&NapiThreadCounters::napi_id>, Unit::id, Warmup::keep},
    {"core", at<&NapiThreadCounters::core>, Unit::id, Warmup::keep},
    {"wakeups", at<&NapiThreadCounters::wakeups>, Unit::count, Warmup::subtract},
    {"polls", at<&NapiThreadCounters::polls>, Unit::count, Warmup::subtract},
    {"yields", at<&NapiThreadCounters::yields>, Unit::count, Warmup::subtract},
};
inline constexpr CounterTable<NapiThreadCounters> kNapiThreadCounters{
    "napi_threads",
    "napi thread napi/eth0-{napi_id} (cpu {core}): {wakeups} wake-ups, {polls} polls, {yields} "
    "yields to other threads\n",
    kNapiThreadCounterEntries};

// OpenBSD's MCLGETI watermark over the run (nic.refill = "mclgeti").
struct MclgetiCounters {
  std::uint64_t livelocks = 0;  // mcllivelocks: ticks the softclock was found late
  std::uint32_t cwm_min = 0;    // the current watermark's lowest, highest and last value
  std::uint32_t cwm_max = 0;
  std::uint32_t cwm_end = 0;
  double cwm_area = 0;  // its integral over the measured time, cluster-seconds
  double cwm_mean(Duration over) const {
    return over > Duration::zero() ? cwm_area * 1e9 / static_cast<double>(over.count()) : 0;
  }
};
inline constexpr Counter<MclgetiCounters> kMclgetiCounterEntries[] = {
    {"livelocks", at<&MclgetiCounters::livelocks>, Unit::count, Warmup::subtract},
    {"cwm_mean", at<&MclgetiCounters::cwm_area>, Unit::area, Warmup::subtract, Form::mean},
    // The extremes start again at the warm-up's end (Mclgeti::restart_extremes).
    {"cwm_min", at<&MclgetiCounters::cwm_min>, Unit::level, Warmup::restart},
    {"cwm_max", at<&MclgetiCounters::cwm_max>, Unit::level, Warmup::restart},
    {"cwm_end", at<&MclgetiCounters::cwm_end>, Unit::level, Warmup::keep},
};
inline constexpr CounterTable<MclgetiCounters> kMclgetiCounters{
    "mclgeti",
    "mclgeti: watermark {cwm_mean} clusters on average ({cwm_min} to {cwm_max}, {cwm_end} at the "
    "end); {livelocks} livelocks\n",
    kMclgetiCounterEntries};

// A search over the offered rate (search.kind): what it found. The report is that rate's run.
struct SearchResult {
  std::uint64_t rate = 0;       // the highest rate that lost nothing (0: even search.low lost)
  std::uint64_t lost_rate = 0;  // the lowest rate tried that lost frames (0: none did)
  std::uint32_t trials = 0;     // runs made
};
// Set after the runs (the warm-up's subtraction never finds it), so the warm-up rules below are
// what they would be. JSON: after "kind": "rfc2544".
inline constexpr Counter<SearchResult> kSearchResultEntries[] = {
    {"rate", at<&SearchResult::rate>, Unit::level, Warmup::keep},
    {"lost_rate", at<&SearchResult::lost_rate>, Unit::level, Warmup::keep},
    {"trials", at<&SearchResult::trials>, Unit::count, Warmup::subtract},
};
inline constexpr CounterTable<SearchResult> kSearchResult{
    "search",
    "search: RFC 2544 throughput {rate} frames/s without loss[ ({lost_rate} lost frames)], "
    "{trials} trials; this run is at that rate\n",
    kSearchResultEntries};

// The AF_XDP and storage sections' types are their models' own (src/sim/xdp/xdp_report.hpp,
// src/sim/storage/storage_report.hpp), held here by name.
struct XdpCounters;
struct StorageCounters;
extern template class OptionalSection<XdpCounters>;
extern template class OptionalSection<StorageCounters>;

// What one core handled, beside its CPU time: its hard interrupts by source and its NAPI polls
// by what ran them, so that "interrupts" never means a timer's and a device's at once.
struct CoreCounters {
  std::uint64_t device_irqs = 0;  // hardirqs of the device's vectors (MSI-X, NVMe, AF_XDP queue)
  std::uint64_t timer_irqs = 0;   // hrtimer interrupts of the NAPI timer (napi_watchdog)
  std::uint64_t polls = 0;        // NAPI polls run here, every kind
  std::uint64_t timer_polls = 0;  // of which NET_RX polls the NAPI timer scheduled
  std::uint64_t busy_polls = 0;   // of which a busy loop's turns and its final poll
};
namespace detail {
inline CounterValue core_hardirqs(const CoreCounters& c) {
  return CounterValue{c.device_irqs + c.timer_irqs};
}
// The polls neither the timer scheduled nor a busy loop ran: NET_RX after a device interrupt (or
// a repoll), ksoftirqd, threaded NAPI, the interrupt handler's own poll (napi.poll-in-irq).
inline CounterValue core_softirq_polls(const CoreCounters& c) {
  return CounterValue{c.polls - c.timer_polls - c.busy_polls};
}
}  // namespace detail
// The end of the core's cpu line, and fields of its JSON object after its CPU time.
inline constexpr Counter<CoreCounters> kCoreCounterEntries[] = {
    {"hardirqs", computed(detail::core_hardirqs), Unit::count, Warmup::derived},
    {"device_irqs", at<&CoreCounters::device_irqs>, Unit::count, Warmup::subtract},
    {"timer_irqs", at<&CoreCounters::timer_irqs>, Unit::count, Warmup::subtract},
    {"polls", at<&CoreCounters::polls>, Unit::count, Warmup::subtract},
    {"softirq_polls", computed(detail::core_softirq_polls), Unit::count, Warmup::derived},
    {"timer_polls", at<&CoreCounters::timer_polls>, Unit::count, Warmup::subtract},
    {"busy_polls", at<&CoreCounters::busy_polls>, Unit::count, Warmup::subtract},
};
inline constexpr CounterTable<CoreCounters> kCoreCounters{
    "",
    "; hardirqs {hardirqs} (device {device_irqs}, napi timer {timer_irqs}); napi polls {polls} "
    "(softirq {softirq_polls}, timer {timer_polls}, busy {busy_polls})",
    kCoreCounterEntries};

// The host's TCP streams both ways (reported when a flow has traffic.kind = "tcp-stream").
struct TcpCounters {
  std::uint64_t received_bytes = 0;  // payload the host's connections received in order
  std::uint64_t sent_bytes = 0;      // payload the host sent that the peer acknowledged
};
inline constexpr Counter<TcpCounters> kTcpCounterEntries[] = {
    {"received_bytes", at<&TcpCounters::received_bytes>, Unit::bytes, Warmup::subtract},
    {"sent_bytes", at<&TcpCounters::sent_bytes>, Unit::bytes, Warmup::subtract},
};
inline constexpr CounterTable<TcpCounters> kTcpCounters{
    "tcp", "tcp goodput: in {received_bytes/s} bit/s, out {sent_bytes/s} bit/s\n",
    kTcpCounterEntries};

// A kernel switch in effect when the scenario names its kernel (irqmod/napi/kernel.hpp).
struct KernelSetting {
  std::string key;           // the scenario key: "nic.busy-poll-exit-swint"
  std::string value;         // in effect, in scenario syntax
  bool kernel_has = false;   // the kernel has the commit (value = the row's "after")
  bool by_scenario = false;  // the scenario set the key against the kernel's value
  std::string commit;        // 12 hex digits
  std::string title;         // the commit's subject
  std::string release;       // its first mainline release: "6.13"
};

// Everything a run reports. Filled by the simulation at the end of a run.
struct RunReport {
  std::string scenario;          // [scenario] name
  std::string platform;          // the scenario's platform: a preset's name or "none" (kNoPlatform)
  bool constant_inputs = false;  // every cost and arrival a constant (inputs_are_constant)
  std::uint64_t seed = 0;        // [scenario] seed
  Duration sim_time{};           // simulated time measured: the run's duration less the warm-up
  Duration warmup{};             // [scenario] warmup: the time before measuring began
  std::int64_t wall_ns = -1;     // host time the run took; -1 leaves it out (byte-identical output)
  std::uint64_t events = 0;      // engine events dispatched
  std::size_t peak_pending_events = 0;  // largest event heap (memory's only growing part)
  LatencyHistogram latency;             // per message or packet, ns (RTT/2 for ping-pong)
  SockperfOptions sockperf;      // how the latency lines are labelled and the message counters
  InterruptCounters interrupts;  // per vector
  CpuTime cpu;                   // per core and context kind
  std::uint64_t delivered_packets = 0;  // frames the application consumed
  std::uint64_t delivered_bytes = 0;    // their frame bytes (FCS included, preamble and IFG not)
  std::uint64_t tcp_loss_probes = 0;    // a TCP ping-pong client's loss probes (traffic.protocol)
  std::uint64_t probe_answers = 0;      // replies to requests a loss probe had to send again
  // Frames in an Rx ring, unsignalled, when a poll re-enabled its interrupt with no cause pending,
  // no interrupt due and no coalescing deadline armed (seed 000's busy-poll exit race): only a
  // later frame or poll takes them.
  std::uint64_t stranded_frames = 0;
  DropCounters drops;
  Conservation conservation;
  // The frames the host sends: entered = made (replies, its own frames, forwarded ones),
  // delivered = put on the wire, dropped = by a Tx queue, in flight = waiting to be sent.
  Conservation tx_conservation;
  std::vector<QueueCounters> queues;                // by queue pair
  std::vector<NapiThreadCounters> napi_threads;     // napi.threaded only, by vector
  std::vector<EgressQueueCounters> egress_queues;   // port 1's, by queue (a router only)
  std::vector<EgressQueueCounters> tx_only_queues;  // Tx queues beyond the pairs (nic.tx-queues)
  std::vector<CoreCounters> cores;                  // by core
  std::optional<MclgetiCounters> mclgeti;           // nic.refill = "mclgeti" only
  std::optional<SearchResult> search;               // search.kind = "rfc2544" only
  std::optional<TcpCounters> tcp;                   // a "tcp-stream" flow only
  std::optional<PingReport> ping;                   // a "ping" flow only
  std::optional<LabClientReport> lab_client;        // a lab run only (lab.device)
  std::optional<LabServerReport> lab_server;        // a lab run only (lab.device)
  OptionalSection<StorageCounters> storage;         // [storage] drives > 0 only
  OptionalSection<XdpCounters> xdp;                 // [xdp] app set only
  std::string kernel;                               // the scenario's `kernel`; empty: not set
  std::string kernel_driver;                        // nic.driver: whose rows it applied
  std::vector<KernelSetting> kernel_settings;       // its switches, when set
};

// The report's own counters, each section a table over RunReport.
// The delivered frames as rates: JSON "throughput", the text's throughput line, the CSV.
inline constexpr Counter<RunReport> kThroughputEntries[] = {
    {.name = "pps",
     .at = at<&RunReport::delivered_packets>,
     .unit = Unit::count,
     .warmup = Warmup::subtract,
     .form = Form::per_second,
     .csv = "pps"},
    {.name = "bps",
     .at = at<&RunReport::delivered_bytes>,
     .unit = Unit::bytes,
     .warmup = Warmup::subtract,
     .form = Form::per_second,
     .csv = "bps"},
};
inline constexpr CounterTable<RunReport> kThroughput{
    "throughput", "throughput: {pps} pps, {bps} bit/s\n", kThroughputEntries};
// Printed when there are any (JSON: fields of the report).
inline constexpr Counter<RunReport> kStrandedFrameEntries[] = {
    {"stranded_frames", at<&RunReport::stranded_frames>, Unit::count, Warmup::subtract},
};
inline constexpr CounterTable<RunReport> kStrandedFrames{
    "",
    "stranded frames: {stranded_frames} (left in a ring, unsignalled, when a poll re-enabled its "
    "interrupt)\n",
    kStrandedFrameEntries};
// Printed when a loss probe was sent (JSON: fields of the report).
inline constexpr Counter<RunReport> kLossProbeEntries[] = {
    {"tcp_loss_probes", at<&RunReport::tcp_loss_probes>, Unit::count, Warmup::subtract},
    {"probe_answers", at<&RunReport::probe_answers>, Unit::count, Warmup::subtract},
};
inline constexpr CounterTable<RunReport> kLossProbes{
    "", "tcp loss probes: {tcp_loss_probes}; replies that waited for one: {probe_answers}\n",
    kLossProbeEntries};

// Counters, CPU time and latency since the warm-up ended: `report` at the end of the run less
// `at_warmup`, a copy taken when the warm-up ended (whose latency histogram was then cleared).
// The conservation books stay those of the whole run.
void subtract_warmup(RunReport& report, const RunReport& at_warmup);

// Human-readable: a header, sockperf's lines, interrupts, CPU, throughput, drops, conservation.
void write_text(std::ostream& out, const RunReport& report);
// The JSON document of `irqmod sim --json` (schema in docs/simulator.md).
void write_json(std::ostream& out, const RunReport& report);
// One CSV header line (when `header`) and one row, for sweeps that append runs to one file.
void write_csv(std::ostream& out, const RunReport& report, bool header = true);

}  // namespace irqmod::sim
