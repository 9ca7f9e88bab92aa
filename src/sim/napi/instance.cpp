// A NAPI instance. See instance.hpp.
#include "sim/napi/instance.hpp"

namespace irqmod::sim {

const NapiOps NapiInstance::kNapiOps{
    [](void* self, const Core& core) { return static_cast<NapiInstance*>(self)->take(core); },
    [](void* self, Core& core) { return static_cast<NapiInstance*>(self)->poll_begin(core); },
    [](void* self, Core& core) { return static_cast<NapiInstance*>(self)->poll_more(core); },
    [](void* self, Core& core) { return static_cast<NapiInstance*>(self)->poll_end(core); }};

NapiInstance::NapiInstance(World& world, std::uint32_t id, DeviceRef device,
                           std::vector<NetRx*> net_rx, std::uint32_t home_core,
                           const NapiSettings& settings)
    : world_(world),
      id_(id),
      device_(device),
      net_rx_(std::move(net_rx)),
      context_(settings.context),
      poll_in_irq_(settings.poll_in_irq),
      watchdog_(world, *this, settings.timers, settings.irq_entry) {
  irq_poll_.owner = this;
  if (settings.thread.enabled) {
    Core& core = net_rx_[settings.thread.core.value_or(home_core)]->core();
    thread_.emplace(*this, core, settings.thread_wakeup, settings.thread_switch);
  }
}

const NapiThreadStats& NapiInstance::thread_stats() const {
  static const NapiThreadStats kNone{};
  return thread_ ? thread_->stats() : kNone;
}

// napi_schedule_irqoff on the core that took the interrupt (i40e_msix_clean_rings).
void NapiInstance::on_interrupt(Core& core) {
  if (context_.schedule() != napi::Schedule::raised) return;
  if (poll_in_irq_) {
    poll_core_ = core.index();
    core.push(job_of(irq_poll_), Level::hardirq);  // right after this handler's entry
    return;
  }
  schedule_on(core);
}

std::optional<Segment> NapiInstance::IrqPoll::start(Core& core) {
  return Segment{owner->poll_begin(core), ContextKind::hardirq, "irq rx"};
}

std::optional<Segment> NapiInstance::IrqPoll::next(Core& core) {
  if (const auto more = owner->poll_more(core)) {
    return Segment{*more, ContextKind::hardirq, "irq rx"};
  }
  owner->poll_end(core);  // a poll that used its weight is left to NET_RX (repoll)
  return std::nullopt;
}

void NapiInstance::schedule_on(Core& core) {
  if (thread_) {
    thread_->wake();
    return;
  }
  poll_core_ = core.index();
  net_rx_[core.index()]->schedule(napi_ref());
}

void NapiInstance::suspend_irqs(Core& core) {
  if (auto t = context_.suspend_irqs(world_.now())) arm_timer(*t, core);
}

void NapiInstance::resume_irqs(Core& core) {
  if (auto s = context_.resume_irqs(); s && *s == napi::Schedule::raised) schedule_on(core);
}

void NapiInstance::complete(const napi::PollResult& result, Core& core) {
  device_.ops->deliver(device_.self, core);
  if (result.arm_timer) arm_timer(*result.arm_timer, core);
  if (result.repoll) schedule_on(core);
  device_.ops->completed(device_.self, result, core);
}

bool NapiInstance::take(const Core& core) const {
  return context_.owner() == napi::Owner::softirq && poll_core_ == core.index() &&
         context_.polling() == napi::Poller::none;
}

PollStart NapiInstance::poll(int budget, Core& core, PollKind kind) {
  ++world_.report.cores[core.index()].busy_polls;
  ++polls_.busy;
  timer_scheduled_ = false;  // the busy loop took what the timer scheduled
  return device_.ops->poll_begin(device_.self, budget, core, kind);
}

Duration NapiInstance::poll_begin(Core& core) {
  if (timer_scheduled_) {
    ++world_.report.cores[core.index()].timer_polls;
    ++polls_.timer;
  } else {
    ++polls_.softirq;
  }
  timer_scheduled_ = false;
  const int budget = context_.softirq_poll_begin();
  return device_.ops->poll_begin(device_.self, budget, core, PollKind::softirq).cost;
}

int NapiInstance::poll_end(Core& core) {
  const int work = poll_return(context_.config().weight, core);
  const napi::PollResult result = context_.softirq_poll_end(world_.now(), work);
  last_repoll_ = result.repoll;
  complete(result, core);
  return work;
}

}  // namespace irqmod::sim
