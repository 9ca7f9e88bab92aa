// The open-loop load generator (src/rt/load.cpp) against this project's server on a free
// loopback port, over UDP and TCP: every request is answered and matched, the seeded schedule
// sends the same number of requests every time, the warm-up's replies are not measured; a
// refused connection is an error naming connect, a bad configuration is refused before any
// socket; and the two renderings of a result (lost = sent - received). Counts only, no timing.
#include "irqmod/rt/load.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "irqmod/rt/server.hpp"

namespace irqmod::rt {
namespace {

// The server in epoll mode on a free loopback port, its loop on a thread until the scope ends.
class LoadTarget {
 public:
  explicit LoadTarget(Transport transport) {
    ServerConfig c;
    c.transport = transport;
    c.mode = LoopMode::epoll;
    c.port = 0;
    auto created = Server::create(c);
    if (!created) {
      ADD_FAILURE() << created.error().what();
      return;
    }
    server_ = std::move(created).value();
    thread_ = std::thread([this] { error_ = server_->run(); });
  }
  LoadTarget(const LoadTarget&) = delete;
  LoadTarget& operator=(const LoadTarget&) = delete;
  ~LoadTarget() {
    if (!thread_.joinable()) return;
    server_->stop();
    thread_.join();
    EXPECT_FALSE(error_) << error_->what();
  }
  bool ready() const { return server_ != nullptr; }
  std::uint16_t port() const { return server_->port(); }
  // The server's replies once they reach `count` (it counts a reply after sending it, so the
  // client can read one before it is counted), or what they are after 10 s.
  std::uint64_t replies_reaching(std::uint64_t count) const {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    std::uint64_t replies = server_->stats().replies;
    while (replies < count && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      replies = server_->stats().replies;
    }
    return replies;
  }

 private:
  std::unique_ptr<Server> server_;
  std::thread thread_;
  std::optional<Error> error_;
};

// A short schedule: 2000 requests/s for 0.25 s, the first 0.05 s warm-up, on two connections.
load::Config short_load(Transport transport, std::uint16_t port, std::uint64_t seed = 1) {
  load::Config c;
  c.transport = transport;
  c.port = port;
  c.rate = 2000;
  c.duration_s = 0.25;
  c.warmup_s = 0.05;
  c.connections = 2;
  c.grace_s = 5;  // the run ends as soon as every reply is in; this is only a bound
  c.seed = seed;
  return c;
}

// A loopback port nothing listens on (bound, then closed).
std::uint16_t closed_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof a;
  EXPECT_EQ(::bind(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a), 0);
  EXPECT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &length), 0);
  ::close(fd);
  return ntohs(a.sin_port);
}

TEST(load, every_request_of_the_schedule_is_answered_over_udp_and_tcp) {
  for (const Transport transport : {Transport::udp, Transport::tcp}) {
    const LoadTarget target(transport);
    ASSERT_TRUE(target.ready());
    const auto r = load::run(short_load(transport, target.port()));
    ASSERT_TRUE(r) << r.error().what();
    const std::string proto(transport_name(transport));
    EXPECT_GT(r.value().sent, 300U) << proto;  // about 500
    EXPECT_LT(r.value().sent, 700U) << proto;
    EXPECT_EQ(r.value().received, r.value().sent) << proto;
    EXPECT_EQ(r.value().unexpected, 0U) << proto;
    EXPECT_LT(r.value().measured, r.value().received) << proto;  // the warm-up's are not
    EXPECT_GT(r.value().measured, 0U) << proto;
    EXPECT_GE(r.value().seconds, 0.2) << proto;
    EXPECT_EQ(target.replies_reaching(r.value().sent), r.value().sent) << proto;
  }
}

TEST(load, a_seed_sends_the_same_number_of_requests_every_time) {
  const LoadTarget target(Transport::udp);
  ASSERT_TRUE(target.ready());
  const auto first = load::run(short_load(Transport::udp, target.port(), 7));
  const auto again = load::run(short_load(Transport::udp, target.port(), 7));
  const auto other = load::run(short_load(Transport::udp, target.port(), 8));
  ASSERT_TRUE(first && again && other);
  EXPECT_EQ(first.value().sent, again.value().sent);
  EXPECT_NE(first.value().sent, other.value().sent);
}

TEST(load, a_refused_connection_is_an_error_naming_connect) {
  const auto r = load::run(short_load(Transport::tcp, closed_port()));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().key, "connect");
  EXPECT_NE(r.error().message.find("cannot connect to 127.0.0.1:"), std::string::npos)
      << r.error().message;
}

TEST(load, run_refuses_a_bad_configuration_before_opening_a_socket) {
  load::Config c = short_load(Transport::tcp, closed_port());
  c.rate = 0;
  const auto r = load::run(c);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().key, "--rate");  // not connect: nothing was tried
}

TEST(load, a_result_prints_as_text_and_json_with_lost_as_sent_minus_received) {
  load::Result r;
  r.sent = 10;
  r.received = 7;
  r.measured = 5;
  r.seconds = 1.25;
  r.p999_us = 12.3456;
  r.p25_us = 1.5;
  r.p75_us = 2.5;
  r.p90_us = 3.5;
  const std::string text = load::format_text(r);
  EXPECT_EQ(text.rfind("load sent=10 received=7 lost=3 measured=5 unexpected=0 seconds=1.250 ", 0),
            0U)
      << text;
  EXPECT_NE(text.find(" p99.9_us=12.346 "), std::string::npos) << text;
  EXPECT_NE(text.find(" p25_us=1.500 p50_us=0.000 p75_us=2.500 p90_us=3.500 p99_us="),
            std::string::npos)
      << text;
  const auto j = nlohmann::json::parse(load::format_json(r));
  EXPECT_EQ(j.at("lost"), 3);
  EXPECT_DOUBLE_EQ(j.at("p99.9_us").get<double>(), 12.346);
  EXPECT_DOUBLE_EQ(j.at("p90_us").get<double>(), 3.5);
  EXPECT_EQ(j.size(), 16U);
}

}  // namespace
}  // namespace irqmod::rt
