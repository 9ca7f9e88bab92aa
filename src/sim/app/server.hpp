// An application thread that receives on one socket: a sockperf-like server (it answers the
// messages of flows whose peer expects a reply) or a sink (it records how long each frame waited
// from its arrival). It blocks in recv / epoll_wait and is woken by the socket, or busy-polls the
// socket's NAPI context (busy_read in recv, busy_poll in epoll_wait, with prefer_busy_poll's IRQ
// suspension in epoll).
//
// Costs: wakeup + context-switch when woken; per message syscall + app-message, and for a reply
// syscall + tx-packet more.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "sim/cpu/core.hpp"
#include "sim/far/peer.hpp"
#include "sim/host/busy_poll.hpp"
#include "sim/host/socket.hpp"
#include "sim/host/stack.hpp"
#include "sim/nic/queue_vector.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {

struct ApplicationCosts {
  Distribution syscall{};         // cpu.syscall
  Distribution app_message{};     // cpu.app-message
  Distribution tx_packet{};       // cpu.tx-packet
  Distribution wakeup{};          // cpu.wakeup
  Distribution context_switch{};  // cpu.context-switch
};

class Application {
 public:
  // How the thread waits: blocking recv (busy_read applies) or epoll_wait (busy_poll applies).
  enum class Wait : std::uint8_t { recv, epoll };

  // `napis`: the queue vectors by NAPI id (the socket's last one is busy-polled).
  Application(World& world, Core& core, Socket& socket, std::vector<QueueVector*> napis,
              Stack& stack, const Peers& peers, Wait wait, BusyPollSettings busy,
              ApplicationCosts costs);
  Application(const Application&) = delete;
  Application& operator=(const Application&) = delete;

  // The socket has data (its Waiter).
  void on_data();

  // The thread as a job of its core.
  std::optional<Segment> start(Core& core);
  std::optional<Segment> next(Core& core);

 private:
  enum class Phase : std::uint8_t {
    blocked,    // asleep in recv / epoll_wait
    waking,     // wakeup + context switch
    consuming,  // taking the queued messages
    busy_poll,  // in the busy loop, final poll included
  };

  std::optional<Segment> receive(Core& core);
  std::optional<Segment> after_busy_loop(Core& core);
  void finish_consuming();
  static Segment thread_segment(Duration length) {
    return Segment{length, ContextKind::thread, "application"};
  }

  World& world_;
  Core& core_;
  Socket& socket_;
  std::vector<QueueVector*> napis_;
  Stack& stack_;
  const Peers& peers_;
  Wait wait_;
  BusyLoop busy_;
  ApplicationCosts costs_;
  Phase phase_ = Phase::blocked;
  std::uint32_t thread_ = 0;     // this thread among its core's
  std::uint32_t consuming_ = 0;  // messages the thread is taking now
};

}  // namespace irqmod::sim
