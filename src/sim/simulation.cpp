// One simulation run. See include/irqmod/sim/simulation.hpp for the model.
#include "irqmod/sim/simulation.hpp"

#include <algorithm>
#include <array>
#include <cassert>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "irqmod/napi/context.hpp"
#include "irqmod/napi/driver.hpp"
#include "irqmod/napi/vector.hpp"
#include "irqmod/policy/coalesce.hpp"
#include "irqmod/policy/dim.hpp"
#include "irqmod/policy/itr.hpp"
#include "irqmod/policy/lli.hpp"
#include "irqmod/sim/engine.hpp"
#include "irqmod/sim/link.hpp"
#include "irqmod/sim/random.hpp"
#include "irqmod/sim/ring.hpp"
#include "irqmod/sim/traffic.hpp"

namespace irqmod::sim {
namespace {

// kernel/softirq.c: MAX_SOFTIRQ_RESTART 10 passes, MAX_SOFTIRQ_TIME 2 ms, before ksoftirqd.
constexpr int kMaxSoftirqRestart = 10;
constexpr Duration kMaxSoftirqTime = milliseconds(2);

// Engine event kinds.
enum Kind : std::uint16_t {
  kArrivalWatch = 1,  // the next frame's write-back, while the vector must react to it
  kVectorDue,         // the vector's interrupt is due
  kCoalesceDeadline,  // the coalescer's usecs timer
  kNapiTimer,         // napi->timer: deferral, prefer-busy-poll and IRQ-suspension watchdog
  kCoreDone,          // a core's running segment ends (target: core)
  kRequestWriteback,  // ping-pong: the request in flight is written back
  kRateSample,        // coalesce adaptive-rx: the sample-interval timer
};

enum class JobKind : std::uint8_t { hardirq, timer_irq, softirq, ksoftirqd, app };

int priority(JobKind kind) {
  switch (kind) {
    case JobKind::hardirq:
    case JobKind::timer_irq:
      return 3;
    case JobKind::softirq:
      return 2;
    case JobKind::ksoftirqd:
      return 1;
    case JobKind::app:
      break;
  }
  return 0;
}

std::string_view label(JobKind kind, ContextKind charge) {
  switch (kind) {
    case JobKind::hardirq:
      return "hardirq";
    case JobKind::timer_irq:
      return "timer irq";
    case JobKind::softirq:
      return "softirq NET_RX";
    case JobKind::ksoftirqd:
      return "ksoftirqd";
    case JobKind::app:
      break;
  }
  return charge == ContextKind::busy_poll ? "busy poll" : "application";
}

std::string_view category(ContextKind charge) {
  return to_string(charge);
}

struct Job {
  JobKind kind = JobKind::app;
  ContextKind charge = ContextKind::thread;  // what the running segment is charged to
  Duration remaining{};                      // of the running segment
  bool fresh = true;                         // not started: its first segment is not set yet
};

// net_rx_action's loop on one core (softirq or ksoftirqd).
struct RxAction {
  int budget_left = 0;    // netdev_budget
  Instant pass_start{};   // for netdev_budget_usecs
  Instant first_start{};  // for MAX_SOFTIRQ_TIME
  int restarts = 0;       // passes so far
  bool polling = false;   // a poll's segment is running
  bool active = false;    // the job exists
};

struct Core {
  std::array<Job, 8> stack{};  // by priority, top last
  std::size_t depth = 0;
  Instant segment_start{};
  SlotId done{};
  bool softirq_raised = false;                    // NET_RX pending on this core
  RxAction softirq{};                             // the softirq job's loop
  RxAction ksoftirqd{};                           // the ksoftirqd job's loop
  std::optional<Instant> idle_since = Instant{};  // nothing to run since then (for the trace)
};

enum class AppPhase : std::uint8_t {
  blocked,     // asleep in recv / epoll_wait
  waking,      // wakeup + context switch
  consuming,   // taking the queued messages
  busy_poll,   // spinning in the busy loop
  final_poll,  // busy_poll_stop's poll
};

class Simulation {
 public:
  Simulation(const Scenario& scenario, const RunOptions& options)
      : sc_(scenario),
        options_(options),
        link_(scenario.link.speed_bps),
        tx_link_(scenario.link.speed_bps),
        rx_ring_(scenario.nic.rx_ring),
        refills_(scenario.nic.rx_ring),
        polled_(std::max<std::uint32_t>(scenario.nic.rx_ring, 1)),
        socket_(65'536),
        tx_ring_(scenario.nic.tx_ring),
        napi_(napi_config(scenario)),
        vector_(vector_config(scenario)),
        driver_(driver_config(scenario), Instant{}),
        cores_(scenario.cpu.cores) {
    report_.scenario = scenario.scenario.name;
    report_.seed = scenario.scenario.seed;
    report_.sim_time = scenario.scenario.duration;
    report_.interrupts = InterruptCounters(1);
    report_.cpu = CpuTime(scenario.cpu.cores);
    for (Core& core : cores_)
      core.done = engine_.make_slot();
    vector_slot_ = engine_.make_slot();
    watch_slot_ = engine_.make_slot();
    deadline_slot_ = engine_.make_slot();
    timer_slot_ = engine_.make_slot();
  }

  Expected<RunReport> run();

 private:
  // ---- set-up ------------------------------------------------------------------------------
  static napi::Config napi_config(const Scenario& s) {
    napi::Config c;
    c.weight = static_cast<int>(s.napi.weight);
    c.defer_hard_irqs = s.napi.defer_hard_irqs;
    c.gro_flush_timeout = s.napi.gro_flush_timeout;
    c.irq_suspend_timeout = s.napi.irq_suspend_timeout;
    return c;
  }
  static napi::VectorConfig vector_config(const Scenario& s) {
    napi::VectorConfig c;
    c.sw_itr_interval = adaptive_itr::kSwItrInterval;  // I40E_ITR_20K for the forced SWINT
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
  static napi::DriverConfig driver_config(const Scenario& s) {
    napi::DriverConfig c;
    c.busy_poll_exit_swint = s.nic.busy_poll_exit_swint;
    if (s.nic.moderation == Moderation::adaptive_itr) {
      adaptive_itr::Config a;
      a.rx_usecs = s.nic.rx_usecs;
      a.tx_usecs = s.nic.tx_usecs;
      a.adaptive_rx = s.nic.adaptive_rx;
      a.link_speed = i40e_speed(s.link.speed_bps);
      c.adaptive = a;
    }
    return c;
  }
  static adaptive_itr::LinkSpeed i40e_speed(std::uint64_t bps) {
    const auto mbps = static_cast<std::uint32_t>(std::min<std::uint64_t>(bps / 1'000'000, 40'000));
    auto speed = adaptive_itr::link_speed_from_mbps(mbps);
    return speed ? *speed : adaptive_itr::LinkSpeed::unknown;
  }

  bool ping_pong() const { return sc_.traffic.kind == TrafficKind::ping_pong; }
  bool answers() const {
    return sc_.traffic.kind == TrafficKind::ping_pong ||
           sc_.traffic.kind == TrafficKind::request_response;
  }
  Instant now() const { return engine_.now(); }
  std::uint32_t irq_core() const { return sc_.cpu.irq_core; }
  std::uint32_t app_core() const { return sc_.cpu.app_core; }
  // Busy polling: busy_read spins in recv (sk_busy_loop); busy_poll alone, in epoll_wait.
  std::uint32_t busy_usecs() const {
    const Duration d =
        sc_.napi.busy_read > Duration::zero() ? sc_.napi.busy_read : sc_.napi.busy_poll;
    return static_cast<std::uint32_t>(d.count() / 1000);
  }
  bool epoll_mode() const {
    return sc_.napi.busy_read == Duration::zero() && sc_.napi.busy_poll > Duration::zero();
  }

  Expected<bool> build_traffic();
  void dispatch(const Event& event);

  // ---- the NIC ------------------------------------------------------------------------------
  void land(Instant until);
  void land_one(const Packet& packet, Instant writeback);
  void release_refills(Instant t);
  void moderate_writeback(Instant t);
  void recheck_coalescer(Instant t);
  void catch_up_coalescer(Instant t);
  void arm_vector(std::optional<Instant> due);
  void arm_at(SlotId slot, Instant at, std::uint16_t kind, std::uint32_t target = 0);
  void update_watch();
  Instant next_writeback() const;
  void on_vector_due();
  void on_coalesce_deadline();
  void on_napi_timer();
  void arm_napi_timer(Instant at, std::uint32_t core);
  void apply_driver(const napi::DriverAction& action);
  void after_poll(const napi::PollResult& result, int work, std::uint32_t core);
  int scan(int budget);
  void deliver_polled();
  void trace_ring();
  void trace_idle(std::uint32_t core, Instant since);

  // ---- cores --------------------------------------------------------------------------------
  void insert_job(std::uint32_t core, JobKind kind);
  void pause_top(std::uint32_t core);
  void run_top(std::uint32_t core);
  void start_segment(std::uint32_t core, Duration d, ContextKind charge);
  void on_core_done(std::uint32_t core);
  void settle(std::uint32_t core);
  bool segment_done(std::uint32_t core, Job& job);  // true: the job continues
  bool start_job(std::uint32_t core, Job& job);     // false: nothing to do, drop it
  void raise_softirq(std::uint32_t core);
  bool app_runnable(std::uint32_t core) const;

  bool rx_action_step(std::uint32_t core, RxAction& rx, ContextKind charge);
  bool rx_action_poll_done(std::uint32_t core, RxAction& rx, ContextKind charge);

  // ---- the application ---------------------------------------------------------------------
  void wake_app();
  bool app_continue(std::uint32_t core);
  bool app_recv(std::uint32_t core);
  bool busy_iteration(std::uint32_t core);
  bool busy_iteration_done(std::uint32_t core);
  bool app_recv_after_busy(std::uint32_t core);
  void finish_consuming();
  void send_request(Instant at);
  void lost_request();

  const Scenario& sc_;
  RunOptions options_;
  Engine engine_{4096};
  Link link_;     // client -> NIC
  Link tx_link_;  // NIC -> client
  std::optional<ArrivalStream> stream_;

  Ring<Packet> rx_ring_;  // written-back descriptors not yet cleaned
  struct Refill {
    std::int64_t ready_ns;
    std::uint32_t count;
  };
  Ring<Refill> refills_;         // cleaned descriptors waiting for their buffer
  std::uint32_t refilling_ = 0;  // descriptors in refills_
  Ring<Packet> polled_;          // taken by the running poll, delivered at its end
  Ring<Packet> socket_;          // the socket's receive queue
  Ring<std::int64_t> tx_ring_;   // replies on the Tx ring: when each has left the wire, ns
  std::uint64_t socket_bytes_ = 0;
  std::uint32_t consuming_ = 0;  // messages the application is taking now

  napi::Context napi_;
  napi::Vector vector_;
  napi::Driver driver_;
  std::optional<coalesce::Coalescer> coalescer_;
  std::optional<dim::NetDim> dim_;
  std::optional<lli::LowLatencyInterrupts> lli_;
  std::uint32_t napi_core_ = 0;       // the core whose poll list holds the context
  std::uint32_t timer_core_ = 0;      // the core that armed napi->timer last
  std::optional<Instant> caught_up_;  // the coalescer deadline catch_up_coalescer last raised
  std::uint64_t polled_packets_ = 0;
  std::uint64_t polled_bytes_ = 0;

  std::vector<Core> cores_;
  SlotId vector_slot_{}, watch_slot_{}, deadline_slot_{}, timer_slot_{};

  AppPhase app_phase_ = AppPhase::blocked;
  bool app_in_stack_ = false;
  bool busy_owned_ = false;
  bool busy_polled_ = false;  // this loop has polled the context at least once
  int busy_scanned_ = 0;
  Instant busy_start_{};

  // ping-pong client
  std::int64_t request_send_ns_ = 0;    // when the request in flight left the client
  std::int64_t next_send_slot_ns_ = 0;  // --mps pacing
  std::optional<Instant> request_writeback_;
  std::uint32_t request_bytes_ = 0;

  RunReport report_;
  std::uint64_t entered_ = 0;
  Instant end_{};
  Instant next_progress_{};
};

// ---- traffic --------------------------------------------------------------------------------

Expected<bool> Simulation::build_traffic() {
  const TrafficSection& t = sc_.traffic;
  const std::uint32_t size =
      t.kind == TrafficKind::request_response ? udp_frame_bytes(t.msg_size) : t.size;
  Rng rng(sc_.scenario.seed, 1);
  auto spacing = [&]() {
    return t.rate > 0 ? Spacing::per_second(t.rate) : Spacing::fixed(link_.occupancy_ps(size));
  };
  switch (t.kind) {
    case TrafficKind::constant:
      stream_.emplace(ConstantRate(spacing(), size), link_, rng);
      break;
    case TrafficKind::request_response:
      if (t.rate == 0) {
        return Error{"traffic.rate",
                     "request-response needs a request rate; allowed: 1 frame/s or more"};
      }
      stream_.emplace(Poisson(t.rate, size), link_, rng);
      break;
    case TrafficKind::poisson:
      stream_.emplace(Poisson(t.rate, size), link_, rng);
      break;
    case TrafficKind::on_off:
      stream_.emplace(OnOff(spacing(), size, t.on_time.count() * 1000, t.off_time.count() * 1000),
                      link_, rng);
      break;
    case TrafficKind::pcap: {
      auto trace = load_pcap(t.pcap);
      if (!trace) return Error{"traffic.pcap", trace.error().what()};
      stream_.emplace(
          TraceReplay(std::make_shared<const Trace>(std::move(trace.value())), t.pcap_loop), link_,
          rng);
      break;
    }
    case TrafficKind::ping_pong:
      request_bytes_ = udp_frame_bytes(t.msg_size);
      send_request(Instant{});
      break;
  }
  return true;
}

// A request or its reply was dropped. sockperf counts the message as dropped; the ping-pong
// client then sends the next one. The model knows of the loss at once, so the next request
// leaves now: a real client would first wait for its receive timeout, which this model leaves
// out (the run would otherwise stall).
void Simulation::lost_request() {
  if (!answers()) return;
  ++report_.sockperf.dropped;
  if (ping_pong()) send_request(now());
}

void Simulation::send_request(Instant at) {
  // sockperf --mps: one request per 1/mps at most; 0 (max) sends on the reply.
  std::int64_t send_ns = ns_since_epoch(at);
  if (sc_.traffic.mps > 0) {
    send_ns = std::max(send_ns, next_send_slot_ns_);
    next_send_slot_ns_ = send_ns + 1'000'000'000 / static_cast<std::int64_t>(sc_.traffic.mps);
  }
  request_send_ns_ = send_ns;
  const std::int64_t arrival_ns = send_ns + link_.reception_ps(request_bytes_) / 1000;
  const Instant writeback = at_ns(arrival_ns) + sc_.nic.dma_delay;
  request_writeback_ = writeback;
  engine_.schedule(writeback, kRequestWriteback, 0, static_cast<std::uint64_t>(arrival_ns));
}

// ---- the NIC ----------------------------------------------------------------------------------

void Simulation::release_refills(Instant t) {
  const std::int64_t t_ns = ns_since_epoch(t);
  while (!refills_.empty() && refills_.front().ready_ns <= t_ns) {
    refilling_ -= refills_.front().count;
    refills_.pop();
  }
}

void Simulation::land_one(const Packet& packet, Instant writeback) {
  ++entered_;
  release_refills(writeback);
  if (rx_ring_.size() == rx_ring_.capacity()) {
    report_.drops.add(DropReason::rx_ring_full);
    lost_request();
    return;
  }
  if (rx_ring_.size() + refilling_ >= rx_ring_.capacity()) {
    report_.drops.add(DropReason::rx_no_buffer);
    lost_request();
    return;
  }
  rx_ring_.push(packet);
  if (options_.trace) {
    options_.trace->instant(2, 0, "frame written back", "nic", writeback);
  }
  moderate_writeback(writeback);
}

void Simulation::land(Instant until) {
  if (!stream_) return;
  const Instant arrivals_until = until - sc_.nic.dma_delay;
  stream_->take_until(arrivals_until, [&](const Packet& p) {
    const Instant writeback = at_ns(p.arrival_ns) + sc_.nic.dma_delay;
    catch_up_coalescer(writeback);
    land_one(p, writeback);
  });
  catch_up_coalescer(until);
}

// The coalescer's decision after anything that changed it (a completion, the -irq pair ending,
// a rate band, a DIM profile): a cause now if due, else its deadline event.
void Simulation::recheck_coalescer(Instant t) {
  if (coalescer_->due(t)) {
    arm_vector(vector_.on_cause(t));
  } else if (auto d = coalescer_->deadline()) {
    arm_at(deadline_slot_, std::max(*d, now()), kCoalesceDeadline);
  }
}

// A deadline that passed between two events, found while landing frames late: the cause was
// raised at the deadline, under the pair in effect then (which is still in effect: only
// events change it).
void Simulation::catch_up_coalescer(Instant t) {
  if (!coalescer_) return;
  const auto d = coalescer_->deadline();
  if (!d || *d > t || caught_up_ == d) return;  // once per deadline: again changes nothing
  if (coalescer_->due(*d)) {
    caught_up_ = d;
    arm_vector(vector_.on_cause(*d));
  }
}

void Simulation::moderate_writeback(Instant t) {
  switch (sc_.nic.moderation) {
    case Moderation::none:
    case Moderation::itr:
    case Moderation::adaptive_itr:
      arm_vector(vector_.on_cause(t));
      break;
    case Moderation::coalesce:
    case Moderation::dim:
      // In write-back-only mode the device keeps no cause, so nothing starts the timer.
      if (vector_.state() == napi::VectorState::writeback_only &&
          !vector_.config().latch_in_writeback_only) {
        break;
      }
      coalescer_->on_completion(t);
      recheck_coalescer(t);
      break;
    case Moderation::lli: {
      const auto free =
          static_cast<std::uint32_t>(rx_ring_.capacity() - rx_ring_.size() - refilling_);
      lli::PacketInfo info;
      info.length = rx_ring_.size() > 0 ? rx_ring_[rx_ring_.size() - 1].frame_bytes : 64;
      info.l4 = lli::L4::udp;
      if (lli_->on_rx(t, free, info)) {
        arm_vector(vector_.on_immediate_cause(t));
      } else {
        arm_vector(vector_.on_cause(t));
      }
      break;
    }
  }
}

void Simulation::arm_vector(std::optional<Instant> due) {
  if (due) arm_at(vector_slot_, std::max(*due, now()), kVectorDue);
}

// Arms `slot` at `at` unless it is already armed for that instant: re-arming would take a new
// sequence number and move the event behind others of the same instant, so the order of ties
// would depend on how often a deadline was confirmed.
void Simulation::arm_at(SlotId slot, Instant at, std::uint16_t kind, std::uint32_t target) {
  if (engine_.armed(slot) && engine_.deadline(slot) == at) return;
  engine_.arm(slot, at, kind, target);
}

Instant Simulation::next_writeback() const {
  Instant next = Instant::max();
  if (stream_ && stream_->next_arrival() != Instant::max()) {
    next = stream_->next_arrival() + sc_.nic.dma_delay;
  }
  if (request_writeback_ && *request_writeback_ < next) next = *request_writeback_;
  return next;
}

// The device reacts to the next write-back only while the vector is armed and nothing is
// already due; otherwise landing that write-back with the next event is exact.
void Simulation::update_watch() {
  if (!stream_) return;  // ping-pong requests have their own event
  // Armed, a write-back can make an interrupt due sooner than anything scheduled, unless a
  // queue cause already waits for its throttle (more frames change nothing), or the coalescer
  // counts time only (its deadline event will do). LLI's ring trigger can fire at any frame.
  bool watch = options_.event_per_arrival;
  if (!watch && vector_.state() == napi::VectorState::armed) {
    watch = lli_ || !vector_.queue_pending();
    if (watch && coalescer_ && coalescer_->pending() > 0 && coalescer_->thresholds().frames == 0) {
      watch = false;
    }
  }
  if (!watch) {
    engine_.cancel(watch_slot_);
    return;
  }
  const Instant next = stream_->next_arrival();
  if (next == Instant::max()) return;
  const Instant at = std::max(next + sc_.nic.dma_delay, now());
  if (!engine_.armed(watch_slot_) || engine_.deadline(watch_slot_) != at) {
    engine_.arm(watch_slot_, at, kArrivalWatch, 0);
  }
}

void Simulation::on_vector_due() {
  const auto cause = vector_.fire(now());
  if (!cause) return;
  report_.interrupts.count(0);
  if (coalescer_) coalescer_->on_interrupt(now());
  if (options_.trace) {
    options_.trace->instant(1, irq_core(),
                            *cause == napi::Cause::software ? "interrupt (software)" : "interrupt",
                            "interrupt", now());
  }
  insert_job(irq_core(), JobKind::hardirq);
}

void Simulation::on_coalesce_deadline() {
  recheck_coalescer(now());
}

// hrtimer_start(..., HRTIMER_MODE_REL_PINNED): the watchdog runs on the core that armed it.
void Simulation::arm_napi_timer(Instant at, std::uint32_t core) {
  timer_core_ = core;
  engine_.arm(timer_slot_, at, kNapiTimer, 0);
}

void Simulation::on_napi_timer() {
  if (auto s = napi_.on_timer(now()); s && *s == napi::Schedule::raised) {
    napi_core_ = timer_core_;
    insert_job(timer_core_, JobKind::timer_irq);
  }
}

void Simulation::apply_driver(const napi::DriverAction& action) {
  if (action.enabled && coalescer_) {
    coalescer_->on_irq_enabled(now());
    recheck_coalescer(now());
  }
  if (action.new_itr && options_.trace) {
    options_.trace->counter(2, "itr", "usecs", now(), action.new_itr->count() / 1000);
  }
  arm_vector(action.fire_at);
}

int Simulation::scan(int budget) {
  land(now());
  const int n = static_cast<int>(std::min<std::size_t>(rx_ring_.size(), budget));
  for (int i = 0; i < n; ++i) {
    polled_.push(rx_ring_.front());
    rx_ring_.pop();
  }
  if (n > 0) {
    if (sc_.nic.refill_delay > Duration::zero()) {
      refills_.push(
          Refill{ns_since_epoch(now() + sc_.nic.refill_delay), static_cast<std::uint32_t>(n)});
      refilling_ += static_cast<std::uint32_t>(n);
    }
    trace_ring();
  }
  return n;
}

void Simulation::trace_idle(std::uint32_t core, Instant since) {
  if (options_.trace && now() > since) {
    options_.trace->slice(1, core, "idle", "idle", since, now() - since);
  }
}

void Simulation::trace_ring() {
  if (options_.trace) {
    options_.trace->counter(2, "rx ring", "descriptors", now(),
                            static_cast<std::int64_t>(rx_ring_.size()));
  }
}

void Simulation::deliver_polled() {
  bool delivered = false;
  while (!polled_.empty()) {
    const Packet& p = polled_.front();
    polled_packets_ += 1;
    polled_bytes_ += p.frame_bytes;
    if (socket_bytes_ + p.frame_bytes > kSocketReceiveBytes || socket_.full()) {
      report_.drops.add(DropReason::socket_queue_full);
      lost_request();
    } else {
      socket_.push(p);
      socket_bytes_ += p.frame_bytes;
      delivered = true;
    }
    polled_.pop();
  }
  if (delivered && app_phase_ == AppPhase::blocked) wake_app();
}

// The driver's completion, the NAPI timer, net_dim's sample and delivery after any poll.
void Simulation::after_poll(const napi::PollResult& result, int work, std::uint32_t core) {
  std::uint32_t bytes = 0;
  for (std::size_t i = 0; i < polled_.size(); ++i)
    bytes += polled_[i].frame_bytes;
  driver_.on_rx_cleaned(bytes, static_cast<std::uint32_t>(work));
  deliver_polled();
  if (result.arm_timer) arm_napi_timer(*result.arm_timer, core);
  if (result.repoll) {
    napi_core_ = core;
    cores_[core].softirq_raised = true;
  }
  if (dim_ && result.completion == napi::Completion::rearm) {
    // The driver's napi poll feeds net_dim after completing (mlx5e_handle_rx_dim, enetc).
    const dim::Sample sample =
        dim::make_sample(now(), report_.interrupts.total(), polled_packets_, polled_bytes_);
    const dim::Decision d = dim_->step(sample, now());
    if (d.apply) {
      coalescer_->program_normal({d.profile.usec, d.profile.pkts});
      dim_->acknowledge();
      recheck_coalescer(now());
      if (options_.trace) options_.trace->counter(2, "rx-usecs", "usecs", now(), d.profile.usec);
    }
  }
  apply_driver(driver_.on_poll(now(), result, vector_));
  if (coalescer_ && vector_.state() == napi::VectorState::writeback_only &&
      !vector_.config().latch_in_writeback_only) {
    coalescer_->discard_pending();  // as the vector dropped its queue cause
    engine_.cancel(deadline_slot_);
  }
}

// ---- cores ----------------------------------------------------------------------------------

bool Simulation::app_runnable(std::uint32_t core) const {
  return core == app_core() && app_in_stack_;
}

void Simulation::raise_softirq(std::uint32_t core) {
  cores_[core].softirq_raised = true;
}

void Simulation::insert_job(std::uint32_t core_index, JobKind kind) {
  Core& core = cores_[core_index];
  if (kind == JobKind::softirq && core.softirq.active) return;  // one NET_RX loop per core
  if (kind == JobKind::ksoftirqd && core.ksoftirqd.active) return;
  assert(core.depth < core.stack.size() && "job stack overflow");
  std::size_t pos = core.depth;
  while (pos > 0 && priority(core.stack[pos - 1].kind) >= priority(kind))
    --pos;
  if (pos == core.depth && core.depth > 0) pause_top(core_index);
  for (std::size_t i = core.depth; i > pos; --i)
    core.stack[i] = core.stack[i - 1];
  core.stack[pos] = Job{kind, ContextKind::thread, Duration::zero(), true};
  ++core.depth;
  if (kind == JobKind::softirq) core.softirq.active = true;
  if (kind == JobKind::ksoftirqd) core.ksoftirqd.active = true;
  if (pos == core.depth - 1) settle(core_index);
}

void Simulation::pause_top(std::uint32_t core_index) {
  Core& core = cores_[core_index];
  Job& top = core.stack[core.depth - 1];
  if (top.fresh) return;
  const Duration elapsed = now() - core.segment_start;
  report_.cpu.charge(core_index, top.charge, elapsed);
  if (options_.trace && elapsed > Duration::zero()) {
    options_.trace->slice(1, core_index, label(top.kind, top.charge), category(top.charge),
                          core.segment_start, elapsed);
  }
  top.remaining -= elapsed;
  core.segment_start = now();
  engine_.cancel(core.done);
}

void Simulation::run_top(std::uint32_t core_index) {
  Core& core = cores_[core_index];
  const Job& top = core.stack[core.depth - 1];
  if (core.idle_since) {
    trace_idle(core_index, *core.idle_since);
    core.idle_since.reset();
  }
  core.segment_start = now();
  engine_.arm(core.done, now() + top.remaining, kCoreDone, core_index);
}

void Simulation::start_segment(std::uint32_t core_index, Duration d, ContextKind charge) {
  Job& top = cores_[core_index].stack[cores_[core_index].depth - 1];
  top.remaining = d;
  top.charge = charge;
  top.fresh = false;
}

// Makes the top of the stack run: starts fresh jobs (dropping those with nothing to do) and
// lets a raised softirq run before anything of lower priority.
void Simulation::settle(std::uint32_t core_index) {
  Core& core = cores_[core_index];
  while (true) {
    if (core.softirq_raised &&
        (core.depth == 0 ||
         priority(core.stack[core.depth - 1].kind) < priority(JobKind::softirq)) &&
        !core.softirq.active) {
      core.softirq_raised = false;
      insert_job(core_index, JobKind::softirq);
      return;  // insert_job settled
    }
    if (core.depth == 0) {
      if (!core.idle_since) core.idle_since = now();
      return;
    }
    Job& top = core.stack[core.depth - 1];
    if (!top.fresh) {
      run_top(core_index);
      return;
    }
    if (start_job(core_index, top)) {
      run_top(core_index);
      return;
    }
    --core.depth;  // nothing to do
  }
}

void Simulation::on_core_done(std::uint32_t core_index) {
  Core& core = cores_[core_index];
  Job& top = core.stack[core.depth - 1];
  const Duration elapsed = now() - core.segment_start;
  report_.cpu.charge(core_index, top.charge, elapsed);
  if (options_.trace && elapsed > Duration::zero()) {
    options_.trace->slice(1, core_index, label(top.kind, top.charge), category(top.charge),
                          core.segment_start, elapsed);
  }
  top.remaining = Duration::zero();
  core.segment_start = now();
  if (!segment_done(core_index, top)) {
    --core.depth;
  }
  settle(core_index);
}

bool Simulation::start_job(std::uint32_t core, Job& job) {
  const CpuSection& cpu = sc_.cpu;
  switch (job.kind) {
    case JobKind::hardirq:
      start_segment(core, cpu.irq_entry + cpu.irq_handler, ContextKind::hardirq);
      return true;
    case JobKind::timer_irq:
      start_segment(core, cpu.irq_entry, ContextKind::hardirq);
      return true;
    case JobKind::softirq:
    case JobKind::ksoftirqd: {
      RxAction& rx = job.kind == JobKind::softirq ? cores_[core].softirq : cores_[core].ksoftirqd;
      rx.budget_left = static_cast<int>(sc_.napi.netdev_budget);
      rx.pass_start = now();
      rx.first_start = now();
      rx.restarts = 0;
      const ContextKind charge =
          job.kind == JobKind::softirq ? ContextKind::softirq : ContextKind::ksoftirqd;
      if (rx_action_step(core, rx, charge)) return true;
      rx.active = false;
      return false;
    }
    case JobKind::app:
      return app_continue(core);
  }
  return false;
}

bool Simulation::segment_done(std::uint32_t core, Job& job) {
  switch (job.kind) {
    case JobKind::hardirq: {
      // i40e_msix_clean_rings: napi_schedule_irqoff.
      if (napi_.schedule() == napi::Schedule::raised) {
        napi_core_ = core;
        raise_softirq(core);
      }
      return false;
    }
    case JobKind::timer_irq:
      raise_softirq(core);  // napi_watchdog scheduled the context already
      return false;
    case JobKind::softirq:
    case JobKind::ksoftirqd: {
      RxAction& rx = job.kind == JobKind::softirq ? cores_[core].softirq : cores_[core].ksoftirqd;
      const ContextKind charge =
          job.kind == JobKind::softirq ? ContextKind::softirq : ContextKind::ksoftirqd;
      if (rx_action_poll_done(core, rx, charge)) return true;
      rx.active = false;
      return false;
    }
    case JobKind::app:
      switch (app_phase_) {
        case AppPhase::waking:
          return app_recv(core);
        case AppPhase::consuming:
          finish_consuming();
          if (epoll_mode() && sc_.napi.prefer_busy_poll) {
            // ep_try_send_events returned events: napi_suspend_irqs.
            if (auto t = napi_.suspend_irqs(now())) arm_napi_timer(*t, core);
          }
          return app_recv(core);
        case AppPhase::busy_poll:
        case AppPhase::final_poll:
          return busy_iteration_done(core);
        case AppPhase::blocked:
          break;
      }
      return false;
  }
  return false;
}

// Starts the next poll of net_rx_action if the context is this core's to poll and the budget
// allows. False when the loop is over.
bool Simulation::rx_action_step(std::uint32_t core, RxAction& rx, ContextKind charge) {
  if (napi_.owner() != napi::Owner::softirq || napi_core_ != core ||
      napi_.polling() != napi::Poller::none) {
    return false;
  }
  const int work_budget = napi_.softirq_poll_begin();
  const int n = scan(work_budget);
  rx.polling = true;
  start_segment(core, sc_.cpu.napi_poll + n * sc_.cpu.rx_packet, charge);
  return true;
}

bool Simulation::rx_action_poll_done(std::uint32_t core, RxAction& rx, ContextKind charge) {
  rx.polling = false;
  const int n = static_cast<int>(polled_.size());
  const napi::PollResult result = napi_.softirq_poll_end(now(), n);
  after_poll(result, n, core);
  rx.budget_left -= n;
  Core& c = cores_[core];
  if (!c.softirq_raised) return false;  // nothing left on this core's poll list
  const bool squeezed =
      rx.budget_left <= 0 || now() - rx.pass_start >= sc_.napi.netdev_budget_usecs;
  if (!squeezed) {
    c.softirq_raised = false;
    return rx_action_step(core, rx, charge);
  }
  // net_rx_action ends with the context still listed and re-raises NET_RX. handle_softirqs
  // restarts inline while time and restarts allow and nothing waits to run; then ksoftirqd.
  if (charge == ContextKind::softirq) {
    ++rx.restarts;
    if (rx.restarts < kMaxSoftirqRestart && now() - rx.first_start < kMaxSoftirqTime &&
        !app_runnable(core)) {
      c.softirq_raised = false;
      rx.budget_left = static_cast<int>(sc_.napi.netdev_budget);
      rx.pass_start = now();
      return rx_action_step(core, rx, charge);
    }
    c.softirq_raised = false;
    rx.active = false;
    insert_job(core, JobKind::ksoftirqd);  // wakeup_softirqd
    return false;
  }
  // ksoftirqd runs passes until the list is empty.
  c.softirq_raised = false;
  rx.budget_left = static_cast<int>(sc_.napi.netdev_budget);
  rx.pass_start = now();
  return rx_action_step(core, rx, charge);
}

// ---- the application ------------------------------------------------------------------------

void Simulation::wake_app() {
  app_phase_ = AppPhase::waking;
  app_in_stack_ = true;
  insert_job(app_core(), JobKind::app);
}

// The first segment of the application job once it is on top.
bool Simulation::app_continue(std::uint32_t core) {
  if (app_phase_ == AppPhase::waking) {
    start_segment(core, sc_.cpu.wakeup + sc_.cpu.context_switch, ContextKind::thread);
    return true;
  }
  return app_recv(core);
}

// recv (or epoll_wait): take what is queued, else busy-poll if asked, else block.
bool Simulation::app_recv(std::uint32_t core) {
  const CpuSection& cpu = sc_.cpu;
  if (!socket_.empty()) {
    consuming_ = static_cast<std::uint32_t>(socket_.size());
    app_phase_ = AppPhase::consuming;
    Duration per_message = cpu.syscall + cpu.app_message;
    if (answers()) per_message += cpu.syscall + cpu.tx_packet;
    start_segment(core, consuming_ * per_message, ContextKind::thread);
    return true;
  }
  if (busy_usecs() > 0) {
    app_phase_ = AppPhase::busy_poll;
    busy_start_ = now();
    busy_owned_ = false;
    busy_polled_ = false;
    return busy_iteration(core);
  }
  app_phase_ = AppPhase::blocked;
  app_in_stack_ = false;
  return false;
}

void Simulation::finish_consuming() {
  for (std::uint32_t i = 0; i < consuming_; ++i) {
    const Packet& p = socket_.front();
    ++report_.delivered_packets;
    report_.delivered_bytes += p.frame_bytes;
    socket_bytes_ -= p.frame_bytes;
    if (answers()) {
      // The reply takes a Tx descriptor until its last bit has left (Tx completions are not
      // modelled as interrupts: the descriptor is free once the frame is on the wire).
      const std::int64_t now_ns = ns_since_epoch(now());
      while (!tx_ring_.empty() && tx_ring_.front() <= now_ns)
        tx_ring_.pop();
      if (tx_ring_.full()) {
        report_.drops.add(DropReason::tx_ring_full);
        socket_.pop();
        lost_request();
        continue;
      }
      // The reply leaves now; the client has it when its last bit arrives; RTT/2 from the
      // request's first bit leaving the client.
      const std::uint32_t reply_bytes = p.frame_bytes;
      const std::int64_t client_ps = tx_link_.transmit(ns_since_epoch(now()) * 1000, reply_bytes);
      const std::int64_t client_ns = client_ps / 1000;
      tx_ring_.push(tx_link_.free_at_ps() / 1000);
      const std::int64_t sent_ns =
          ping_pong() ? request_send_ns_ : p.arrival_ns - link_.reception_ps(p.frame_bytes) / 1000;
      report_.latency.record((client_ns - sent_ns) / 2);
      if (ping_pong()) send_request(std::max(now(), at_ns(client_ns)));
    } else {
      report_.latency.record(ns_since_epoch(now()) - p.arrival_ns);
    }
    socket_.pop();
  }
  consuming_ = 0;
}

// One busy-loop iteration: try to own the context, poll it.
bool Simulation::busy_iteration(std::uint32_t core) {
  const CpuSection& cpu = sc_.cpu;
  land(now());
  if (!busy_owned_) busy_owned_ = napi_.busy_poll_acquire(sc_.napi.prefer_busy_poll);
  if (!busy_owned_) {
    busy_scanned_ = 0;
    start_segment(core, cpu.busy_poll_iteration, ContextKind::busy_poll);
    return true;
  }
  const int budget = static_cast<int>(sc_.napi.busy_poll_budget);
  napi_.busy_poll_begin(budget);
  busy_scanned_ = scan(budget);
  Duration cost = cpu.busy_poll_iteration + busy_scanned_ * cpu.rx_packet;
  if (busy_scanned_ == 0 && busy_polled_) {
    // After one empty poll (which left the vector in write-back-only mode), further empty polls
    // change nothing while the context is ours: jump to the iteration at which the next frame
    // is written back or the loop times out.
    const std::uint32_t usecs = busy_usecs();
    const auto start_units = static_cast<std::uint64_t>(ns_since_epoch(busy_start_)) >> 10;
    const Instant timeout = at_ns(static_cast<std::int64_t>((start_units + usecs + 1) << 10));
    const Instant until = std::min(next_writeback(), timeout);
    if (until > now() + cpu.busy_poll_iteration) {
      const std::int64_t iterations =
          (until - now() + cpu.busy_poll_iteration - nanoseconds(1)) / cpu.busy_poll_iteration;
      cost = iterations * cpu.busy_poll_iteration;
    }
  }
  busy_polled_ = true;
  start_segment(core, cost, ContextKind::busy_poll);
  return true;
}

bool Simulation::busy_iteration_done(std::uint32_t core) {
  const CpuSection& cpu = sc_.cpu;
  if (app_phase_ == AppPhase::final_poll) {
    const int n = static_cast<int>(polled_.size());
    const napi::PollResult result = napi_.final_poll_end(now(), n);
    after_poll(result, n, core);
    busy_owned_ = false;
    return app_recv_after_busy(core);
  }
  if (busy_owned_) {
    const int n = static_cast<int>(polled_.size());
    const napi::PollResult result = napi_.busy_poll_end(now(), n);
    after_poll(result, n, core);
  }
  const bool end = !socket_.empty() || napi::busy_loop_timed_out(busy_start_, now(), busy_usecs());
  if (!end) return busy_iteration(core);
  if (busy_owned_) {
    if (auto t = napi_.busy_poll_stop(now(), sc_.napi.prefer_busy_poll)) {
      arm_napi_timer(*t, core);
    }
    app_phase_ = AppPhase::final_poll;
    napi_.final_poll_begin();
    const int n = scan(static_cast<int>(sc_.napi.busy_poll_budget));
    start_segment(core, cpu.napi_poll + n * cpu.rx_packet, ContextKind::busy_poll);
    return true;
  }
  return app_recv_after_busy(core);
}

// The busy loop is over: take what it found, or (epoll with prefer_busy_poll and no events)
// resume interrupts, and sleep.
bool Simulation::app_recv_after_busy(std::uint32_t core) {
  if (!socket_.empty()) return app_recv(core);
  if (epoll_mode() && sc_.napi.prefer_busy_poll) {
    if (auto s = napi_.resume_irqs(); s && *s == napi::Schedule::raised) {
      napi_core_ = core;
      raise_softirq(core);
    }
  }
  app_phase_ = AppPhase::blocked;
  app_in_stack_ = false;
  return false;
}

// ---- the run --------------------------------------------------------------------------------

void Simulation::dispatch(const Event& event) {
  switch (event.kind()) {
    case kArrivalWatch:
      land(now());
      break;
    case kVectorDue:
      land(now());
      on_vector_due();
      break;
    case kCoalesceDeadline:
      land(now());
      on_coalesce_deadline();
      break;
    case kNapiTimer:
      land(now());
      on_napi_timer();
      break;
    case kCoreDone:
      land(now());
      on_core_done(event.target);
      break;
    case kRequestWriteback: {
      request_writeback_.reset();
      const Packet request{static_cast<std::int64_t>(event.payload), request_bytes_, 0};
      land_one(request, now());
      break;
    }
    case kRateSample:
      land(now());
      coalescer_->on_sample(now(), entered_);
      recheck_coalescer(now());
      engine_.schedule(now() + coalescer_->sample_interval(), kRateSample, 0);
      break;
    default:
      assert(false && "unknown event kind");
  }
  update_watch();
  // Progress is reported from the events there are, so that asking for it adds none.
  if (options_.progress && now() >= next_progress_) {
    options_.progress(options_.progress_context, now(), end_);
    next_progress_ = now() + std::max(sc_.scenario.duration / 100, nanoseconds(1));
  }
}

Expected<RunReport> Simulation::run() {
  const NicSection& nic = sc_.nic;
  if (nic.queues != 1) {
    return Error{"nic.queues", "the simulator models one queue and its vector; got " +
                                   std::to_string(nic.queues) + "; allowed: 1"};
  }
  const NicSection defaults = default_scenario().nic;
  if (nic.moderation != Moderation::adaptive_itr) {
    // Only i40e's adaptive ITR reads the Tx setting (its Tx container); Tx completion
    // interrupts are not modelled, so anywhere else the keys would do nothing.
    const char* key = nic.tx_usecs != defaults.tx_usecs     ? "nic.tx-usecs"
                      : nic.tx_frames != defaults.tx_frames ? "nic.tx-frames"
                                                            : nullptr;
    if (key) {
      return Error{key,
                   "Tx completion interrupts are not modelled, so this would change "
                   "nothing; allowed: the default (tx-usecs " +
                       std::to_string(defaults.tx_usecs) + ", tx-frames " +
                       std::to_string(defaults.tx_frames) +
                       "), or moderation = \"adaptive-itr\", whose ITR reads it"};
    }
  }
  if (busy_usecs() > 0 && sc_.cpu.busy_poll_iteration <= Duration::zero()) {
    return Error{"cpu.busy-poll-iteration",
                 "busy polling (napi.busy_read / napi.busy_poll) needs the cost of one poll of "
                 "the queue; allowed: a duration above 0 ns"};
  }
  switch (nic.moderation) {
    case Moderation::coalesce:
      coalescer_.emplace(coalesce_settings(nic), coalesce::Direction::rx);
      if (coalescer_->sample_interval() > Duration::zero()) {
        engine_.schedule(at_ns(0), kRateSample, 0);
      }
      break;
    case Moderation::dim: {
      dim_.emplace(dim::default_profiles(dim::Direction::rx, dim::CqPeriodMode::start_from_eqe));
      coalesce::Settings settings;
      settings.rx.normal = {dim_->profile().usec, dim_->profile().pkts};
      coalescer_.emplace(settings, coalesce::Direction::rx);
      break;
    }
    case Moderation::lli: {
      lli::Settings settings;
      settings.ring_threshold = nic.lli_ring_threshold;
      settings.interval = nic.lli_interval;
      lli_.emplace(lli::make_config(settings).value());
      break;
    }
    case Moderation::none:
    case Moderation::itr:
    case Moderation::adaptive_itr:
      break;
  }
  if (auto traffic = build_traffic(); !traffic) return traffic.error();
  end_ = at_ns(0) + sc_.scenario.duration;
  if (options_.trace) {
    options_.trace->process_name(1, "cpu");
    for (std::uint32_t c = 0; c < cores_.size(); ++c) {
      options_.trace->thread_name(1, c, "core " + std::to_string(c));
    }
    options_.trace->process_name(2, "nic");
    options_.trace->thread_name(2, 0, "rx queue 0");
    // The moderation setting in effect from the start; later changes add samples.
    if (coalescer_) {
      options_.trace->counter(2, "rx-usecs", "usecs", now(), coalescer_->thresholds().usecs);
    } else {
      options_.trace->counter(2, "itr", "usecs", now(), vector_.itr_interval().count() / 1000);
    }
  }
  update_watch();
  engine_.run_until(end_, [this](const Event& e) { dispatch(e); });
  land(end_);
  for (std::uint32_t c = 0; c < cores_.size(); ++c) {
    if (cores_[c].depth > 0) pause_top(c);  // charge the running segments up to the end
    if (cores_[c].idle_since) trace_idle(c, *cores_[c].idle_since);
  }
  report_.events = engine_.stats().dispatched;
  report_.peak_pending_events = engine_.stats().peak_pending;
  Conservation& books = report_.conservation;
  books.entered = entered_;
  books.delivered = report_.delivered_packets;
  // Replies lost on the Tx ring were delivered first; conservation counts received frames.
  books.dropped = report_.drops.total() - report_.drops.count(DropReason::tx_ring_full);
  books.in_flight = rx_ring_.size() + polled_.size() + socket_.size();
  if (auto error = books.check()) return *error;
  return std::move(report_);
}

}  // namespace

Expected<RunReport> simulate(const Scenario& scenario, const RunOptions& options) {
  auto simulation = std::make_unique<Simulation>(scenario, options);
  return simulation->run();
}

}  // namespace irqmod::sim
