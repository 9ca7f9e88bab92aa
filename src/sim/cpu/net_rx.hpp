// One core's NET_RX softirq and its ksoftirqd thread, over the core's poll list
// (softnet_data.poll_list): the NAPI contexts scheduled on this core, polled in turn.
//
// A pass is one net_rx_action call (net/core/dev.c, 6.x). It takes the whole poll list and polls
// each context once, every poll with its full weight, against one budget (net.core.netdev_budget
// frames) and time limit (netdev_budget_usecs), checked between polls. A context that used its
// whole weight stays scheduled and waits for the next pass, behind the contexts not yet polled
// and those scheduled meanwhile; contexts scheduled during a pass that drains its list are polled
// in the same pass. A pass that leaves contexts listed re-raises NET_RX: handle_softirqs runs
// another pass at once while fewer than MAX_SOFTIRQ_RESTART passes and MAX_SOFTIRQ_TIME have gone
// and nothing needs the CPU (need_resched); then it wakes ksoftirqd (kernel/softirq.c), which
// runs passes until the list is empty, giving the CPU away between passes when the scheduler
// wants it.
//
// The core sees NET_RX and ksoftirqd as two jobs; the contexts are NapiRef: bound functions of
// the component that owns the context (the NIC's queue vector), never a virtual call per packet.
#pragma once

#include <cstdint>
#include <optional>

#include "irqmod/sim/ring.hpp"
#include "irqmod/time.hpp"
#include "sim/cpu/core.hpp"

namespace irqmod::sim {

// kernel/softirq.c: MAX_SOFTIRQ_RESTART 10 passes, MAX_SOFTIRQ_TIME 2 ms, before ksoftirqd.
inline constexpr int kMaxSoftirqRestart = 10;
inline constexpr Duration kMaxSoftirqTime = milliseconds(2);

// A NAPI context as net_rx_action sees it (napi_struct and the driver's poll function).
struct NapiOps {
  // The context leaves this core's list; true when it is to be polled now (scheduled here, owned
  // by the softirq, no poll running), false for an entry gone stale.
  bool (*take)(void* self, const Core& core);
  // napi_poll begins: the driver takes up to the weight; the CPU time that poll takes (or its
  // first part, see poll_more).
  Duration (*poll_begin)(void* self, Core& core);
  // A part of the poll ended: the CPU time of its next part, or none when the poll is done
  // (nic.rx-clean = "per-descriptor": the clean loop's next round sees the frames written back
  // meanwhile). Null for a context whose poll is one part.
  std::optional<Duration> (*poll_more)(void* self, Core& core);
  // The poll's time has passed: completion and delivery. The frames it cleaned. A context that
  // stays scheduled puts itself back on the list (NetRx::schedule) from here.
  int (*poll_end)(void* self, Core& core);
};

struct NapiRef {
  const NapiOps* ops = nullptr;
  void* self = nullptr;
};

class NetRx {
 public:
  struct Budget {
    int frames = 300;                    // net.core.netdev_budget
    Duration time = microseconds(2000);  // net.core.netdev_budget_usecs
    bool ksoftirqd = true;  // false: passes restart until the list is empty (a BSD's softnet)
  };

  // `contexts`: how many NAPI contexts the run has (each is on at most one list at a time).
  NetRx(Core& core, Budget budget, std::size_t contexts);
  NetRx(const NetRx&) = delete;
  NetRx& operator=(const NetRx&) = delete;

  // ____napi_schedule on this core: the context joins the poll list and NET_RX is raised. A
  // context that calls it from its own poll's end (it used its weight) waits for the next pass.
  void schedule(NapiRef napi);

  Core& core() { return core_; }
  // Contexts listed: on the poll list, in the running pass or waiting for the next one.
  std::size_t listed() const { return list_.size() + local_.size() + repoll_.size(); }

  // The two jobs (NET_RX in softirq context, the ksoftirqd thread).
  struct Pass {
    NetRx* owner = nullptr;
    bool in_thread = false;  // ksoftirqd
    bool active = false;     // on the core's stack
    int budget_left = 0;     // netdev_budget
    Instant pass_start{};    // for netdev_budget_usecs
    Instant first_start{};   // for MAX_SOFTIRQ_TIME
    int passes = 0;          // net_rx_action calls of this handle_softirqs
    std::optional<Segment> start(Core& core);
    std::optional<Segment> next(Core& core);
    // ksoftirqd stopped with work left: it gave the CPU away (cond_resched) and stays runnable.
    bool yields() const { return in_thread && owner->listed() > 0; }
  };

 private:
  void begin_pass(Pass& pass);
  static Segment poll_segment(const Pass& pass, Duration cost);
  std::optional<Segment> poll_next(Pass& pass);
  std::optional<Segment> after_poll(Pass& pass);
  std::optional<Segment> end_pass(Pass& pass);
  static void move_all(Ring<NapiRef>& from, Ring<NapiRef>& to);

  Core& core_;
  Budget budget_;
  Ring<NapiRef> list_;    // sd->poll_list: scheduled, not taken by a pass
  Ring<NapiRef> local_;   // the running pass's list
  Ring<NapiRef> repoll_;  // polled with their whole weight in this pass: the next pass's
  NapiRef polling_{};     // the context whose poll is running
  Pass softirq_{};
  Pass ksoftirqd_{};
  std::uint32_t ksoftirqd_thread_ = 0;  // ksoftirqd/N among the core's threads
};

}  // namespace irqmod::sim
