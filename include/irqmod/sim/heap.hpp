// A 4-ary min-heap over a pre-reserved vector: the simulator's event queue and the baseline the
// engine benchmark compares it with.
//
// Why 4-ary: a pop compares four children per level but the tree is half as deep as a binary
// heap's, and the four children of a node share one or two cache lines (32-byte events), so a
// pop touches about half the lines. The order of items that compare equal is whatever the heap
// makes of them; callers that need a total order (the engine) put a sequence number in the key.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace irqmod::sim {

// `Before(a, b)` is true when `a` must leave the heap before `b` (a strict weak order).
template <typename T, typename Before>
class QuaternaryHeap {
 public:
  static constexpr std::size_t kArity = 4;

  explicit QuaternaryHeap(std::size_t capacity = 0) { items_.reserve(capacity); }

  void reserve(std::size_t capacity) { items_.reserve(capacity); }
  bool empty() const { return items_.empty(); }
  std::size_t size() const { return items_.size(); }
  std::size_t capacity() const { return items_.capacity(); }

  // The item that leaves next. Precondition: not empty.
  const T& top() const { return items_.front(); }

  void push(const T& item) {
    items_.push_back(item);
    sift_up(items_.size() - 1);
  }

  // Removes top(). Precondition: not empty.
  void pop() {
    const T last = items_.back();
    items_.pop_back();
    if (!items_.empty()) sift_down(0, last);
  }

  // pop() then push(item) in one pass down the tree: the "hold" step of a simulation.
  // Precondition: not empty.
  void replace_top(const T& item) { sift_down(0, item); }

  // Removes every item for which `drop(item)` is true and restores the heap in O(n).
  template <typename Drop>
  std::size_t erase_if(Drop&& drop) {
    const std::size_t before = items_.size();
    std::size_t kept = 0;
    for (std::size_t i = 0; i < before; ++i) {
      if (!drop(items_[i])) items_[kept++] = items_[i];
    }
    items_.resize(kept);
    if (kept > 1) {
      for (std::size_t i = (kept - 2) / kArity + 1; i-- > 0;)
        sift_down(i, items_[i]);
    }
    return before - kept;
  }

  void clear() { items_.clear(); }

 private:
  void sift_up(std::size_t i) {
    const T item = items_[i];
    while (i > 0) {
      const std::size_t parent = (i - 1) / kArity;
      if (!before_(item, items_[parent])) break;
      items_[i] = items_[parent];
      i = parent;
    }
    items_[i] = item;
  }

  // Places `item` at hole `i` or below it.
  void sift_down(std::size_t i, const T item) {
    const std::size_t n = items_.size();
    for (;;) {
      const std::size_t first = i * kArity + 1;
      if (first >= n) break;
      const std::size_t end = first + kArity < n ? first + kArity : n;
      std::size_t best = first;
      for (std::size_t c = first + 1; c < end; ++c) {
        if (before_(items_[c], items_[best])) best = c;
      }
      if (!before_(items_[best], item)) break;
      items_[i] = items_[best];
      i = best;
    }
    items_[i] = item;
  }

  std::vector<T> items_;
  [[no_unique_address]] Before before_{};
};

}  // namespace irqmod::sim
