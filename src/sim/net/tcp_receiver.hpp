// When a Linux TCP receiver acknowledges in-order data (net/ipv4/tcp_input.c of 5.x:
// __tcp_ack_snd_check, tcp_event_data_recv, tcp_incr_quickack; include/net/tcp.h: the constants).
// The first piece of the simulator's TCP model (seed 001's bulk flows, seed 000's ping-pong):
// what decides the ACK rate, which is the Tx completion rate of a receiving host.
//
//   - An skb is one segment, or several merged by GRO in one poll: __tcp_ack_snd_check runs once
//     per skb, so a GRO skb of two segments or more is acknowledged at once.
//   - ACK now when more than one full segment is unacknowledged (rcv_nxt - rcv_wup > rcv_mss),
//     or in quick-ACK mode: the first data of a connection allows up to TCP_MAX_QUICKACKS = 16
//     immediate ACKs (tcp_incr_quickack; fewer when the window is small, not modelled), each ACK
//     sent using one (tcp_dec_quickack_mode with the pure ACK's pcount 1).
//   - Otherwise the delayed-ACK timer, armed if not pending, at the ACK timeout: TCP_ATO_MIN =
//     HZ / 25 = 40 ms (its adaptation to the arrival gaps is not modelled: in a bulk flow the
//     two-segment rule fires first).
// Left out: the window conditions (the window is taken never to shrink the decision),
// out-of-order data and SACK compression, the window-growth quick-ACKs of tcp_grow_window, ACKs
// from process context (tcp_cleanup_rbuf).
#pragma once

#include <cstdint>
#include <optional>

#include "irqmod/time.hpp"

namespace irqmod::sim {

class TcpReceiver {
 public:
  struct Config {
    std::uint32_t rcv_mss = 1448;             // 1500 MTU - 40 B headers - 12 B timestamps
    std::uint32_t max_quickacks = 16;         // TCP_MAX_QUICKACKS
    Duration ack_timeout = milliseconds(40);  // TCP_ATO_MIN = TCP_DELACK_MIN = HZ / 25
  };
  enum class Ack : std::uint8_t { now, delayed };

  explicit TcpReceiver(Config config) : config_(config) {}

  // An in-order skb of `bytes` of payload reached the socket at `now`: acknowledge it now, or
  // let the delayed-ACK timer (delack_at()) do it.
  Ack on_data(Instant now, std::uint32_t bytes);
  // An ACK left: everything received so far is acknowledged.
  void on_ack_sent();
  // The delayed-ACK timer fired at `now`: true when an ACK is due (data is unacknowledged).
  bool on_timer(Instant now);

  std::optional<Instant> delack_at() const { return delack_at_; }
  std::uint64_t rcv_nxt() const { return rcv_nxt_; }  // bytes received in order
  std::uint64_t rcv_wup() const { return rcv_wup_; }  // bytes acknowledged
  std::uint32_t quick() const { return quick_; }      // quick-ACKs left
  std::uint64_t acks() const { return acks_; }        // ACKs sent

 private:
  Config config_;
  std::uint64_t rcv_nxt_ = 0;
  std::uint64_t rcv_wup_ = 0;
  std::uint32_t quick_ = 0;
  bool started_ = false;
  std::optional<Instant> delack_at_;
  std::uint64_t acks_ = 0;
};

}  // namespace irqmod::sim
