// A socket: its receive queue (frames delivered by the stack, bounded by net.core.rmem_default,
// counted in frame bytes) with the one waiter it wakes when data arrives (the thread blocked in
// recv or epoll_wait on it), and its send-side memory (sk_wmem_alloc: the skbs it sent that the
// Tx path has not freed yet, bounded by net.core.wmem_default), with the waiter it wakes when a
// sender blocked on a full send buffer (sock_alloc_send_skb) may go on.
#pragma once

#include <cstdint>

#include "irqmod/sim/ring.hpp"
#include "irqmod/sim/traffic.hpp"
#include "sim/nic/tx_queue.hpp"

namespace irqmod::sim {

// net.core.rmem_default: 212992 bytes on Linux x86-64 (SK_RMEM_MAX as 256 * SKB_TRUESIZE(256)).
// The model counts frame bytes against it, not the larger skb truesize.
inline constexpr std::uint64_t kSocketReceiveBytes = 212'992;

// net.core.wmem_default: 212992 bytes (SK_WMEM_MAX, 256 * SKB_TRUESIZE(256)). A sent frame is
// charged its skb's truesize until the Tx path frees it: the frame plus SKB_TRUESIZE's overhead,
// SKB_DATA_ALIGN(sizeof(struct sk_buff)) + SKB_DATA_ALIGN(sizeof(struct skb_shared_info)) = 256 +
// 320 bytes on x86-64 (include/linux/skbuff.h), so 64 B replies block a sender at about 330.
inline constexpr std::uint64_t kSocketSendBytes = 212'992;
inline constexpr std::uint32_t kSkbTruesizeOverhead = 576;
constexpr std::uint32_t send_truesize(std::uint32_t frame_bytes) {
  return frame_bytes + kSkbTruesizeOverhead;
}

// The thread waiting on a socket, told that data arrived (or that it may send again).
struct Waiter {
  void (*wake)(void* self) = nullptr;
  void* self = nullptr;
};

class Socket {
 public:
  Socket() : queue_(65'536) {}

  void set_waiter(Waiter waiter) { waiter_ = waiter; }
  void set_send_waiter(Waiter waiter) { send_waiter_ = waiter; }

  // ---- send side ----
  // Charges a frame to the send buffer; false when it does not fit: the sender must wait, and is
  // woken (send waiter) once the Tx path has freed enough.
  bool charge_send(std::uint32_t frame_bytes) {
    const std::uint32_t size = send_truesize(frame_bytes);
    if (wmem_ + size > kSocketSendBytes) {
      send_blocked_ = size;
      return false;
    }
    wmem_ += size;
    return true;
  }
  // The Tx path freed a frame this socket sent (its Tx completion, or a drop).
  void release_send(std::uint32_t frame_bytes) {
    wmem_ -= send_truesize(frame_bytes);
    if (send_blocked_ != 0 && wmem_ + send_blocked_ <= kSocketSendBytes) {
      send_blocked_ = 0;
      if (send_waiter_.wake) send_waiter_.wake(send_waiter_.self);
    }
  }
  // This socket's send buffer as the Tx queues hold it.
  SendOwner send_owner() {
    return SendOwner{[](void* self, std::uint32_t frame_bytes) {
                       static_cast<Socket*>(self)->release_send(frame_bytes);
                     },
                     this};
  }
  bool send_blocked() const { return send_blocked_ != 0; }
  std::uint64_t send_bytes() const { return wmem_; }

  // Queues a frame; false when the queue is at its limit (the caller counts the drop).
  bool deliver(const Packet& packet) {
    if (bytes_ + packet.frame_bytes > kSocketReceiveBytes || queue_.full()) return false;
    queue_.push(packet);
    bytes_ += packet.frame_bytes;
    return true;
  }
  // Tells the waiter, after a batch that queued something.
  void notify() {
    if (waiter_.wake) waiter_.wake(waiter_.self);
  }

  bool empty() const { return queue_.empty(); }
  std::size_t size() const { return queue_.size(); }
  const Packet& front() const { return queue_.front(); }
  const Packet& at(std::size_t i) const { return queue_[i]; }
  void pop() {
    bytes_ -= queue_.front().frame_bytes;
    queue_.pop();
  }

  // The NAPI context of the last frame delivered (sk->sk_napi_id): what busy polling polls;
  // 0 until a frame came through NAPI (no busy polling before, as napi_id_valid() says).
  std::uint32_t napi_id() const { return napi_id_; }
  void set_napi_id(std::uint32_t id) { napi_id_ = id; }

 private:
  Ring<Packet> queue_;
  std::uint64_t bytes_ = 0;
  Waiter waiter_{};
  std::uint32_t napi_id_ = 0;
  std::uint64_t wmem_ = 0;          // truesize of the frames in the Tx path
  std::uint32_t send_blocked_ = 0;  // the truesize a blocked sender waits to fit; 0: none
  Waiter send_waiter_{};
};

}  // namespace irqmod::sim
