// The sections of the run kinds beside the NIC host ([storage], [xdp], [lab]): each a run of its
// own (irqmod/sim/simulation.hpp), with the models of src/sim/storage/, src/sim/xdp/ and
// src/sim/lab/. Part of the scenario (irqmod/sim/scenario.hpp includes it).
#pragma once

#include <cstdint>
#include <string>

#include "irqmod/sim/distribution.hpp"
#include "irqmod/time.hpp"

namespace irqmod::sim {

// storage.mode: how I/O completions reach the submitting thread (seed 003).
enum class StorageMode : std::uint8_t {
  interrupts,  // one MSI-X vector per completion queue, remapped to its core (the default)
  polled,      // io_uring IOPOLL: no interrupt; the submitting thread polls the CQ itself
  posted_msi,  // the vectors' MSIs posted into the core's PIR, one notification (posted_msi)
};

// xdp.app: the xdpsock application (samples/bpf/xdpsock_user.c) of seed 002.
enum class XdpApp : std::uint8_t {
  none,    // no AF_XDP model: the network host (or storage) runs
  rxdrop,  // receive and drop: Rx descriptors back to the fill ring
  txpush,  // transmit only ("txonly"/txpush): Tx descriptors, completions back to free frames
  l2fwd,   // swap MAC addresses and send the frame back out
};

// xdp.method: how the application waits (seed 002's "method" column).
enum class XdpMethod : std::uint8_t {
  rtc,       // run-to-completion: spins on the rings; only Tx kicks are system calls
  poll,      // poll() before every batch
  busypoll,  // poll() and sendto() busy-poll the queue's NAPI context
};

// xdp.busy-loop-end: when a busy poll from an xsk system call stops.
enum class XdpLoopEnd : std::uint8_t {
  rx_empty_tx_full,  // seed 002's RFC: busy_loop_end when Rx is empty or Tx is full (or timeout)
  once,              // mainline since 5.11: sk_busy_loop(sk, 1), one iteration (non-blocking)
  poll_events,       // seed 002's RFC as Sridhar's review asked: when poll() has an event to
                     // report (the socket's Rx ring not empty, its Tx ring not full; or timeout)
};

// [xdp]: one AF_XDP socket in zero-copy mode on queue 0, driven by an xdpsock application.
struct XdpSection {
  XdpApp app{};                     // xdp.app: none = no AF_XDP model
  XdpMethod method{};               // xdp.method
  bool irqs{};                      // xdp.irqs: the NAPI context has an interrupt
  bool need_wakeup{};               // xdp.need-wakeup: the app obeys the fill ring's flag
  std::uint32_t frames{};           // xdp.frames: UMEM frames
  std::uint32_t fill_ring{};        // xdp.fill-ring: descriptors
  std::uint32_t comp_ring{};        // xdp.comp-ring
  std::uint32_t rx_ring{};          // xdp.rx-ring
  std::uint32_t tx_ring{};          // xdp.tx-ring
  std::uint32_t batch{};            // xdp.batch: descriptors per application loop
  std::uint32_t tx_budget{};        // xdp.tx-budget: Tx descriptors per driver poll
  bool report_tx_work{};            // xdp.report-tx-work: Tx work counts toward the NAPI budget
  XdpLoopEnd busy_loop_end{};       // xdp.busy-loop-end
  std::uint32_t busy_poll_batch{};  // xdp.busy-poll-batch: the RFC's per-socket budget; 0 = none
  friend bool operator==(const XdpSection&, const XdpSection&) = default;
};

// [storage]: NVMe-like drives and io_uring-like submitters (t/io_uring), seed 003.
struct StorageSection {
  std::uint32_t drives{};                 // storage.drives: 0 = no storage model
  StorageMode mode{};                     // storage.mode
  std::uint64_t iops{};                   // storage.iops: one drive's I/Os per second, at most
  Distribution service_time{};            // storage.service-time: submission -> CQE, unloaded
  std::uint32_t aggregation_threshold{};  // storage.aggregation-threshold: 0-based CQEs
  std::uint32_t aggregation_time{};       // storage.aggregation-time: in 100 us units
  std::uint32_t queue_depth{};            // storage.queue-depth: I/Os in flight per thread
  std::uint32_t batch_submit{};           // storage.batch-submit: I/Os per io_uring_enter
  std::uint32_t batch_complete{};         // storage.batch-complete: completions waited for
  std::string thread_cores;               // storage.thread-cores: drive d's thread, d mod n
  std::string irq_cores;                  // storage.irq-cores: drive d's vector, d mod n
  std::uint32_t max_coalescing_loop{};    // storage.max-coalescing-loop: PIR scans
  friend bool operator==(const StorageSection&, const StorageSection&) = default;
};

// lab.device: the device between the client and the server, both on this machine's cores.
enum class LabDevice : std::uint8_t {
  none,      // no lab model: the NIC host runs
  veth,      // a veth pair between two network namespaces (irqmod lab): ring + NAPI path
  loopback,  // 127.0.0.1: netif_rx to the sending core's backlog
};

// lab.client: the client program, a thread of its own on lab.client-core.
enum class LabClient : std::uint8_t {
  sockperf,  // sockperf ping-pong: sendto, a blocking recvfrom for the reply, paced by --mps
  load,      // irqmod load: open-loop Poisson requests over lab.connections, epoll_pwait2
};

// [lab]: the server and its client on one machine, as the project's lab runs them.
struct LabSection {
  LabDevice device{};           // lab.device: none = no lab model
  LabClient client{};           // lab.client
  bool tcp{};                   // lab.tcp: TCP connections (irqmod load --tcp, sockperf --tcp)
  std::uint32_t connections{};  // lab.connections: the client's connections (sockets)
  std::uint64_t rate{};         // lab.rate: requests/s (load: Poisson mean; sockperf: --mps)
  std::uint32_t msg_size{};     // lab.msg-size: bytes per message, sockperf's header included
  std::uint32_t client_core{};  // lab.client-core: the client's core (taskset -c)
  std::uint32_t ring{};         // lab.ring: veth's ptr_ring (VETH_RING_SIZE)
  friend bool operator==(const LabSection&, const LabSection&) = default;
};

}  // namespace irqmod::sim
