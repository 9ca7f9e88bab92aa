// The kernel's per-NAPI view and settings over the netdev generic-netlink family (napi-get,
// napi-set; Documentation/netlink/specs/netdev.yaml), through libmnl. Linux only.
//
// NAPI ids and the family's answers are per network namespace: the calls act on the namespace
// the process is in (NetnsGuard, netns.hpp, to pick another).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "irqmod/error.hpp"

namespace irqmod::rt::netdev {

// One NAPI instance as napi-get reports it. A field the kernel did not send is empty: an older
// kernel (see kSettings for when each arrived), or not applicable (no IRQ on veth, no poll
// thread outside threaded mode).
struct Napi {
  std::uint32_t id = 0;                                 // NAPI id, unique in the namespace
  std::uint32_t ifindex = 0;                            // the device it belongs to
  std::optional<std::uint32_t> irq;                     // its interrupt vector
  std::optional<std::uint32_t> pid;                     // its poll thread (threaded mode)
  std::optional<std::uint32_t> defer_hard_irqs;         // empty polls before IRQs return
  std::optional<std::uint64_t> gro_flush_timeout_ns;    // watchdog / GRO hold, ns
  std::optional<std::uint64_t> irq_suspend_timeout_ns;  // IRQ suspension while busy polling, ns
  std::optional<std::uint32_t> threaded;                // 0 softirq, 1 own kernel thread
};

// What napi-set should change; empty fields are left as they are.
struct NapiSettings {
  std::optional<std::uint32_t> defer_hard_irqs;
  std::optional<std::uint64_t> gro_flush_timeout_ns;
  std::optional<std::uint64_t> irq_suspend_timeout_ns;
  std::optional<bool> threaded;

  bool empty() const {
    return !defer_hard_irqs && !gro_flush_timeout_ns && !irq_suspend_timeout_ns && !threaded;
  }
};

// A kernel release, major.minor (uname's "6.18.44-..." is {6, 18}).
struct KernelVersion {
  int major = 0;
  int minor = 0;
  friend bool operator<(KernelVersion a, KernelVersion b) {
    return a.major != b.major ? a.major < b.major : a.minor < b.minor;
  }
};
std::optional<KernelVersion> parse_kernel_release(std::string_view release);
std::optional<KernelVersion> running_kernel();

// Each napi-set setting, its command-line spelling and the release whose netdev family first
// took it (the kernel commit that added it to netdev.yaml).
struct SettingInfo {
  std::string_view name;  // netdev.yaml's and the command line's spelling
  KernelVersion since;
};
inline constexpr SettingInfo kDeferHardIrqs{"defer-hard-irqs", {6, 13}};
inline constexpr SettingInfo kGroFlushTimeout{"gro-flush-timeout", {6, 13}};
inline constexpr SettingInfo kIrqSuspendTimeout{"irq-suspend-timeout", {6, 13}};
inline constexpr SettingInfo kThreaded{"threaded", {6, 17}};
inline constexpr KernelVersion kNapiGetSince{6, 8};       // napi-get (id, ifindex, irq, pid)
inline constexpr KernelVersion kNetdevFamilySince{6, 3};  // netdev-genl, for dev-get first

// The error for a napi-set the kernel refused: "needs root" for EPERM; else names the settings
// this kernel predates (with the release that added each) when there are any, else passes on the
// kernel's own words.
Error describe_set_refusal(const NapiSettings& asked, std::optional<KernelVersion> kernel, int err,
                           const std::string& kernel_message);

// A device queue as queue-get reports it (Linux 6.8): which NAPI instance services it.
enum class QueueType : std::uint32_t { rx = 0, tx = 1 };  // enum netdev-queue-type
std::string_view queue_type_name(QueueType t);

struct Queue {
  std::uint32_t ifindex = 0;
  QueueType type = QueueType::rx;
  std::uint32_t id = 0;                  // the queue's index on its device
  std::optional<std::uint32_t> napi_id;  // none: the driver did not link the queue to a NAPI
};

// One queue's counters as qstats-get reports them with scope "queue" (Linux 6.9): an Rx queue
// carries rx-packets / rx-bytes, a Tx queue tx-packets / tx-bytes. A counter the driver does not
// keep is empty.
struct QueueStats {
  std::uint32_t ifindex = 0;
  QueueType type = QueueType::rx;
  std::uint32_t id = 0;
  std::optional<std::uint64_t> packets;
  std::optional<std::uint64_t> bytes;
};
inline constexpr KernelVersion kQueueGetSince{6, 8};
inline constexpr KernelVersion kQstatsGetSince{6, 9};

// napi-get as a dump; only `ifindex`'s NAPIs when given. Ordered by NAPI id.
Expected<std::vector<Napi>> list_napis(std::optional<std::uint32_t> ifindex = std::nullopt);

// queue-get as a dump; only `ifindex`'s queues when given. Ordered by device, type, queue.
Expected<std::vector<Queue>> list_queues(std::optional<std::uint32_t> ifindex = std::nullopt);

// qstats-get with scope "queue" as a dump; only `ifindex`'s queues when given. A device whose
// driver keeps no per-queue statistics (no netdev_stat_ops: veth, as of Linux 6.18) has no
// entries. Ordered by device, type, queue.
Expected<std::vector<QueueStats>> list_queue_stats(
    std::optional<std::uint32_t> ifindex = std::nullopt);

// napi-set on one NAPI id. Returns the refusal, if any.
std::optional<Error> set_napi(std::uint32_t id, const NapiSettings& settings);

}  // namespace irqmod::rt::netdev
