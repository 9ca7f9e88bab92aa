// Builds and runs an AF_XDP scenario. See xdp_run.hpp.
#include "sim/xdp/xdp_run.hpp"

#include <memory>
#include <string>
#include <vector>

#include "irqmod/sim/link.hpp"
#include "sim/cpu/core.hpp"
#include "sim/cpu/net_rx.hpp"
#include "sim/policy_config.hpp"
#include "sim/run_setup.hpp"
#include "sim/scenario_values.hpp"
#include "sim/world.hpp"
#include "sim/xdp/xdp_report.hpp"
#include "sim/xdp/xdpsock.hpp"
#include "sim/xdp/xsk.hpp"
#include "sim/xdp/zc_queue.hpp"

namespace irqmod::sim {
namespace {

std::uint32_t irq_core_of(const Scenario& s) {
  return parse_cpu_list(s.cpu.irq_cores).value()[0];
}

}  // namespace

std::optional<Error> validate_xdp(const Scenario& s) {
  // Which keys an AF_XDP run reads at all is the schema's (KeySpec::readers, check_readers):
  // what is left are the rules between the keys it reads.
  if (s.xdp.app == XdpApp::none) return std::nullopt;
  const Scenario defaults = default_scenario();
  const XdpSection& x = s.xdp;
  if (!x.irqs && x.method != XdpMethod::busypoll) {
    return Error{"xdp.irqs",
                 "a NAPI context without an interrupt is driven only by busy polling; allowed: "
                 "true, or xdp.method = \"busypoll\""};
  }
  if (x.method == XdpMethod::busypoll && s.napi.busy_read == Duration::zero()) {
    return Error{"napi.busy_read",
                 "xdp.method = \"busypoll\" busy-polls only with a busy-poll time "
                 "(sk_can_busy_loop: SO_BUSY_POLL or net.core.busy_read); allowed: above 0"};
  }
  if (x.method != XdpMethod::busypoll && x.busy_loop_end != defaults.xdp.busy_loop_end) {
    return Error{"xdp.busy-loop-end",
                 "only a busy poll has a loop end; allowed: the default, or xdp.method = "
                 "\"busypoll\""};
  }
  if (x.busy_poll_batch > 0 &&
      (x.method != XdpMethod::busypoll || x.busy_loop_end == XdpLoopEnd::once)) {
    return Error{"xdp.busy-poll-batch",
                 "the RFC's per-socket busy-poll batch belongs to the RFC's busy poll; allowed: 0, "
                 "or xdp.method = \"busypoll\" with xdp.busy-loop-end = \"rx-empty-tx-full\" or "
                 "\"poll-events\""};
  }
  if (s.nic.rx_ring < 2 || s.nic.tx_ring < 2) {
    return Error{s.nic.rx_ring < 2 ? "nic.rx-ring" : "nic.tx-ring",
                 "the driver keeps one descriptor empty; allowed: 2 or more"};
  }
  return std::nullopt;
}

Expected<RunReport> simulate_xdp(const Scenario& s, const RunOptions& options) {
  const XdpSection& x = s.xdp;
  const CpuSection& cpu = s.cpu;
  auto world = std::make_unique<World>();
  world->trace = options.trace;
  RunReport& report = world->report;
  // One vector; one NAPI context, on the poll list of whichever core polls it.
  Machine machine(*world);
  start_run(machine, s, 1);
  const std::vector<NetRx*> net_rx_of_core = add_net_rx(machine, s, 1);

  // The socket: xdpsock puts XSK_RING_PROD__DEFAULT_NUM_DESCS frames (the fill ring's size) on
  // the fill ring before it binds, whatever the benchmark; the rest are never handed over.
  Xsk xsk;
  xsk.fill.size = x.fill_ring;
  xsk.completion.size = x.comp_ring;
  xsk.rx.size = x.rx_ring;
  xsk.tx.size = x.tx_ring;
  xsk.fill.entry_bytes = xsk.completion.entry_bytes = 8;  // a UMEM address (__u64)
  xsk.rx.entry_bytes = xsk.tx.entry_bytes = 16;           // struct xdp_desc
  const bool receives = x.app != XdpApp::txpush;
  const std::uint64_t populated = xsk.fill.produce(x.frames, std::nullopt);

  // The link: frames back to back at line rate, or spaced at traffic.rate (rounded down to a
  // picosecond), arriving when their last bit does.
  const Link link(s.link.speed_bps);
  const std::uint32_t bytes = s.traffic.size;
  const std::int64_t wire_ps = link.occupancy_ps(bytes);
  std::int64_t gap_ps = wire_ps;
  if (s.traffic.rate > 0)
    gap_ps = std::max<std::int64_t>(wire_ps,
                                    1'000'000'000'000 / static_cast<std::int64_t>(s.traffic.rate));
  ZcQueue::Settings qs;
  qs.rx_descriptors = s.nic.rx_ring;
  qs.tx_descriptors = s.nic.tx_ring;
  qs.tx_budget = x.tx_budget;
  qs.report_tx_work = x.report_tx_work;
  qs.irqs = x.irqs;
  qs.off_affinity_force_wb = s.nic.off_affinity_force_wb;
  qs.tx_irq = s.nic.xdp_tx_irq;
  qs.tx_clean_budget = s.nic.xdp_tx_clean_budget;
  qs.tx_unfinished = s.nic.xdp_tx_unfinished;
  qs.itr = microseconds(s.nic.rx_usecs);
  qs.tx_itr = microseconds(s.nic.tx_usecs);
  qs.first_arrival_ps = link.reception_ps(bytes);
  qs.arrival_gap_ps = receives ? gap_ps : 0;
  qs.tx_gap_ps = wire_ps;
  const ZcQueue::Costs qc{cpu.irq_entry, cpu.irq_handler, cpu.napi_poll, cpu.xdp_rx,
                          cpu.xdp_tx,    cpu.tx_clean,    cpu.wakeup,    cpu.xsk_cache_line};
  // Queue pair 0's NAPI context: the device's settings with napi.queue.0's, as in a network run.
  const napi::Config context = napi_config(s, 0);
  const std::uint32_t irq_core = irq_core_of(s);
  ZcQueue queue(*world, machine.cores[irq_core], net_rx_of_core, xsk, context, qs, qc);

  Xdpsock::Settings as;
  as.app = x.app;
  as.method = x.method;
  as.need_wakeup = x.need_wakeup;
  as.batch = x.batch;
  as.frames = x.frames;
  as.loop_end = x.busy_loop_end;
  as.busy_usecs = static_cast<std::uint32_t>(s.napi.busy_read.count() / 1000);
  // The RFC's XDP_BUSY_POLL_BATCH_SIZE when the socket sets it (xsk_poll passes it to
  // napi_busy_loop, RFC 1/7 and 5/7), else the kernel's busy-poll budget.
  as.busy_budget =
      static_cast<int>(x.busy_poll_batch > 0 ? x.busy_poll_batch : s.napi.busy_poll_budget);
  as.prefer = s.napi.prefer_busy_poll;
  const Distribution& per_frame = x.app == XdpApp::rxdrop   ? cpu.xsk_rx
                                  : x.app == XdpApp::txpush ? cpu.xsk_tx
                                                            : cpu.xsk_fwd;
  const Xdpsock::Costs ac{cpu.syscall,    cpu.context_switch, cpu.busy_poll_iteration,
                          per_frame,      cpu.xsk_cache_line, cpu.poll_call,
                          cpu.socket_call};
  Xdpsock app(machine.cores[cpu.app_core], xsk, queue, as, ac);

  queue.start();
  app.start();
  // An AF_XDP run has no warm-up yet (validate_xdp); its mark would copy the section in.
  WarmupMark warmup(machine, s, [&] {
    report.xdp.emplace(XdpCounters{queue.counters(), app.counters(), queue.napi().counters()});
  });
  run_to_end(*world, s, options, [&](const Event& event) { world->engine.dispatch(event); });
  finish_run(machine);
  queue.land();

  const ZcQueue::Counters& qn = queue.counters();
  const Xdpsock::Counters& an = app.counters();
  report.drops.add(DropReason::rx_no_buffer, qn.no_buffer);
  report.drops.add(DropReason::socket_queue_full, qn.rx_ring_full);
  // Received frames: arrived = taken by the application + dropped + still in the NIC's ring,
  // a running poll or the socket's Rx ring.
  Conservation books;
  books.entered = qn.arrived;
  books.delivered = an.received;
  books.dropped = qn.no_buffer + qn.rx_ring_full;
  books.in_flight = queue.rx_written() + xsk.rx.count + queue.in_poll_rx();
  report.conservation = books;
  // Sent frames: queued by the application = completed + on the Tx ring, the NIC's ring or the
  // completion ring.
  Conservation tx;
  tx.entered = an.queued;
  tx.delivered = an.completed;
  tx.in_flight =
      xsk.tx.count + queue.hw_tx_outstanding() + xsk.completion.count + queue.in_poll_tx();
  report.tx_conservation = tx;
  report.delivered_packets = x.app == XdpApp::txpush ? an.completed : an.received;
  report.delivered_bytes = report.delivered_packets * bytes;
  if (auto error = books.check()) return *error;
  if (auto error = tx.check()) return *error;
  // The UMEM: every frame is in exactly one place. txpush sends from every frame in turn (its
  // frame numbers also cover those on the fill ring, which no frame ever leaves without Rx
  // traffic), so its two sides are checked apart.
  const std::uint64_t rx_side = xsk.fill.count + queue.rx_posted() + queue.rx_written() +
                                queue.in_poll_rx() + xsk.rx.count + app.held();
  const std::uint64_t tx_side =
      xsk.tx.count + queue.hw_tx_outstanding() + xsk.completion.count + queue.in_poll_tx();
  const bool umem_ok = x.app == XdpApp::txpush
                           ? rx_side == populated && tx_side == app.outstanding()
                           : rx_side + tx_side + (x.frames - populated) == x.frames;
  if (!umem_ok) {
    return Error{"conservation", "UMEM frames: " + std::to_string(rx_side) + " on the Rx side + " +
                                     std::to_string(tx_side) + " on the Tx side do not add up to " +
                                     std::to_string(x.frames) + " frames"};
  }
  report.xdp.emplace(XdpCounters{qn, an, queue.napi().counters()});
  warmup.subtract_from(report);
  return std::move(report);
}

}  // namespace irqmod::sim
