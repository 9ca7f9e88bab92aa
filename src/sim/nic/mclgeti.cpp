// MCLGETI's watermark and the softclock tick. See mclgeti.hpp.
#include "sim/nic/mclgeti.hpp"

#include <algorithm>

namespace irqmod::sim {
namespace {

constexpr std::int64_t kNsPerSecond = 1'000'000'000;

}  // namespace

Mclgeti::Mclgeti(World& world, Core& clock_core, Settings settings)
    : world_(world),
      clock_core_(clock_core),
      settings_(settings),
      cwm_(std::max<std::uint32_t>(4, settings.lwm)),  // m_clinitifp: MAX(4, mcl_lwm)
      cwm_min_(cwm_),
      cwm_max_(cwm_) {
  softclock_.owner = this;
  thread_ = clock_core_.add_thread(job_of(softclock_), true);
  endpoint_ = world_.engine.bind<&Mclgeti::on_event>(*this);
  world_.engine.schedule(at_ns(kNsPerSecond / settings_.hz), endpoint_, 0);
  if (world_.trace) trace_cwm();
}

std::int64_t Mclgeti::ticks() const {
  return ns_since_epoch(world_.now()) * settings_.hz / kNsPerSecond;
}

Instant Mclgeti::next_tick() const {
  return at_ns((ticks() + 1) * kNsPerSecond / settings_.hz);
}

// hardclock: the tick runs the softclock's due timeouts, m_cltick among them.
void Mclgeti::on_event(const Event&) {
  clock_core_.wake(thread_);
  ++next_tick_;
  world_.engine.schedule(at_ns(next_tick_ * kNsPerSecond / settings_.hz), endpoint_, 0);
}

// m_cltick: the tick it ran at; timeout_add(&m_cltick_tmo, 1) is the next tick's wake-up.
std::optional<Segment> Mclgeti::Softclock::start(Core&) {
  owner->clticks_ = owner->ticks();
  return std::nullopt;
}

bool Mclgeti::allocate() {
  const std::int64_t now = ticks();
  if (now - clticks_ > 1) {
    livelock_ = true;
    ++livelocks_;
    clticks_ = liveticks_ = now;
    const std::uint32_t diff = std::max<std::uint32_t>(cwm_ / 8, 2);
    if (world_.trace) world_.trace->instant(kTraceNic, 0, "livelock", "mclgeti", world_.now());
    set_cwm(std::max(settings_.lwm, cwm_ > diff ? cwm_ - diff : 0));
  } else if (livelock_ && now - liveticks_ > 4) {
    livelock_ = false;  // let the watermark grow again
  }
  if (!livelock_ && alive_ <= 4 && cwm_ < settings_.hwm && grown_ < now) {
    set_cwm(cwm_ + 1);
    grown_ = now;
  } else if (alive_ >= cwm_) {
    return false;
  }
  ++alive_;
  return true;
}

void Mclgeti::set_cwm(std::uint32_t cwm) {
  cwm_area_ += cwm_ * 1e-9 * static_cast<double>((world_.now() - cwm_since_).count());
  cwm_since_ = world_.now();
  cwm_ = cwm;
  cwm_min_ = std::min(cwm_min_, cwm);
  cwm_max_ = std::max(cwm_max_, cwm);
  if (world_.trace) trace_cwm();
}

MclgetiCounters Mclgeti::counters() const {
  MclgetiCounters c;
  c.livelocks = livelocks_;
  c.cwm_min = cwm_min_;
  c.cwm_max = cwm_max_;
  c.cwm_end = cwm_;
  c.cwm_area = cwm_area_ + cwm_ * 1e-9 * static_cast<double>((world_.now() - cwm_since_).count());
  return c;
}

void Mclgeti::trace_cwm() {
  world_.trace->counter(kTraceNic, "mclgeti cwm", "clusters", world_.now(), cwm_);
}

}  // namespace irqmod::sim
