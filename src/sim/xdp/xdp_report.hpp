// The AF_XDP section of the report (seed 002, [xdp]): the zero-copy queue's, the application's
// and the NAPI context's counters at the end of the run, and the table of those it prints
// (JSON "af_xdp", the text's af_xdp line).
#pragma once

#include "irqmod/napi/context.hpp"
#include "irqmod/sim/counter_table.hpp"
#include "irqmod/sim/metrics.hpp"
#include "irqmod/sim/optional_section.hpp"
#include "sim/xdp/xdpsock.hpp"
#include "sim/xdp/zc_queue.hpp"

namespace irqmod::sim {

// Copies of the components' own counters; the table below says which of them the report
// prints, and only those count from the warm-up's end (an AF_XDP run has none so far).
struct XdpCounters {
  ZcQueue::Counters queue;  // the driver's queue pair: frames, refills, interrupts, kicks
  Xdpsock::Counters app;    // the application: frames, system calls, sleeps
  napi::Counters napi;      // the queue's NAPI context: polls by whom
};

inline constexpr Counter<XdpCounters> kXdpCounterEntries[] = {
    {"redirected", at<&XdpCounters::queue, &ZcQueue::Counters::redirected>, Unit::count,
     Warmup::subtract},
    {"sent", at<&XdpCounters::queue, &ZcQueue::Counters::sent>, Unit::count, Warmup::subtract},
    {"refill_misses", at<&XdpCounters::queue, &ZcQueue::Counters::refill_misses>, Unit::count,
     Warmup::subtract},
    {"kicks", at<&XdpCounters::queue, &ZcQueue::Counters::kicks>, Unit::count, Warmup::subtract},
    {"syscalls", at<&XdpCounters::app, &Xdpsock::Counters::syscalls>, Unit::count,
     Warmup::subtract},
    {"sleeps", at<&XdpCounters::app, &Xdpsock::Counters::sleeps>, Unit::count, Warmup::subtract},
    {"completions", at<&XdpCounters::app, &Xdpsock::Counters::completed>, Unit::count,
     Warmup::subtract},
    {"busy_polls", at<&XdpCounters::napi, &napi::Counters::busy_polls>, Unit::count,
     Warmup::subtract},
    {"tx_interrupts", at<&XdpCounters::queue, &ZcQueue::Counters::tx_interrupts>, Unit::count,
     Warmup::subtract},
    {"tx_unfinished", at<&XdpCounters::queue, &ZcQueue::Counters::tx_unfinished>, Unit::count,
     Warmup::subtract},
};
inline constexpr CounterTable<XdpCounters> kXdpCounters{
    "af_xdp",
    "af_xdp: {redirected} frames redirected to the socket, {sent} sent; {refill_misses} polls "
    "found the fill ring short, {kicks} wake-ups; application: {syscalls} system calls, {sleeps} "
    "sleeps, {completions} Tx completions taken back; {busy_polls} busy polls; {tx_interrupts} Tx "
    "completion interrupts, {tx_unfinished} "
    "polls left Tx not done\n",
    kXdpCounterEntries};

}  // namespace irqmod::sim
