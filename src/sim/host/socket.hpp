// A socket's receive queue: frames delivered by the stack, bounded by net.core.rmem_default
// (counted in frame bytes), and the one waiter it wakes when data arrives (the thread blocked in
// recv or epoll_wait on it), bound as an endpoint.
#pragma once

#include <cstdint>

#include "irqmod/sim/ring.hpp"
#include "irqmod/sim/traffic.hpp"

namespace irqmod::sim {

// net.core.rmem_default: 212992 bytes on Linux x86-64 (SK_RMEM_MAX as 256 * SKB_TRUESIZE(256)).
// The model counts frame bytes against it, not the larger skb truesize.
inline constexpr std::uint64_t kSocketReceiveBytes = 212'992;

// The thread waiting on a socket, told that data arrived.
struct Waiter {
  void (*wake)(void* self) = nullptr;
  void* self = nullptr;
};

class Socket {
 public:
  Socket() : queue_(65'536) {}

  void set_waiter(Waiter waiter) { waiter_ = waiter; }

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
};

}  // namespace irqmod::sim
