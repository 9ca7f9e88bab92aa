// Scenario files: TOML (toml++), every key declared once in a table-driven schema with its type,
// range, unit, default and the source of that default. Keys use ethtool's and sysctl's names
// (rx-usecs, adaptive-rx, busy_read, napi_defer_hard_irqs, ...), in sections:
//   platform = "x86-i40e"   (top level, required) the cost preset platforms/<name>.toml, applied
//                           first; "none" for no preset (the file's own costs, 0 where unset)
//   kernel = "6.1"          (top level) the Linux release: sets every kernel switch's key
//                           (irqmod/napi/kernel.hpp), applied after the platform
//   [scenario] name, duration, seed        [link] speed
//   [traffic]  flow 0: its generator, how many 4-tuples, steering, receiving thread
//   [[flow]]   flows 1, 2, ...: the same keys as [traffic], each a generator of its own
//   [nic]      queues, vectors, RSS, rings, DMA, refill, Rx and Tx moderation
//   [napi]     NAPI and busy-poll knobs; [napi.queue.N] one queue's per-NAPI settings
//   [cpu]      cores, IRQ affinity, thread 0, the cost model
//   [[thread]] threads 1, 2, ...: an application thread's core and how it waits
//
// Precedence: the schema's defaults, then the platform file, then the kernel's switches, then
// the scenario file, then --set overrides (`flow.2.rate=...` and `thread.1.core=...` address array
// entries).
//
// Loading validates once, at the edge: unknown sections and keys (with "did you mean" when one
// is close), wrong types, out-of-range values and invalid combinations (the policy library's own
// validators: coalesce::validate, itr::encode_rate, adaptive_itr::validate, lli::make_config)
// are errors naming the file, the line, the key and what is allowed. `--set key=value`
// overrides (dotted keys) go through the same parsing and validation, after the file.
//
// docs/simulator.md lists every key; `irqmod sim --print-scenario` prints the effective one
// (write_toml), which loads back to the same Scenario.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "irqmod/error.hpp"
#include "irqmod/sim/distribution.hpp"
#include "irqmod/sim/run_kind.hpp"
#include "irqmod/sim/scenario_runs.hpp"
#include "irqmod/sim/seed_rows.hpp"
#include "irqmod/time.hpp"

namespace irqmod::sim {

// traffic.kind
enum class TrafficKind : std::uint8_t {
  constant,          // frames at a constant rate (or back to back at line rate)
  poisson,           // exponential gaps at an average rate
  on_off,            // bursts: on-time at the rate, then off-time silent
  ping_pong,         // sockperf ping-pong: one message in flight, the next sent on the reply
  request_response,  // open-loop requests, each answered by the server
  pcap,              // replay of a capture's timestamps and sizes
  tcp_maerts,        // a bulk TCP stream the host receives (netperf -t TCP_MAERTS on the host)
  tcp_stream,        // a bulk TCP stream the host sends (netperf -t TCP_STREAM on the host)
  ping,              // ICMP echo requests from the peer, answered by the host's stack (ping -i)
};

// traffic.protocol: what a sockperf ping-pong runs over.
enum class Protocol : std::uint8_t {
  udp,  // sockperf's default: a lost message is counted and the next one sent
  tcp,  // sockperf --tcp: one connection per 4-tuple; a request left unanswered is probed again
        // by the client's TCP (its tail loss probe), as in seed 000
};

// traffic.latency: what a request-response client reports per request.
enum class LatencyReport : std::uint8_t {
  half_round_trip,  // sockperf's under-load report: the round trip / 2
  round_trip,       // a memcached client's (mutilate): the round trip + traffic.client-delay
};

// traffic.steering: how the NIC picks a flow's Rx queue.
enum class Steering : std::uint8_t {
  rss,    // Toeplitz hash of the 4-tuple through the indirection table (the default of every NIC)
  queue,  // every frame to traffic.queue, as an ethtool -N flow rule would
};

// traffic.tx-steering: which Tx queue a flow's replies (and ACKs) leave by.
enum class TxSteering : std::uint8_t {
  xps,    // netdev_pick_tx: the queue XPS maps to the sending core (nic.xps), else the flow's hash
  queue,  // traffic.tx-queue: the queue the socket cached (sk_tx_queue_mapping), chosen by the user
};

// traffic.deliver-to: which application thread's socket receives the flow.
enum class DeliverTo : std::uint8_t {
  thread,        // traffic.thread's socket
  incoming_cpu,  // the socket of a thread on the core whose softirq received the frame
                 // (SO_INCOMING_CPU in a SO_REUSEPORT group), else traffic.thread's
};

// nic.vectors: how queues map to MSI-X vectors.
enum class VectorLayout : std::uint8_t {
  pair,      // one vector per queue pair, Rx and Tx causes on it (i40e, ixgbe, enetc: "TxRx")
  separate,  // a vector per Rx queue and one per Tx queue, each with its own NAPI context
};

// nic.tx-moderation: what decides when a Tx completion interrupts (with nic.tx-interrupts).
enum class TxModeration : std::uint8_t {
  coalesce,    // ethtool tx-usecs / tx-frames
  dim,         // net_dim with the kernel's Tx profiles choosing the pair
  link_speed,  // tx_coalesce: timeout = usable Tx ring x wire time at the link speed (seed 001)
};

// nic.dim-driver: how the driver feeds net_dim and applies its profiles (its "glue"; the
// algorithm, lib/dim, is the same).
enum class DimDriver : std::uint8_t {
  // mlx5e_napi_poll -> mlx5e_handle_rx_dim / mlx5e_handle_tx_dim: a sample after every completed
  // poll, the event counter the CQ's interrupts (mlx5e_completion_event's event_ctr), the work
  // handler writing the profile's pair to the device.
  mlx5,
  // enetc (seed 001's patch v1, net-next 13 Jul 2020, "[PATCH net-next 6/6] enetc: Add adaptive
  // interrupt coalescing"; the merged ae0e6a5d1627 keeps the Rx half): enetc_net_dim counts the
  // vector's completed polls (comp_cnt, the event counter of both directions) and samples a
  // direction only after polls that cleaned work of it (rx_napi_work / tx_napi_work); the work
  // handler only stores the profile's usec (rx_ictt / tx_ictt) and enetc_msix writes it to
  // RBICR1 / TBICR1 at the vector's next interrupt. The frame thresholds stay the ones
  // enetc_setup_interrupts wrote (ENETC_RXIC_PKTTHR 256, ENETC_TXIC_PKTTHR 128).
  enetc,
};

// nic.rx-clean: when the driver's Rx clean loop sees a frame written back during the poll.
enum class RxClean : std::uint8_t {
  // The poll takes the frames written back when it begins, and the whole poll's CPU time
  // follows (the first simulator's rule).
  at_poll_start,
  // After the poll's fixed part and its Tx cleaning, the loop reads descriptors one after the
  // other: a frame written back while the loop works on the ones before is taken by the same
  // poll (enetc_clean_rx_ring, i40e_clean_rx_irq, ixgbe_rxeof all stop at the first descriptor
  // not done). The stack's work on the frames (GRO flush, TCP, ACKs) follows the loop.
  per_descriptor,
};

// nic.refill: how cleaned Rx descriptors get a buffer again.
enum class Refill : std::uint8_t {
  delay,  // by themselves, nic.refill-delay after they were cleaned
  cpu,    // by the poll that cleaned them, in batches, charged cpu.rx-refill per buffer
  // OpenBSD's MCLGETI (seed 004): by every poll, as many as the interface's current watermark
  // allows on the ring; the watermark grows while the ring runs dry and shrinks when the
  // softclock missed a tick (livelock), charged cpu.rx-refill per buffer
  mclgeti,
};

// How an application thread waits for data (cpu.app-wait, thread.wait).
enum class Wait : std::uint8_t {
  recv,   // blocking recv: busy-polls first when napi.busy_read is set (sk_busy_loop)
  epoll,  // epoll_wait: busy-polls first when napi.busy_poll is set, with prefer_busy_poll's
          // IRQ suspension
  adaptive_poll,  // the library's adaptive_poll controller: spin on the socket, then sleep
  spin,           // non-blocking recv in a loop, never sleeping (irqmod serve --mode busy)
};

// nic.moderation: which policy of the library decides when the Rx vector interrupts.
enum class Moderation : std::uint8_t {
  none,          // an interrupt per frame (rx-usecs 0, rx-frames 1)
  coalesce,      // ethtool rx-usecs / rx-frames (policy/coalesce.hpp)
  itr,           // static EITR at itr-rate on itr-device (policy/itr.hpp)
  dim,           // Linux net_dim choosing the (usecs, frames) profile (policy/dim.hpp)
  adaptive_itr,  // i40e adaptive ITR (policy/adaptive_itr.hpp)
  lli,           // static ITR plus 82599 low-latency interrupts (policy/lli.hpp)
};

struct ScenarioSection {
  std::string name;            // scenario.name; the file's stem when not given
  Duration duration{};         // scenario.duration: simulated time
  Duration warmup{};           // scenario.warmup: simulated first, not measured
  std::uint64_t seed{};        // scenario.seed: every random stream derives from it
  Duration series_interval{};  // scenario.series-interval: the time series' step; 0 = automatic
  friend bool operator==(const ScenarioSection&, const ScenarioSection&) = default;
};

struct LinkSection {
  std::uint64_t speed_bps{};  // link.speed, bit/s
  friend bool operator==(const LinkSection&, const LinkSection&) = default;
};

struct TrafficSection {
  TrafficKind kind{};           // traffic.kind
  std::uint64_t rate{};         // traffic.rate: frames/s; 0 = line rate (constant, on-off)
  std::uint32_t size{};         // traffic.size: frame bytes, FCS included
  Duration on_time{};           // traffic.on-time (on-off)
  Duration off_time{};          // traffic.off-time (on-off)
  std::string pcap;             // traffic.pcap: capture file (pcap)
  bool pcap_loop{};             // traffic.pcap-loop
  std::uint64_t mps{};          // traffic.mps: sockperf --mps; 0 = max
  std::uint32_t msg_size{};     // traffic.msg-size: sockperf -m, UDP payload bytes
  std::uint32_t flows{};        // traffic.flows: 4-tuples the frames take in turn
  Steering steering{};          // traffic.steering
  TxSteering tx_steering{};     // traffic.tx-steering
  std::uint32_t tx_queue{};     // traffic.tx-queue
  std::uint32_t queue{};        // traffic.queue: the Rx queue when steering = "queue"
  std::uint32_t thread{};       // traffic.thread: the receiving application thread
  DeliverTo deliver_to{};       // traffic.deliver-to
  Distribution jitter{};        // traffic.jitter: added to each frame's (or request's) send time
  bool forward{};               // traffic.forward: routed out of port 1 instead of delivered
  std::uint32_t mss{};          // traffic.mss: TCP payload bytes per segment
  std::uint32_t window{};       // traffic.window: TCP bytes the sender may have unacknowledged
  std::uint32_t send_buffer{};  // traffic.send-buffer: the host sender's sk_sndbuf (0: 2 x window)
  std::uint32_t send_size{};    // traffic.send-size: bytes per send() call (netperf -m)
  Protocol protocol{};          // traffic.protocol: a ping-pong over UDP or TCP
  std::uint32_t peer_hz{};      // traffic.peer-hz: the TCP client's kernel HZ (its timers' tick)
  Duration rto_min{};           // traffic.rto-min: the client's tcp_rto_min
  Distribution peer_turnaround{};  // traffic.peer-turnaround: the client's time, inside the RTT
  LatencyReport latency{};         // traffic.latency: request-response's reported latency
  Duration client_delay{};         // traffic.client-delay: the client's and network's fixed part
  std::uint32_t depth{};  // traffic.depth: requests outstanding per connection (0: open loop)
  friend bool operator==(const TrafficSection&, const TrafficSection&) = default;
};

// nic.driver: the Intel driver whose version-dependent behaviours `kernel` applies.
enum class NicDriver : std::uint8_t { i40e, ice, enetc };
std::string_view to_string(NicDriver driver);

struct NicSection {
  std::uint32_t ports{};           // nic.ports: 1, or 2 for a router (in on 0, out on 1)
  std::uint32_t queues{};          // nic.queues: Rx/Tx queue pairs per port
  std::uint32_t tx_queues{};       // nic.tx-queues: Tx queues (0: one per pair)
  bool xps{};                      // nic.xps: Tx queue i is core i's
  VectorLayout vectors{};          // nic.vectors: a vector per pair, or per Rx and per Tx queue
  std::uint32_t rss_table{};       // nic.rss-table: indirection table entries
  std::uint32_t tx_queue_len{};    // nic.tx-queue-len: the qdisc's packets (txqueuelen)
  std::uint32_t rx_ring{};         // nic.rx-ring: descriptors (ethtool -G rx)
  std::uint32_t tx_ring{};         // nic.tx-ring: descriptors (ethtool -G tx)
  Duration dma_delay{};            // nic.dma-delay: frame received -> descriptor written back
  Duration refill_delay{};         // nic.refill-delay: buffer given back -> usable again
  Refill refill{};                 // nic.refill: by a delay, or by the CPU in the poll
  std::uint32_t refill_batch{};    // nic.refill-batch: cleaned descriptors per refill
  std::uint32_t mclgeti_lwm{};     // nic.mclgeti-lwm: the watermark's floor
  std::uint32_t mclgeti_hwm{};     // nic.mclgeti-hwm: its ceiling (0 = nic.rx-ring)
  std::uint32_t alloc_fail_ppm{};  // nic.alloc-fail-ppm: buffer allocations failing, per million
  RxClean rx_clean{};              // nic.rx-clean: when the clean loop sees a frame
  bool clean_clears_cause{};       // nic.clean-clears-cause: a cleaned frame leaves no cause
  Moderation moderation{};         // nic.moderation
  std::uint32_t rx_usecs{};        // nic.rx-usecs (ethtool -C)
  std::uint32_t rx_frames{};       // nic.rx-frames
  std::uint32_t rx_usecs_irq{};    // nic.rx-usecs-irq
  std::uint32_t rx_frames_irq{};   // nic.rx-frames-irq
  bool adaptive_rx{};              // nic.adaptive-rx
  bool cqe_mode_rx{};              // nic.cqe-mode-rx: the Rx timer restarts per completion
  DimDriver dim_driver{};          // nic.dim-driver: how the driver feeds net_dim
  NicDriver driver{};              // nic.driver: whose kernel rows `kernel` applies
  bool off_affinity_force_wb{};    // nic.off-affinity-force-wb: i40e_napi_poll's branch
  bool xdp_tx_irq{};               // nic.xdp-tx-irq: AF_XDP Tx completions interrupt
  std::uint32_t xdp_tx_clean_budget{};  // nic.xdp-tx-clean-budget: completions a poll takes
  bool xdp_tx_unfinished{};             // nic.xdp-tx-unfinished: Tx not done keeps polling
  std::string rx_profile;               // nic.rx-profile: net_dim's Rx table, ethtool syntax
  std::string tx_profile;               // nic.tx-profile: net_dim's Tx table
  std::uint32_t tx_usecs{};             // nic.tx-usecs
  std::uint32_t tx_frames{};            // nic.tx-frames
  bool tx_interrupts{};                 // nic.tx-interrupts: Tx completions cleaned by NAPI
  TxModeration tx_moderation{};         // nic.tx-moderation
  std::uint32_t pkt_rate_low{};         // nic.pkt-rate-low
  std::uint32_t pkt_rate_high{};        // nic.pkt-rate-high
  std::uint32_t rx_usecs_low{};         // nic.rx-usecs-low
  std::uint32_t rx_usecs_high{};        // nic.rx-usecs-high
  std::uint32_t sample_interval{};      // nic.sample-interval, seconds
  std::string itr_device;               // nic.itr-device: register encoding (itr::find_device)
  std::uint32_t itr_rate{};             // nic.itr-rate: interrupts/s
  std::uint32_t lli_ring_threshold{};   // nic.lli-ring-threshold: free descriptors
  Duration lli_interval{};              // nic.lli-interval
  bool lli_hold{};                      // nic.lli-hold: a cause within the interval waits for it
  bool busy_poll_exit_swint{};          // nic.busy-poll-exit-swint: seed 000's fix
  Duration swint_itr{};                 // nic.swint-itr: the forced software interrupt's throttle
  friend bool operator==(const NicSection&, const NicSection&) = default;
};

// One queue's NAPI settings (napi.queue.N.KEY); unset = the device-wide [napi] key.
struct NapiQueueSettings {
  std::optional<std::uint32_t> defer_hard_irqs;  // napi.queue.N.napi_defer_hard_irqs
  std::optional<Duration> gro_flush_timeout;     // napi.queue.N.gro_flush_timeout
  std::optional<Duration> irq_suspend_timeout;   // napi.queue.N.irq_suspend_timeout
  friend bool operator==(const NapiQueueSettings&, const NapiQueueSettings&) = default;
};

struct NapiSection {
  std::uint32_t weight{};             // napi.weight
  std::uint32_t netdev_budget{};      // napi.netdev_budget
  Duration netdev_budget_usecs{};     // napi.netdev_budget_usecs
  bool ksoftirqd{};                   // napi.ksoftirqd: softirq work left over goes to a thread
  bool rx_backlog{};                  // napi.rx-backlog: the stack runs in a per-core backlog poll
  std::uint32_t max_backlog{};        // napi.netdev_max_backlog: its frames
  bool poll_in_irq{};                 // napi.poll-in-irq: the interrupt handler runs the poll
  std::uint32_t defer_hard_irqs{};    // napi.napi_defer_hard_irqs
  Duration gro_flush_timeout{};       // napi.gro_flush_timeout
  Duration irq_suspend_timeout{};     // napi.irq_suspend_timeout
  Duration busy_read{};               // napi.busy_read
  Duration busy_poll{};               // napi.busy_poll
  bool prefer_busy_poll{};            // napi.prefer_busy_poll
  bool epoll_prefer_busy_loop{};      // napi.epoll-prefer-busy-loop: Linux 6.13's ep_busy_loop_on
  bool gro_timer_after_final_poll{};  // napi.gro-timer-after-final-poll: 58e2330bd455
  bool watchdog_in_softirq{};         // napi.watchdog-in-softirq: PREEMPT_RT's soft expiry
  std::uint32_t busy_poll_budget{};   // napi.busy_poll_budget
  bool threaded{};                    // napi.threaded: a kernel thread per NAPI polls it (5.12)
  std::int32_t thread_core{};  // napi.thread-core: where those threads run; -1 = the vector's
  // napi.queue.N.KEY: per-NAPI settings of queue pair N (netdev netlink napi-set, Linux 6.13),
  // each unset one following the device-wide key of the same name.
  std::map<std::uint32_t, NapiQueueSettings> queue;
  friend bool operator==(const NapiSection&, const NapiSection&) = default;
};

struct CpuSection {
  std::uint32_t cores{};     // cpu.cores
  std::string irq_cores;     // cpu.irq-cores: vector i interrupts core i mod n of this list
  std::uint32_t app_core{};  // cpu.app-core: where application thread 0 runs
  Wait app_wait{};           // cpu.app-wait: how thread 0 waits
  Duration epoll_timeout{};  // cpu.epoll-timeout: epoll_wait's timeout; 0 = none
  bool hypervisor{};         // cpu.hypervisor: the platform is a guest (serve's adaptive horizon)
  std::uint32_t hz{};        // cpu.hz: the kernel's tick rate (MCLGETI's check, hrtimer reprograms)
  Duration sched_slice{};    // cpu.sched-slice: the fair scheduler's slice; 0 = the kernel's
  // The cost model: each a constant or a distribution (jitter), drawn per use on the core.
  Distribution irq_entry{};            // cpu.irq-entry: interrupt entry + exit
  Distribution irq_handler{};          // cpu.irq-handler: driver's hard interrupt handler
  Distribution napi_poll{};            // cpu.napi-poll: fixed cost of one NAPI poll call
  Distribution rx_packet{};            // cpu.rx-packet: driver + stack per received frame
  Distribution tx_packet{};            // cpu.tx-packet: stack + driver per sent frame
  Distribution app_message{};          // cpu.app-message: application work per message
  Distribution syscall{};              // cpu.syscall: one system call's entry and exit
  Distribution wakeup{};               // cpu.wakeup: waking a sleeping thread
  Distribution context_switch{};       // cpu.context-switch
  Distribution busy_poll_iteration{};  // cpu.busy-poll-iteration: one empty poll of the queue
  Distribution rx_refill{};            // cpu.rx-refill: allocating and posting one Rx buffer
  Distribution tx_clean{};             // cpu.tx-clean: cleaning one Tx completion in the poll
  Distribution forward{};              // cpu.forward: routing one frame out of the other port
  Distribution tcp_skb{};              // cpu.tcp-skb: the TCP receive path per skb (GRO merge)
  Distribution copy_kb{};              // cpu.copy-kb: copying 1 KiB of stream data to the user
  Distribution gso_segment{};          // cpu.gso-segment: software GSO, per segment sent
  // Storage costs ([storage], seed 003), beside the network path's.
  Distribution nvme_irq{};        // cpu.nvme-irq: one call of the NVMe queue's interrupt handler
  Distribution nvme_cqe{};        // cpu.nvme-cqe: one completion entry, in the handler or a poll
  Distribution uring_submit{};    // cpu.uring-submit: one I/O submitted through io_uring
  Distribution uring_complete{};  // cpu.uring-complete: one I/O completed into the CQ and reaped
  Distribution uring_poll{};      // cpu.uring-poll: one IOPOLL round over the device's CQ
  Distribution pir_scan{};        // cpu.pir-scan: one PIR scan of the posted MSI handler
  // AF_XDP costs ([xdp], seed 002), per frame.
  Distribution xdp_rx{};   // cpu.xdp-rx: zero-copy driver Rx: descriptor, XDP program, redirect
  Distribution xdp_tx{};   // cpu.xdp-tx: zero-copy driver Tx: an xsk Tx descriptor onto the ring
  Distribution xsk_rx{};   // cpu.xsk-rx: xdpsock rxdrop: an Rx descriptor back to the fill ring
  Distribution xsk_tx{};   // cpu.xsk-tx: xdpsock txpush: a Tx descriptor written, its completion
  Distribution xsk_fwd{};  // cpu.xsk-fwd: xdpsock l2fwd: Rx descriptor, MAC swap, Tx, completion
  Distribution xsk_cache_line{};  // cpu.xsk-cache-line: a ring line read on another core
  Distribution poll_call{};       // cpu.poll-call: poll() on one socket beyond the system call
  Distribution socket_call{};     // cpu.socket-call: a socket call's dispatch (sendto, recvfrom)
  // The host's own costs the lab runs ([lab]) need, and the cores' wake-up and timer latencies.
  Distribution epoll_wait{};        // cpu.epoll-wait: an epoll_wait call that returns events
  Distribution recv_empty{};        // cpu.recv-empty: a non-blocking recv that finds nothing
  Distribution wakeup_remote{};     // cpu.wakeup-remote: a woken thread's start on an idle core
  Distribution wakeup_ipi{};        // cpu.wakeup-ipi: the waker's cost of the IPI it sends
  Distribution wakeup_run{};        // cpu.wakeup-run: of that start, the wakee's core busy
  Distribution wakeup_run_local{};  // cpu.wakeup-run-local: a switch-in from idle, own wake
  std::string wakeup_idle;          // cpu.wakeup-idle: "IDLE:ADDED, ...", its growth with idle time
  Distribution hrtimer_late{};      // cpu.hrtimer-late: how late an hrtimer fires
  Distribution hrtimer_arm{};       // cpu.hrtimer-arm: reprogramming the clock-event device
  Distribution timer_irq{};         // cpu.timer-irq: a timer interrupt, of the lateness
  Distribution noise_interval{};    // cpu.noise-interval: between two of the host's noise events
  Distribution noise{};             // cpu.noise: one noise event's length
  Distribution noise_long_interval{};  // cpu.noise-long-interval: between two long ones
  Distribution noise_long{};           // cpu.noise-long: one long event's length
  Distribution veth_xmit{};            // cpu.veth-xmit: veth_xmit on the sender, per frame
  Distribution veth_poll{};            // cpu.veth-poll: a veth_poll call's fixed part
  Distribution veth_packet{};          // cpu.veth-packet: per frame in veth_poll (ring, GRO)
  Distribution backlog_enqueue{};      // cpu.backlog-enqueue: netif_rx to the backlog, per frame
  Distribution backlog_poll{};         // cpu.backlog-poll: a process_backlog call's fixed part
  Distribution tcp_tx_packet{};        // cpu.tcp-tx-packet: cpu.tx-packet for a TCP message
  Distribution tcp_rx_packet{};        // cpu.tcp-rx-packet: cpu.rx-packet for a TCP segment
  Distribution tcp_app_message{};      // cpu.tcp-app-message: cpu.app-message for a TCP read
  friend bool operator==(const CpuSection&, const CpuSection&) = default;
};

// An application thread beyond thread 0 ([[thread]]).
struct ThreadSection {
  std::uint32_t core{};  // thread.core: the core it is pinned to
  Wait wait{};           // thread.wait
  friend bool operator==(const ThreadSection&, const ThreadSection&) = default;
};

// search.kind: one run, or a search over traffic.rate.
enum class SearchKind : std::uint8_t {
  none,     // one run at traffic.rate
  rfc2544,  // RFC 2544 section 26.1 throughput: the highest rate at which no frame is lost
};

struct SearchSection {
  SearchKind kind{};           // search.kind
  std::uint64_t low{};         // search.low: frames/s, the lowest rate tried
  std::uint64_t high{};        // search.high: frames/s, the highest (0: line rate)
  std::uint64_t resolution{};  // search.resolution: frames/s, when the search stops
  friend bool operator==(const SearchSection&, const SearchSection&) = default;
};

// A [[variant]] of a scenario: the same file run with `sets` ("key=value", applied in order
// after the file's keys and before the command line's --set). `irqmod run` runs a file with
// variants once per variant; a [[seed_row]] names the variant it reads.
struct Variant {
  std::string name;               // unique in the file; "[a-z0-9-]+"
  std::vector<std::string> sets;  // --set assignments
  friend bool operator==(const Variant&, const Variant&) = default;
};

// platform = "none": no preset; every machine cost is the file's own (0 where it sets none). A
// scenario must name a platform or "none": load_scenario_* refuse one that names neither.
inline constexpr std::string_view kNoPlatform = "none";

// The sections a platform file may set, as the platform and then the kernel left them (the
// defaults where they set nothing). A platform describes a whole machine, so what it gives for a
// path this run does not have (an AF_XDP driver's Tx interrupt, veth's costs in a NIC run) is not
// a key the scenario set (check_readers, scenario_readers.cpp); the same key set by the file is.
struct MachineSections {
  LinkSection link;
  NicSection nic;
  NapiSection napi;
  CpuSection cpu;
  friend bool operator==(const MachineSections&, const MachineSections&) = default;
};

struct Scenario {
  std::string platform;  // platform: the preset applied before the scenario's own keys, or "none"
  MachineSections machine;  // the platform's and kernel's values, before the file's own keys
  std::string kernel;       // kernel: "6.18.34", empty = not set (every switch at its default)
  ScenarioSection scenario;
  LinkSection link;
  TrafficSection traffic;             // flow 0
  std::vector<TrafficSection> flows;  // flows 1, 2, ... ([[flow]])
  NicSection nic;
  NapiSection napi;
  CpuSection cpu;
  std::vector<ThreadSection> threads;  // threads 1, 2, ... ([[thread]]); thread 0 is in [cpu]
  SearchSection search;
  StorageSection storage;          // [storage]: seed 003's drives (drives = 0: none)
  XdpSection xdp;                  // [xdp]: seed 002's AF_XDP socket (app = none: none)
  LabSection lab;                  // [lab]: a server and its client on this machine (device none)
  std::vector<Variant> variants;   // [[variant]]: runs of this file with keys changed
  std::vector<SeedRow> seed_rows;  // the seed numbers this scenario reproduces ([[seed_row]])
  friend bool operator==(const Scenario&, const Scenario&) = default;

  std::size_t flow_count() const { return 1 + flows.size(); }
  std::size_t thread_count() const { return 1 + threads.size(); }
  const TrafficSection& flow(std::size_t i) const { return i == 0 ? traffic : flows[i - 1]; }
};

// ---- the schema ------------------------------------------------------------------------------

// How a key's value is written and stored.
enum class ValueKind : std::uint8_t {
  integer,   // TOML integer in `unit`
  boolean,   // true / false; "on" / "off" also accepted (ethtool's words)
  text,      // a string
  path,      // a string naming a file; relative ones are relative to the file that sets them
  choice,    // one of `choices`, stored as the enum value of its position
  duration,  // integer in `unit`, or a string with a unit ("50us", "1.5ms"); stored in ns
  bitrate,   // integer in Mbit/s (ethtool speed), or a string ("10G", "2.5Gbit/s"); in bit/s
  cpu_list,  // an array of core numbers, or a string in cpulist format ("0-3,6"); stored as text
  distribution,  // a duration (constant) or "uniform(a, b)", "exponential(mean[, min=x])",
                 // "lognormal(mean, cv=c)": drawn from the run's seeded generator
};

// A parsed value: integers, durations (ns), bit rates (bit/s) and choices (index) as int64.
using Value = std::variant<std::int64_t, bool, std::string, Distribution>;

// How a key reaches its field: generated per field by a template in scenario_schema.cpp. `entry`
// selects the table: 0 for a section; for [traffic] keys, 0 is [traffic] and i the i-th [[flow]];
// for thread keys, i the i-th [[thread]] (1-based). Precondition: the entry exists.
struct Binding {
  void (*store)(Scenario&, std::size_t entry, const Value&);  // writes the field (value checked)
  Value (*load)(const Scenario&, std::size_t entry);          // reads it back
};

// One key of the schema.
struct KeySpec {
  std::string_view name;  // dotted: "nic.rx-usecs"
  ValueKind kind;         // how it is written
  std::int64_t min;       // inclusive bounds, in ns for durations, bit/s for bit rates
  std::int64_t max;
  std::string_view unit;           // unit of a bare integer: "us", "frames", "frames/s", ...
  std::string_view default_value;  // in scenario-file syntax, parsed like a --set value
  std::string_view choices;        // choice: "a|b|c", in enum order
  std::string_view source;         // where the default comes from
  RunKinds readers;                // the run kinds whose models read the key (check_readers)
  Binding binding;                 // the field
};

std::span<const KeySpec> schema();
// The key named `dotted`, or nullptr.
const KeySpec* find_key(std::string_view dotted);
// A kernel row's condition (napi::KernelBehaviour::when), "KEY=VALUE": whether `scenario`'s KEY
// has that value. Precondition: KEY is a key and VALUE one of its values (a test checks the table).
bool kernel_condition_holds(std::string_view condition, const Scenario& scenario);

// The tables that repeat: [[flow]] entries take the [traffic] keys, [[thread]] entries the
// thread.* keys. A dotted key of an entry is "flow.<n>.<key>" / "thread.<n>.<key>".
inline constexpr std::string_view kFlowArray = "flow";
inline constexpr std::string_view kThreadArray = "thread";
// [[seed_row]] tables: report metadata (seed_rows.hpp), not simulation keys; not for --set.
inline constexpr std::string_view kSeedRowArray = "seed_row";
// [[variant]] tables (Variant): `name` and `set`; not for --set.
inline constexpr std::string_view kVariantArray = "variant";

// "0-3,6" -> {0, 1, 2, 3, 6}: the kernel's cpulist format (ranges and single cores, in any order,
// no duplicates). Error messages say what is allowed; the key is left empty.
Expected<std::vector<std::uint32_t>> parse_cpu_list(std::string_view text);

// Where platform files are looked for: `platforms/` beside the scenario file or in any directory
// above it, then the directories in IRQMOD_PLATFORM_PATH (colon-separated), then platforms/ of
// share_dir() (irqmod/sim/share.hpp: $IRQMOD_SHARE_DIR, the installed share/irqmod, the source).
// The path of platform `name` for a scenario at `scenario_file`, or an Error listing those
// searched and the platforms found.
Expected<std::string> find_platform(std::string_view name, std::string_view scenario_file);

// ---- loading ---------------------------------------------------------------------------------

// A loading error: where, which key, what is wrong and what is allowed.
struct Diagnostic {
  std::string file;        // scenario file, or "--set"
  std::uint32_t line = 0;  // 1-based; 0 when there is no line (--set, a missing key)
  Error error;             // key: the dotted key (empty for a syntax error)

  // "file:line: key: message", leaving out what is empty.
  std::string what() const;
};

// A Scenario or the Diagnostic explaining why there is none.
class LoadResult {
 public:
  LoadResult(Scenario scenario) : v_(std::move(scenario)) {}  // NOLINT: implicit by design
  LoadResult(Diagnostic error) : v_(std::move(error)) {}      // NOLINT: implicit by design
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  const Scenario& value() const { return std::get<0>(v_); }
  Scenario& value() { return std::get<0>(v_); }
  const Scenario* operator->() const { return &value(); }
  const Diagnostic& error() const { return std::get<1>(v_); }

 private:
  std::variant<Scenario, Diagnostic> v_;
};

// Every key at its default (the defaults validate: a test checks it).
Scenario default_scenario();
// The defaults as `s`'s kernel sets them (its switches applied for its nic.driver): a key the
// kernel set is not one the scenario set, for the checks that refuse keys a run would ignore.
Scenario default_scenario_on(const Scenario& s);

// Parses `text` as the contents of `file_name` (used in messages and for the default name),
// applies `overrides` ("key=value", in order) and validates the result.
LoadResult load_scenario_text(std::string_view text, std::string_view file_name,
                              std::span<const std::string> overrides = {});
// The same, reading the file.
LoadResult load_scenario_file(const std::string& path, std::span<const std::string> overrides = {});

// `--duration T` as every command reads it (irqmod sim, run, sweep, tune): the time measured after
// the scenario's warm-up, so scenario.duration = scenario.warmup + T. `load(sets)` loads the
// scenario with overrides (a file, or a text already read); `sets` are the command's; without a
// duration they are loaded as they are. The sum saturates, so one past the int64 range is refused
// by scenario.duration's range check, not wrapped. Errors name --duration.
LoadResult load_measured(const std::function<LoadResult(std::span<const std::string>)>& load,
                         std::vector<std::string> sets, const std::optional<std::string>& duration);

// Applies one "key=value" override to `scenario` (same parsing and range checks as the file;
// cross-key checks run in validate()). `origin` is what the user typed, named in the Diagnostic:
// "--set", or a flag that stands for a key ("--seed" for scenario.seed).
std::optional<Diagnostic> apply_override(Scenario& scenario, std::string_view assignment,
                                         std::string_view origin = "--set");

// The most samples scenario.series-interval may ask of one run.
inline constexpr std::int64_t kMaxSeriesSamples = 1'000'000;

// The cross-key checks (a pcap kind needs a file, moderation settings pass the policy's own
// validator, cores exist, ...). `file` is used in the Diagnostic; the line is 0.
std::optional<Diagnostic> validate(const Scenario& scenario, std::string_view file = "");

// Writes every key, section by section in schema order, as TOML that loads back to `scenario`.
void write_toml(std::ostream& out, const Scenario& scenario);

// The key reference, generated from the schema (irqmod help keys): `markdown` writes the table
// of docs/simulator.md ("Keys"), otherwise one block of text per key.
void write_key_reference(std::ostream& out, bool markdown);

// The closest known key to `unknown` (edit distance at most 2, or 3 for long names), if any.
std::optional<std::string_view> suggest_key(std::string_view unknown);

}  // namespace irqmod::sim
