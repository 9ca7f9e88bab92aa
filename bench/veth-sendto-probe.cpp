// bench/veth-sendto-probe.cpp — built and run by bench/veth-sendto.sh: how long a 64 B UDP sendto
// over the lab's veth takes the sender, by what the receiving socket's reader is doing on the
// other CPU. `reader CPU MODE SECONDS` binds UDP port 9000 and, for SECONDS, either drains the
// socket every 5 ms (drain: nobody waits on it, the sender's softirq wakes no one; drain-connected:
// the same, the socket connected to the sender's 198.18.0.1:9001, so that the receive finds it by
// early demux and takes its cached route instead of looking one up), spins on
// non-blocking recv (spin: the socket's lines move between the CPUs, nobody is woken), or blocks
// in epoll_wait (epoll: each datagram wakes it, its CPU idle between them). `sender CPU COUNT
// GAP_NS ADDRESS` sends COUNT datagrams GAP_NS apart (spinning between them) and prints the
// sendto's p10/p50/p90 and mean, each timed with CLOCK_MONOTONIC around the call: the send path,
// veth_xmit and the peer's NAPI poll in the sendto's softirq, the receive stack and the wake-up.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

namespace {

constexpr std::uint16_t kPort = 9000;

std::int64_t now_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1'000'000'000LL + t.tv_nsec;
}

bool pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return sched_setaffinity(0, sizeof set, &set) == 0;
}

int reader(std::string_view mode, double seconds) {
  const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
  const int rcvbuf = 4 << 20;
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(kPort);
  address.sin_addr.s_addr = htonl(INADDR_ANY);
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    std::perror("veth-sendto-probe reader: socket/bind");
    return 1;
  }
  if (mode == "drain-connected") {
    sockaddr_in peer{};
    peer.sin_family = AF_INET;
    peer.sin_port = htons(kPort + 1);
    inet_pton(AF_INET, "198.18.0.1", &peer.sin_addr);
    if (connect(fd, reinterpret_cast<sockaddr*>(&peer), sizeof peer) != 0) {
      std::perror("veth-sendto-probe reader: connect");
      return 1;
    }
  }
  const int ep = epoll_create1(0);
  epoll_event interest{};
  interest.events = EPOLLIN;
  epoll_ctl(ep, EPOLL_CTL_ADD, fd, &interest);
  char buffer[2048];
  long received = 0;
  const auto drain = [&] {
    while (recv(fd, buffer, sizeof buffer, 0) > 0)
      ++received;
  };
  const std::int64_t end = now_ns() + static_cast<std::int64_t>(seconds * 1e9);
  while (now_ns() < end) {
    if (mode == "drain" || mode == "drain-connected") {
      const timespec pause{0, 5'000'000};
      nanosleep(&pause, nullptr);
      drain();
    } else if (mode == "spin") {
      drain();
    } else {
      epoll_event ready{};
      if (epoll_wait(ep, &ready, 1, 100) > 0) drain();
    }
  }
  std::fprintf(stderr, "veth-sendto-probe reader (%.*s): %ld datagrams\n",
               static_cast<int>(mode.size()), mode.data(), received);
  return 0;
}

int sender(long count, std::int64_t gap_ns, const char* to) {
  const int fd = socket(AF_INET, SOCK_DGRAM, 0);
  sockaddr_in source{};  // a fixed port, which drain-connected's reader connects to
  source.sin_family = AF_INET;
  source.sin_port = htons(kPort + 1);
  source.sin_addr.s_addr = htonl(INADDR_ANY);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(kPort);
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&source), sizeof source) != 0 ||
      inet_pton(AF_INET, to, &address.sin_addr) != 1) {
    std::fprintf(stderr, "veth-sendto-probe sender: socket, or '%s' is not an IPv4 address\n", to);
    return 2;
  }
  char message[64] = {};
  std::vector<std::int64_t> took;
  took.reserve(static_cast<std::size_t>(count));
  std::int64_t next = now_ns();
  for (long i = 0; i < count; ++i) {
    while (now_ns() < next) {
    }
    const std::int64_t before = now_ns();
    sendto(fd, message, sizeof message, 0, reinterpret_cast<sockaddr*>(&address), sizeof address);
    took.push_back(now_ns() - before);
    next += gap_ns;
  }
  std::sort(took.begin(), took.end());
  double mean = 0;
  for (const std::int64_t t : took)
    mean += static_cast<double>(t);
  mean /= static_cast<double>(took.size());
  const auto at = [&](double p) {
    return static_cast<double>(
               took[static_cast<std::size_t>(p * static_cast<double>(took.size() - 1))]) /
           1e3;
  };
  std::printf("sendto: n %ld p10 %.2f p50 %.2f p90 %.2f mean %.2f us\n", count, at(0.1), at(0.5),
              at(0.9), mean / 1e3);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string_view usage =
      "usage: veth-sendto-probe reader CPU drain|drain-connected|spin|epoll SECONDS | sender CPU "
      "COUNT GAP_NS ADDRESS\n";
  if (argc < 2) {
    std::fputs(usage.data(), stderr);
    return 2;
  }
  const std::string_view role = argv[1];
  if (role == "reader" && argc == 5) {
    const std::string_view mode = argv[3];
    if ((mode != "drain" && mode != "drain-connected" && mode != "spin" && mode != "epoll") ||
        !pin(std::atoi(argv[2]))) {
      std::fputs(usage.data(), stderr);
      return 2;
    }
    return reader(mode, std::atof(argv[4]));
  }
  if (role == "sender" && argc == 6) {
    const long count = std::atol(argv[3]);
    if (count < 1 || !pin(std::atoi(argv[2]))) {
      std::fputs(usage.data(), stderr);
      return 2;
    }
    return sender(count, std::atoll(argv[4]), argv[5]);
  }
  std::fputs(usage.data(), stderr);
  return 2;
}
