// `irqmod load`: an open-loop load generator that speaks sockperf's protocol (issue 14 item 4).
//
// Why not sockperf's under-load mode: sockperf 3.7's `ul` client runs a sender thread that
// busy-waits between sends and a receiver thread; pinned to one CPU (the other belongs to the
// server), the receiver waits behind the spinning sender for a scheduler slice, and on this
// project's 2-vCPU VM its reported latencies were 0.5-20 ms at 5000-20000 msg/s where ping-pong
// measured 13 µs (docs/runtime.md). This client is one thread that never spins: it sleeps in
// epoll_pwait2 until the next scheduled send or a reply, whichever comes first.
//
// Requests are scheduled open-loop with exponential gaps (a Poisson process of the given rate,
// seeded, so a run's schedule is reproducible), each on the next of `connections` sockets in
// turn, each asking for a reply (sockperf's pong-request flag). A send that is due is made even
// when earlier replies are outstanding; a timer that wakes late sends every message that fell due
// meanwhile at once, and the lateness is reported (`schedule_lag`) so that the open loop's
// fidelity on a given host is visible. Latency is sockperf's: half the round trip from the send
// to the reply's arrival (read right after epoll_pwait2 returns), in µs, over the messages sent
// after the warm-up; percentiles by nearest rank.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "irqmod/error.hpp"
#include "irqmod/rt/server.hpp"

namespace irqmod::rt::load {

struct Config {
  Transport transport = Transport::tcp;  // the 6.13 series' memcached runs were TCP
  std::string ip = "127.0.0.1";
  std::uint16_t port = 11111;  // sockperf's default
  // Connections the requests are spread over (round robin). Default 4: several, as the series'
  // mutilate runs had, within what one client thread on one CPU serves.
  unsigned connections = 4;
  double rate = 10000;      // requests per second (mean of the Poisson process)
  double duration_s = 3;    // scheduling stops after this
  double warmup_s = 0.5;    // requests sent before this are not in the statistics
  std::uint32_t size = 64;  // bytes per message, header included (sockperf -m 64)
  std::uint64_t seed = 1;
  // After the schedule ends, how long to wait for the last replies before counting the rest
  // lost. Default 0.5 s: far above a round trip on the lab, yet a client that fell behind on a
  // loaded machine has time to read what the server already sent.
  double grace_s = 0.5;
  std::optional<int> cpu;  // pin the client to this CPU
};

// Checks the configuration; the key is the command-line flag.
std::optional<Error> validate(const Config& config);

struct Result {
  std::uint64_t sent = 0;        // every request
  std::uint64_t received = 0;    // replies matched to a request
  std::uint64_t measured = 0;    // replies to requests sent after the warm-up
  std::uint64_t unexpected = 0;  // replies that matched no outstanding request
  double seconds = 0;            // from the first send to the end of the grace period
  double avg_us = 0, p50_us = 0, p99_us = 0, p999_us = 0, max_us = 0;  // half round trip
  double p25_us = 0, p75_us = 0, p90_us = 0;  // where a two-humped p50 sits
  double lag_p50_us = 0, lag_p99_us = 0;      // how late sends left against their schedule
};

// Connects, runs the schedule, waits up to grace_s for the last replies. Errors name
// the system call; a server that closes a connection ends the run with an error.
Expected<Result> run(const Config& config);

std::string format_text(const Result& r);
std::string format_json(const Result& r);

}  // namespace irqmod::rt::load
