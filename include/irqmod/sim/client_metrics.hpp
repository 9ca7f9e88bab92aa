// The reports of the simulated clients that time round trips themselves: ping's echo requests
// and the lab's client and server threads (RunReport's `ping`, `lab_client`, `lab_server`), each
// with its counter table (counter_table.hpp). Split from metrics.hpp, which includes it.
#pragma once

#include <cstdint>

#include "irqmod/sim/counter_table.hpp"
#include "irqmod/sim/histogram.hpp"

namespace irqmod::sim {

// ping's view of ICMP echo (traffic.kind = "ping"): each round trip, from the request's send
// (ping's sendmsg on the peer) to the reply's last bit back there.
struct PingReport {
  LatencyHistogram rtt;    // ns
  std::uint64_t sent = 0;  // echo requests sent
  std::uint64_t lost = 0;  // requests or replies dropped on the host
};
namespace detail {
// What the ping table reads from the round trips' histogram, and when the text shows them.
inline CounterValue ping_answered(const PingReport& p) {
  return CounterValue{p.rtt.count()};
}
inline CounterValue ping_rtt_min(const PingReport& p) {
  return CounterValue{static_cast<std::uint64_t>(p.rtt.min())};
}
inline CounterValue ping_rtt_max(const PingReport& p) {
  return CounterValue{static_cast<std::uint64_t>(p.rtt.max())};
}
template <std::uint32_t PartsPer100000>
CounterValue ping_rtt(const PingReport& p) {
  return CounterValue{static_cast<std::uint64_t>(p.rtt.percentile(PartsPer100000))};
}
inline bool ping_any_answered(const PingReport& p) {
  return p.rtt.count() > 0;
}
}  // namespace detail
// The round trips' histogram starts again at the warm-up's end (run_setup.hpp's WarmupMark).
inline constexpr Counter<PingReport> kPingEntries[] = {
    {"sent", at<&PingReport::sent>, Unit::count, Warmup::subtract},
    {"answered", computed(detail::ping_answered), Unit::count, Warmup::restart},
    {"lost", at<&PingReport::lost>, Unit::count, Warmup::subtract},
    {.name = "rtt_min_ns",
     .at = computed(detail::ping_rtt_min),
     .unit = Unit::ns,
     .warmup = Warmup::restart,
     .shown = detail::ping_any_answered},
    {.name = "rtt_p50_ns",
     .at = computed(detail::ping_rtt<50'000>),
     .unit = Unit::ns,
     .warmup = Warmup::restart,
     .shown = detail::ping_any_answered},
    {.name = "rtt_p99_ns",
     .at = computed(detail::ping_rtt<99'000>),
     .unit = Unit::ns,
     .warmup = Warmup::restart,
     .shown = detail::ping_any_answered},
    {.name = "rtt_max_ns",
     .at = computed(detail::ping_rtt_max),
     .unit = Unit::ns,
     .warmup = Warmup::restart,
     .shown = detail::ping_any_answered},
};
inline constexpr CounterTable<PingReport> kPing{
    "ping",
    "ping: {sent} sent, {answered} answered, {lost} lost[; rtt min {rtt_min_ns} p50 {rtt_p50_ns} "
    "p99 {rtt_p99_ns} max {rtt_max_ns} us]\n",
    kPingEntries};

// The lab's client (lab.client): what it did, in irqmod load's words for the load client (its
// output's sent, lag_p50_us, lag_p99_us), and how its thread slept.
struct LabClientReport {
  std::uint64_t sent = 0;      // requests sent
  std::uint64_t replies = 0;   // replies read
  std::uint64_t wakeups = 0;   // times its thread was woken from a sleep (a reply, or its timer)
  std::uint64_t timeouts = 0;  // load: epoll_pwait2 calls that ended by their timeout
  // load: how late each send left after its scheduled time (the epoll_pwait2 timeout's lateness,
  // or the thread busy when it was due), ns. irqmod load counts every send; this, from the
  // warm-up's end.
  LatencyHistogram lag;
  // The round trip split where the server's sendto handed the reply to its device (veth,
  // loopback): the request's send to that (request half: the client's send, the server's wait and
  // its work) and that to the client's read (reply half: the reply's delivery, the client's
  // wake-up or its being busy), ns, each of the replies read after the warm-up.
  LatencyHistogram request_half;
  LatencyHistogram reply_half;
};
namespace detail {
template <LatencyHistogram LabClientReport::*Half, std::uint32_t PartsPer100000>
CounterValue lab_half(const LabClientReport& c) {
  return CounterValue{static_cast<std::uint64_t>((c.*Half).percentile(PartsPer100000))};
}
inline bool lab_any_half(const LabClientReport& c) {
  return c.request_half.count() > 0;
}
inline CounterValue lab_lag_count(const LabClientReport& c) {
  return CounterValue{c.lag.count()};
}
template <std::uint32_t PartsPer100000>
CounterValue lab_lag(const LabClientReport& c) {
  return CounterValue{static_cast<std::uint64_t>(c.lag.percentile(PartsPer100000))};
}
inline bool lab_any_lag(const LabClientReport& c) {
  return c.lag.count() > 0;
}
}  // namespace detail
// The lags' histogram starts again at the warm-up's end (run_setup.hpp's WarmupMark).
inline constexpr Counter<LabClientReport> kLabClientEntries[] = {
    {"sent", at<&LabClientReport::sent>, Unit::count, Warmup::subtract},
    {"replies", at<&LabClientReport::replies>, Unit::count, Warmup::subtract},
    {"wakeups", at<&LabClientReport::wakeups>, Unit::count, Warmup::subtract},
    {"timeouts", at<&LabClientReport::timeouts>, Unit::count, Warmup::subtract},
    {.name = "lagged",
     .at = computed(detail::lab_lag_count),
     .unit = Unit::count,
     .warmup = Warmup::restart,
     .shown = detail::lab_any_lag},
    {.name = "lag_p50_ns",
     .at = computed(detail::lab_lag<50'000>),
     .unit = Unit::ns,
     .warmup = Warmup::restart,
     .shown = detail::lab_any_lag},
    {.name = "lag_p99_ns",
     .at = computed(detail::lab_lag<99'000>),
     .unit = Unit::ns,
     .warmup = Warmup::restart,
     .shown = detail::lab_any_lag},
    {.name = "request_half_p25_ns",
     .at = computed(detail::lab_half<&LabClientReport::request_half, 25'000>),
     .unit = Unit::ns,
     .warmup = Warmup::restart,
     .shown = detail::lab_any_half},
    {.name = "request_half_p50_ns",
     .at = computed(detail::lab_half<&LabClientReport::request_half, 50'000>),
     .unit = Unit::ns,
     .warmup = Warmup::restart,
     .shown = detail::lab_any_half},
    {.name = "request_half_p75_ns",
     .at = computed(detail::lab_half<&LabClientReport::request_half, 75'000>),
     .unit = Unit::ns,
     .warmup = Warmup::restart,
     .shown = detail::lab_any_half},
    {.name = "reply_half_p25_ns",
     .at = computed(detail::lab_half<&LabClientReport::reply_half, 25'000>),
     .unit = Unit::ns,
     .warmup = Warmup::restart,
     .shown = detail::lab_any_half},
    {.name = "reply_half_p50_ns",
     .at = computed(detail::lab_half<&LabClientReport::reply_half, 50'000>),
     .unit = Unit::ns,
     .warmup = Warmup::restart,
     .shown = detail::lab_any_half},
    {.name = "reply_half_p75_ns",
     .at = computed(detail::lab_half<&LabClientReport::reply_half, 75'000>),
     .unit = Unit::ns,
     .warmup = Warmup::restart,
     .shown = detail::lab_any_half},
};
inline constexpr CounterTable<LabClientReport> kLabClient{
    "lab_client",
    "lab client: {sent} sent, {replies} replies, {wakeups} wake-ups, {timeouts} by its timeout[; "
    "sends late by p50 {lag_p50_ns} p99 {lag_p99_ns} us ({lagged} sends)][; round trip split at "
    "the server's reply: there p25/p50/p75 "
    "{request_half_p25_ns} {request_half_p50_ns} {request_half_p75_ns} us, back "
    "{reply_half_p25_ns} {reply_half_p50_ns} {reply_half_p75_ns} us]\n",
    kLabClientEntries};

// The lab's server thread (a lab run only): how often it slept, which the bench sets beside the
// kernel's voluntary context switches of irqmod serve (bench/server-sleeps.sh).
struct LabServerReport {
  std::uint64_t wakeups = 0;  // times its thread was woken from a sleep
};
inline constexpr Counter<LabServerReport> kLabServerEntries[] = {
    {"wakeups", at<&LabServerReport::wakeups>, Unit::count, Warmup::subtract},
};
inline constexpr CounterTable<LabServerReport> kLabServer{
    "lab_server", "lab server: {wakeups} wake-ups\n", kLabServerEntries};

}  // namespace irqmod::sim
