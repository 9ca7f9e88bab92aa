// One core's NET_RX softirq (net_rx_action) and its ksoftirqd thread, over the core's poll list
// (softnet_data.poll_list): the NAPI contexts scheduled on this core, polled in turn.
//
// A pass polls contexts from the list with a shared budget (net.core.netdev_budget frames) and
// time limit (netdev_budget_usecs); a context that used its whole weight stays scheduled and is
// put back on the list. When a pass is squeezed, handle_softirqs restarts it while fewer than
// MAX_SOFTIRQ_RESTART passes and MAX_SOFTIRQ_TIME have gone and no thread waits to run on the
// core; then the work moves to ksoftirqd (kernel/softirq.c). ksoftirqd runs passes until the list
// is empty.
//
// The core sees NET_RX and ksoftirqd as two jobs; the contexts are NapiRef: bound functions of
// the component that owns the context (the NIC's queue vector), never a virtual call per packet.
#pragma once

#include <cstdint>

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
  // napi_poll begins: the driver takes up to the weight; the CPU time that poll takes.
  Duration (*poll_begin)(void* self, Core& core);
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
  };

  // `contexts`: how many NAPI contexts the run has (each is on at most one list at a time).
  NetRx(Core& core, Budget budget, std::size_t contexts);
  NetRx(const NetRx&) = delete;
  NetRx& operator=(const NetRx&) = delete;

  // ____napi_schedule on this core: the context joins the poll list and NET_RX is raised.
  void schedule(NapiRef napi);

  Core& core() { return core_; }
  std::size_t listed() const { return list_.size(); }

  // The two jobs (NET_RX in softirq context, the ksoftirqd thread).
  struct Pass {
    NetRx* owner = nullptr;
    bool in_thread = false;  // ksoftirqd
    bool active = false;     // on the core's stack
    int budget_left = 0;     // netdev_budget
    Instant pass_start{};    // for netdev_budget_usecs
    Instant first_start{};   // for MAX_SOFTIRQ_TIME
    int restarts = 0;        // passes so far
    std::optional<Segment> start(Core& core);
    std::optional<Segment> next(Core& core);
    // ksoftirqd stopped with work left: it gave the CPU away (cond_resched) and stays runnable.
    bool yields() const { return in_thread && owner->listed() > 0; }
  };

 private:
  std::optional<Segment> poll_next(Pass& pass);
  std::optional<Segment> after_poll(Pass& pass);

  Core& core_;
  Budget budget_;
  Ring<NapiRef> list_;  // the poll list
  NapiRef polling_{};   // the context whose poll is running
  Pass softirq_{};
  Pass ksoftirqd_{};
  std::uint32_t ksoftirqd_thread_ = 0;  // ksoftirqd/N among the core's threads
};

}  // namespace irqmod::sim
