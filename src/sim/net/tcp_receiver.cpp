// The TCP receiver's ACK decision. See tcp_receiver.hpp.
#include "sim/net/tcp_receiver.hpp"

namespace irqmod::sim {

TcpReceiver::Ack TcpReceiver::on_data(Instant now, std::uint32_t bytes) {
  if (!started_) {
    started_ = true;  // tcp_event_data_recv on the first data: tcp_incr_quickack
    quick_ = config_.max_quickacks;
  }
  rcv_nxt_ += bytes;
  if (rcv_nxt_ - rcv_wup_ > config_.rcv_mss || quick_ > 0) return Ack::now;
  if (!delack_at_) delack_at_ = now + config_.ack_timeout;  // tcp_send_delayed_ack
  return Ack::delayed;
}

void TcpReceiver::on_ack_sent() {
  rcv_wup_ = rcv_nxt_;
  delack_at_.reset();
  if (quick_ > 0) --quick_;
  ++acks_;
}

bool TcpReceiver::on_timer(Instant now) {
  if (!delack_at_ || now < *delack_at_) return false;
  delack_at_.reset();
  return rcv_nxt_ > rcv_wup_;
}

}  // namespace irqmod::sim
