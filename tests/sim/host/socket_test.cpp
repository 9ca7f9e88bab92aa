// A socket's receive queue: the rmem_default byte limit, frames in order, the waiter it wakes,
// and the NAPI id busy polling reads.
#include "sim/host/socket.hpp"

#include <gtest/gtest.h>

#include <cstdint>

#include "irqmod/sim/traffic.hpp"

namespace irqmod::sim {
namespace {

Packet frame(std::int64_t arrival_ns, std::uint32_t bytes) {
  return Packet{arrival_ns, bytes, 0};
}

TEST(socket, starts_empty_with_no_napi_id) {
  Socket socket;
  EXPECT_TRUE(socket.empty());
  EXPECT_EQ(socket.size(), 0U);
  EXPECT_EQ(socket.napi_id(), 0U);
}

TEST(socket, queues_frames_in_order) {
  Socket socket;
  for (int i = 0; i < 3; ++i)
    EXPECT_TRUE(socket.deliver(frame(i, 100)));
  EXPECT_EQ(socket.size(), 3U);
  EXPECT_EQ(socket.front().arrival_ns, 0);
  EXPECT_EQ(socket.at(2).arrival_ns, 2);
  socket.pop();
  EXPECT_EQ(socket.front().arrival_ns, 1);
  EXPECT_EQ(socket.size(), 2U);
}

TEST(socket, refuses_the_frame_that_would_pass_the_byte_limit) {
  Socket socket;
  constexpr std::uint32_t kFrame = 1000;
  const std::uint64_t fit = kSocketReceiveBytes / kFrame;  // 212 frames: 212000 bytes
  for (std::uint64_t i = 0; i < fit; ++i)
    ASSERT_TRUE(socket.deliver(frame(static_cast<std::int64_t>(i), kFrame))) << "frame " << i;
  EXPECT_FALSE(socket.deliver(frame(999, kFrame)));  // 213000 > 212992
  EXPECT_EQ(socket.size(), fit);
  // What is left below the limit still takes a frame that fits exactly.
  const auto rest = static_cast<std::uint32_t>(kSocketReceiveBytes - fit * kFrame);
  EXPECT_FALSE(socket.deliver(frame(1000, rest + 1)));
  EXPECT_TRUE(socket.deliver(frame(1001, rest)));
  EXPECT_FALSE(socket.deliver(frame(1002, 64)));
}

TEST(socket, takes_frames_again_once_the_application_read_some) {
  Socket socket;
  while (socket.deliver(frame(0, 1518))) {
  }
  const std::size_t full = socket.size();
  EXPECT_EQ(full, kSocketReceiveBytes / 1518);
  socket.pop();
  EXPECT_TRUE(socket.deliver(frame(1, 1518)));
  EXPECT_FALSE(socket.deliver(frame(2, 1518)));
  EXPECT_EQ(socket.size(), full);
}

TEST(socket, notify_wakes_the_waiter_each_time) {
  Socket socket;
  socket.notify();  // no waiter: nothing to call
  int woken = 0;
  socket.set_waiter(Waiter{[](void* self) { ++*static_cast<int*>(self); }, &woken});
  socket.notify();
  socket.notify();
  EXPECT_EQ(woken, 2);
}

TEST(socket, delivering_does_not_wake_the_waiter_by_itself) {
  Socket socket;
  int woken = 0;
  socket.set_waiter(Waiter{[](void* self) { ++*static_cast<int*>(self); }, &woken});
  socket.deliver(frame(0, 64));
  EXPECT_EQ(woken, 0);  // the stack notifies once per batch
}

TEST(socket, keeps_the_napi_id_of_the_last_frame_delivered_through_napi) {
  Socket socket;
  socket.set_napi_id(3);
  EXPECT_EQ(socket.napi_id(), 3U);
  socket.set_napi_id(7);
  EXPECT_EQ(socket.napi_id(), 7U);
}

TEST(socket, a_send_buffer_holds_truesize_until_released_and_wakes_a_blocked_sender_once) {
  Socket socket;
  int woken = 0;
  socket.set_send_waiter(Waiter{[](void* self) { ++*static_cast<int*>(self); }, &woken});
  // 64 B frames cost 640 B of truesize: 332 fit in 212992 bytes, the 333rd does not.
  int sent = 0;
  while (socket.charge_send(64))
    ++sent;
  EXPECT_EQ(sent, 332);
  EXPECT_EQ(socket.send_bytes(), 332u * 640u);
  EXPECT_TRUE(socket.send_blocked());
  socket.release_send(64);  // room for one again: the sender is told
  EXPECT_EQ(woken, 1);
  EXPECT_FALSE(socket.send_blocked());
  socket.release_send(64);  // nobody waits: no second wake-up
  EXPECT_EQ(woken, 1);
  EXPECT_TRUE(socket.charge_send(64));
}

}  // namespace
}  // namespace irqmod::sim
