// One receive queue of a veth end (drivers/net/veth.c, Linux 6.18; docs/research/veth-loopback.md
// has the sources and what was measured): the peer's veth_xmit puts frames on this queue's
// ptr_ring and schedules its NAPI on the *sender's* core; veth_poll takes them up to the budget
// and hands them to the stack. There is no hardirq and no moderation: the "interrupt" is
// rx_notify_masked, which a schedule sets and only a napi_complete_done that returned true
// clears. So deferral (napi_defer_hard_irqs with gro_flush_timeout) holds the context exactly as
// on a NIC (the flag stays set, the watchdog polls), a busy poller that owns the context leaves
// the flag clear (its schedule attempt only sets MISSED), and threaded NAPI moves the poll into
// the NAPI thread: all through the same NapiInstance a NIC queue has.
//
// Modelled: the ring of VETH_RING_SIZE = 256 frames, full = dropped (the lab's noqueue root
// qdisc: veth_xmit's NETDEV_TX_BUSY becomes a drop counted in the sender's tx_dropped); the NAPI
// path only (the lab turns GRO on and TSO off, so every frame is GRO-eligible: research §1.2).
// Left out: the consumer's batched slot release (ptr_ring's batch of 16: the ring may look full
// with up to 15 frames already consumed), GRO_NORMAL's delivery in groups of 8 within a poll
// (every frame of a poll reaches the socket at its end), TCP segment aggregation, XDP.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "irqmod/sim/distribution.hpp"
#include "irqmod/sim/ring.hpp"
#include "irqmod/sim/traffic.hpp"
#include "sim/cpu/core.hpp"
#include "sim/cpu/net_rx.hpp"
#include "sim/napi/device.hpp"
#include "sim/napi/instance.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {

// drivers/net/veth.c: #define VETH_RING_SIZE 256 (per receive queue's ptr_ring).
inline constexpr std::uint32_t kVethRingSize = 256;

struct VethCosts {
  Distribution poll{};       // cpu.veth-poll: one veth_poll call's fixed part (NAPI's included)
  Distribution packet{};     // cpu.veth-packet: per frame consumed (ring, GRO receive)
  Distribution rx_packet{};  // cpu.rx-packet: the receive stack per frame (ip_rcv to the socket)
};

struct VethConfig {
  std::uint32_t ring = kVethRingSize;
  NapiSettings napi{};  // the queue's NAPI (weight 64: netif_napi_add's NAPI_POLL_WEIGHT)
  VethCosts costs{};
};

// What a veth queue did, for the report.
struct VethCounters {
  std::uint64_t produced = 0;   // frames put on the ring (veth_xmit, NET_RX_SUCCESS)
  std::uint64_t dropped = 0;    // frames the full ring refused (the sender's tx_dropped)
  std::uint64_t schedules = 0;  // __veth_xdp_flush calls that scheduled the NAPI
  std::uint64_t polled = 0;     // frames its polls took (xdp_packets)
};

class VethQueue {
 public:
  // NAPI id `napi_id`; `net_rx`: the cores' NET_RX by core index; `thread_core`: where an
  // unpinned NAPI thread runs (napi.thread-core -1); `stack`: where its frames go.
  VethQueue(World& world, std::uint32_t napi_id, const VethConfig& config,
            std::vector<NetRx*> net_rx, std::uint32_t thread_core, RxStack stack);
  VethQueue(const VethQueue&) = delete;
  VethQueue& operator=(const VethQueue&) = delete;

  // veth_xmit from a sender on `core`: the frame onto the ring (false: the ring is full and the
  // frame is dropped), then __veth_xdp_flush: the NAPI scheduled on `core` unless the line is
  // masked or the context is owned already.
  bool xmit(const Packet& packet, Core& core);

  NapiInstance& napi() { return napi_; }
  const NapiInstance& napi() const { return napi_; }
  const VethCounters& counters() const { return counters_; }
  std::size_t queued() const { return ring_.size(); }    // on the ring
  std::size_t polled() const { return polled_.size(); }  // taken, not delivered yet
  bool masked() const { return masked_; }                // rx_notify_masked

  // ---- the device interface (sim/napi/device.hpp) ----
  void land(Instant) {}
  // A sender on another core may put a frame on the ring at any time: a busy loop cannot know
  // when the next one comes, so it may not jump over its empty iterations (now).
  Instant next_work() const { return world_.now(); }
  PollStart poll_begin(int budget, Core& core, PollKind kind);
  std::optional<Duration> poll_more(Core&) { return std::nullopt; }
  int poll_return(int, const Core&) const { return taken_; }
  void deliver(Core& core);
  void completed(const napi::PollResult& result, Core& core);

 private:
  // __veth_xdp_flush / the re-check after re-arming: schedule unless masked, on `core`.
  void flush(Core& core);

  World& world_;
  VethConfig config_;
  RxStack stack_;
  Ring<Packet> ring_;
  Ring<Packet> polled_;
  std::vector<std::uint32_t> planned_;  // the stack's planned work (TCP ACKs) of a poll
  int taken_ = 0;                       // frames the running poll took
  bool masked_ = false;                 // rx_notify_masked
  VethCounters counters_{};
  NapiInstance napi_;
};

}  // namespace irqmod::sim
