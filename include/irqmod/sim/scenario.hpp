// Scenario files: TOML (toml++), every key declared once in a table-driven schema with its type,
// range, unit, default and the source of that default. Keys use ethtool's and sysctl's names
// (rx-usecs, adaptive-rx, busy_read, napi_defer_hard_irqs, ...), in sections:
//   [scenario] name, duration, seed        [link] speed
//   [traffic]  load generator               [nic] rings, DMA, moderation
//   [napi]     NAPI and busy-poll knobs     [cpu] cores and the cost model
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
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "irqmod/error.hpp"
#include "irqmod/policy/coalesce.hpp"
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
  std::string name;      // scenario.name; the file's stem when not given
  Duration duration{};   // scenario.duration: simulated time
  std::uint64_t seed{};  // scenario.seed: every random stream derives from it
  friend bool operator==(const ScenarioSection&, const ScenarioSection&) = default;
};

struct LinkSection {
  std::uint64_t speed_bps{};  // link.speed, bit/s
  friend bool operator==(const LinkSection&, const LinkSection&) = default;
};

struct TrafficSection {
  TrafficKind kind{};        // traffic.kind
  std::uint64_t rate{};      // traffic.rate: frames/s; 0 = line rate (constant, on-off)
  std::uint32_t size{};      // traffic.size: frame bytes, FCS included
  Duration on_time{};        // traffic.on-time (on-off)
  Duration off_time{};       // traffic.off-time (on-off)
  std::string pcap;          // traffic.pcap: capture file (pcap)
  bool pcap_loop{};          // traffic.pcap-loop
  std::uint64_t mps{};       // traffic.mps: sockperf --mps; 0 = max
  std::uint32_t msg_size{};  // traffic.msg-size: sockperf -m, UDP payload bytes
  friend bool operator==(const TrafficSection&, const TrafficSection&) = default;
};

struct NicSection {
  std::uint32_t queues{};              // nic.queues: Rx/Tx queue pairs, one MSI-X vector each
  std::uint32_t rx_ring{};             // nic.rx-ring: descriptors (ethtool -G rx)
  std::uint32_t tx_ring{};             // nic.tx-ring: descriptors (ethtool -G tx)
  Duration dma_delay{};                // nic.dma-delay: frame received -> descriptor written back
  Duration refill_delay{};             // nic.refill-delay: buffer given back -> usable again
  Moderation moderation{};             // nic.moderation
  std::uint32_t rx_usecs{};            // nic.rx-usecs (ethtool -C)
  std::uint32_t rx_frames{};           // nic.rx-frames
  std::uint32_t rx_usecs_irq{};        // nic.rx-usecs-irq
  std::uint32_t rx_frames_irq{};       // nic.rx-frames-irq
  bool adaptive_rx{};                  // nic.adaptive-rx
  std::uint32_t tx_usecs{};            // nic.tx-usecs
  std::uint32_t tx_frames{};           // nic.tx-frames
  std::uint32_t pkt_rate_low{};        // nic.pkt-rate-low
  std::uint32_t pkt_rate_high{};       // nic.pkt-rate-high
  std::uint32_t rx_usecs_low{};        // nic.rx-usecs-low
  std::uint32_t rx_usecs_high{};       // nic.rx-usecs-high
  std::uint32_t sample_interval{};     // nic.sample-interval, seconds
  std::string itr_device;              // nic.itr-device: register encoding (itr::find_device)
  std::uint32_t itr_rate{};            // nic.itr-rate: interrupts/s
  std::uint32_t lli_ring_threshold{};  // nic.lli-ring-threshold: free descriptors
  Duration lli_interval{};             // nic.lli-interval
  bool busy_poll_exit_swint{};         // nic.busy-poll-exit-swint: seed 000's fix
  friend bool operator==(const NicSection&, const NicSection&) = default;
};

struct NapiSection {
  std::uint32_t weight{};            // napi.weight
  std::uint32_t netdev_budget{};     // napi.netdev_budget
  Duration netdev_budget_usecs{};    // napi.netdev_budget_usecs
  std::uint32_t defer_hard_irqs{};   // napi.napi_defer_hard_irqs
  Duration gro_flush_timeout{};      // napi.gro_flush_timeout
  Duration irq_suspend_timeout{};    // napi.irq_suspend_timeout
  Duration busy_read{};              // napi.busy_read
  Duration busy_poll{};              // napi.busy_poll
  bool prefer_busy_poll{};           // napi.prefer_busy_poll
  std::uint32_t busy_poll_budget{};  // napi.busy_poll_budget
  friend bool operator==(const NapiSection&, const NapiSection&) = default;
};

struct CpuSection {
  std::uint32_t cores{};           // cpu.cores
  std::uint32_t irq_core{};        // cpu.irq-core: where the Rx vector's interrupt goes
  std::uint32_t app_core{};        // cpu.app-core: where the application thread runs
  Duration irq_entry{};            // cpu.irq-entry: interrupt entry + exit
  Duration irq_handler{};          // cpu.irq-handler: driver's hard interrupt handler
  Duration napi_poll{};            // cpu.napi-poll: fixed cost of one NAPI poll call
  Duration rx_packet{};            // cpu.rx-packet: driver + stack per received frame
  Duration tx_packet{};            // cpu.tx-packet: stack + driver per sent frame
  Duration app_message{};          // cpu.app-message: application work per message
  Duration syscall{};              // cpu.syscall: one system call's entry and exit
  Duration wakeup{};               // cpu.wakeup: waking a sleeping thread
  Duration context_switch{};       // cpu.context-switch
  Duration busy_poll_iteration{};  // cpu.busy-poll-iteration: one empty poll of the queue
  friend bool operator==(const CpuSection&, const CpuSection&) = default;
};

struct Scenario {
  ScenarioSection scenario;
  LinkSection link;
  TrafficSection traffic;
  NicSection nic;
  NapiSection napi;
  CpuSection cpu;
  friend bool operator==(const Scenario&, const Scenario&) = default;
};

// ---- the schema ------------------------------------------------------------------------------

// How a key's value is written and stored.
enum class ValueKind : std::uint8_t {
  integer,   // TOML integer in `unit`
  boolean,   // true / false; "on" / "off" also accepted (ethtool's words)
  text,      // a string
  choice,    // one of `choices`, stored as the enum value of its position
  duration,  // integer in `unit`, or a string with a unit ("50us", "1.5ms"); stored in ns
  bitrate,   // integer in Mbit/s (ethtool speed), or a string ("10G", "2.5Gbit/s"); in bit/s
};

// A parsed value: integers, durations (ns), bit rates (bit/s) and choices (index) as int64.
using Value = std::variant<std::int64_t, bool, std::string>;

// How a key reaches its field: generated per field by a template in scenario.cpp.
struct Binding {
  void (*store)(Scenario&, const Value&);  // writes the field (the value is already checked)
  Value (*load)(const Scenario&);          // reads it back
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
  Binding binding;                 // the field
};

std::span<const KeySpec> schema();
// The key named `dotted`, or nullptr.
const KeySpec* find_key(std::string_view dotted);

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

// Parses `text` as the contents of `file_name` (used in messages and for the default name),
// applies `overrides` ("key=value", in order) and validates the result.
LoadResult load_scenario_text(std::string_view text, std::string_view file_name,
                              std::span<const std::string> overrides = {});
// The same, reading the file.
LoadResult load_scenario_file(const std::string& path, std::span<const std::string> overrides = {});

// Applies one "key=value" override to `scenario` (same parsing and range checks as the file;
// cross-key checks run in validate()).
std::optional<Diagnostic> apply_override(Scenario& scenario, std::string_view assignment);

// The cross-key checks (a pcap kind needs a file, moderation settings pass the policy's own
// validator, cores exist, ...). `file` is used in the Diagnostic; the line is 0.
std::optional<Diagnostic> validate(const Scenario& scenario, std::string_view file = "");

// Writes every key, section by section in schema order, as TOML that loads back to `scenario`.
void write_toml(std::ostream& out, const Scenario& scenario);

// The closest known key to `unknown` (edit distance at most 2, or 3 for long names), if any.
std::optional<std::string_view> suggest_key(std::string_view unknown);

}  // namespace irqmod::sim
