// Scenario -> policy configurations. See policy_config.hpp.
#include "sim/policy_config.hpp"

#include <algorithm>
#include <string>

#include "irqmod/policy/itr.hpp"
#include "irqmod/policy/tx_coalesce.hpp"
#include "irqmod/sim/units.hpp"

namespace irqmod::sim {
namespace {

// A policy validator's Error key (ethtool's or the policy's name) as the scenario key: the one
// given for `policy_key`, else "nic." + the key when [nic] has a key of that name.
Error rekey(Error e, std::string_view policy_key, std::string_view key) {
  if (e.key == policy_key)
    e.key = std::string(key);
  else if (find_key("nic." + e.key))
    e.key = "nic." + e.key;
  return e;
}

// ethtool -C's usecs / frames pair as the driver reads it. i40e and ice have no frame threshold
// (`ethtool -c` shows rx-frames 0; their set_coalesce programs only the interval), and usecs 0
// is the ITR register at 0, "throttling off" (i40e_set_coalesce accepts 0 to I40E_MAX_ITR,
// ice_set_rc_coalesce 0 to ICE_ITR_MAX: itr.hpp's device table): each cause interrupts as it
// comes, which the generic pair spells usecs 0 frames 1. Elsewhere (enetc) 0 / 0 stays
// ethtool.h's illegal pair, refused by coalesce::validate.
coalesce::Thresholds driver_pair(NicDriver driver, std::uint32_t usecs, std::uint32_t frames) {
  const bool itr_register = driver == NicDriver::i40e || driver == NicDriver::ice;
  if (itr_register && usecs == 0 && frames == 0) return {0, 1};
  return {usecs, frames};
}

}  // namespace

napi::Config napi_config(const Scenario& s) {
  napi::Config c;
  c.weight = static_cast<int>(s.napi.weight);
  c.defer_hard_irqs = s.napi.defer_hard_irqs;
  c.gro_flush_timeout = s.napi.gro_flush_timeout;
  c.irq_suspend_timeout = s.napi.irq_suspend_timeout;
  c.gro_timer_after_final_poll = s.napi.gro_timer_after_final_poll;
  c.watchdog_in_softirq = s.napi.watchdog_in_softirq;
  return c;
}

napi::Config napi_config(const Scenario& s, std::uint32_t queue) {
  napi::Config c = napi_config(s);
  const auto it = s.napi.queue.find(queue);
  if (it == s.napi.queue.end()) return c;
  const NapiQueueSettings& q = it->second;
  c.defer_hard_irqs = q.defer_hard_irqs.value_or(c.defer_hard_irqs);
  c.gro_flush_timeout = q.gro_flush_timeout.value_or(c.gro_flush_timeout);
  c.irq_suspend_timeout = q.irq_suspend_timeout.value_or(c.irq_suspend_timeout);
  return c;
}

coalesce::Settings coalesce_settings(const NicSection& nic) {
  coalesce::Settings s;
  s.rx.normal = driver_pair(nic.driver, nic.rx_usecs, nic.rx_frames);
  s.rx.irq = {nic.rx_usecs_irq, nic.rx_frames_irq};
  s.rx.low = {nic.rx_usecs_low, 0};
  s.rx.high = {nic.rx_usecs_high, 0};
  s.rx.adaptive = nic.adaptive_rx;
  s.rx.cqe_mode = nic.cqe_mode_rx;
  s.tx.normal = driver_pair(nic.driver, nic.tx_usecs, nic.tx_frames);
  s.pkt_rate_low = nic.pkt_rate_low;
  s.pkt_rate_high = nic.pkt_rate_high;
  s.sample_interval = nic.sample_interval;
  return s;
}

coalesce::Settings tx_coalesce_settings(const NicSection& nic) {
  coalesce::Settings s;
  s.tx.normal = driver_pair(nic.driver, nic.tx_usecs, nic.tx_frames);
  return s;
}

adaptive_itr::LinkSpeed i40e_link_speed(std::uint64_t bps) {
  const auto mbps = static_cast<std::uint32_t>(std::min<std::uint64_t>(bps / 1'000'000, 40'000));
  const auto speed = adaptive_itr::link_speed_from_mbps(mbps);
  return speed ? *speed : adaptive_itr::LinkSpeed::unknown;
}

adaptive_itr::Config adaptive_itr_config(const Scenario& s) {
  adaptive_itr::Config c;
  c.rx_usecs = s.nic.rx_usecs;
  c.tx_usecs = s.nic.tx_usecs;
  c.adaptive_rx = s.nic.adaptive_rx;  // off: i40e with a static rx-usecs
  c.link_speed = i40e_link_speed(s.link.speed_bps);
  c.busy_poll_exit_swint = s.nic.busy_poll_exit_swint;
  return c;
}

lli::Settings lli_settings(const NicSection& nic) {
  lli::Settings settings;
  settings.ring_threshold = nic.lli_ring_threshold;
  settings.interval = nic.lli_interval;
  settings.hold = nic.lli_hold;
  return settings;
}

napi::VectorConfig vector_config(const Scenario& s) {
  napi::VectorConfig c;
  c.sw_itr_interval = s.nic.swint_itr;  // nic.swint-itr: I40E_ITR_20K by default
  switch (s.nic.moderation) {
    case Moderation::none:
    case Moderation::coalesce:
    case Moderation::dim:
      c.itr_interval = Duration::zero();  // the coalescer decides, the vector only masks
      break;
    case Moderation::itr:
    case Moderation::lli:
      c.itr_interval = itr::encode_rate(s.nic.itr_device, s.nic.itr_rate).value().interval;
      break;
    case Moderation::adaptive_itr:
      c.itr_interval = microseconds(s.nic.rx_usecs);
      break;
  }
  return c;
}

napi::DriverConfig driver_config(const Scenario& s) {
  napi::DriverConfig c;
  c.busy_poll_exit_swint = s.nic.busy_poll_exit_swint;
  c.off_affinity_force_wb = s.nic.off_affinity_force_wb;
  if (s.nic.moderation == Moderation::adaptive_itr) c.adaptive = adaptive_itr_config(s);
  return c;
}

namespace {

DimGlue dim_glue(DimDriver driver) {
  return driver == DimDriver::enetc ? DimGlue::enetc : DimGlue::mlx5;
}

}  // namespace

ModeratorConfig rx_moderator_config(const Scenario& s) {
  ModeratorConfig c;
  c.direction = coalesce::Direction::rx;
  c.dim_driver = dim_glue(s.nic.dim_driver);
  switch (s.nic.moderation) {
    case Moderation::coalesce:
      c.kind = ModeratorConfig::Kind::coalesce;
      c.coalesce = coalesce_settings(s.nic);
      break;
    case Moderation::dim: {
      // mlx5e_handle_rx_dim: the CQE-based tables when the CQ restarts its timer per completion.
      const dim::CqPeriodMode mode =
          s.nic.cqe_mode_rx ? dim::CqPeriodMode::start_from_cqe : dim::CqPeriodMode::start_from_eqe;
      c.kind = ModeratorConfig::Kind::coalesce;
      c.dim.emplace(dim_profiles(s.nic, dim::Direction::rx), mode);
      c.coalesce.rx.normal = {c.dim->profile().usec, c.dim->profile().pkts};
      c.coalesce.rx.cqe_mode = s.nic.cqe_mode_rx;
      break;
    }
    case Moderation::lli:
      c.kind = ModeratorConfig::Kind::lli;
      c.lli = lli::make_config(lli_settings(s.nic)).value();
      break;
    case Moderation::none:
    case Moderation::itr:
    case Moderation::adaptive_itr:
      break;
  }
  return c;
}

ModeratorConfig tx_moderator_config(const Scenario& s) {
  ModeratorConfig c;
  c.kind = ModeratorConfig::Kind::coalesce;
  c.direction = coalesce::Direction::tx;
  c.dim_driver = dim_glue(s.nic.dim_driver);
  c.coalesce = tx_coalesce_settings(s.nic);
  switch (s.nic.tx_moderation) {
    case TxModeration::coalesce:
      break;
    case TxModeration::dim:
      // mlx5e_handle_tx_dim: net_dim over the Tx completions, EQE-based profiles.
      c.dim.emplace(dim_profiles(s.nic, dim::Direction::tx));
      c.coalesce.tx.normal = {c.dim->profile().usec, c.dim->profile().pkts};
      break;
    case TxModeration::link_speed: {
      // Seed 001: the interrupt must come before the Tx ring drains, for full-size frames.
      const tx_coalesce::TxCoalesce t = tx_coalesce::compute(tx_coalesce::TxConfig{
          s.link.speed_bps, s.nic.tx_ring, tx_coalesce::kMaxStandardFrameBytes,
          tx_coalesce::kDefaultReservePercent});
      c.coalesce.tx.normal = {t.tx_usecs, t.tx_frames};
      break;
    }
  }
  return c;
}

Expected<std::vector<IdleExit::Point>> parse_idle_curve(std::string_view text) {
  std::vector<IdleExit::Point> points;
  const auto bad = [&](const std::string& why) {
    return Error{"cpu.wakeup-idle", "'" + std::string(text) + "': " + why +
                                        "; allowed: empty, or IDLE:ADDED pairs of durations "
                                        "separated by commas, IDLE increasing (\"10us:0ns, "
                                        "1ms:10us\")"};
  };
  std::string_view rest = text;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    while (!item.empty() && item.front() == ' ')
      item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ')
      item.remove_suffix(1);
    const std::size_t colon = item.find(':');
    if (colon == std::string_view::npos) return bad("'" + std::string(item) + "' has no ':'");
    const auto idle = parse_duration_ns(item.substr(0, colon), "");
    const auto added = parse_duration_ns(item.substr(colon + 1), "");
    if (!idle || !added || *idle < 0 || *added < 0)
      return bad("'" + std::string(item) + "' is not two durations of 0 or more");
    if (!points.empty() && nanoseconds(*idle) <= points.back().idle)
      return bad("the idles must increase");
    points.push_back(IdleExit::Point{nanoseconds(*idle), nanoseconds(*added)});
  }
  return points;
}

IdleExit idle_exit(const Scenario& s) {
  IdleExit exit;
  exit.remote = s.cpu.wakeup_remote;
  exit.run = s.cpu.wakeup_run;
  exit.run_local = s.cpu.wakeup_run_local;
  if (auto curve = parse_idle_curve(s.cpu.wakeup_idle)) exit.growth = std::move(curve.value());
  return exit;
}

Distribution waker_wakeup(const Scenario& s) {
  const bool decomposed = !(s.cpu.wakeup_ipi.is_constant() && s.cpu.wakeup_ipi.a_ns == 0);
  return decomposed ? s.cpu.wakeup : Distribution{};
}

std::array<NoiseSource, 2> host_noise(const Scenario& s) {
  return {NoiseSource{s.cpu.noise_interval, s.cpu.noise},
          NoiseSource{s.cpu.noise_long_interval, s.cpu.noise_long}};
}

QueueVectorConfig queue_vector_config(const Scenario& s, std::optional<std::uint32_t> queue) {
  const CpuSection& cpu = s.cpu;
  const NicSection& nic = s.nic;
  QueueVectorConfig c;
  c.vector = vector_config(s);
  c.driver = driver_config(s);
  c.rx_moderation = rx_moderator_config(s);
  c.tx_moderation = tx_moderator_config(s);
  c.dim_driver = dim_glue(nic.dim_driver);
  c.clears_cause = nic.clean_clears_cause;
  c.clean.costs = PollCosts{cpu.napi_poll, cpu.rx_packet, cpu.tx_clean, cpu.rx_refill,
                            cpu.forward,   cpu.tcp_skb,   cpu.tx_packet};
  c.clean.refill =
      RefillSettings{nic.refill != Refill::delay, nic.refill_batch, nic.alloc_fail_ppm, nullptr};
  c.clean.per_descriptor = nic.rx_clean == RxClean::per_descriptor;
  c.clean.polled_frames = nic.rx_ring;
  c.napi = napi_settings(s);
  if (queue) c.napi.context = napi_config(s, *queue);
  return c;
}

NapiSettings napi_settings(const Scenario& s) {
  NapiSettings n;
  n.context = napi_config(s);
  n.poll_in_irq = s.napi.poll_in_irq;
  n.thread.enabled = s.napi.threaded;
  if (s.napi.thread_core >= 0) n.thread.core = static_cast<std::uint32_t>(s.napi.thread_core);
  n.timers = hrtimer_costs(s);
  n.irq_entry = s.cpu.irq_entry;
  n.thread_wakeup = s.cpu.wakeup;
  n.thread_switch = s.cpu.context_switch;
  return n;
}

HrtimerCosts hrtimer_costs(const Scenario& s) {
  return HrtimerCosts{
      s.cpu.hrtimer_late, s.cpu.hrtimer_arm, s.cpu.timer_irq,
      nanoseconds(1'000'000'000 / std::int64_t{s.cpu.hz}),
      s.cpu.wakeup.mean() + s.cpu.context_switch.mean() + s.cpu.wakeup_run_local.mean()};
}

dim::ProfileTable dim_profiles(const NicSection& nic, dim::Direction direction) {
  const bool rx = direction == dim::Direction::rx;
  const dim::CqPeriodMode mode =
      rx && nic.cqe_mode_rx ? dim::CqPeriodMode::start_from_cqe : dim::CqPeriodMode::start_from_eqe;
  const dim::ProfileTable& table = dim::default_profiles(direction, mode);
  const std::string& text = rx ? nic.rx_profile : nic.tx_profile;
  if (text.empty()) return table;
  // validate_policies checked it.
  return dim::parse_profile_list(text, table, rx ? "nic.rx-profile" : "nic.tx-profile").value();
}

std::optional<Error> validate_policies(const Scenario& s) {
  if (auto curve = parse_idle_curve(s.cpu.wakeup_idle); !curve) return curve.error();
  const NicSection& nic = s.nic;
  for (const dim::Direction direction : {dim::Direction::rx, dim::Direction::tx}) {
    const bool rx = direction == dim::Direction::rx;
    const std::string& text = rx ? nic.rx_profile : nic.tx_profile;
    if (text.empty()) continue;
    const char* key = rx ? "nic.rx-profile" : "nic.tx-profile";
    const bool dim_on = rx ? nic.moderation == Moderation::dim
                           : nic.tx_interrupts && nic.tx_moderation == TxModeration::dim;
    if (!dim_on) {
      return Error{key, rx ? "a net_dim profile table needs nic.moderation = \"dim\"; allowed: "
                             "empty, or set nic.moderation = \"dim\""
                           : "a net_dim profile table needs nic.tx-interrupts = true and "
                             "nic.tx-moderation = \"dim\"; allowed: empty, or set both"};
    }
    const dim::CqPeriodMode mode = rx && nic.cqe_mode_rx ? dim::CqPeriodMode::start_from_cqe
                                                         : dim::CqPeriodMode::start_from_eqe;
    const auto table = dim::parse_profile_list(text, dim::default_profiles(direction, mode), key);
    if (!table) return table.error();
  }
  switch (nic.moderation) {
    case Moderation::none:
    case Moderation::dim:
      break;
    case Moderation::coalesce:
      if (auto e = coalesce::validate(coalesce_settings(nic))) return rekey(*e, "", "");
      break;
    case Moderation::lli: {
      const auto config = lli::make_config(lli_settings(nic));
      if (!config) {
        return rekey(rekey(config.error(), "ring-threshold", "nic.lli-ring-threshold"),
                     "ll-interval", "nic.lli-interval");
      }
      [[fallthrough]];  // LLI rides on a static ITR
    }
    case Moderation::itr: {
      const auto encoding = itr::encode_rate(nic.itr_device, nic.itr_rate);
      if (!encoding) {
        return rekey(rekey(encoding.error(), "rate", "nic.itr-rate"), "device", "nic.itr-device");
      }
      break;
    }
    case Moderation::adaptive_itr:
      if (auto e = adaptive_itr::validate(adaptive_itr_config(s))) return rekey(*e, "", "");
      break;
  }
  if (nic.tx_interrupts && nic.tx_moderation == TxModeration::coalesce) {
    if (auto e = coalesce::validate(tx_coalesce_settings(nic))) return rekey(*e, "", "");
  }
  if (nic.tx_interrupts && nic.tx_moderation == TxModeration::link_speed) {
    // tx_coalesce's pair for full-size frames must still be a valid ethtool pair.
    const tx_coalesce::TxCoalesce c = tx_coalesce::compute(
        tx_coalesce::TxConfig{s.link.speed_bps, nic.tx_ring, tx_coalesce::kMaxStandardFrameBytes,
                              tx_coalesce::kDefaultReservePercent});
    if (c.tx_usecs == 0 && c.tx_frames == 0) {
      return Error{"nic.tx-ring", std::to_string(nic.tx_ring) +
                                      " descriptors leave no usable half to time: "
                                      "tx-moderation = \"link-speed\" gives tx-usecs 0 and "
                                      "tx-frames 0; allowed: 2 descriptors or more"};
    }
  }
  return std::nullopt;
}

std::optional<Error> validate_nic_host(const Scenario& s) {
  if (run_kind(s) != RunKind::nic) return std::nullopt;
  const NicSection& nic = s.nic;
  const NicSection defaults = default_scenario().nic;
  if (!nic.tx_interrupts) {
    // Without Tx completion interrupts only i40e's adaptive ITR reads tx-usecs (its Tx
    // container); anywhere else the Tx keys would do nothing.
    const char* key =
        nic.moderation != Moderation::adaptive_itr && nic.tx_usecs != defaults.tx_usecs
            ? "nic.tx-usecs"
        : nic.tx_frames != defaults.tx_frames         ? "nic.tx-frames"
        : nic.tx_moderation != defaults.tx_moderation ? "nic.tx-moderation"
        : nic.vectors != defaults.vectors             ? "nic.vectors"
                                                      : nullptr;
    if (key) {
      return Error{key,
                   "this changes only how Tx completions interrupt, and nic.tx-interrupts is "
                   "off (descriptors are free once their frame left the wire); allowed: the "
                   "default, or nic.tx-interrupts = true"};
    }
  }
  // IRQ suspension came with 6.13's rule (5dc51ec86df6 and ab5b28b007a7, one series): epoll that
  // suspends but never busy-polls (prefer, busy_poll 0, the old rule) is no kernel's; it would
  // leave the queue to the 20 ms safety timer after every event.
  bool suspends = s.napi.irq_suspend_timeout > Duration::zero();
  for (const auto& [queue, q] : s.napi.queue)
    suspends = suspends || q.irq_suspend_timeout.value_or(Duration::zero()) > Duration::zero();
  if (suspends && s.napi.prefer_busy_poll && s.napi.busy_poll == Duration::zero() &&
      !s.napi.epoll_prefer_busy_loop) {
    return Error{"napi.epoll-prefer-busy-loop",
                 "napi.irq_suspend_timeout is Linux 6.13's, whose epoll busy-polls on "
                 "prefer_busy_poll alone; allowed: true, or napi.busy_poll above 0, or "
                 "napi.irq_suspend_timeout = 0"};
  }
  const bool busy = s.napi.busy_read > Duration::zero() || s.napi.busy_poll > Duration::zero() ||
                    (s.napi.prefer_busy_poll && s.napi.epoll_prefer_busy_loop);
  if (busy && s.cpu.busy_poll_iteration.mean() <= Duration::zero()) {
    return Error{"cpu.busy-poll-iteration",
                 "busy polling (napi.busy_read / napi.busy_poll, or napi.prefer_busy_poll with "
                 "napi.epoll-prefer-busy-loop) needs the cost of one poll of the queue; allowed: "
                 "a duration above 0 ns"};
  }
  return std::nullopt;
}

}  // namespace irqmod::sim
