// netperf TCP_STREAM's send loop (src/sim/app/stream_writer.*) on one core, writing into a
// TcpHost sender whose frames leave by a software device that takes them all: each send() call
// begun costs cpu.syscall + cpu.app-message, each KiB copied cpu.copy-kb; what a segment copied is
// written (tcp_push) at its end; with the send buffer full the thread sleeps
// (sk_stream_wait_memory) until an ACK makes the buffer writable, then pays the wake-up and the
// switch, and a call the full buffer cut short goes on without a new system call.
#include "sim/app/stream_writer.hpp"

#include <gtest/gtest.h>

#include <cstdint>

#include "irqmod/sim/distribution.hpp"
#include "irqmod/sim/random.hpp"
#include "irqmod/sim/ring.hpp"
#include "irqmod/sim/traffic.hpp"
#include "sim/cpu/core.hpp"
#include "sim/host/softirq_tx.hpp"
#include "sim/host/stack.hpp"
#include "sim/host/tcp_host.hpp"
#include "sim/net/tcp_path.hpp"
#include "sim/net/tcp_sender.hpp"
#include "sim/nic/peers.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {
namespace {

constexpr std::uint32_t kSendSize = 16'384;  // netperf's -m

StreamWriterCosts writer_costs() {
  const auto ns = [](std::int64_t n) { return Distribution::constant_ns(n); };
  // syscall, app message, per KiB copied, wake-up, context switch
  return StreamWriterCosts{ns(1'000), ns(500), ns(100), ns(2'000), ns(3'000)};
}

TcpSender::Config sender_config(std::uint32_t send_buffer) {
  TcpSender::Config c;
  c.send_buffer = send_buffer;
  return c;
}

// Tuple 0 is the connection; the peer's ACKs for it arrive on flow 1.
struct WriterRig {
  explicit WriterRig(std::uint32_t send_buffer)
      : sender(tcp.add_sender(0, 1, return_path, sender_config(send_buffer))),
        writer(core, tcp, sender, kSendSize, writer_costs()) {
    world.report.cpu = CpuTime(1);
    world.report.cores.resize(1);
    stack.set_softirq_tx({&tx});
    stack.set_device_xmit(DeviceXmit{[](void*, const Packet&, std::uint32_t) { return true; }});
  }
  // The peer acknowledged everything sent so far; its ACK frame is handled now.
  void ack_all() {
    return_path.acks.push(TcpReturnPath::Stamp{ns_since_epoch(world.now()), sent()});
    Ring<Packet> frames(1);
    frames.push(Packet{ns_since_epoch(world.now()), kTcpFrameOverhead, 1});
    std::vector<std::uint32_t> planned;
    tcp.plan(frames, 0, world.now(), 0, planned);
  }
  void run_to_ns(std::int64_t ns) { world.engine.run_until(at_ns(ns)); }
  std::uint64_t written() const { return tcp.sender(sender).write_seq(); }
  std::uint64_t sent() const { return tcp.sender(sender).snd_nxt(); }
  Duration thread_time() const { return world.report.cpu.busy(0, ContextKind::thread); }

  World world;
  Core core{world, 0, Rng(17, 0), microseconds(3000)};
  Peers peers = Peers(2);
  Stack stack{world, peers, 2, 1};
  SoftirqTx tx{world, core, stack, SoftirqTxCosts{}};
  TcpHost tcp{world, stack, 2};
  TcpReturnPath return_path{kTcpAcksInFlight};
  std::uint32_t sender;
  StreamWriter writer;
};

// One whole call: 1 us + 0.5 us, then 16 KiB at 0.1 us each.
constexpr std::int64_t kCallNs = 1'500 + 16 * 100;

TEST(stream_writer, a_call_costs_the_syscall_and_its_copy_and_is_pushed_at_its_end) {
  WriterRig rig(131'072);
  rig.writer.begin();
  rig.run_to_ns(kCallNs - 1);
  EXPECT_EQ(rig.writer.calls(), 1U);
  EXPECT_EQ(rig.written(), 0U);
  rig.run_to_ns(kCallNs);
  EXPECT_EQ(rig.written(), kSendSize);
  EXPECT_EQ(rig.sent(), 11U * 1448);  // its whole segments leave at once
  EXPECT_EQ(rig.writer.calls(), 2U);  // and the next call begins
  EXPECT_EQ(rig.thread_time(), nanoseconds(kCallNs));
}

TEST(stream_writer, the_thread_sleeps_on_a_full_buffer_until_an_ack_makes_it_writable) {
  WriterRig rig(2 * kSendSize);
  rig.writer.begin();
  rig.run_to_ns(10'000);
  EXPECT_EQ(rig.writer.calls(), 2U);
  EXPECT_EQ(rig.written(), 2U * kSendSize);
  EXPECT_EQ(rig.thread_time(), nanoseconds(2 * kCallNs));  // asleep since 6.2 us
  rig.ack_all();
  rig.run_to_ns(14'999);  // the wake-up and the switch: 2 us + 3 us
  EXPECT_EQ(rig.writer.calls(), 2U);
  rig.run_to_ns(15'000);
  EXPECT_EQ(rig.writer.calls(), 3U);
  rig.run_to_ns(15'000 + kCallNs);
  EXPECT_EQ(rig.written(), 3U * kSendSize);
  EXPECT_EQ(rig.thread_time(), nanoseconds(3 * kCallNs + 5'000));
}

TEST(stream_writer, a_call_cut_short_by_the_full_buffer_goes_on_without_a_new_syscall) {
  WriterRig rig(20'000);
  rig.writer.begin();
  rig.run_to_ns(10'000);
  // Call 2 copied the 3 616 bytes left (4 KiB of copy cost) and pushed them before sleeping.
  EXPECT_EQ(rig.writer.calls(), 2U);
  EXPECT_EQ(rig.written(), 20'000U);
  const std::int64_t asleep_ns = kCallNs + 1'500 + 4 * 100;
  EXPECT_EQ(rig.thread_time(), nanoseconds(asleep_ns));
  rig.ack_all();
  // Woken: 5 us; then the call's other 12 768 bytes (13 KiB), no syscall.
  rig.run_to_ns(10'000 + 5'000 + 1'300);
  EXPECT_EQ(rig.written(), 2U * kSendSize);
  EXPECT_EQ(rig.thread_time(), nanoseconds(asleep_ns + 5'000 + 1'300));
}

}  // namespace
}  // namespace irqmod::sim
