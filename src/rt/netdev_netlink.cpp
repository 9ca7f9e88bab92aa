// napi-get / napi-set over the netdev generic-netlink family, with libmnl (netdev_netlink.hpp).
#include "irqmod/rt/netdev_netlink.hpp"

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <sys/utsname.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <ctime>
#include <memory>
#include <tuple>
#include <vector>

namespace irqmod::rt::netdev {
namespace {

// The netdev family's numbers. Debian 12's kernel headers (6.1) predate <linux/netdev.h>, so the
// ones used here are written out from include/uapi/linux/netdev.h (generated from
// Documentation/netlink/specs/netdev.yaml), as of Linux 6.17; the enums only ever grow.
constexpr const char* kFamilyName = "netdev";  // NETDEV_FAMILY_NAME
constexpr std::uint8_t kFamilyVersion = 1;     // NETDEV_FAMILY_VERSION
constexpr std::uint8_t kCmdQueueGet = 10;      // NETDEV_CMD_QUEUE_GET (6.8)
constexpr std::uint8_t kCmdNapiGet = 11;       // NETDEV_CMD_NAPI_GET (6.8)
constexpr std::uint8_t kCmdQstatsGet = 12;     // NETDEV_CMD_QSTATS_GET (6.9)
constexpr std::uint8_t kCmdNapiSet = 14;       // NETDEV_CMD_NAPI_SET (6.13)
enum NapiAttr : std::uint16_t {
  kAttrIfindex = 1,            // NETDEV_A_NAPI_IFINDEX, u32
  kAttrId = 2,                 // NETDEV_A_NAPI_ID, u32
  kAttrIrq = 3,                // NETDEV_A_NAPI_IRQ, u32
  kAttrPid = 4,                // NETDEV_A_NAPI_PID, u32
  kAttrDeferHardIrqs = 5,      // NETDEV_A_NAPI_DEFER_HARD_IRQS, u32 (6.13)
  kAttrGroFlushTimeout = 6,    // NETDEV_A_NAPI_GRO_FLUSH_TIMEOUT, uint (6.13)
  kAttrIrqSuspendTimeout = 7,  // NETDEV_A_NAPI_IRQ_SUSPEND_TIMEOUT, uint (6.13)
  kAttrThreaded = 8,           // NETDEV_A_NAPI_THREADED, u32 enum napi-threaded (6.17)
};

enum QueueAttr : std::uint16_t {
  kQueueAttrId = 1,       // NETDEV_A_QUEUE_ID, u32
  kQueueAttrIfindex = 2,  // NETDEV_A_QUEUE_IFINDEX, u32
  kQueueAttrType = 3,     // NETDEV_A_QUEUE_TYPE, u32 enum queue-type
  kQueueAttrNapiId = 4,   // NETDEV_A_QUEUE_NAPI_ID, u32
};
enum QstatsAttr : std::uint16_t {
  kQstatsAttrIfindex = 1,     // NETDEV_A_QSTATS_IFINDEX, u32
  kQstatsAttrQueueType = 2,   // NETDEV_A_QSTATS_QUEUE_TYPE, u32 enum queue-type
  kQstatsAttrQueueId = 3,     // NETDEV_A_QSTATS_QUEUE_ID, u32
  kQstatsAttrScope = 4,       // NETDEV_A_QSTATS_SCOPE, uint flags qstats-scope
  kQstatsAttrRxPackets = 8,   // NETDEV_A_QSTATS_RX_PACKETS, uint
  kQstatsAttrRxBytes = 9,     // NETDEV_A_QSTATS_RX_BYTES, uint
  kQstatsAttrTxPackets = 10,  // NETDEV_A_QSTATS_TX_PACKETS, uint
  kQstatsAttrTxBytes = 11,    // NETDEV_A_QSTATS_TX_BYTES, uint
};
constexpr std::uint32_t kQstatsScopeQueue = 1;  // NETDEV_QSTATS_SCOPE_QUEUE

// A netlink socket's receive buffer: 32 KiB holds any one read of a dump (libmnl's
// MNL_SOCKET_DUMP_SIZE in releases after Debian 12's 1.0.4, which lacks the macro).
constexpr std::size_t kBufferSize = 32768;

std::string version_text(KernelVersion v) {
  return std::to_string(v.major) + "." + std::to_string(v.minor);
}

struct SocketCloser {
  void operator()(mnl_socket* s) const { mnl_socket_close(s); }
};
using Socket = std::unique_ptr<mnl_socket, SocketCloser>;

// What one request's replies carried besides data: the kernel's error and extended-ack text.
struct Reply {
  int error = 0;
  std::string message;
};

int collect_extack(const nlattr* attr, void* data) {
  if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG && mnl_attr_validate(attr, MNL_TYPE_STRING) >= 0)
    static_cast<Reply*>(data)->message = mnl_attr_get_str(attr);
  return MNL_CB_OK;
}

// NLMSG_ERROR: an ack (error 0) ends the exchange; an error keeps its errno and extack text.
int on_error_message(const nlmsghdr* nlh, void* data) {
  auto* reply = static_cast<Reply*>(data);
  if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(nlmsgerr))) {
    reply->error = EBADMSG;
    return MNL_CB_ERROR;
  }
  const auto* err = static_cast<const nlmsgerr*>(mnl_nlmsg_get_payload(nlh));
  if (err->error == 0) return MNL_CB_STOP;
  reply->error = -err->error;
  if (nlh->nlmsg_flags & NLM_F_ACK_TLVS) {
    std::size_t offset = sizeof(nlmsgerr);
    if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) offset += err->msg.nlmsg_len - sizeof(nlmsghdr);
    const std::size_t payload = mnl_nlmsg_get_payload_len(nlh);
    if (offset < payload)
      mnl_attr_parse_payload(static_cast<const char*>(mnl_nlmsg_get_payload(nlh)) + offset,
                             payload - offset, collect_extack, reply);
  }
  return MNL_CB_ERROR;
}

// NLMSG_DONE of a dump may carry the error that ended it.
int on_done_message(const nlmsghdr* nlh, void* data) {
  if (mnl_nlmsg_get_payload_len(nlh) >= sizeof(int)) {
    const int value = *static_cast<const int*>(mnl_nlmsg_get_payload(nlh));
    if (value < 0) {
      static_cast<Reply*>(data)->error = -value;
      return MNL_CB_ERROR;
    }
  }
  return MNL_CB_STOP;
}

struct Request {
  mnl_cb_t on_data = nullptr;
  void* data = nullptr;
};

// Context for the callbacks of one exchange.
struct Exchange {
  Reply reply;
  Request request;
};

int dispatch_error(const nlmsghdr* nlh, void* data) {
  return on_error_message(nlh, &static_cast<Exchange*>(data)->reply);
}
int dispatch_done(const nlmsghdr* nlh, void* data) {
  return on_done_message(nlh, &static_cast<Exchange*>(data)->reply);
}
int dispatch_data(const nlmsghdr* nlh, void* data) {
  auto* exchange = static_cast<Exchange*>(data);
  return exchange->request.on_data ? exchange->request.on_data(nlh, exchange->request.data)
                                   : MNL_CB_OK;
}

class Connection {
 public:
  static Expected<Connection> open() {
    Socket socket(mnl_socket_open(NETLINK_GENERIC));
    if (!socket)
      return Error{"netlink",
                   std::string("cannot open a generic-netlink socket: ") + std::strerror(errno)};
    if (mnl_socket_bind(socket.get(), 0, MNL_SOCKET_AUTOPID) < 0)
      return Error{"netlink",
                   std::string("cannot bind the netlink socket: ") + std::strerror(errno)};
    // Ask for the kernel's error text, and only the header of our request echoed back with it.
    int on = 1;
    mnl_socket_setsockopt(socket.get(), NETLINK_EXT_ACK, &on, sizeof on);
    mnl_socket_setsockopt(socket.get(), NETLINK_CAP_ACK, &on, sizeof on);
    return Connection(std::move(socket));
  }

  // A fresh request of `type` (the family) and `command` in the buffer.
  nlmsghdr* start(std::uint16_t type, std::uint8_t command, std::uint16_t flags) {
    nlmsghdr* nlh = mnl_nlmsg_put_header(buffer_.data());
    nlh->nlmsg_type = type;
    nlh->nlmsg_flags = static_cast<std::uint16_t>(NLM_F_REQUEST | flags);
    nlh->nlmsg_seq = ++sequence_;
    auto* genl = static_cast<genlmsghdr*>(mnl_nlmsg_put_extra_header(nlh, sizeof(genlmsghdr)));
    genl->cmd = command;
    genl->version = type == GENL_ID_CTRL ? 1 : kFamilyVersion;
    return nlh;
  }

  // Sends `nlh` and runs the replies through `request` until the ack, the dump's end or an error.
  Reply run(nlmsghdr* nlh, Request request) {
    Exchange exchange{{}, request};
    if (mnl_socket_sendto(socket_.get(), nlh, nlh->nlmsg_len) < 0) return {errno, "sendto"};
    const unsigned port = mnl_socket_get_portid(socket_.get());
    mnl_cb_t control[NLMSG_MIN_TYPE] = {};
    control[NLMSG_ERROR] = dispatch_error;
    control[NLMSG_DONE] = dispatch_done;
    for (;;) {
      ssize_t n;
      do {
        n = mnl_socket_recvfrom(socket_.get(), receive_.data(), receive_.size());
      } while (n < 0 && errno == EINTR);
      if (n < 0) return {errno, "recvfrom"};
      const int status = mnl_cb_run2(receive_.data(), static_cast<std::size_t>(n), sequence_, port,
                                     dispatch_data, &exchange, control, NLMSG_MIN_TYPE);
      if (status == MNL_CB_STOP) return exchange.reply;
      if (status == MNL_CB_ERROR) {
        if (exchange.reply.error == 0) exchange.reply.error = errno ? errno : EPROTO;
        return exchange.reply;
      }
    }
  }

  // The netdev family's id in this namespace, resolved through the generic-netlink controller.
  Expected<std::uint16_t> family() {
    nlmsghdr* nlh = start(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, NLM_F_ACK);
    mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, kFamilyName);
    std::uint16_t id = 0;
    const Reply reply = run(nlh, {[](const nlmsghdr* m, void* data) {
                                    mnl_attr_parse(
                                        m, sizeof(genlmsghdr),
                                        [](const nlattr* a, void* out) {
                                          if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_ID &&
                                              mnl_attr_validate(a, MNL_TYPE_U16) >= 0)
                                            *static_cast<std::uint16_t*>(out) = mnl_attr_get_u16(a);
                                          return MNL_CB_OK;
                                        },
                                        data);
                                    return MNL_CB_OK;
                                  },
                                  &id});
    if (reply.error == ENOENT || (reply.error == 0 && id == 0))
      return Error{"netdev",
                   "this kernel has no netdev generic-netlink family (it arrived in Linux " +
                       version_text(kNetdevFamilySince) + "; napi-get in " +
                       version_text(kNapiGetSince) + ")"};
    if (reply.error != 0)
      return Error{"netdev",
                   std::string("cannot resolve the netdev family: ") + std::strerror(reply.error)};
    return id;
  }

 private:
  explicit Connection(Socket socket)
      : socket_(std::move(socket)), buffer_(kBufferSize), receive_(kBufferSize) {}

  Socket socket_;
  std::vector<char> buffer_;
  std::vector<char> receive_;
  unsigned sequence_ = static_cast<unsigned>(std::time(nullptr));
};

// A netdev "uint": 4 or 8 bytes on the wire, whichever the value needs (nla_put_uint).
std::optional<std::uint64_t> read_uint(const nlattr* a) {
  const auto length = mnl_attr_get_payload_len(a);
  if (length == sizeof(std::uint32_t)) return mnl_attr_get_u32(a);
  if (length == sizeof(std::uint64_t)) return mnl_attr_get_u64(a);
  return std::nullopt;
}

std::optional<std::uint32_t> read_u32(const nlattr* a) {
  if (mnl_attr_validate(a, MNL_TYPE_U32) < 0) return std::nullopt;
  return mnl_attr_get_u32(a);
}

int parse_napi_attribute(const nlattr* a, void* data) {
  auto& napi = *static_cast<Napi*>(data);
  switch (mnl_attr_get_type(a)) {
    case kAttrIfindex:
      napi.ifindex = read_u32(a).value_or(0);
      break;
    case kAttrId:
      napi.id = read_u32(a).value_or(0);
      break;
    case kAttrIrq:
      napi.irq = read_u32(a);
      break;
    case kAttrPid:
      napi.pid = read_u32(a);
      break;
    case kAttrDeferHardIrqs:
      napi.defer_hard_irqs = read_u32(a);
      break;
    case kAttrGroFlushTimeout:
      napi.gro_flush_timeout_ns = read_uint(a);
      break;
    case kAttrIrqSuspendTimeout:
      napi.irq_suspend_timeout_ns = read_uint(a);
      break;
    case kAttrThreaded: {
      const auto v = read_uint(a);
      if (v) napi.threaded = static_cast<std::uint32_t>(*v);
      break;
    }
    default:
      break;  // a newer kernel's attribute: not shown
  }
  return MNL_CB_OK;
}

int collect_napi(const nlmsghdr* nlh, void* data) {
  Napi napi;
  mnl_attr_parse(nlh, sizeof(genlmsghdr), parse_napi_attribute, &napi);
  static_cast<std::vector<Napi>*>(data)->push_back(napi);
  return MNL_CB_OK;
}

std::optional<QueueType> read_queue_type(const nlattr* a) {
  const auto v = read_u32(a);
  if (!v || *v > static_cast<std::uint32_t>(QueueType::tx)) return std::nullopt;
  return static_cast<QueueType>(*v);
}

int parse_queue_attribute(const nlattr* a, void* data) {
  auto& queue = *static_cast<Queue*>(data);
  switch (mnl_attr_get_type(a)) {
    case kQueueAttrId:
      queue.id = read_u32(a).value_or(0);
      break;
    case kQueueAttrIfindex:
      queue.ifindex = read_u32(a).value_or(0);
      break;
    case kQueueAttrType:
      queue.type = read_queue_type(a).value_or(QueueType::rx);
      break;
    case kQueueAttrNapiId:
      queue.napi_id = read_u32(a);
      break;
    default:
      break;  // dmabuf, io_uring, xsk: not shown
  }
  return MNL_CB_OK;
}

int collect_queue(const nlmsghdr* nlh, void* data) {
  Queue queue;
  mnl_attr_parse(nlh, sizeof(genlmsghdr), parse_queue_attribute, &queue);
  static_cast<std::vector<Queue>*>(data)->push_back(queue);
  return MNL_CB_OK;
}

// The four counters of either direction; the queue's type says which pair it carries.
struct QstatsMessage {
  QueueStats stats;
  std::optional<std::uint64_t> rx_packets, rx_bytes, tx_packets, tx_bytes;
};

int parse_qstats_attribute(const nlattr* a, void* data) {
  auto& m = *static_cast<QstatsMessage*>(data);
  switch (mnl_attr_get_type(a)) {
    case kQstatsAttrIfindex:
      m.stats.ifindex = read_u32(a).value_or(0);
      break;
    case kQstatsAttrQueueType:
      m.stats.type = read_queue_type(a).value_or(QueueType::rx);
      break;
    case kQstatsAttrQueueId:
      m.stats.id = read_u32(a).value_or(0);
      break;
    case kQstatsAttrRxPackets:
      m.rx_packets = read_uint(a);
      break;
    case kQstatsAttrRxBytes:
      m.rx_bytes = read_uint(a);
      break;
    case kQstatsAttrTxPackets:
      m.tx_packets = read_uint(a);
      break;
    case kQstatsAttrTxBytes:
      m.tx_bytes = read_uint(a);
      break;
    default:
      break;  // drops, checksums, GRO / GSO counters: not shown
  }
  return MNL_CB_OK;
}

int collect_queue_stats(const nlmsghdr* nlh, void* data) {
  QstatsMessage m;
  mnl_attr_parse(nlh, sizeof(genlmsghdr), parse_qstats_attribute, &m);
  const bool rx = m.stats.type == QueueType::rx;
  m.stats.packets = rx ? m.rx_packets : m.tx_packets;
  m.stats.bytes = rx ? m.rx_bytes : m.tx_bytes;
  static_cast<std::vector<QueueStats>*>(data)->push_back(m.stats);
  return MNL_CB_OK;
}

// One of the family's dump commands: its number, the attribute that filters by device, the
// names an error gives it, and the release that added it; and an optional extra u32 attribute
// (qstats-get's scope).
struct DumpCommand {
  std::uint8_t command;
  std::uint16_t ifindex_attribute;
  const char* what;          // the error's subject: "napi list"
  const char* command_name;  // netdev.yaml's name: "napi-get"
  KernelVersion since;
  std::uint16_t extra_attribute = 0;
  std::uint32_t extra_value = 0;
};

// Runs `c` as a dump through `request`. Returns the error, if any.
std::optional<Error> dump(const DumpCommand& c, std::optional<std::uint32_t> ifindex,
                          Request request) {
  auto connection = Connection::open();
  if (!connection) return connection.error();
  const auto family = connection.value().family();
  if (!family) return family.error();
  nlmsghdr* nlh = connection.value().start(*family, c.command, NLM_F_DUMP);
  if (ifindex) mnl_attr_put_u32(nlh, c.ifindex_attribute, *ifindex);
  if (c.extra_attribute != 0) mnl_attr_put_u32(nlh, c.extra_attribute, c.extra_value);
  const Reply reply = connection.value().run(nlh, request);
  if (reply.error == EOPNOTSUPP)
    return Error{c.what, std::string("this kernel's netdev family has no ") + c.command_name +
                             " (added in Linux " + version_text(c.since) + ")"};
  if (reply.error != 0)
    return Error{c.what, std::string(c.command_name) + " failed: " + std::strerror(reply.error) +
                             (reply.message.empty() ? "" : " (" + reply.message + ")")};
  return std::nullopt;
}

}  // namespace

std::string_view queue_type_name(QueueType t) {
  return t == QueueType::rx ? "rx" : "tx";
}

std::optional<KernelVersion> parse_kernel_release(std::string_view release) {
  KernelVersion v;
  const char* p = release.data();
  const char* end = p + release.size();
  auto r = std::from_chars(p, end, v.major);
  if (r.ec != std::errc{} || r.ptr == end || *r.ptr != '.') return std::nullopt;
  r = std::from_chars(r.ptr + 1, end, v.minor);
  if (r.ec != std::errc{}) return std::nullopt;
  return v;
}

std::optional<KernelVersion> running_kernel() {
  utsname u{};
  if (::uname(&u) != 0) return std::nullopt;
  return parse_kernel_release(u.release);
}

Error describe_set_refusal(const NapiSettings& asked, std::optional<KernelVersion> kernel, int err,
                           const std::string& kernel_message) {
  // napi-set is GENL_ADMIN_PERM in netdev.yaml (napi-get is not): without CAP_NET_ADMIN the
  // kernel refuses before it looks at the settings.
  if (err == EPERM)
    return Error{"napi set", "needs root: the kernel takes napi-set only with CAP_NET_ADMIN"};
  const std::string running = kernel ? version_text(*kernel) : "of unknown version";
  if (kernel && *kernel < KernelVersion{6, 13})
    return Error{"napi set", "this kernel (" + running +
                                 ") has no napi-set: the netdev family took it in Linux 6.13"};
  std::string too_new;
  const auto check = [&](bool given, const SettingInfo& s) {
    if (given && kernel && *kernel < s.since)
      too_new += (too_new.empty() ? "" : ", ") + std::string(s.name) + " (added in Linux " +
                 version_text(s.since) + ")";
  };
  check(asked.defer_hard_irqs.has_value(), kDeferHardIrqs);
  check(asked.gro_flush_timeout_ns.has_value(), kGroFlushTimeout);
  check(asked.irq_suspend_timeout_ns.has_value(), kIrqSuspendTimeout);
  check(asked.threaded.has_value(), kThreaded);
  std::string said = std::strerror(err);
  if (!kernel_message.empty()) said += " (" + kernel_message + ")";
  if (!too_new.empty())
    return Error{"napi set",
                 "this kernel (" + running + ") does not know " + too_new + ": it said " + said};
  return Error{"napi set", "the kernel refused: " + said};
}

Expected<std::vector<Napi>> list_napis(std::optional<std::uint32_t> ifindex) {
  std::vector<Napi> napis;
  if (auto e = dump({kCmdNapiGet, kAttrIfindex, "napi list", "napi-get", kNapiGetSince}, ifindex,
                    {collect_napi, &napis}))
    return *e;
  std::sort(napis.begin(), napis.end(), [](const Napi& a, const Napi& b) { return a.id < b.id; });
  return napis;
}

Expected<std::vector<Queue>> list_queues(std::optional<std::uint32_t> ifindex) {
  std::vector<Queue> queues;
  if (auto e = dump({kCmdQueueGet, kQueueAttrIfindex, "queue list", "queue-get", kQueueGetSince},
                    ifindex, {collect_queue, &queues}))
    return *e;
  std::sort(queues.begin(), queues.end(), [](const Queue& a, const Queue& b) {
    return std::tuple(a.ifindex, a.type, a.id) < std::tuple(b.ifindex, b.type, b.id);
  });
  return queues;
}

Expected<std::vector<QueueStats>> list_queue_stats(std::optional<std::uint32_t> ifindex) {
  std::vector<QueueStats> stats;
  if (auto e = dump({kCmdQstatsGet, kQstatsAttrIfindex, "queue stats", "qstats-get",
                     kQstatsGetSince, kQstatsAttrScope, kQstatsScopeQueue},
                    ifindex, {collect_queue_stats, &stats}))
    return *e;
  std::sort(stats.begin(), stats.end(), [](const QueueStats& a, const QueueStats& b) {
    return std::tuple(a.ifindex, a.type, a.id) < std::tuple(b.ifindex, b.type, b.id);
  });
  return stats;
}

std::optional<Error> set_napi(std::uint32_t id, const NapiSettings& settings) {
  auto connection = Connection::open();
  if (!connection) return connection.error();
  const auto family = connection.value().family();
  if (!family) return family.error();
  nlmsghdr* nlh = connection.value().start(*family, kCmdNapiSet, NLM_F_ACK);
  mnl_attr_put_u32(nlh, kAttrId, id);
  if (settings.defer_hard_irqs)
    mnl_attr_put_u32(nlh, kAttrDeferHardIrqs, *settings.defer_hard_irqs);
  if (settings.gro_flush_timeout_ns)
    mnl_attr_put_u64(nlh, kAttrGroFlushTimeout, *settings.gro_flush_timeout_ns);
  if (settings.irq_suspend_timeout_ns)
    mnl_attr_put_u64(nlh, kAttrIrqSuspendTimeout, *settings.irq_suspend_timeout_ns);
  if (settings.threaded) mnl_attr_put_u32(nlh, kAttrThreaded, *settings.threaded ? 1 : 0);
  const Reply reply = connection.value().run(nlh, {});
  if (reply.error == 0) return std::nullopt;
  if (reply.error == ENOENT)
    return Error{"--id", "no NAPI with id " + std::to_string(id) +
                             " in this network namespace (`irqmod napi list` shows them)"};
  return describe_set_refusal(settings, running_kernel(), reply.error, reply.message);
}

}  // namespace irqmod::rt::netdev
