// A queue vector (i40e's q_vector, ixgbe's, enetc's int_vector): the device side of one MSI-X
// vector and the queues it serves: an Rx queue, a Tx queue, or both (nic.vectors = "pair", the
// Intel and enetc layout where the Rx and Tx causes of a queue pair raise one vector). It holds
// the library's napi::Vector (masking, throttle, the software trigger), napi::Driver (the tail of
// i40e_napi_poll) and a moderator per direction in front of the vector, and owns their events
// (the vector's interrupt, the coalescing deadlines, adaptive-rx's sample timer).
//
// It is a device behind the narrow device interface (sim/napi/device.hpp): its NAPI instance
// (sim/napi/instance.hpp, the q_vector's embedded napi_struct) polls it, from NET_RX, a NAPI
// thread, the interrupt handler or a busy-polling thread, and nothing above reaches it but
// through that instance. Its poll's clean is RingClean (ring_clean.hpp). With
// nic.clean-clears-cause the clean withdraws the causes of what it cleaned (enetc's per-frame IDR
// write), so a frame cleaned by a poll does not interrupt again at re-enable.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "irqmod/napi/driver.hpp"
#include "irqmod/napi/vector.hpp"
#include "irqmod/sim/series.hpp"
#include "sim/irq/msix.hpp"
#include "sim/napi/device.hpp"
#include "sim/napi/instance.hpp"
#include "sim/nic/moderator.hpp"
#include "sim/nic/peers.hpp"
#include "sim/nic/ring_clean.hpp"
#include "sim/nic/rx_queue.hpp"
#include "sim/nic/tx_queue.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {

// A queue vector's settings: the one scenario -> model mapping builds them (policy_config.hpp).
struct QueueVectorConfig {
  napi::VectorConfig vector{};
  napi::DriverConfig driver{};
  ModeratorConfig rx_moderation{};
  ModeratorConfig tx_moderation{};
  DimGlue dim_driver = DimGlue::mlx5;  // nic.dim-driver: which completed polls feed net_dim
  bool clears_cause = false;           // nic.clean-clears-cause
  RingCleanConfig clean{};
  NapiSettings napi{};
};

class QueueVector {
 public:
  // Vector `index` (its NAPI id is index + 1) serving `rx` and/or `tx` (at least one); its
  // messages go to `irq_core`; `net_rx` are the cores' NET_RX objects by core index; `stack`:
  // where the poll's frames go; `peers`: who hears of a frame lost at the ring.
  QueueVector(World& world, const QueueVectorConfig& config, std::uint32_t index, RxQueue* rx,
              TxQueue* tx, MsixTable& msix, Core& irq_core, std::vector<NetRx*> net_rx,
              RxStack stack, const Peers& peers, LazyArrivals arrivals, Rng refill_rng);
  QueueVector(const QueueVector&) = delete;
  QueueVector& operator=(const QueueVector&) = delete;

  std::uint32_t index() const { return index_; }
  std::uint32_t napi_id() const { return napi_.id(); }
  RxQueue* rx() { return rx_; }
  TxQueue* tx() { return tx_; }
  const RxQueue* rx() const { return rx_; }
  const TxQueue* tx() const { return tx_; }
  // Another Tx queue whose completions this vector handles (nic.tx-queues beyond the pairs: enetc
  // serves Tx rings i, i + 2, i + 4, i + 6 from vector i of two).
  void add_tx(TxQueue& queue) { clean_.add_tx(queue); }
  NapiInstance& napi() { return napi_; }
  const NapiInstance& napi() const { return napi_; }
  const napi::Vector& vector() const { return vector_; }
  std::uint32_t msix_vector() const { return msix_vector_; }
  std::uint32_t irq_core() const { return irq_core_; }
  RingClean& clean() { return clean_; }
  const RingClean& clean() const { return clean_; }

  // ---- the device side ----
  // A frame reaches the Rx ring at `writeback` (landing, from the port): a descriptor or a
  // drop, then Rx moderation.
  void land(const Packet& packet, Instant writeback);
  // A Tx descriptor was written back at `writeback`: a Tx cause under Tx moderation.
  void land_tx_completion(Instant writeback);
  // Raise coalescing deadlines that passed before `t` (the port lands write-backs late). Inline:
  // the port asks before every frame it lands, and almost always there is nothing to do.
  void catch_up(Instant t) {
    if (rx_ && rx_moderator_.may_catch_up(t)) catch_up_rx(t);
    if (tx_ && tx_moderator_.may_catch_up(t)) catch_up_tx(t);
  }
  // The device must react to this vector's next Rx / Tx write-back.
  bool wants_next_frame() const { return rx_ && rx_moderator_.wants_next_frame(vector_); }
  bool wants_next_tx() const { return tx_ && tx_moderator_.wants_next_frame(vector_); }
  // Trace: the moderation setting at the start.
  void trace_start();
  // The Rx ring and the Rx moderation setting now: what the run's time series (sampler.hpp)
  // reads. Needs an Rx queue.
  QueueSample rx_sample() const;
  std::uint64_t rx_dropped() const { return rx_ ? rx_->dropped() : 0; }
  std::uint64_t rx_cleaned() const { return clean_.rx_cleaned(); }
  std::uint64_t alloc_failures() const { return clean_.alloc_failures(); }

  // ---- the device interface (sim/napi/device.hpp) ----
  void land(Instant now) { clean_.land(now); }
  Instant next_work() const { return clean_.next_writeback(); }
  PollStart poll_begin(int budget, Core& core, PollKind kind);
  std::optional<Duration> poll_more(Core& core);
  int poll_return(int budget, const Core& core);
  void deliver(Core& core);
  void completed(const napi::PollResult& result, Core& core);

  // The work a poll reports to NAPI: its Rx frames, or the whole budget when Tx work is left.
  static int work(const Scan& scan, int budget) {
    return scan.tx_finished && !scan.refill_failed ? scan.rx : budget;
  }

 private:
  void on_event(const Event& event);
  void on_vector_due();
  void apply(const Arm& arm, SlotId deadline);
  void catch_up_rx(Instant t);
  void catch_up_tx(Instant t);
  void arm_vector(std::optional<Instant> due);
  void arm_at(SlotId slot, Instant at, std::uint16_t kind);
  // nic.clean-clears-cause: the moderators' and the vector's causes of what was cleaned. With
  // `rx_done` false only the Tx side (its rings were just cleaned, the Rx loop is to come).
  void withdraw_cleaned_causes(bool rx_done);

  World& world_;
  std::uint32_t index_;
  RxQueue* rx_;
  TxQueue* tx_;
  MsixTable& msix_;
  const Peers& peers_;
  napi::Vector vector_;
  napi::Driver driver_;
  Moderator rx_moderator_;
  Moderator tx_moderator_;
  DimFeed dim_feed_;  // which completed polls feed net_dim (nic.dim-driver)
  bool clears_cause_;
  std::uint32_t msix_vector_ = 0;
  std::uint32_t irq_core_ = 0;  // the core its MSI-X message goes to
  std::uint64_t interrupts_ = 0;
  RingClean clean_;
  NapiInstance napi_;

  EndpointId endpoint_{};
  SlotId vector_slot_{}, deadline_slot_{}, tx_deadline_slot_{};
};

}  // namespace irqmod::sim
