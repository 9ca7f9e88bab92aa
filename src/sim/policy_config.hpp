// Scenario -> the policy objects' configurations: the one mapping from scenario keys to the
// library's settings. Validation (scenario.cpp) checks what these functions build, and the
// builder constructs the components from the same values, so a key cannot mean one thing to the
// checks and another to the run.
#pragma once

#include <optional>

#include "irqmod/error.hpp"
#include "irqmod/napi/context.hpp"
#include "irqmod/napi/driver.hpp"
#include "irqmod/napi/vector.hpp"
#include "irqmod/policy/adaptive_itr.hpp"
#include "irqmod/policy/coalesce.hpp"
#include "irqmod/policy/dim.hpp"
#include "irqmod/policy/lli.hpp"
#include "irqmod/sim/scenario.hpp"
#include "sim/cpu/core.hpp"
#include "sim/cpu/hrtimer.hpp"
#include "sim/nic/moderator.hpp"
#include "sim/nic/queue_vector.hpp"

namespace irqmod::sim {

// napi.weight, napi_defer_hard_irqs, gro_flush_timeout, irq_suspend_timeout,
// gro-timer-after-final-poll, watchdog-in-softirq.
napi::Config napi_config(const Scenario& scenario);
// The NAPI context of queue pair `queue`: the device-wide settings with that queue's own
// (napi.queue.N.*, the netdev netlink napi-set of Linux 6.13) where it sets them.
napi::Config napi_config(const Scenario& scenario, std::uint32_t queue);

// ethtool -C's Rx and Tx pairs, the -irq pairs, rate bands and adaptive-rx of [nic].
coalesce::Settings coalesce_settings(const NicSection& nic);

// The Tx side alone (tx-usecs, tx-frames), for the Tx moderator; the Rx part stays at its default.
coalesce::Settings tx_coalesce_settings(const NicSection& nic);

// i40e's adaptive ITR: rx-usecs / tx-usecs as start values, adaptive-rx, the link speed's ITR
// divisor and seed 000's busy-poll-exit software interrupt.
adaptive_itr::Config adaptive_itr_config(const Scenario& scenario);

// 82599 low-latency interrupts: the ring threshold (SRRCTL.RDMTS) and the LLI interval.
lli::Settings lli_settings(const NicSection& nic);

// The vector's queue throttle (ITR index 0): zero where a coalescer or nothing decides, the
// device's encoded interval for itr and lli, rx-usecs for adaptive-itr (its start value).
// Precondition: the scenario validated (itr::encode_rate accepts device and rate).
napi::VectorConfig vector_config(const Scenario& scenario);

// i40e_napi_poll's tail: the busy-poll-exit fix and, for adaptive-itr, the adaptive ITR.
napi::DriverConfig driver_config(const Scenario& scenario);

// The Rx side (nic.moderation) and the Tx side (nic.tx-moderation) of a queue vector's
// moderation. Precondition: the scenario validated (the mappings above accept it).
ModeratorConfig rx_moderator_config(const Scenario& scenario);
ModeratorConfig tx_moderator_config(const Scenario& scenario);

// A queue vector of port 0 serving queue pair `queue` (its per-NAPI settings, napi.queue.N), or
// of another port (none: the device-wide settings). The refill's MCLGETI pool is the builder's.
QueueVectorConfig queue_vector_config(const Scenario& scenario, std::optional<std::uint32_t> queue);

// A device queue's NAPI instance: the context's settings (napi_config), poll-in-irq, threaded
// NAPI and its thread's place, the watchdog's interrupt and lateness.
NapiSettings napi_settings(const Scenario& scenario);
// The cores' hrtimers: cpu.hrtimer-late, cpu.hrtimer-arm, cpu.timer-irq and the tick of cpu.hz.
HrtimerCosts hrtimer_costs(const Scenario& scenario);

// How late a thread woken on an idle core starts (cpu.wakeup-remote, cpu.wakeup-idle).
// Precondition: validate_policies accepted the scenario.
IdleExit idle_exit(const Scenario& scenario);
// What a waker's core pays in try_to_wake_up for a thread of another core (Core::set_waker_wakeup):
// cpu.wakeup on a platform whose cpu.wakeup-ipi is set (calibrate's decomposition: it measures
// the waker's remote wake-up less cpu.wakeup and less a write that wakes nobody, so the waker's
// share is cpu.wakeup + cpu.wakeup-ipi); nothing where it is 0, whose cpu.wakeup is the whole
// wake-up, charged to the woken thread (the seeds' platforms).
Distribution waker_wakeup(const Scenario& scenario);
// The host's noise sources on every core: cpu.noise-interval / cpu.noise, then
// cpu.noise-long-interval / cpu.noise-long.
std::array<NoiseSource, 2> host_noise(const Scenario& scenario);
// cpu.wakeup-idle's points.
Expected<std::vector<IdleExit::Point>> parse_idle_curve(std::string_view text);

// The link speed as i40e's ITR divisor knows it (40G and above count as 40G).
adaptive_itr::LinkSpeed i40e_link_speed(std::uint64_t bps);

// The policy library's own check of each of the above that has one, with the policy's error key
// mapped to the scenario key (ethtool's "rx-usecs" -> "nic.rx-usecs").
// net_dim's profile table for `direction`: the kernel's, or nic.rx-profile / nic.tx-profile
// applied over it (Linux 6.11's user profiles). Precondition: validate_policies found nothing.
dim::ProfileTable dim_profiles(const NicSection& nic, dim::Direction direction);

std::optional<Error> validate_policies(const Scenario& scenario);

// The NIC host's rules between keys it reads (Tx keys without Tx interrupts, IRQ suspension
// without 6.13's epoll, busy polling without its cost); nothing for another kind of run.
std::optional<Error> validate_nic_host(const Scenario& scenario);

}  // namespace irqmod::sim
