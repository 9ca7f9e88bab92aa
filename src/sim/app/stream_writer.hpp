// netperf -t TCP_STREAM's send loop on the host: one thread per connection, calling send() with
// traffic.send-size bytes again and again. tcp_sendmsg copies into the socket's send buffer
// while it has room and sleeps (sk_stream_wait_memory) when it has none, until ACKs make it
// writable again (TcpSender::writable). What a call copied is pushed when the call ends, or when
// the buffer fills first (tcp_push before the wait): what the window allows then leaves
// (TcpHost::write).
//
// Costs: per send() call begun, cpu.syscall + cpu.app-message; cpu.copy-kb per KiB copied from
// the user; cpu.wakeup + cpu.context-switch when woken.
#pragma once

#include <cstdint>
#include <optional>

#include "irqmod/sim/distribution.hpp"
#include "sim/cpu/core.hpp"
#include "sim/host/tcp_host.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {

struct StreamWriterCosts {
  Distribution syscall{};         // cpu.syscall
  Distribution app_message{};     // cpu.app-message
  Distribution copy_kb{};         // cpu.copy-kb
  Distribution wakeup{};          // cpu.wakeup
  Distribution context_switch{};  // cpu.context-switch
};

class StreamWriter {
 public:
  // The writer of `tcp`'s sender `sender`, a thread of `core`.
  StreamWriter(Core& core, TcpHost& tcp, std::uint32_t sender, std::uint32_t send_size,
               StreamWriterCosts costs);
  StreamWriter(const StreamWriter&) = delete;
  StreamWriter& operator=(const StreamWriter&) = delete;

  // netperf starts: the thread becomes runnable and writes.
  void begin() { core_.wake(thread_); }
  std::uint64_t calls() const { return calls_; }  // send() calls begun

  // The thread as a job of its core.
  std::optional<Segment> start(Core& core);
  std::optional<Segment> next(Core& core);

 private:
  std::optional<Segment> copy(Core& core);
  void on_writable();

  Core& core_;
  TcpHost& tcp_;
  std::uint32_t sender_;
  std::uint32_t send_size_;
  StreamWriterCosts costs_;
  std::uint32_t thread_ = 0;
  bool waking_ = false;          // woken from sk_stream_wait_memory: the wake-up comes first
  std::uint64_t copying_ = 0;    // bytes the running segment copies
  std::uint64_t call_left_ = 0;  // bytes of the current send() call not yet copied
  std::uint64_t calls_ = 0;
};

}  // namespace irqmod::sim
