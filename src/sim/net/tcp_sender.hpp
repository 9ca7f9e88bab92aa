// When a Linux 5.x bulk sender transmits (the host running netperf -t TCP_STREAM): the state of
// one connection's send side, no events and no clock. The second piece of the TCP model beside
// TcpReceiver; seed 000's ping-pong (issue 11) adds the retransmission and loss-probe timers here.
//
//   - The application writes into the send buffer (tcp_sendmsg) while the bytes queued there
//     (sent and unacknowledged, plus unsent) stay within sk_sndbuf; a writer blocked on it
//     (sk_stream_wait_memory) may go on once sk_stream_wspace >= sk_stream_min_wspace, i.e. the
//     queued bytes fell to two thirds of the buffer (include/net/sock.h).
//   - An ACK frees what it acknowledges (tcp_clean_rtx_queue), not the Tx completion: the
//     completion frees the clone the device sent (sk_wmem_alloc, what TCP Small Queues limits).
//   - tcp_write_xmit sends whole segments while the peer's window has room, as GSO skbs of at
//     most gso_max_size = 64 KiB (GSO_MAX_SIZE, tcp_tso_autosize) that the device segments
//     (enetc has no TSO in 5.8: validate_xmit_skb -> skb_gso_segment).
//   - tcp_tso_should_defer: while the window's room is less than a full GSO skb and less than
//     1/tcp_tso_win_divisor (3, tcp_sk_init) of the window, the skb waits for more room.
// Left out, and said so: congestion control (the peer's window is the only limit, as for a flow
// past slow start on a clean link), Nagle and partial segments (data goes out in whole segments;
// the rest waits for the next write), the deferral's exits when the next ACK would come late
// (the oldest unacknowledged skb younger than half an RTT) or the last transmission is over 1 ms
// old (a review measured the second in seed 001's case 3: ~5 % of the deferrals come more than
// 1 ms after the connection's last skb, where Linux would send at once), tcp_tso_autosize's
// ~1 ms of the pacing rate as the skb's size, tcp_xmit_size_goal's half-window cap (~22 segments
// at 64 KiB; the model allows 45, a handful of skbs in case 3 exceed 22), pacing, TCP Small
// Queues (its limit is max(2 skbs' truesize, ~1 ms of the pacing rate), counted until the Tx
// completion, so Tx moderation could make it bind; not modelled, not shown not to matter), SACK
// and the retransmission timers (a segment lost on the host's Tx path is sent again with the
// next skb).
#pragma once

#include <algorithm>
#include <cstdint>

namespace irqmod::sim {

class TcpSender {
 public:
  struct Config {
    std::uint32_t mss = 1448;              // 1500 MTU - 40 B headers - 12 B timestamps
    std::uint32_t window = 65'536;         // the peer's advertised window, bytes
    std::uint32_t send_buffer = 131'072;   // sk_sndbuf, payload bytes
    std::uint32_t gso_max_bytes = 65'536;  // GSO_MAX_SIZE
    std::uint32_t tso_win_divisor = 3;     // sysctl_tcp_tso_win_divisor
  };

  explicit TcpSender(Config config) : config_(config) {}

  // Room in the send buffer, bytes.
  std::uint64_t room() const {
    const std::uint64_t queued = write_seq_ - snd_una_;
    return queued >= config_.send_buffer ? 0 : config_.send_buffer - queued;
  }
  // A writer blocked on the buffer may go on (sk_stream_is_writeable).
  bool writable() const { return 3 * (write_seq_ - snd_una_) <= 2ULL * config_.send_buffer; }
  // The application queued `bytes` (at most room()).
  void write(std::uint64_t bytes) { write_seq_ += std::min(bytes, room()); }

  // An ACK for `acked` bytes arrived: true when it acknowledged new data.
  bool on_ack(std::uint64_t acked) {
    acked = std::min(acked, snd_nxt_);
    if (acked <= snd_una_) return false;
    snd_una_ = acked;
    return true;
  }
  // A segment sent was dropped on the host's Tx path: it goes again with the next skb.
  void on_lost() { lost_ += config_.mss; }

  // Segments of the next GSO skb tcp_write_xmit sends now: 0 when the window or the data does
  // not allow one, or tcp_tso_should_defer holds it back.
  std::uint32_t next_skb() const {
    const std::uint64_t in_flight = snd_nxt_ - snd_una_ - lost_;
    const std::uint64_t window_room = in_flight >= config_.window ? 0 : config_.window - in_flight;
    const std::uint64_t data = write_seq_ - snd_nxt_ + lost_;
    const std::uint64_t gso_segments =
        std::max<std::uint64_t>(config_.gso_max_bytes / config_.mss, 1);
    const std::uint64_t segments =
        std::min({window_room / config_.mss, data / config_.mss, gso_segments});
    if (segments == 0) return 0;
    // tcp_tso_should_defer's limit is the window's room, whatever the data queued.
    const bool full = window_room >= gso_segments * config_.mss;
    const bool big_enough = window_room * config_.tso_win_divisor >= config_.window;
    return full || big_enough ? static_cast<std::uint32_t>(segments) : 0;
  }
  // The skb of `segments` left: lost segments first, then new data.
  void on_sent(std::uint32_t segments) {
    std::uint64_t bytes = std::uint64_t{segments} * config_.mss;
    const std::uint64_t resent = std::min(bytes, lost_);
    lost_ -= resent;
    snd_nxt_ += bytes - resent;
  }

  std::uint64_t write_seq() const { return write_seq_; }  // bytes the application wrote
  std::uint64_t snd_nxt() const { return snd_nxt_; }      // bytes sent (new data)
  std::uint64_t snd_una() const { return snd_una_; }      // bytes acknowledged
  const Config& config() const { return config_; }

 private:
  Config config_;
  std::uint64_t write_seq_ = 0;
  std::uint64_t snd_nxt_ = 0;
  std::uint64_t snd_una_ = 0;
  std::uint64_t lost_ = 0;  // sent, dropped on the Tx path, not sent again yet
};

}  // namespace irqmod::sim
