// The kernel's receive paths timed from the sender (calibrate.hpp, PathLab): the lab's two
// namespaces (lab.hpp) with, in the client namespace, lo and a tun device besides the veth end.
//
// Every path is driven by one UDP GSO sendmsg of N segments with software segmentation: the
// segments pass the device's xmit one after the other while bottom halves are off (inside
// __dev_queue_xmit), and the NET_RX softirq raised by the first runs once, at local_bh_enable,
// still inside the sender's system call, polling all N. Differences between paths and between
// two batch sizes then separate a poll's fixed part from its per-packet part
// (docs/calibration.md, "irqmod calibrate").
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/if_tun.h>
#include <linux/pkt_cls.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <sched.h>
#include <spawn.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <array>
#include <fstream>
#include <sstream>
#include <vector>

#include "calibrate_common.hpp"
#include "irqmod/rt/calibrate.hpp"
#include "irqmod/rt/lab.hpp"
#include "irqmod/rt/netns.hpp"
#include "irqmod/rt/proc_counters.hpp"

extern char** environ;

namespace irqmod::rt::calibrate {

using detail::Fd;
using detail::kArrivalTimeoutMs;
using detail::now_ns;
using detail::system_error;

namespace {

// The payload of one segment: sockperf's default message, as the model's ping-pong uses.
constexpr std::size_t kSegmentBytes = 64;
// UDP_MAX_SEGMENTS is 64 before Linux 6.x raised it to 128; veth's NAPI budget is 64.
constexpr std::size_t kMaxSegments = 64;
// The tun device (in the client namespace) and its point-to-point subnet, from RFC 2544's
// benchmarking range like the lab's own addresses.
constexpr const char* kTunDevice = "irqmodcal0";
constexpr const char* kTunAddress = "198.18.2.1";
constexpr const char* kTunPeer = "198.18.2.2";
// 32 sends, 0.05-0.7 ms, per block; the first 4 after another batch kind's block settle.
constexpr detail::Blocks kPathBlocks{32, 4};
// The destination port the tc ingress filters drop (discard's); lo's receiving socket has
// another, so the dropped and the delivered loopback paths pass the same filter.
constexpr std::uint16_t kDropPort = 9;
// tun queues up to tx_queue_len (500) packets for a reader that never comes; sending this many
// first makes every later segment a drop at the full ring, the state that is measured.
constexpr std::size_t kTunFill = 600;

// Runs a program found on PATH; an Error quotes the command and what it printed.
std::optional<Error> run(const std::vector<std::string>& argv) {
  std::string command;
  for (const std::string& word : argv)
    command += (command.empty() ? "" : " ") + word;
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return system_error("pipe");
  posix_spawn_file_actions_t actions;
  ::posix_spawn_file_actions_init(&actions);
  ::posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  ::posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);
  std::vector<char*> args;
  for (const std::string& word : argv)
    args.push_back(const_cast<char*>(word.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int spawned = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  ::posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  const Fd output_fd(pipe_fds[0]);
  if (spawned != 0) return Error{"", "cannot run `" + command + "`: " + std::strerror(spawned)};
  std::string output;
  std::array<char, 1024> chunk{};
  for (ssize_t n = 0; (n = ::read(output_fd.get(), chunk.data(), chunk.size())) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    output.append(chunk.data(), static_cast<std::size_t>(n));
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return std::nullopt;
  while (!output.empty() && output.back() == '\n')
    output.pop_back();
  return Error{"", "`" + command + "` failed: " + output};
}

// NET_RX softirqs counted so far on `cpu` (/proc/softirqs), 0 when it cannot be read.
std::uint64_t net_rx_softirqs(int cpu) {
  std::ifstream in("/proc/softirqs");
  std::stringstream text;
  text << in.rdbuf();
  const auto row = proc::parse_softirq_row(text.str(), "NET_RX");
  return cpu >= 0 && static_cast<std::size_t>(cpu) < row.size() ? row[cpu] : 0;
}

sockaddr_in ipv4(const char* address, std::uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  ::inet_pton(AF_INET, address, &a.sin_addr);
  return a;
}

std::uint32_t host_order(const char* address) {
  return ntohl(ipv4(address, 0).sin_addr.s_addr);
}

// A sending socket bound to `address` whose sends are cut into kSegmentBytes segments.
Expected<detail::UdpSocket> gso_sender(const char* address) {
  auto socket = detail::open_udp(false, host_order(address));
  if (!socket) return socket.error();
  const int segment = kSegmentBytes;
  if (::setsockopt(socket->fd.get(), SOL_UDP, UDP_SEGMENT, &segment, sizeof segment) != 0)
    return system_error("setsockopt(UDP_SEGMENT): UDP GSO (Linux 4.18)");
  return socket;
}

// A tun device in the calling thread's namespace, held by its file: removed when it closes.
// Checksum offload is announced (TUN_F_CSUM) because UDP GSO needs CHECKSUM_PARTIAL; UDP
// segmentation offload is not, so the kernel segments in software before tun's xmit.
Expected<Fd> open_tun() {
  Fd tun(::open("/dev/net/tun", O_RDWR | O_CLOEXEC));
  if (!tun.ok()) return system_error("open /dev/net/tun");
  ifreq request{};
  request.ifr_flags = IFF_TUN | IFF_NO_PI;
  std::strncpy(request.ifr_name, kTunDevice, IFNAMSIZ - 1);
  if (::ioctl(tun.get(), TUNSETIFF, &request) != 0) return system_error("TUNSETIFF");
  if (::ioctl(tun.get(), TUNSETOFFLOAD, static_cast<unsigned long>(TUN_F_CSUM)) != 0)
    return system_error("TUNSETOFFLOAD");
  return tun;
}

// A classic BPF program for cls_bpf in direct-action mode, in tc's `bytecode` notation, that
// drops UDP/IPv4 datagrams to kDropPort and passes everything else (ARP too, so the veth peer's
// address resolves). cls_bpf runs it at ingress with the 14-byte Ethernet header pushed back
// (lo and veth both have one), so the IP protocol is at 14 + 9 and the UDP destination port at
// 14 + 20 + 2 (no IP options: the kernel's own UDP sender writes none).
std::string port_drop_bytecode() {
  const auto instruction = [](unsigned code, unsigned jt, unsigned jf, unsigned k) {
    return std::to_string(code) + " " + std::to_string(jt) + " " + std::to_string(jf) + " " +
           std::to_string(k);
  };
  constexpr unsigned kProtocolOffset = 14 + 9;
  constexpr unsigned kPortOffset = 14 + 20 + 2;
  return "6," + instruction(BPF_LD | BPF_B | BPF_ABS, 0, 0, kProtocolOffset) + "," +
         instruction(BPF_JMP | BPF_JEQ | BPF_K, 0, 3, IPPROTO_UDP) + "," +
         instruction(BPF_LD | BPF_H | BPF_ABS, 0, 0, kPortOffset) + "," +
         instruction(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, kDropPort) + "," +
         instruction(BPF_RET | BPF_K, 0, 0, TC_ACT_SHOT) + "," +
         instruction(BPF_RET | BPF_K, 0, 0, TC_ACT_OK);
}

// The `tc` commands that attach the drop filter at `device`'s ingress.
std::vector<std::vector<std::string>> attach_drop_filter(const std::string& netns,
                                                         const char* device) {
  return {{"tc", "-n", netns, "qdisc", "add", "dev", device, "clsact"},
          {"tc", "-n", netns, "filter", "add", "dev", device, "ingress", "pref", "1", "handle", "1",
           "bpf", "da", "bytecode", port_drop_bytecode()}};
}

}  // namespace

const char* path_name(Path path) {
  switch (path) {
    case Path::tun:
      return "tun";
    case Path::loopback:
      return "loopback";
    case Path::loopback_dropped:
      return "loopback-dropped";
    case Path::veth_dropped:
      return "veth-dropped";
  }
  return "?";
}

struct PathLab::Sockets {
  Fd tun;  // holds the tun device
  detail::UdpSocket tun_sender;
  detail::UdpSocket loopback_sender;
  detail::UdpSocket loopback_receiver;
  detail::UdpSocket veth_sender;
  bool tun_filled = false;  // tun's queue is full
};

Expected<std::unique_ptr<PathLab>> PathLab::open() {
  if (::geteuid() != 0)
    return Error{"", "needs root: the paths are measured in network namespaces of their own"};
  std::unique_ptr<PathLab> self(new PathLab());
  lab::Config config;
  config.name = std::string(lab::kNamePrefix) + "-cal-" + std::to_string(::getpid());
  auto status = lab::up(config);
  self->name_ = config.name;  // from here the destructor removes the namespaces
  if (!status) return Error{"", "the lab: " + status.error().what()};
  const std::string client = lab::client_netns(config.name);
  const std::string server = lab::server_netns(config.name);
  auto sockets = std::make_unique<Sockets>();
  {
    NetnsGuard guard(client);
    if (guard.error()) return *guard.error();
    auto tun = open_tun();
    if (!tun) return tun.error();
    sockets->tun = std::move(tun.value());
  }
  const std::string tun_cidr = std::string(kTunAddress) + "/24";
  std::vector<std::vector<std::string>> steps{
      {"ip", "-n", client, "addr", "replace", tun_cidr, "dev", kTunDevice},
      {"ip", "-n", client, "link", "set", "dev", kTunDevice, "up"},
      {"ip", "netns", "exec", client, "ethtool", "-K", "lo", "tx-udp-segmentation", "off"},
      {"ip", "netns", "exec", client, "ethtool", "-K", lab::kClientDevice, "tx-udp-segmentation",
       "off"}};
  for (auto& step : attach_drop_filter(client, "lo"))
    steps.push_back(std::move(step));
  for (auto& step : attach_drop_filter(server, lab::kServerDevice))
    steps.push_back(std::move(step));
  for (const auto& step : steps)
    if (auto e = run(step)) return *e;
  {
    NetnsGuard guard(client);
    if (guard.error()) return *guard.error();
    auto tun_sender = gso_sender(kTunAddress);
    auto loopback_sender = gso_sender("127.0.0.1");
    auto loopback_receiver = detail::open_udp(true);
    auto veth_sender = gso_sender(lab::kClientAddress);
    for (const auto* s : {&tun_sender, &loopback_sender, &loopback_receiver, &veth_sender})
      if (!*s) return s->error();
    detail::raise_receive_buffer(loopback_receiver->fd.get(), 4 << 20);
    sockets->tun_sender = std::move(tun_sender.value());
    sockets->loopback_sender = std::move(loopback_sender.value());
    sockets->loopback_receiver = std::move(loopback_receiver.value());
    sockets->veth_sender = std::move(veth_sender.value());
  }
  self->sockets_ = std::move(sockets);
  return self;
}

PathLab::~PathLab() {
  sockets_.reset();  // closes the tun device's file, which removes it
  if (!name_.empty()) lab::down(name_);
}

namespace {

// One batch kind of a round: its socket, destination, payload and what reads it back.
struct Sender {
  const detail::UdpSocket* socket = nullptr;
  sockaddr_in to{};
  std::vector<char> payload;
  std::size_t delivered = 0;  // datagrams to read back after each send (0: none arrive)
};

}  // namespace

Expected<PathLab::PathSamples> PathLab::send(const Budget& budget,
                                             const std::vector<Batch>& batches) {
  Sockets& s = *sockets_;
  std::vector<Sender> senders;
  for (const Batch& b : batches) {
    if (b.segments < 1 || b.segments > kMaxSegments)
      return Error{"", std::to_string(b.segments) + " segments: allowed 1 to " +
                           std::to_string(kMaxSegments)};
    Sender sender;
    sender.payload.assign(b.segments * kSegmentBytes, 'x');
    switch (b.path) {
      case Path::tun:
        sender.socket = &s.tun_sender;
        sender.to = ipv4(kTunPeer, kDropPort);
        break;
      case Path::loopback:
        sender.socket = &s.loopback_sender;
        sender.to = s.loopback_receiver.address;
        sender.delivered = b.segments;
        break;
      case Path::loopback_dropped:
        sender.socket = &s.loopback_sender;
        sender.to = ipv4("127.0.0.1", kDropPort);
        break;
      case Path::veth_dropped:
        sender.socket = &s.veth_sender;
        sender.to = ipv4(lab::kServerAddress, kDropPort);
        break;
    }
    senders.push_back(std::move(sender));
  }
  const int receiver = s.loopback_receiver.fd.get();
  std::array<std::array<char, kSegmentBytes>, kMaxSegments> buffers{};
  std::array<iovec, kMaxSegments> parts{};
  std::array<mmsghdr, kMaxSegments> messages{};
  for (std::size_t i = 0; i < kMaxSegments; ++i) {
    parts[i] = iovec{buffers[i].data(), buffers[i].size()};
    messages[i].msg_hdr.msg_iov = &parts[i];
    messages[i].msg_hdr.msg_iovlen = 1;
  }
  const auto send_one = [](const Sender& sender) {
    return ::sendto(sender.socket->fd.get(), sender.payload.data(), sender.payload.size(), 0,
                    reinterpret_cast<const sockaddr*>(&sender.to),
                    sizeof sender.to) == static_cast<ssize_t>(sender.payload.size());
  };
  // Reads back what a delivered send queued, so the socket never fills.
  const auto drain = [&](const Sender& sender) {
    for (std::size_t got = 0; got < sender.delivered;) {
      const int n =
          ::recvmmsg(receiver, messages.data(), static_cast<unsigned>(sender.delivered - got),
                     MSG_DONTWAIT, nullptr);
      if (n > 0) {
        got += static_cast<std::size_t>(n);
      } else if ((n < 0 && errno != EAGAIN && errno != EINTR) ||
                 !detail::wait_readable(receiver, kArrivalTimeoutMs)) {
        return false;
      }
    }
    return true;
  };
  // The first send fills the tun's queue, so that every later segment is dropped at it.
  const sockaddr_in tun_peer = ipv4(kTunPeer, kDropPort);
  for (std::size_t i = 0; !s.tun_filled && i < kTunFill; ++i)
    if (::sendto(s.tun_sender.fd.get(), "x", 1, 0, reinterpret_cast<const sockaddr*>(&tun_peer),
                 sizeof tun_peer) < 0)
      return system_error("filling the tun device's queue: sendto");
  s.tun_filled = true;
  const int cpu = ::sched_getcpu();
  const std::uint64_t softirqs_before = net_rx_softirqs(cpu);
  const double clock = detail::clock_cost_ns();
  PathSamples out;
  out.per_batch.resize(batches.size());
  std::optional<Error> error;
  std::size_t sends = 0;
  detail::in_blocks(budget, senders.size(), kPathBlocks, [&](std::size_t i, bool keep) {
    const std::int64_t start = now_ns();
    const bool sent = send_one(senders[i]);
    const std::int64_t end = now_ns();
    if (!sent) {
      error = system_error(std::string(path_name(batches[i].path)) + ": sendto");
      return false;
    }
    if (!drain(senders[i])) {
      error = Error{"", "loopback: a batch was not delivered within 1 s"};
      return false;
    }
    sends += batches[i].path != Path::tun ? 1 : 0;
    if (keep) out.per_batch[i].push_back(detail::per_call(start, end, clock, 1));
    return true;
  });
  if (error) return *error;
  if (out.per_batch[0].empty()) return Error{"", "no sample within the time budget"};
  // Every send of a received batch (the warm-up's too) runs one NET_RX softirq if polled in it.
  const double softirqs = static_cast<double>(net_rx_softirqs(cpu) - softirqs_before);
  out.softirqs_per_send = sends ? softirqs / static_cast<double>(sends) : 0;
  return out;
}

}  // namespace irqmod::rt::calibrate
