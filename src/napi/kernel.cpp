// The kernel-behaviour table. Every row's commit, title and release are those of
// docs/research/kernel-switches.md (its summary table's row number is in the comment); a
// release there marked INFERENCE is dated from when the commit entered net-next or net.
#include "irqmod/napi/kernel.hpp"

#include <charconv>
#include <iterator>

namespace irqmod::napi {
namespace {

// A mainline release line: MAJOR.first_minor to MAJOR.last_minor.
struct ReleaseLine {
  std::uint16_t major;
  std::uint16_t first_minor;
  std::uint16_t last_minor;
};

// From 3.19 (gro_flush_timeout, the oldest behaviour here) to 7.1 (the newest release the
// research saw: 58e2330bd455 went into 7.1-rc4). 4.20, 5.19 and 6.19 closed their majors.
constexpr ReleaseLine kKnownLines[] = {
    {3, 19, 19}, {4, 0, 20}, {5, 0, 19}, {6, 0, 19}, {7, 0, 1},
};

constexpr KernelVersion v(std::uint16_t major, std::uint16_t minor) {
  return KernelVersion{major, minor, 0};
}

using K = BehaviourKind;

// 58e2330bd455's stable releases: "Linux 7.0.11" (Greg Kroah-Hartman, 1 Jun 2026, shortlog)
// and 6.18.34 (its -rc1 review patch 208/377 of 28 May 2026; released). Research rows 1b-1c.
constexpr KernelVersion kGroTimerFixStable[] = {{6, 18, 34}, {7, 0, 11}};

constexpr KernelBehaviour kBehaviours[] = {
    // row 11b
    {K::feature, "napi.gro_flush_timeout", "", "the per-device GRO flush timer (sysfs)", "", "",
     "3b47d30396ba", "net: gro: add a per device gro flush timer", v(3, 19), ""},
    // row 11a
    {K::feature, "napi.napi_defer_hard_irqs", "", "deferring the IRQ re-arm over empty polls", "",
     "", "6f8b12d661d0", "net: napi: add hard irqs deferral feature", v(5, 8), ""},
    // row 5a
    {K::feature, "napi.prefer_busy_poll", "", "SO_PREFER_BUSY_POLL", "", "", "7fd3253a7de6",
     "net: Introduce preferred busy-polling", v(5, 11),
     "was in 5.10.54-rc1 and dropped from 5.10.54"},
    // row 5b (and 12a): 8 was the budget before, BUSY_POLL_BUDGET in net/core/dev.c; only another
    // value needs the option. Since when core busy polling used 8 the research does not pin
    // (UNKNOWN, the 4.5 era): "8 before it" is not confirmed for 3.19-4.4.
    {K::feature, "napi.busy_poll_budget", "", "SO_BUSY_POLL_BUDGET (8 before it)", "", "",
     "7c951cafc0cb", "net: Add SO_BUSY_POLL_BUDGET socket option", v(5, 11), ""},
    // row 6: threaded NAPI. 29863d41bb6e is the mechanism (____napi_schedule wakes the NAPI's
    // kthread instead of raising NET_RX), 5fdd2f0e5c64 the sysfs file that turns it on; both in
    // net-next on 10 Feb 2021, four days before v5.11, so first in 5.12 (INFERENCE from the
    // dates; a mainline revlist lists them with their merge adbb4fb02845). The race fix with
    // busy polling, cb038357937e "net: fix race between napi kthread mode and busy poll"
    // (SCHED_THREADED), went to net on 16 Mar 2021, before 5.12's release: every kernel with
    // the feature has it, and the model's thread polls only a context it was scheduled for.
    {K::feature, "napi.threaded", "",
     "threaded NAPI: a kernel thread per NAPI polls instead of NET_RX (sysfs threaded, "
     "5fdd2f0e5c64)",
     "", "", "29863d41bb6e", "net: implement threaded-able napi poll loop support", v(5, 12), ""},
    // row 4b: ice's first fix, a software interrupt on busy-poll exit, on ITR index 3 (no
    // throttle); the swint-itr row below throttles it from 5.16.
    {K::switch_value, "nic.busy-poll-exit-swint", "ice",
     "a software interrupt when a busy poll exits", "false", "true", "b7306b42beaf",
     "ice: manage interrupts during poll exit", v(5, 13), ""},
    // row 4c
    {K::switch_value,
     "nic.swint-itr",
     "ice",
     "the busy-poll-exit software interrupt throttled to 20K/s (ITR index 2)",
     "0",
     "50us",
     "23be7075b318",
     "ice: fix software generating extra interrupts",
     v(5, 16),
     "",
     {},
     "nic.busy-poll-exit-swint=true"},
    // row 4a: seed 000's fix, throttled by I40E_ITR_20K from the start.
    {K::switch_value, "nic.busy-poll-exit-swint", "i40e",
     "a software interrupt when a busy poll exits (seed 000's fix)", "false", "true",
     "ea558de7238b", "i40e: Enforce software interrupt during busy-poll exit", v(6, 9),
     "5.15.y (in 5.15-stable review, 8 Apr 2024; the release not confirmed)"},
    // row 7: epoll's busy loop, before the per-epoll parameters, called napi_busy_loop with
    // prefer_busy_poll hard-coded false ("When using epoll-based busy poll, the prefer_busy_poll
    // option is hardcoded to false", de57a2510822's message) and BUSY_POLL_BUDGET: an epoll
    // application gets them only through EPIOCSPARAMS (18e2bf0edf4d, the same series).
    {K::feature,
     "napi.prefer_busy_poll",
     "",
     "prefer_busy_poll for epoll_wait's busy loop",
     "",
     "",
     "de57a2510822",
     "eventpoll: Add per-epoll prefer busy poll option",
     v(6, 9),
     "",
     {},
     "cpu.app-wait=epoll"},
    {K::feature,
     "napi.busy_poll_budget",
     "",
     "a busy-poll budget for epoll_wait's busy loop (8 "
     "before it)",
     "",
     "",
     "c6aa2a7778d8",
     "eventpoll: Add per-epoll busy poll packet budget",
     v(6, 9),
     "",
     {},
     "cpu.app-wait=epoll"},
    // row 9: user net_dim profiles through ethtool netlink (ETHTOOL_A_COALESCE_RX_PROFILE);
    // the research corrects the remembered 6.12 (net-next 26 Jun 2024, before v6.10's release).
    // Drivers opt in (virtio-net in the series; whether i40e/ice do is UNKNOWN, research item 8).
    {K::feature, "nic.rx-profile", "",
     "net_dim's Rx profile table set by the user (ethtool -C "
     "rx-profile)",
     "", "", "f750dfe825b9", "ethtool: provide customized dim profile management", v(6, 11), ""},
    {K::feature, "nic.tx-profile", "",
     "net_dim's Tx profile table set by the user (ethtool -C "
     "tx-profile)",
     "", "", "f750dfe825b9", "ethtool: provide customized dim profile management", v(6, 11), ""},
    // row 8b
    {K::feature, "napi.irq_suspend_timeout", "", "IRQ suspension (netdev netlink napi-set)", "", "",
     "5dc51ec86df6", "net: Add napi_struct parameter irq_suspend_timeout", v(6, 13), ""},
    // row 8a: per-NAPI settings. Before them napi_defer_hard_irqs and gro_flush_timeout were
    // fields of the net_device (sysfs, one value for every queue); the series moved them into
    // each napi_struct and napi_config and added netlink's napi-set (1287c1ae0fc2 "netdev-genl:
    // Support setting per-NAPI config values"). In net-next in Oct 2024, before v6.12 (17 Nov):
    // 6.13 (INFERENCE from the dates). irq_suspend_timeout was per-NAPI from its start (row 8b).
    // The keys are napi.queue.N.<setting>; a kernel without the commit refuses a value that
    // differs from the device-wide one.
    {K::feature, "napi.queue.N.napi_defer_hard_irqs", "",
     "napi_defer_hard_irqs per NAPI (netdev netlink napi-set)", "", "", "f15e3b3ddb9f",
     "net: napi: Make napi_defer_hard_irqs per-NAPI", v(6, 13), ""},
    {K::feature, "napi.queue.N.gro_flush_timeout", "",
     "gro_flush_timeout per NAPI (netdev netlink napi-set)", "", "", "acb8d4ed5661",
     "net: napi: Make gro_flush_timeout per-NAPI", v(6, 13), ""},
    {K::feature, "napi.queue.N.irq_suspend_timeout", "",
     "irq_suspend_timeout per NAPI (netdev netlink napi-set; per-NAPI from its start)", "", "",
     "5dc51ec86df6", "net: Add napi_struct parameter irq_suspend_timeout", v(6, 13), ""},
    // row 8c
    {K::switch_value, "napi.epoll-prefer-busy-loop", "",
     "epoll_wait busy-polls with prefer_busy_poll alone (no busy_poll time)", "false", "true",
     "ab5b28b007a7", "eventpoll: Trigger napi_busy_loop, if prefer_busy_poll is set", v(6, 13), ""},
    // rows 1a-1c: the window irqmod's property test found, fixed upstream. Before it (from
    // 7fd3253a7de6, 5.11) the timer was armed ahead of busy_poll_stop's final poll.
    {K::switch_value, "napi.gro-timer-after-final-poll", "",
     "busy_poll_stop arms the deferral timer after its final poll, not before (a watchdog "
     "expiring in a long final poll no longer leaves the context masked with no timer)",
     "false", "true", "58e2330bd455", "net: napi: Avoid gro timer misfiring at end of busypoll",
     v(7, 1), "6.18.34 (960cc3f7daf0), 7.0.11 (b9537976a0f0)", kGroTimerFixStable},
};

// Decimal digits without a leading zero ("0" itself is fine: 5.0): "6.010" is not 6.10.
bool parse_number(std::string_view text, std::uint16_t& out) {
  if (text.empty() || (text.size() > 1 && text.front() == '0')) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc{} && end == text.data() + text.size();
}

Error version_error(std::string_view text, std::string_view why) {
  return Error{"kernel", "'" + std::string(text) + "' " + std::string(why) +
                             "; allowed: \"MAJOR.MINOR[.PATCH]\" (such as \"6.1\" or "
                             "\"6.18.34\") of the releases known: " +
                             known_kernel_lines()};
}

}  // namespace

Expected<KernelVersion> parse_kernel_version(std::string_view text) {
  KernelVersion version;
  const std::size_t first = text.find('.');
  if (first == std::string_view::npos) return version_error(text, "is not a kernel version");
  const std::size_t second = text.find('.', first + 1);
  const std::string_view minor = text.substr(first + 1, second - first - 1);
  const bool well_formed =
      parse_number(text.substr(0, first), version.major) && parse_number(minor, version.minor) &&
      (second == std::string_view::npos || parse_number(text.substr(second + 1), version.patch));
  if (!well_formed) return version_error(text, "is not a kernel version");
  const ReleaseLine& oldest = kKnownLines[0];
  const ReleaseLine& newest = kKnownLines[std::size(kKnownLines) - 1];
  if (KernelVersion{version.major, version.minor, 0} < v(oldest.major, oldest.first_minor))
    return version_error(text, "is older than the oldest release this table knows");
  if (KernelVersion{version.major, version.minor, 0} > v(newest.major, newest.last_minor))
    return version_error(text, "is newer than the newest release this table knows");
  for (const ReleaseLine& line : kKnownLines) {
    if (line.major == version.major && version.minor >= line.first_minor &&
        version.minor <= line.last_minor)
      return version;
  }
  return version_error(text, "is not a Linux release");
}

std::string to_string(KernelVersion version) {
  std::string text = std::to_string(version.major) + "." + std::to_string(version.minor);
  if (version.patch != 0) text += "." + std::to_string(version.patch);
  return text;
}

std::string known_kernel_lines() {
  std::string text;
  for (const ReleaseLine& line : kKnownLines) {
    if (!text.empty()) text += ", ";
    text += to_string(v(line.major, line.first_minor));
    if (line.last_minor != line.first_minor)
      text += "-" + to_string(v(line.major, line.last_minor));
  }
  return text;
}

std::span<const KernelBehaviour> kernel_behaviours() {
  return kBehaviours;
}

bool applies_to_driver(const KernelBehaviour& behaviour, std::string_view driver) {
  return behaviour.driver.empty() || behaviour.driver == driver;
}

bool has_commit(const KernelBehaviour& behaviour, KernelVersion version) {
  if (KernelVersion{version.major, version.minor, 0} >= behaviour.release) return true;
  for (const KernelVersion& stable : behaviour.stable) {
    if (stable.major == version.major && stable.minor == version.minor &&
        version.patch >= stable.patch)
      return true;
  }
  return false;
}

std::string_view value_on(const KernelBehaviour& behaviour, KernelVersion version) {
  return has_commit(behaviour, version) ? behaviour.after : behaviour.before;
}

bool differs(const KernelBehaviour& behaviour, KernelVersion a, KernelVersion b) {
  return has_commit(behaviour, a) != has_commit(behaviour, b);
}

}  // namespace irqmod::napi
