// `irqmod lab`: two network namespaces joined by a veth pair whose receiving side runs real NAPI
// contexts, so the kernel's busy polling, IRQ deferral and threaded NAPI can be run and measured
// with no NIC (issue 14; docs/runtime.md "The lab"). Linux only, needs root.
//
// veth delivers through a NAPI context per Rx queue only when GRO is on at the receiver and the
// sender's frames are eligible for it, i.e. TSO and GSO off at the sender (veth_xmit,
// veth_skb_is_eligible_for_gro in drivers/net/veth.c); otherwise it hands frames to the stack
// directly and a socket reads SO_INCOMING_NAPI_ID 0. The lab sets both ends that way, so the
// server->client direction has NAPI contexts too.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "irqmod/error.hpp"
#include "irqmod/rt/netdev_netlink.hpp"

namespace irqmod::rt::lab {

// Addresses from 198.18.0.0/15, the range RFC 2544 reserves for benchmarking; they exist only
// inside the lab's namespaces.
inline constexpr const char* kServerAddress = "198.18.0.1";
inline constexpr const char* kClientAddress = "198.18.0.2";
inline constexpr int kPrefixLength = 30;
inline constexpr const char* kServerDevice = "veth-srv";
inline constexpr const char* kClientDevice = "veth-cli";
// Every lab's name starts with this, so `down` can never remove a namespace the lab did not make.
inline constexpr const char* kNamePrefix = "irqmod-lab";
// veth takes up to 4096 queues; more than 64 on a lab of this kind helps nothing.
inline constexpr unsigned kMaxQueues = 64;

struct Config {
  std::string name = kNamePrefix;    // namespaces NAME-srv and NAME-cli
  unsigned queues = 1;               // Rx and Tx queues per veth end = NAPI contexts per end
  bool threaded = false;             // NAPI polled by kernel threads (sysfs `threaded`)
  std::optional<unsigned> napi_cpu;  // pin the server end's NAPI threads to this CPU
  double loss = 0;                   // drop each packet leaving either end with this probability
};

// --loss P: a probability from 0 to 1 as text ("0.2", "1e-3"); anything else is an error naming
// --loss.
Expected<double> parse_loss(const std::string& text);

// The loss filter: a classic BPF program for cls_bpf in direct-action mode, in tc's `bytecode`
// notation ("N,code jt jf k,..."). It loads the kernel's per-packet random number (the ancillary
// load SKF_AD_OFF + SKF_AD_RANDOM, uniform over 32 bits) and returns TC_ACT_SHOT (drop) when the
// number is below round(P * 2^32), else TC_ACT_OK; P = 1 is one instruction that always drops.
// P = 0 has no program (no filter is attached). Pure, for the tests.
std::string loss_bytecode(double loss);
// The P a program made by loss_bytecode drops with, read back from `tc filter show` output;
// empty when the text holds no such program.
std::optional<double> loss_from_tc_output(const std::string& tc_output);

// The namespaces a lab of this name uses.
std::string server_netns(const std::string& name);
std::string client_netns(const std::string& name);

// Checks a configuration without touching the system: the name, queue count and CPU.
std::optional<Error> validate(const Config& config);

struct Device {
  std::string name;
  std::string netns;
  std::string address;  // "198.18.0.1/30"
  std::uint32_t ifindex = 0;
  unsigned rx_queues = 0;
  unsigned tx_queues = 0;
  double loss = 0;  // the loss filter on this end's egress (0: none)
};

struct Status {
  std::string name;
  bool server_netns = false;  // the namespaces exist
  bool client_netns = false;
  std::vector<Device> devices;       // those found
  std::vector<netdev::Napi> napis;   // the server namespace's NAPI contexts
  std::uint32_t socket_napi_id = 0;  // SO_INCOMING_NAPI_ID of a datagram client -> server
  std::string check_note;            // why the check did not run or failed, if it did not pass

  bool up() const { return server_netns && client_netns && devices.size() == 2; }
};

// Needs root. Creates what is missing and (re)applies every setting, so running it twice is the
// same as once; a lab with another queue count gets a new veth pair. A failed set-up step removes
// the namespaces this call created. Ends with the NAPI check, and fails (leaving the lab for a
// look) when a datagram arrives without a NAPI id.
Expected<Status> up(const Config& config);
// Removes both namespaces (and with them the veth pair). Nothing to remove is not an error.
std::optional<Error> down(const std::string& name);
// Needs root. What is there, with the NAPI check run again when the lab is up.
Expected<Status> status(const std::string& name);

// `status` as one JSON object (one line).
std::string status_json(const Status& s);

}  // namespace irqmod::rt::lab
