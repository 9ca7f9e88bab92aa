// OpenBSD's MCLGETI (kern/uipc_mbuf.c, OpenBSD 4.7 to 5.2: the kernel seed 004 ran) as a receive
// ring sees it. An interface may hold at most its current watermark (cwm) of clusters on its
// rings; a cluster is "alive" from its allocation until rxeof takes its frame off the ring
// (m_cluncount). m_cldrop(), asked before every allocation, decides:
//   - livelock: the softclock has not run for more than one tick (ticks - m_clticks > 1).
//     Every interface's cwm drops by max(cwm / 8, 2), not below lwm, and the watermarks may not
//     grow until 4 ticks have passed (m_livelock); m_clticks restarts from now.
//   - growth: outside livelock, with at most 4 clusters alive and cwm below hwm, cwm grows by one,
//     at most once per tick ("about to run out, so increase the current watermark");
//   - refusal: with cwm clusters alive, no more are given.
// The softclock's timeout m_cltick records the tick it ran at and re-arms for the next one. It
// runs at IPL_SOFTCLOCK, below the network interrupts and softnet: here a kernel thread of the
// clock's core, woken every tick (1/cpu.hz), which runs only when no hardirq or softirq work is
// left there (and, beside application threads on that core, when the fair scheduler picks it:
// a router has none). The positive feedback of seed 004 follows from the model, it is not written
// in: interrupt work starves the softclock, the watermark shrinks, fewer descriptors are free, the
// ring-low LLI fires more, and its work starves the softclock further.
//
// Left out: the hardclock interrupt's own CPU time (a few microseconds per tick), and the other
// cluster pools and interfaces (one interface receives here).
#pragma once

#include <cstdint>
#include <optional>

#include "sim/cpu/core.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {

class Mclgeti {
 public:
  struct Settings {
    std::uint32_t lwm = 4;    // nic.mclgeti-lwm
    std::uint32_t hwm = 256;  // nic.mclgeti-hwm (the ring)
    std::uint32_t hz = 100;   // cpu.hz
  };

  // The softclock runs on `clock_core` (OpenBSD 5.x runs it on the boot processor).
  Mclgeti(World& world, Core& clock_core, Settings settings);
  Mclgeti(const Mclgeti&) = delete;
  Mclgeti& operator=(const Mclgeti&) = delete;

  // m_cldrop() then m_clcount() for one cluster, now: true when it is given.
  bool allocate();
  // m_cluncount(): `n` clusters left the ring (rxeof took their frames, or an allocation that
  // m_cldrop allowed failed in the pool).
  void release(std::uint32_t n) { alive_ -= n; }

  std::uint32_t cwm() const { return cwm_; }
  std::uint32_t alive() const { return alive_; }
  std::uint64_t livelocks() const { return livelocks_; }  // mcllivelocks
  // The counters of the report, up to now.
  MclgetiCounters counters() const;
  // The lowest and highest watermark are counted again from now (the end of a warm-up).
  void restart_extremes() { cwm_min_ = cwm_max_ = cwm_; }
  // The clock's `ticks` now, and when the next tick comes.
  std::int64_t ticks() const;
  Instant next_tick() const;

  // The softclock thread (a job of the clock core).
  struct Softclock {
    Mclgeti* owner = nullptr;
    std::optional<Segment> start(Core& core);
    std::optional<Segment> next(Core&) { return std::nullopt; }
  };

 private:
  void on_event(const Event& event);
  void trace_cwm();
  void set_cwm(std::uint32_t cwm);

  World& world_;
  Core& clock_core_;
  Settings settings_;
  std::uint32_t cwm_;
  std::uint32_t alive_ = 0;
  std::int64_t grown_ = 0;      // mcl_grown: the tick the watermark last grew
  std::int64_t clticks_ = 0;    // m_clticks: the tick the softclock last ran (or livelock began)
  std::int64_t liveticks_ = 0;  // the tick the last livelock was detected
  bool livelock_ = false;       // m_livelock
  std::uint64_t livelocks_ = 0;
  std::uint32_t cwm_min_, cwm_max_;
  double cwm_area_ = 0;  // cluster-seconds up to cwm_since_
  Instant cwm_since_{};
  Softclock softclock_{};
  std::uint32_t thread_ = 0;  // the softclock's thread on the clock core
  std::int64_t next_tick_ = 1;
  EndpointId endpoint_{};
};

}  // namespace irqmod::sim
