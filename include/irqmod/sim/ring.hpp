// A fixed-capacity FIFO ring: the NIC's descriptor rings and the batches of arrivals a link
// lands in them. Storage is allocated once, at construction; push and pop never allocate.
#pragma once

#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace irqmod::sim {

template <typename T>
class Ring {
 public:
  // A ring holding at most `capacity` items (any positive number: ethtool ring sizes need not be
  // powers of two). Storage is rounded up to a power of two so that indexing is a mask.
  explicit Ring(std::size_t capacity)
      : slots_(std::bit_ceil(capacity == 0 ? std::size_t{1} : capacity)),
        mask_(slots_.size() - 1),
        capacity_(capacity) {
    assert(capacity > 0 && "a ring holds at least one item");
  }

  std::size_t capacity() const { return capacity_; }
  std::size_t size() const { return static_cast<std::size_t>(tail_ - head_); }
  std::size_t free() const { return capacity_ - size(); }
  bool empty() const { return head_ == tail_; }
  bool full() const { return size() == capacity_; }

  // Appends; false (and nothing stored) when full.
  bool push(const T& item) {
    if (full()) return false;
    slots_[static_cast<std::size_t>(tail_++) & mask_] = item;
    return true;
  }

  // The oldest item. Precondition: not empty.
  const T& front() const { return slots_[static_cast<std::size_t>(head_) & mask_]; }
  T& front() { return slots_[static_cast<std::size_t>(head_) & mask_]; }

  // The i-th oldest item. Precondition: i < size().
  const T& operator[](std::size_t i) const {
    return slots_[static_cast<std::size_t>(head_ + i) & mask_];
  }

  // Removes the oldest item. Precondition: not empty.
  void pop() {
    assert(!empty());
    ++head_;
  }

  // Removes the n oldest items. Precondition: n <= size().
  void pop(std::size_t n) {
    assert(n <= size());
    head_ += n;
  }

  void clear() { head_ = tail_; }
  // Takes back the newest item.
  void pop_back() {
    assert(!empty());
    --tail_;
  }

  // Items pushed and popped since construction (64-bit counters never wrap in a simulation).
  std::uint64_t pushed() const { return tail_; }
  std::uint64_t popped() const { return head_; }

 private:
  std::vector<T> slots_;
  std::size_t mask_;
  std::size_t capacity_;
  std::uint64_t head_ = 0;  // index of the oldest item, counting from the first push
  std::uint64_t tail_ = 0;  // index one past the newest item
};

}  // namespace irqmod::sim
