// Integration tests of the server on loopback, in every receive-loop mode: it answers pong
// requests, counts and drops garbage, closes bad TCP streams, and keeps answering afterwards.
// Assertions are on counts only; waits are bounded polls for a count, never timing checks.
#include "irqmod/rt/server.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "irqmod/rt/sockperf_protocol.hpp"

namespace irqmod::rt {
namespace {

namespace sp = sockperf;
constexpr std::uint16_t kPing = sp::kFlagClient | sp::kFlagPongRequest;
// Upper bound on any wait for the server: generous for a loaded 2-core CI machine under ASan.
constexpr int kWaitMs = 10000;

std::vector<std::uint8_t> message(std::uint64_t seq, std::uint16_t flags, std::uint32_t length,
                                  std::size_t size) {
  std::vector<std::uint8_t> m(size, 0x5A);
  if (size >= sp::kHeaderSize) sp::encode_header(sp::Header{seq, flags, length}, m);
  return m;
}
std::vector<std::uint8_t> ping(std::uint64_t seq, std::uint32_t size = 64) {
  return message(seq, kPing, size, size);
}

// A server on a free loopback port, its loop on a thread, stopped and joined at scope end.
class Running {
 public:
  Running(Transport transport, LoopMode mode) {
    ServerConfig c;
    c.transport = transport;
    c.mode = mode;
    c.port = 0;
    auto created = Server::create(c);
    if (!created) ADD_FAILURE() << created.error().what();
    server_ = std::move(created).value();
    thread_ = std::thread([this] { error_ = server_->run(); });
  }
  ~Running() { finish(); }
  void finish() {
    if (!thread_.joinable()) return;
    server_->stop();
    thread_.join();
    EXPECT_FALSE(error_.has_value()) << error_->what();
  }
  Server& server() { return *server_; }
  std::uint16_t port() const { return server_->port(); }

  // Waits (bounded) until `done(stats)` holds; returns the last stats.
  ServerStats wait_for(const std::function<bool(const ServerStats&)>& done) {
    ServerStats s = server_->stats();
    for (int waited = 0; !done(s) && waited < kWaitMs; waited += 5) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      s = server_->stats();
    }
    return s;
  }

 private:
  std::unique_ptr<Server> server_;
  std::thread thread_;
  std::optional<Error> error_;
};

sockaddr_in loopback(std::uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return a;
}

class Socket {
 public:
  explicit Socket(int type) : fd_(::socket(AF_INET, type | SOCK_CLOEXEC, 0)) {}
  ~Socket() {
    if (fd_ >= 0) ::close(fd_);
  }
  int fd() const { return fd_; }

  // Waits (bounded) for up to `size` bytes; returns what came (empty on timeout or close).
  std::vector<std::uint8_t> receive(std::size_t size = 70000) const {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, kWaitMs) <= 0) return {};
    std::vector<std::uint8_t> buf(size);
    const ssize_t n = ::recv(fd_, buf.data(), buf.size(), 0);
    buf.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
    return buf;
  }
  // Reads a whole TCP message of `size` bytes (bounded wait per read).
  std::vector<std::uint8_t> receive_exactly(std::size_t size) const {
    std::vector<std::uint8_t> out;
    while (out.size() < size) {
      const auto part = receive(size - out.size());
      if (part.empty()) break;
      out.insert(out.end(), part.begin(), part.end());
    }
    return out;
  }

 private:
  int fd_;
};

void send_datagram(const Socket& s, std::uint16_t port, const std::vector<std::uint8_t>& bytes) {
  const sockaddr_in to = loopback(port);
  ASSERT_EQ(::sendto(s.fd(), bytes.data(), bytes.size(), 0, reinterpret_cast<const sockaddr*>(&to),
                     sizeof to),
            static_cast<ssize_t>(bytes.size()));
}

void connect_to(const Socket& s, std::uint16_t port) {
  const sockaddr_in to = loopback(port);
  ASSERT_EQ(::connect(s.fd(), reinterpret_cast<const sockaddr*>(&to), sizeof to), 0);
}

void send_bytes(const Socket& s, const std::vector<std::uint8_t>& bytes) {
  ASSERT_EQ(::send(s.fd(), bytes.data(), bytes.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(bytes.size()));
}

// The reply to ping(seq, size): the same bytes with the client flag cleared.
void expect_reply(const std::vector<std::uint8_t>& got, std::uint64_t seq, std::size_t size) {
  ASSERT_EQ(got.size(), size);
  const sp::Header h = sp::decode_header(got);
  EXPECT_EQ(h.sequence, seq);
  EXPECT_EQ(h.flags, sp::kFlagPongRequest);
  EXPECT_EQ(h.length, size);
}

void expect_conservation(const ServerStats& s) {
  EXPECT_EQ(s.messages, s.replies + s.reply_failures + s.warmup + s.no_reply + s.rejected_total());
}

std::uint64_t rejected(const ServerStats& s, sp::Reject r) {
  return s.rejected[static_cast<std::size_t>(r)];
}

class ServerModes : public ::testing::TestWithParam<LoopMode> {};

TEST_P(ServerModes, udp_answers_pongs_and_counts_and_drops_garbage) {
  Running run(Transport::udp, GetParam());
  Socket client(SOCK_DGRAM);
  send_datagram(client, run.port(), ping(1));
  expect_reply(client.receive(), 1, 64);

  send_datagram(client, run.port(), message(2, kPing, 14, 5));                  // truncated
  send_datagram(client, run.port(), {});                                        // empty datagram
  send_datagram(client, run.port(), message(3, kPing, 9, 64));                  // bad length
  send_datagram(client, run.port(), message(4, kPing, 70000, 64));              // oversized field
  send_datagram(client, run.port(), message(5, kPing, 100, 64));                // mismatch
  send_datagram(client, run.port(), message(6, sp::kFlagPongRequest, 64, 64));  // a reply
  // Not sockperf at all: its "length field" reads 0xFFFFFFFF.
  send_datagram(client, run.port(), std::vector<std::uint8_t>(200, 0xFF));
  send_datagram(client, run.port(), message(7, kPing | sp::kFlagWarmup, 64, 64));
  send_datagram(client, run.port(), message(8, sp::kFlagClient, 64, 64));  // no pong asked
  send_datagram(client, run.port(), ping(9, static_cast<std::uint32_t>(sp::kMaxMessageSize)));
  expect_reply(client.receive(), 9, sp::kMaxMessageSize);  // the largest message, answered

  // Several clients at once, interleaved.
  Socket other(SOCK_DGRAM);
  send_datagram(other, run.port(), ping(10));
  send_datagram(client, run.port(), ping(11));
  expect_reply(other.receive(), 10, 64);
  expect_reply(client.receive(), 11, 64);

  const ServerStats s =
      run.wait_for([](const ServerStats& x) { return x.messages >= 13 && x.replies >= 4; });
  run.finish();
  EXPECT_EQ(s.messages, 13U);
  EXPECT_EQ(s.replies, 4U);
  EXPECT_EQ(s.warmup, 1U);
  EXPECT_EQ(s.no_reply, 1U);
  EXPECT_EQ(rejected(s, sp::Reject::truncated), 2U);
  EXPECT_EQ(rejected(s, sp::Reject::bad_length), 1U);
  EXPECT_EQ(rejected(s, sp::Reject::oversized), 2U);  // the 200 bytes of 0xFF too
  EXPECT_EQ(rejected(s, sp::Reject::length_mismatch), 1U);
  EXPECT_EQ(rejected(s, sp::Reject::not_client), 1U);
  expect_conservation(s);
}

TEST_P(ServerModes, tcp_frames_by_length_closes_bad_streams_and_keeps_answering) {
  Running run(Transport::tcp, GetParam());
  Socket a(SOCK_STREAM);
  Socket b(SOCK_STREAM);
  connect_to(a, run.port());
  connect_to(b, run.port());

  // A message in two pieces, then two messages in one write; two clients interleaved.
  const auto first = ping(1, 100);
  send_bytes(a, {first.begin(), first.begin() + 30});
  send_bytes(b, ping(2));
  expect_reply(b.receive_exactly(64), 2, 64);
  send_bytes(a, {first.begin() + 30, first.end()});
  expect_reply(a.receive_exactly(100), 1, 100);
  auto two = ping(3, 40);
  const auto next = ping(4, sp::kMaxMessageSize);
  two.insert(two.end(), next.begin(), next.end());
  send_bytes(a, two);
  expect_reply(a.receive_exactly(40), 3, 40);
  expect_reply(a.receive_exactly(sp::kMaxMessageSize), 4, sp::kMaxMessageSize);

  // A bad length: the server closes that connection (we read end-of-stream).
  Socket bad(SOCK_STREAM);
  connect_to(bad, run.port());
  send_bytes(bad, message(5, kPing, 3, 14));
  EXPECT_TRUE(bad.receive().empty());
  Socket huge(SOCK_STREAM);
  connect_to(huge, run.port());
  send_bytes(huge, message(6, kPing, 1u << 24, 14));
  EXPECT_TRUE(huge.receive().empty());

  // A client that leaves in the middle of a message.
  {
    Socket cut(SOCK_STREAM);
    connect_to(cut, run.port());
    const auto m = ping(7, 200);
    send_bytes(cut, {m.begin(), m.begin() + 50});
  }

  // Still answering, on an old and on a new connection.
  ServerStats s = run.wait_for([](const ServerStats& x) { return x.connections_closed >= 3; });
  send_bytes(b, ping(8));
  expect_reply(b.receive_exactly(64), 8, 64);
  Socket c(SOCK_STREAM);
  connect_to(c, run.port());
  send_bytes(c, ping(9));
  expect_reply(c.receive_exactly(64), 9, 64);

  s = run.wait_for([](const ServerStats& x) { return x.replies >= 6; });
  run.finish();
  EXPECT_EQ(s.replies, 6U);
  EXPECT_EQ(rejected(s, sp::Reject::bad_length), 1U);
  EXPECT_EQ(rejected(s, sp::Reject::oversized), 1U);
  EXPECT_EQ(rejected(s, sp::Reject::cut_off), 1U);
  EXPECT_EQ(s.messages, 9U);
  EXPECT_EQ(s.connections_accepted, 6U);
  EXPECT_GE(s.connections_closed, 3U);
  expect_conservation(s);
}

INSTANTIATE_TEST_SUITE_P(rt, ServerModes,
                         ::testing::Values(LoopMode::blocking, LoopMode::epoll, LoopMode::busy,
                                           LoopMode::adaptive, LoopMode::kernel_busy_poll),
                         [](const ::testing::TestParamInfo<LoopMode>& param_info) {
                           std::string name(mode_name(param_info.param));
                           std::erase(name, '-');
                           return name;
                         });

TEST(server, a_flood_of_connections_past_the_limit_is_refused_not_buffered) {
  ServerConfig c;
  c.transport = Transport::tcp;
  c.mode = LoopMode::epoll;
  c.port = 0;
  c.max_connections = 2;
  auto created = Server::create(c);
  ASSERT_TRUE(created.ok()) << created.error().what();
  Server& server = **created;
  std::thread loop([&] { (void)server.run(); });
  std::vector<std::unique_ptr<Socket>> clients;
  for (int i = 0; i < 5; ++i) {
    clients.push_back(std::make_unique<Socket>(SOCK_STREAM));
    connect_to(*clients.back(), server.port());
  }
  ServerStats s = server.stats();
  for (int waited = 0;
       (s.connections_accepted < 5 || s.connections_refused < 3) && waited < kWaitMs; waited += 5) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    s = server.stats();
  }
  // The first two are served.
  send_bytes(*clients[0], ping(1));
  expect_reply(clients[0]->receive_exactly(64), 1, 64);
  server.stop();
  loop.join();
  EXPECT_EQ(s.connections_accepted, 5U);
  EXPECT_EQ(s.connections_refused, 3U);
}

TEST(server, bad_configuration_names_the_flag) {
  ServerConfig c;
  c.ip = "localhost";
  EXPECT_EQ(validate(c)->key, "--ip");
  c = ServerConfig{};
  c.cpu = 100000;
  EXPECT_EQ(validate(c)->key, "--cpu");
  EXPECT_EQ(parse_mode("spin").error().key, "--mode");
  EXPECT_EQ(*parse_mode("kernel-busy-poll"), LoopMode::kernel_busy_poll);
}

}  // namespace
}  // namespace irqmod::rt
