// netperf's TCP_STREAM sender. See stream_writer.hpp.
#include "sim/app/stream_writer.hpp"

#include <algorithm>

namespace irqmod::sim {

StreamWriter::StreamWriter(Core& core, TcpHost& tcp, std::uint32_t sender, std::uint32_t send_size,
                           StreamWriterCosts costs)
    : core_(core), tcp_(tcp), sender_(sender), send_size_(send_size), costs_(costs) {
  thread_ = core_.add_thread(job_of(*this), false);
  tcp_.set_writer(
      sender_, Waiter{[](void* self) { static_cast<StreamWriter*>(self)->on_writable(); }, this});
}

void StreamWriter::on_writable() {
  waking_ = true;
  core_.wake(thread_);
}

std::optional<Segment> StreamWriter::start(Core& core) {
  if (waking_) {
    waking_ = false;
    return Segment{core.cost(costs_.wakeup) + core.cost(costs_.context_switch), ContextKind::thread,
                   "application"};
  }
  return copy(core);
}

// tcp_sendmsg: one send() call (or what is left of it) per segment, as far as the send buffer has
// room; what it copied is pushed at the segment's end (tcp_push at the end of the call, or before
// sk_stream_wait_memory when the buffer filled).
std::optional<Segment> StreamWriter::copy(Core& core) {
  const std::uint64_t room = tcp_.room(sender_);
  if (room == 0) {
    tcp_.block_writer(sender_);  // sk_stream_wait_memory
    return std::nullopt;
  }
  Duration cost{};
  if (call_left_ == 0) {
    call_left_ = send_size_;
    ++calls_;
    cost += core.cost(costs_.syscall) + core.cost(costs_.app_message);
  }
  copying_ = std::min(room, call_left_);
  call_left_ -= copying_;
  cost += core.cost(costs_.copy_kb, static_cast<std::int64_t>((copying_ + 1023) / 1024));
  return Segment{cost, ContextKind::thread, "application"};
}

std::optional<Segment> StreamWriter::next(Core& core) {
  if (copying_ > 0) {
    tcp_.write(sender_, copying_, core.index());
    copying_ = 0;
  }
  return copy(core);
}

}  // namespace irqmod::sim
