// Rx moderation variants. See moderator.hpp.
#include "sim/nic/moderator.hpp"

namespace irqmod::sim {

std::variant<Moderator::Immediate, Moderator::Coalescing, Moderator::LowLatency> Moderator::make(
    const ModeratorConfig& config) {
  switch (config.kind) {
    case ModeratorConfig::Kind::coalesce:
      return Coalescing{coalesce::Coalescer(config.coalesce, config.direction), config.dim,
                        std::nullopt, std::nullopt};
    case ModeratorConfig::Kind::lli:
      return LowLatency{lli::LowLatencyInterrupts(*config.lli)};
    case ModeratorConfig::Kind::immediate:
      break;
  }
  return Immediate{};
}

DimFeed::Samples DimFeed::on_completed_poll(std::uint64_t interrupts, std::uint64_t rx_packets,
                                            std::uint64_t tx_packets) {
  ++completions_;
  Samples out{interrupts, true, true};
  if (driver_ == DimGlue::enetc) {
    out = Samples{completions_, rx_packets != rx_at_completion_, tx_packets != tx_at_completion_};
  }
  rx_at_completion_ = rx_packets;
  tx_at_completion_ = tx_packets;
  return out;
}

Moderator::Moderator(const ModeratorConfig& config)
    : state_(make(config)), dim_driver_(config.dim_driver) {}

Arm Moderator::on_writeback(napi::Vector& vector, Instant t, std::uint32_t free_descriptors,
                            std::uint32_t frame_bytes) {
  if (auto* c = std::get_if<Coalescing>(&state_)) {
    // In write-back-only mode the device keeps no cause, so nothing starts the timer.
    if (drops_causes(vector)) return {};
    c->coalescer.on_completion(t);
    return recheck(vector, t);
  }
  if (auto* l = std::get_if<LowLatency>(&state_)) {
    lli::PacketInfo info;
    info.length = frame_bytes;
    info.l4 = lli::L4::udp;
    if (l->lli.on_rx(t, free_descriptors, info)) return Arm{vector.on_immediate_cause(t), {}};
    // A held cause fires at the interval's end (the deadline's recheck).
    if (l->lli.held()) return Arm{vector.on_cause(t), l->lli.next_allowed()};
  }
  return Arm{vector.on_cause(t), {}};
}

Arm Moderator::catch_up(napi::Vector& vector, Instant t) {
  auto* c = std::get_if<Coalescing>(&state_);
  if (!c) return {};
  const auto d = c->coalescer.deadline();
  if (!d || *d > t || c->caught_up == d) return {};  // once per deadline: again changes nothing
  if (!c->coalescer.due(*d)) return {};
  c->caught_up = d;
  return Arm{vector.on_cause(*d), {}};
}

Arm Moderator::recheck(napi::Vector& vector, Instant t) {
  if (auto* l = std::get_if<LowLatency>(&state_)) {
    if (l->lli.release(t)) return Arm{vector.on_immediate_cause(t), {}};
    if (l->lli.held()) return Arm{{}, l->lli.next_allowed()};
    return {};
  }
  auto* c = std::get_if<Coalescing>(&state_);
  if (!c) return {};
  if (c->coalescer.due(t)) return Arm{vector.on_cause(t), {}};
  return Arm{{}, c->coalescer.deadline()};
}

bool Moderator::wants_next_frame(const napi::Vector& vector) const {
  if (vector.state() != napi::VectorState::armed) return false;
  // A queue cause already waiting for its throttle changes nothing with more frames, unless
  // LLI's ring trigger can fire at any frame; a coalescer that counts time only has its deadline.
  if (const auto* l = std::get_if<LowLatency>(&state_)) {
    const lli::Config& c = l->lli.config();
    const bool can_fire = c.ring_threshold > 0 || c.matcher_count > 0;
    // A held cause fires at the interval's end whatever comes meanwhile.
    if (can_fire && !l->lli.held()) return true;
  }
  if (vector.queue_pending()) return false;
  if (const auto* c = std::get_if<Coalescing>(&state_)) {
    return !(c->coalescer.pending() > 0 && c->coalescer.thresholds().frames == 0);
  }
  return true;
}

std::optional<std::uint32_t> Moderator::on_interrupt(Instant t) {
  auto* c = std::get_if<Coalescing>(&state_);
  if (!c) return std::nullopt;
  c->coalescer.on_interrupt(t);
  if (!c->stored_usecs) return std::nullopt;
  // enetc_msix (patch 4/6 of the series): enetc_wr_reg(v->ricr1, v->rx_ictt), and ticr1 for
  // each Tx ring. Only the timer: the frame threshold stays what enetc_setup_interrupts wrote.
  // The handler runs irq-entry after the interrupt; nothing is pending at this point (the
  // interrupt signalled it), so applying it here is the same for every later frame.
  const std::uint32_t usecs = *c->stored_usecs;
  c->stored_usecs.reset();
  c->coalescer.program_normal({usecs, c->coalescer.band_thresholds(coalesce::Band::normal).frames});
  return usecs;
}

Arm Moderator::on_enabled(napi::Vector& vector, Instant t) {
  auto* c = std::get_if<Coalescing>(&state_);
  if (!c) return {};
  c->coalescer.on_irq_enabled(t);
  return recheck(vector, t);
}

Arm Moderator::on_completed_poll(napi::Vector& vector, Instant t, const DimCounters& counters,
                                 std::optional<std::uint32_t>& usecs) {
  auto* c = std::get_if<Coalescing>(&state_);
  if (!c || !c->dim) return {};
  const dim::Sample sample = dim::make_sample(t, counters.events, counters.packets, counters.bytes);
  const dim::Decision d = c->dim->step(sample, t);
  if (!d.apply) return {};
  // The work handler's dim->state = DIM_START_MEASURE (mlx5e_rx_dim_work, enetc_rx_dim_work).
  c->dim->acknowledge();
  if (dim_driver_ == DimGlue::enetc) {
    // enetc_rx_dim_work / enetc_tx_dim_work: v->rx_ictt = enetc_usecs_to_cycles(moder.usec),
    // nothing written to the device; moder.pkts is not used.
    c->stored_usecs = d.profile.usec;
    return {};
  }
  c->coalescer.program_normal({d.profile.usec, d.profile.pkts});
  usecs = d.profile.usec;
  return recheck(vector, t);
}

bool Moderator::on_causes_dropped(const napi::Vector& vector) {
  auto* c = std::get_if<Coalescing>(&state_);
  if (!c || !drops_causes(vector)) return false;
  c->coalescer.discard_pending();  // as the vector dropped its queue cause
  return true;
}

bool Moderator::on_all_cleaned() {
  auto* c = std::get_if<Coalescing>(&state_);
  if (!c || c->coalescer.pending() == 0) return false;
  c->coalescer.discard_pending();
  return true;
}

Duration Moderator::sample_interval() const {
  const auto* c = std::get_if<Coalescing>(&state_);
  return c ? c->coalescer.sample_interval() : Duration::zero();
}

Arm Moderator::on_sample(napi::Vector& vector, Instant t, std::uint64_t frames_arrived) {
  auto* c = std::get_if<Coalescing>(&state_);
  if (!c) return {};
  c->coalescer.on_sample(t, frames_arrived);
  return recheck(vector, t);
}

std::optional<std::uint32_t> Moderator::coalescing_usecs() const {
  const auto* c = std::get_if<Coalescing>(&state_);
  if (!c) return std::nullopt;
  return c->coalescer.thresholds().usecs;
}

std::int32_t Moderator::dim_profile() const {
  const auto* c = std::get_if<Coalescing>(&state_);
  return c && c->dim ? std::int32_t{c->dim->state().profile_ix} : -1;
}

}  // namespace irqmod::sim
