// Messages over loopback (calibrate.hpp): UDP with sendto/recvfrom or sendmsg/recvmsg, and TCP,
// per message size. Each iteration times the send alone, then the receive alone of the message
// the send queued; the wait between them is not timed.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <variant>
#include <vector>

#include "calibrate_common.hpp"
#include "irqmod/rt/calibrate.hpp"

namespace irqmod::rt::calibrate {
namespace {

using detail::Fd;
using detail::now_ns;
using detail::system_error;

using detail::kArrivalTimeoutMs;
// The largest UDP payload over IPv4 (65535 - 8 - 20) and the largest TCP message measured.
constexpr std::size_t kMaxUdpSize = 65507;
constexpr std::size_t kMaxTcpSize = 1 << 20;
// Receive buffers far above one message of the largest size, so none is dropped.
constexpr int kReceiveBufferBytes = 4 << 20;

// 32 messages, 0.1-0.2 ms, per block; the first 4 after another exchange's block settle.
constexpr detail::Blocks kMessageBlocks{32, 4};

// A message header for one buffer, without an address.
msghdr one_buffer(iovec& part) {
  msghdr message{};
  message.msg_iov = &part;
  message.msg_iovlen = 1;
  return message;
}

class UdpExchange {
 public:
  UdpExchange(detail::UdpSocket sender, detail::UdpSocket receiver, std::size_t size,
              MessageApi api)
      : sender_(std::move(sender)),
        receiver_(std::move(receiver)),
        payload_(size, 'x'),
        buffer_(size),
        api_(api) {}

  bool send() {
    const auto* to = reinterpret_cast<const sockaddr*>(&receiver_.address);
    if (api_ == MessageApi::sendto_recvfrom)
      return ::sendto(sender_.fd.get(), payload_.data(), payload_.size(), 0, to,
                      sizeof receiver_.address) == static_cast<ssize_t>(payload_.size());
    iovec part{payload_.data(), payload_.size()};
    msghdr message = one_buffer(part);
    message.msg_name = &receiver_.address;
    message.msg_namelen = sizeof receiver_.address;
    return ::sendmsg(sender_.fd.get(), &message, 0) == static_cast<ssize_t>(payload_.size());
  }

  bool await() { return detail::wait_readable(receiver_.fd.get(), kArrivalTimeoutMs); }

  bool receive() {
    if (api_ == MessageApi::sendto_recvfrom)
      return ::recvfrom(receiver_.fd.get(), buffer_.data(), buffer_.size(), 0, nullptr, nullptr) ==
             static_cast<ssize_t>(buffer_.size());
    iovec part{buffer_.data(), buffer_.size()};
    msghdr message = one_buffer(part);
    return ::recvmsg(receiver_.fd.get(), &message, 0) == static_cast<ssize_t>(buffer_.size());
  }

 private:
  detail::UdpSocket sender_;
  detail::UdpSocket receiver_;
  std::vector<char> payload_;
  std::vector<char> buffer_;
  MessageApi api_;
};

class TcpExchange {
 public:
  TcpExchange(Fd client, Fd server, std::size_t size, MessageApi api)
      : client_(std::move(client)),
        server_(std::move(server)),
        payload_(size, 'x'),
        buffer_(size),
        api_(api) {}

  bool send() {
    for (std::size_t sent = 0; sent < payload_.size();) {
      const ssize_t n = send_some(payload_.data() + sent, payload_.size() - sent);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      sent += static_cast<std::size_t>(n);
    }
    return true;
  }

  bool await() {
    const std::int64_t give_up = now_ns() + std::int64_t{kArrivalTimeoutMs} * 1'000'000;
    for (;;) {
      int queued = 0;
      if (::ioctl(server_.get(), FIONREAD, &queued) != 0) return false;
      if (static_cast<std::size_t>(queued) >= buffer_.size()) return true;
      if (now_ns() > give_up || !detail::wait_readable(server_.get(), kArrivalTimeoutMs))
        return false;
    }
  }

  bool receive() {
    for (std::size_t got = 0; got < buffer_.size();) {
      const ssize_t n = receive_some(buffer_.data() + got, buffer_.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      got += static_cast<std::size_t>(n);
    }
    return true;
  }

 private:
  ssize_t send_some(const char* data, std::size_t length) {
    if (api_ == MessageApi::sendto_recvfrom) return ::send(client_.get(), data, length, 0);
    iovec part{const_cast<char*>(data), length};
    const msghdr message = one_buffer(part);
    return ::sendmsg(client_.get(), &message, 0);
  }

  ssize_t receive_some(char* data, std::size_t length) {
    if (api_ == MessageApi::sendto_recvfrom)
      return ::recv(server_.get(), data, length, MSG_DONTWAIT);
    iovec part{data, length};
    msghdr message = one_buffer(part);
    return ::recvmsg(server_.get(), &message, MSG_DONTWAIT);
  }

  Fd client_;
  Fd server_;
  std::vector<char> payload_;
  std::vector<char> buffer_;
  MessageApi api_;
};

// A connected pair over 127.0.0.1: {client, the server's accepted socket}.
Expected<std::pair<Fd, Fd>> tcp_pair() {
  Fd listener(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!listener.ok()) return system_error("socket(AF_INET, SOCK_STREAM)");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (::bind(listener.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0 ||
      ::listen(listener.get(), 1) != 0 ||
      ::getsockname(listener.get(), reinterpret_cast<sockaddr*>(&address), &length) != 0)
    return system_error("listening on 127.0.0.1");
  Fd client(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!client.ok()) return system_error("socket(AF_INET, SOCK_STREAM)");
  if (::connect(client.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0)
    return system_error("connect to 127.0.0.1");
  Fd server(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
  if (!server.ok()) return system_error("accept");
  const int on = 1;
  ::setsockopt(client.get(), IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
  ::setsockopt(server.get(), IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
  detail::raise_receive_buffer(server.get(), kReceiveBufferBytes);
  return std::pair{std::move(client), std::move(server)};
}

using AnyExchange = std::variant<UdpExchange, TcpExchange>;

Expected<AnyExchange> open_exchange(const Message& m) {
  if (!m.tcp) {
    if (m.size < 1 || m.size > kMaxUdpSize)
      return Error{"", "a UDP message of " + std::to_string(m.size) + " bytes: allowed 1 to " +
                           std::to_string(kMaxUdpSize)};
    auto sender = detail::open_udp(false);
    if (!sender) return sender.error();
    auto receiver = detail::open_udp(true);
    if (!receiver) return receiver.error();
    detail::raise_receive_buffer(receiver->fd.get(), kReceiveBufferBytes);
    return AnyExchange(std::in_place_type<UdpExchange>, std::move(sender.value()),
                       std::move(receiver.value()), m.size, m.api);
  }
  if (m.size < 1 || m.size > kMaxTcpSize)
    return Error{"", "a TCP message of " + std::to_string(m.size) + " bytes: allowed 1 to " +
                         std::to_string(kMaxTcpSize)};
  auto pair = tcp_pair();
  if (!pair) return pair.error();
  auto& [client, server] = pair.value();
  return AnyExchange(std::in_place_type<TcpExchange>, std::move(client), std::move(server), m.size,
                     m.api);
}

// One exchange's send and receive, timed separately; the wait between them is not. False when
// a message was not sent or not received.
bool sample(AnyExchange& any, double clock, MessageSamples& out) {
  return std::visit(
      [&](auto& exchange) {
        const std::int64_t send_start = now_ns();
        const bool sent = exchange.send();
        const std::int64_t send_end = now_ns();
        if (!sent || !exchange.await()) return false;
        const std::int64_t receive_start = now_ns();
        const bool received = exchange.receive();
        const std::int64_t receive_end = now_ns();
        if (!received) return false;
        out.send.push_back(detail::per_call(send_start, send_end, clock, 1));
        out.receive.push_back(detail::per_call(receive_start, receive_end, clock, 1));
        return true;
      },
      any);
}

}  // namespace

std::vector<Expected<MessageSamples>> messages_in_blocks(const Budget& budget,
                                                         const std::vector<Message>& messages) {
  std::vector<Expected<MessageSamples>> out;
  std::vector<AnyExchange> exchanges;
  std::vector<std::size_t> slot;  // out's index of each exchange
  for (const Message& m : messages) {
    auto opened = open_exchange(m);
    if (!opened) {
      out.emplace_back(opened.error());
      continue;
    }
    slot.push_back(out.size());
    exchanges.push_back(std::move(opened.value()));
    out.emplace_back(MessageSamples{});
  }
  std::vector<MessageSamples> samples(exchanges.size());
  std::vector<bool> failed(exchanges.size(), false);
  const double clock = detail::clock_cost_ns();
  detail::in_blocks(budget, exchanges.size(), kMessageBlocks, [&](std::size_t e, bool keep) {
    MessageSamples discarded;
    failed[e] = !sample(exchanges[e], clock, keep ? samples[e] : discarded);
    return !failed[e];
  });
  for (std::size_t e = 0; e < exchanges.size(); ++e) {
    const Message& m = messages[slot[e]];  // out has one entry per message, in order
    const std::string what = std::string(m.tcp ? "TCP" : "UDP") + " over loopback";
    if (failed[e])
      out[slot[e]] = Error{"", what + ": a message was not sent or not received within 1 s"};
    else if (samples[e].send.empty())
      out[slot[e]] = Error{"", "no sample within the time budget"};
    else
      out[slot[e]] = std::move(samples[e]);
  }
  return out;
}

Expected<MessageSamples> udp_loopback(const Budget& budget, std::size_t size, MessageApi api) {
  return std::move(messages_in_blocks(budget, {Message{false, api, size}})[0]);
}

Expected<MessageSamples> tcp_loopback(const Budget& budget, std::size_t size, MessageApi api) {
  return std::move(messages_in_blocks(budget, {Message{true, api, size}})[0]);
}

}  // namespace irqmod::rt::calibrate
