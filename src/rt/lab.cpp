// The veth lab (lab.hpp): set up with iproute2 and ethtool, checked with a datagram and
// SO_INCOMING_NAPI_ID, its NAPI contexts read over netlink (netdev_netlink.hpp).
#include "irqmod/rt/lab.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/pkt_cls.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "irqmod/rt/netns.hpp"

namespace irqmod::rt::lab {
namespace {

// How long the NAPI check waits for its datagram: far above a veth round trip, short enough for
// a person at a terminal. It sends one datagram every kCheckRetryMs, so a lab with a loss filter
// (--loss P < 1) still passes unless all of them are dropped (P^20: 1e-14 at P = 0.2).
constexpr int kCheckTimeoutMs = 2000;
constexpr int kCheckRetryMs = 100;
// 2^32: the loss filter compares a uniform 32-bit random number with P * 2^32.
constexpr double kTwoTo32 = 4294967296.0;
// The longest lab name: `ip netns` names are file names, but keep them readable.
constexpr std::size_t kMaxNameLength = 48;

std::string errno_text(int err) {
  return std::strerror(err);
}

std::string join(const std::vector<std::string>& argv) {
  std::string text;
  for (const auto& a : argv)
    text += (text.empty() ? "" : " ") + a;
  return text;
}

struct CommandResult {
  int exit_status = 0;
  std::string output;  // stdout and stderr together
};

Error missing_program(const std::string& program) {
  return Error{"", program + " is not installed (not found on PATH); Debian's " +
                       (program == "ethtool" ? "ethtool" : "iproute2") +
                       " package has it, and scripts/install-deps.sh installs it"};
}

// Runs a program (found on PATH) and collects what it printed. Fails only when it cannot run.
Expected<CommandResult> run_command(const std::vector<std::string>& argv) {
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return Error{"", "pipe: " + errno_text(errno)};
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int err = errno;
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    return Error{"", "fork: " + errno_text(err)};
  }
  if (pid == 0) {
    ::dup2(pipe_fds[1], STDOUT_FILENO);
    ::dup2(pipe_fds[1], STDERR_FILENO);
    std::vector<char*> args;
    for (const auto& a : argv)
      args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    ::_exit(errno == ENOENT ? 127 : 126);
  }
  ::close(pipe_fds[1]);
  CommandResult result;
  std::array<char, 4096> chunk{};
  for (;;) {
    const ssize_t n = ::read(pipe_fds[0], chunk.data(), chunk.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    result.output.append(chunk.data(), static_cast<std::size_t>(n));
  }
  ::close(pipe_fds[0]);
  int wait_status = 0;
  while (::waitpid(pid, &wait_status, 0) < 0 && errno == EINTR) {
  }
  result.exit_status = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128;
  if (result.exit_status == 127) return missing_program(argv[0]);
  while (!result.output.empty() && result.output.back() == '\n')
    result.output.pop_back();
  return result;
}

// Runs a set-up step; a non-zero exit is an error quoting the command and what it said.
std::optional<Error> step(const std::vector<std::string>& argv) {
  const auto result = run_command(argv);
  if (!result) return result.error();
  if (result->exit_status == 0) return std::nullopt;
  // `ip netns exec NS PROGRAM` runs PROGRAM itself and says so when it cannot.
  if (argv.size() > 4 && argv[1] == "netns" && argv[2] == "exec" &&
      result->output.find("exec of \"" + argv[4] + "\" failed") != std::string::npos)
    return missing_program(argv[4]);
  if (result->output.find("qdisc kind is unknown") != std::string::npos)
    return Error{"--loss",
                 "this kernel has no clsact qdisc (`" + join(argv) +
                     "`: unknown qdisc kind); the loss filter needs CONFIG_NET_SCH_INGRESS "
                     "(modprobe sch_ingress)"};
  if (result->output.find("Unknown filter \"bpf\"") != std::string::npos ||
      result->output.find("filter kind is unknown") != std::string::npos)
    return Error{"--loss", "this system cannot attach a BPF classifier (`" + join(argv) +
                               "`: " + result->output +
                               "); the loss filter needs cls_bpf: CONFIG_NET_CLS_BPF (modprobe "
                               "cls_bpf) and an iproute2 tc built with it"};
  if (result->output.find("Unknown device type") != std::string::npos)
    return Error{"veth", "this kernel has no veth devices (`" + join(argv) +
                             "`: Unknown device type); load the module (modprobe veth) or build "
                             "the kernel with CONFIG_VETH"};
  return Error{"", "`" + join(argv) + "` failed (exit " + std::to_string(result->exit_status) +
                       "): " + result->output};
}

std::optional<Error> require_root() {
  if (::geteuid() == 0) return std::nullopt;
  return Error{"",
               "needs root: the lab's network namespaces and veth devices are made and "
               "entered with CAP_SYS_ADMIN and CAP_NET_ADMIN (run it with sudo)"};
}

// The loss filter of one end (docs/runtime.md "Faults"): a clsact qdisc whose egress hook runs
// loss_bytecode in cls_bpf's direct-action mode. Any clsact of the device is removed first (a lab
// device has no other), so `up` without --loss takes an earlier filter away.
std::optional<Error> set_loss(const std::string& netns, const char* device, double loss) {
  const auto shown = run_command({"tc", "-n", netns, "qdisc", "show", "dev", device});
  if (!shown) return shown.error();
  if (shown->output.find("qdisc clsact") != std::string::npos)
    if (auto e = step({"tc", "-n", netns, "qdisc", "del", "dev", device, "clsact"})) return e;
  const std::string program = loss_bytecode(loss);
  if (program.empty()) return std::nullopt;
  if (auto e = step({"tc", "-n", netns, "qdisc", "add", "dev", device, "clsact"})) return e;
  return step({"tc", "-n", netns, "filter", "add", "dev", device, "egress", "pref", "1", "handle",
               "1", "bpf", "da", "bytecode", program});
}

// The loss an end's egress filter drops with (0 when it has none, or tc cannot say).
double read_loss(const std::string& netns, const char* device) {
  const auto shown = run_command({"tc", "-n", netns, "filter", "show", "dev", device, "egress"});
  if (!shown || shown->exit_status != 0) return 0;
  return loss_from_tc_output(shown->output).value_or(0);
}

// The number after `key` in iproute2's detailed output ("numrxqueues 2").
unsigned number_after(std::string_view text, std::string_view key) {
  const auto at = text.find(key);
  if (at == std::string_view::npos) return 0;
  unsigned value = 0;
  const char* begin = text.data() + at + key.size();
  std::from_chars(begin, text.data() + text.size(), value);
  return value;
}

// The device's ifindex inside `netns`, or 0 when it is not there.
std::uint32_t ifindex_in(const std::string& netns, const char* device) {
  NetnsGuard guard(netns);
  if (guard.error()) return 0;
  return ::if_nametoindex(device);
}

std::optional<Device> find_device(const std::string& netns, const char* name, const char* address) {
  if (!netns_exists(netns)) return std::nullopt;
  const std::uint32_t ifindex = ifindex_in(netns, name);
  if (ifindex == 0) return std::nullopt;
  Device d{name, netns, std::string(address) + "/" + std::to_string(kPrefixLength), ifindex, 0, 0};
  const auto shown = run_command({"ip", "-n", netns, "-d", "-o", "link", "show", "dev", name});
  if (shown && shown->exit_status == 0) {
    d.rx_queues = number_after(shown->output, "numrxqueues ");
    d.tx_queues = number_after(shown->output, "numtxqueues ");
  }
  d.loss = read_loss(netns, name);
  return d;
}

// Sends one datagram from the client namespace to the server's address and returns the NAPI id
// the server's socket saw it arrive on (0: it came through no NAPI context).
Expected<std::uint32_t> check_napi_path(const std::string& name) {
  int receiver = -1;
  int sender = -1;
  sockaddr_in to{};
  to.sin_family = AF_INET;
  ::inet_pton(AF_INET, kServerAddress, &to.sin_addr);
  const auto close_both = [&] {
    if (receiver >= 0) ::close(receiver);
    if (sender >= 0) ::close(sender);
  };
  {
    NetnsGuard guard(server_netns(name));
    if (guard.error()) return *guard.error();
    receiver = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (receiver < 0) return Error{"", "socket: " + errno_text(errno)};
    if (::bind(receiver, reinterpret_cast<const sockaddr*>(&to), sizeof to) != 0) {
      const int err = errno;
      close_both();
      return Error{"", std::string("bind ") + kServerAddress + ": " + errno_text(err)};
    }
    socklen_t length = sizeof to;
    ::getsockname(receiver, reinterpret_cast<sockaddr*>(&to), &length);
    const timeval timeout{0, kCheckRetryMs * 1000};
    ::setsockopt(receiver, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  }
  {
    NetnsGuard guard(client_netns(name));
    if (guard.error()) {
      close_both();
      return *guard.error();
    }
    sender = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  }
  constexpr std::string_view kProbe = "irqmod lab: NAPI path check";
  std::array<char, 64> buffer{};
  ssize_t n = -1;
  int err = 0;
  for (int waited = 0; n < 0 && waited < kCheckTimeoutMs; waited += kCheckRetryMs) {
    if (sender < 0 || ::sendto(sender, kProbe.data(), kProbe.size(), 0,
                               reinterpret_cast<const sockaddr*>(&to), sizeof to) < 0) {
      err = errno;
      close_both();
      return Error{"", std::string("cannot send the check datagram to ") + kServerAddress + ": " +
                           errno_text(err)};
    }
    do {
      n = ::recv(receiver, buffer.data(), buffer.size(), 0);
    } while (n < 0 && errno == EINTR);
    err = errno;
  }
  if (n < 0) {
    close_both();
    return Error{"", "no check datagram arrived within " + std::to_string(kCheckTimeoutMs) +
                         " ms (one sent every " + std::to_string(kCheckRetryMs) +
                         " ms): " + errno_text(err)};
  }
  std::uint32_t napi_id = 0;
  socklen_t length = sizeof napi_id;
  const int got = ::getsockopt(receiver, SOL_SOCKET, SO_INCOMING_NAPI_ID, &napi_id, &length);
  err = errno;
  close_both();
  if (got != 0) return Error{"", "SO_INCOMING_NAPI_ID: " + errno_text(err)};
  return napi_id;
}

std::optional<Error> configure_end(const std::string& netns, const char* device,
                                   const char* address, const Config& config) {
  const std::string cidr = std::string(address) + "/" + std::to_string(kPrefixLength);
  if (auto e = step({"ip", "-n", netns, "addr", "replace", cidr, "dev", device})) return e;
  if (auto e = step({"ip", "-n", netns, "link", "set", "dev", device, "up"})) return e;
  if (auto e = step({"ip", "-n", netns, "link", "set", "dev", "lo", "up"})) return e;
  // TSO/GSO off makes this end's frames eligible for the peer's GRO; GRO on gives this end's
  // Rx queues their NAPI contexts (veth_set_features -> veth_napi_enable).
  if (auto e = step({"ip", "netns", "exec", netns, "ethtool", "-K", device, "tso", "off", "gso",
                     "off", "gro", "on"}))
    return e;
  // /sys/class/net shows the namespace's own devices only under `ip netns exec`, which mounts
  // a sysfs of that namespace.
  const std::string write = std::string("echo ") + (config.threaded ? "1" : "0") +
                            " > /sys/class/net/" + device + "/threaded";
  return step({"ip", "netns", "exec", netns, "sh", "-c", write});
}

std::optional<Error> pin_napi_threads(const std::string& netns, unsigned cpu) {
  NetnsGuard guard(netns);
  if (guard.error()) return guard.error();
  const auto napis = netdev::list_napis(::if_nametoindex(kServerDevice));
  if (!napis) return napis.error();
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  for (const auto& napi : *napis) {
    if (!napi.pid) continue;
    if (::sched_setaffinity(static_cast<pid_t>(*napi.pid), sizeof set, &set) != 0)
      return Error{"--napi-cpu", "cannot pin NAPI " + std::to_string(napi.id) + "'s thread " +
                                     std::to_string(*napi.pid) + ": " + errno_text(errno)};
  }
  return std::nullopt;
}

// A JSON string's body: quotes, backslashes and control characters escaped.
std::string json_escape(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

// A probability with enough digits to tell 2^-32 steps apart.
std::string format_probability(double p) {
  std::array<char, 32> text{};
  std::snprintf(text.data(), text.size(), "%.10g", p);
  return text.data();
}

void append_optional(std::string& out, const char* key, const std::optional<std::uint64_t>& v) {
  out += std::string(", \"") + key + "\": " + (v ? std::to_string(*v) : "null");
}

}  // namespace

std::string server_netns(const std::string& name) {
  return name + "-srv";
}
std::string client_netns(const std::string& name) {
  return name + "-cli";
}

Expected<double> parse_loss(const std::string& text) {
  const Error bad{"--loss", "'" + text +
                                "': a probability from 0 to 1 (the fraction of packets to drop, "
                                "e.g. 0.2)"};
  // Decimal only: strtod would also take hexadecimal ("0x1"), "inf" and "nan".
  if (text.empty() || text.find_first_not_of("0123456789.eE+-") != std::string::npos) return bad;
  char* end = nullptr;
  errno = 0;
  const double p = std::strtod(text.c_str(), &end);
  if (errno != 0 || end != text.c_str() + text.size() || !std::isfinite(p) || p < 0 || p > 1)
    return bad;
  return p;
}

std::string loss_bytecode(double loss) {
  const auto instruction = [](unsigned code, unsigned jt, unsigned jf, std::uint32_t k) {
    return std::to_string(code) + " " + std::to_string(jt) + " " + std::to_string(jf) + " " +
           std::to_string(k);
  };
  const std::string drop = instruction(BPF_RET | BPF_K, 0, 0, TC_ACT_SHOT);
  const double threshold = std::round(loss * kTwoTo32);
  if (!(threshold >= 1)) return "";  // 0, or below the program's resolution of 2^-32
  if (threshold >= kTwoTo32) return "1," + drop;
  // A = random; if A >= threshold skip the drop.
  const auto random = static_cast<std::uint32_t>(SKF_AD_OFF + SKF_AD_RANDOM);
  return "4," + instruction(BPF_LD | BPF_W | BPF_ABS, 0, 0, random) + "," +
         instruction(BPF_JMP | BPF_JGE | BPF_K, 1, 0, static_cast<std::uint32_t>(threshold)) + "," +
         drop + "," + instruction(BPF_RET | BPF_K, 0, 0, TC_ACT_OK);
}

std::optional<double> loss_from_tc_output(const std::string& tc_output) {
  constexpr std::string_view kKey = "bytecode '";
  const auto at = tc_output.find(kKey);
  if (at == std::string::npos) return std::nullopt;
  const auto begin = at + kKey.size();
  const auto end = tc_output.find('\'', begin);
  if (end == std::string::npos) return std::nullopt;
  const std::string program = tc_output.substr(begin, end - begin);
  if (program == loss_bytecode(1)) return 1.0;
  // The threshold is the jump's k; the program must be exactly what loss_bytecode makes of it.
  const std::string jump = std::to_string(BPF_JMP | BPF_JGE | BPF_K) + " 1 0 ";
  const auto jump_at = program.find(jump);
  if (jump_at == std::string::npos) return std::nullopt;
  std::uint32_t threshold = 0;
  const char* first = program.data() + jump_at + jump.size();
  if (std::from_chars(first, program.data() + program.size(), threshold).ec != std::errc{})
    return std::nullopt;
  const double loss = threshold / kTwoTo32;
  if (loss_bytecode(loss) != program) return std::nullopt;
  return loss;
}

std::optional<Error> validate(const Config& config) {
  const std::string& n = config.name;
  const bool allowed_chars =
      n.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") == std::string::npos;
  if (n.rfind(kNamePrefix, 0) != 0 || n.size() > kMaxNameLength || !allowed_chars)
    return Error{"--name", "'" + n + "': a lab's name starts with '" + kNamePrefix +
                               "' and has at most " + std::to_string(kMaxNameLength) +
                               " of a-z, 0-9 and '-'"};
  if (config.queues < 1 || config.queues > kMaxQueues)
    return Error{"--queues",
                 std::to_string(config.queues) + ": allowed 1 to " + std::to_string(kMaxQueues)};
  if (!(config.loss >= 0 && config.loss <= 1))
    return Error{"--loss", std::to_string(config.loss) + ": a probability from 0 to 1"};
  if (config.napi_cpu) {
    if (!config.threaded)
      return Error{"--napi-cpu", "pins the NAPI threads, so it needs --threaded"};
    const long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus > 0 && *config.napi_cpu >= static_cast<unsigned long>(cpus))
      return Error{"--napi-cpu", std::to_string(*config.napi_cpu) +
                                     ": this machine has CPUs 0 to " + std::to_string(cpus - 1)};
  }
  return std::nullopt;
}

Expected<Status> up(const Config& config) {
  if (auto e = validate(config)) return *e;
  if (auto e = require_root()) return *e;
  const std::string srv = server_netns(config.name);
  const std::string cli = client_netns(config.name);
  // A set-up step that fails takes back the namespaces this call made (and the pair inside
  // them), so a failed first `up` leaves nothing behind; a lab that was there before is left.
  std::vector<std::string> created;
  const auto undo = [&created](Error e) {
    for (const auto& ns : created)
      step({"ip", "netns", "del", ns});
    return e;
  };
  for (const auto& ns : {srv, cli})
    if (!netns_exists(ns)) {
      if (auto e = step({"ip", "netns", "add", ns})) return undo(*e);
      created.push_back(ns);
    }

  // A pair with other queue counts, or half a pair, is replaced.
  const auto server = find_device(srv, kServerDevice, kServerAddress);
  const auto client = find_device(cli, kClientDevice, kClientAddress);
  const auto fits = [&](const std::optional<Device>& d) {
    return d && d->rx_queues == config.queues && d->tx_queues == config.queues;
  };
  if (!fits(server) || !fits(client)) {
    if (server) step({"ip", "-n", srv, "link", "del", "dev", kServerDevice});
    if (client) step({"ip", "-n", cli, "link", "del", "dev", kClientDevice});
    const std::string q = std::to_string(config.queues);
    if (auto e = step({"ip",
                       "-n",
                       srv,
                       "link",
                       "add",
                       "name",
                       kServerDevice,
                       "numtxqueues",
                       q,
                       "numrxqueues",
                       q,
                       "type",
                       "veth",
                       "peer",
                       "name",
                       kClientDevice,
                       "netns",
                       cli,
                       "numtxqueues",
                       q,
                       "numrxqueues",
                       q}))
      return undo(*e);
  }
  if (auto e = configure_end(srv, kServerDevice, kServerAddress, config)) return undo(*e);
  if (auto e = configure_end(cli, kClientDevice, kClientAddress, config)) return undo(*e);
  // No loss during the check below; the filter (if asked) comes after it.
  if (auto e = set_loss(srv, kServerDevice, 0)) return undo(*e);
  if (auto e = set_loss(cli, kClientDevice, 0)) return undo(*e);
  if (config.napi_cpu)
    if (auto e = pin_napi_threads(srv, *config.napi_cpu)) return undo(*e);

  // From here the lab is complete; a failed check leaves it for a look (the message says how
  // to remove it).
  auto s = status(config.name);
  if (!s) return s;
  if (s->socket_napi_id == 0)
    return Error{"", "'" + config.name +
                         "' is up but the check datagram arrived through no "
                         "NAPI context (SO_INCOMING_NAPI_ID 0" +
                         (s->check_note.empty() ? "" : ": " + s->check_note) +
                         "); GRO must be on at veth-srv and TSO/GSO off at veth-cli. "
                         "`irqmod lab down` removes it"};
  if (config.loss > 0) {
    // A failure here leaves the lab up, without the filter, as a failed check does.
    if (auto e = set_loss(srv, kServerDevice, config.loss)) return *e;
    if (auto e = set_loss(cli, kClientDevice, config.loss)) return *e;
    for (Device& d : s.value().devices)
      d.loss = read_loss(d.netns, d.name.c_str());
  }
  return s;
}

std::optional<Error> down(const std::string& name) {
  Config config;
  config.name = name;
  if (auto e = validate(config)) return e;
  if (auto e = require_root()) return e;
  for (const auto& ns : {server_netns(name), client_netns(name)})
    if (netns_exists(ns))
      if (auto e = step({"ip", "netns", "del", ns})) return e;
  return std::nullopt;
}

Expected<Status> status(const std::string& name) {
  Config config;
  config.name = name;
  if (auto e = validate(config)) return *e;
  // Looking inside the namespaces takes setns (CAP_SYS_ADMIN); without it every device would
  // seem absent and a lab that is up would read "not up".
  if (auto e = require_root()) return *e;
  Status s;
  s.name = name;
  s.server_netns = netns_exists(server_netns(name));
  s.client_netns = netns_exists(client_netns(name));
  if (auto d = find_device(server_netns(name), kServerDevice, kServerAddress))
    s.devices.push_back(*d);
  if (auto d = find_device(client_netns(name), kClientDevice, kClientAddress))
    s.devices.push_back(*d);
  if (!s.up()) {
    s.check_note = "the lab is not up";
    return s;
  }
  {
    NetnsGuard guard(server_netns(name));
    if (guard.error()) return *guard.error();
    auto napis = netdev::list_napis();
    if (napis)
      s.napis = std::move(napis.value());
    else
      s.check_note = napis.error().what();
  }
  const auto id = check_napi_path(name);
  if (id) {
    s.socket_napi_id = *id;
  } else {
    s.check_note = id.error().what();
    for (const Device& d : s.devices)
      if (d.name == kClientDevice && d.loss > 0)
        s.check_note += "; " + std::string(kClientDevice) + "'s loss filter drops " +
                        format_probability(d.loss) +
                        " of its packets (`lab up` without --loss removes it)";
  }
  return s;
}

std::string status_json(const Status& s) {
  std::string out = "{\"lab\": \"" + s.name + "\", \"up\": " + (s.up() ? "true" : "false");
  out += ", \"server_netns\": \"" + server_netns(s.name) + "\"";
  out += ", \"client_netns\": \"" + client_netns(s.name) + "\"";
  out += std::string(", \"server_address\": \"") + kServerAddress + "\"";
  out += std::string(", \"client_address\": \"") + kClientAddress + "\"";
  out += ", \"devices\": [";
  for (std::size_t i = 0; i < s.devices.size(); ++i) {
    const Device& d = s.devices[i];
    out += std::string(i ? ", " : "") + "{\"name\": \"" + d.name + "\", \"netns\": \"" + d.netns +
           "\", \"ifindex\": " + std::to_string(d.ifindex) + ", \"address\": \"" + d.address +
           "\", \"rx_queues\": " + std::to_string(d.rx_queues) +
           ", \"tx_queues\": " + std::to_string(d.tx_queues) +
           ", \"loss\": " + format_probability(d.loss) + "}";
  }
  out += "], \"napis\": [";
  for (std::size_t i = 0; i < s.napis.size(); ++i) {
    const netdev::Napi& n = s.napis[i];
    out += std::string(i ? ", " : "") + "{\"id\": " + std::to_string(n.id) +
           ", \"ifindex\": " + std::to_string(n.ifindex);
    append_optional(out, "pid", n.pid);
    append_optional(out, "threaded", n.threaded);
    out += "}";
  }
  out += "], \"socket_napi_id\": " + std::to_string(s.socket_napi_id);
  out += ", \"note\": \"" + json_escape(s.check_note) + "\"}";
  return out;
}

}  // namespace irqmod::rt::lab
