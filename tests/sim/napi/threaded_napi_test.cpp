// Threaded NAPI (napi.threaded, Linux 5.12: 29863d41bb6e, 5fdd2f0e5c64): napi_schedule wakes
// the context's kernel thread instead of raising NET_RX; the thread polls until the context
// completes and sleeps, competing with the application under the core's scheduler.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "irqmod/sim/metrics.hpp"
#include "irqmod/sim/scenario.hpp"
#include "irqmod/sim/simulation.hpp"
#include "sim/load_helpers.hpp"

namespace irqmod::sim {
namespace {

using namespace test;  // load, loaded, error_of, run

// sockperf ping-pong on one core: the interrupt, the NAPI thread and the server share core 0.
const std::string kPingPong = R"(platform = "x86-i40e"
[scenario]
duration = "50ms"
[traffic]
kind = "ping-pong"
msg-size = 64
[nic]
moderation = "none"
)";

TEST(threaded_napi, the_thread_polls_and_net_rx_never_runs) {
  const RunReport softirq = run(loaded(kPingPong));
  const RunReport threaded = run(loaded(kPingPong, {"napi.threaded=true"}));
  EXPECT_GT(softirq.cpu.busy(0, ContextKind::softirq), Duration::zero());
  EXPECT_TRUE(softirq.napi_threads.empty());
  EXPECT_EQ(threaded.cpu.busy(0, ContextKind::softirq), Duration::zero());
  EXPECT_EQ(threaded.cpu.busy(0, ContextKind::ksoftirqd), Duration::zero());
  ASSERT_EQ(threaded.napi_threads.size(), 1U);
  const NapiThreadCounters& t = threaded.napi_threads[0];
  EXPECT_EQ(t.napi_id, 1U);
  EXPECT_EQ(t.core, 0U);
  // One message in flight: every request wakes the sleeping thread, which polls it once.
  EXPECT_GT(t.wakeups, 1000U);
  EXPECT_EQ(t.polls, t.wakeups);
  EXPECT_EQ(t.polls, threaded.cores[0].polls);
  EXPECT_TRUE(threaded.conservation.ok());
  EXPECT_TRUE(threaded.tx_conservation.ok());
}

// On a shared core the thread costs a wake-up and a context switch per request where the
// softirq ran on the interrupt's way out: more CPU in threads, a longer round trip.
TEST(threaded_napi, a_shared_core_pays_the_wake_up_and_the_switch) {
  const RunReport softirq = run(loaded(kPingPong));
  const RunReport threaded = run(loaded(kPingPong, {"napi.threaded=true"}));
  ASSERT_GT(softirq.latency.count(), 0U);
  ASSERT_GT(threaded.latency.count(), 0U);
  // x86-i40e: cpu.wakeup 850 ns + cpu.context-switch 1170 ns, once per request (RTT / 2 grows
  // by half of it).
  const double extra_ns = threaded.latency.mean() - softirq.latency.mean();
  EXPECT_NEAR(extra_ns, (850.0 + 1170.0) / 2, 50.0);
  EXPECT_LT(threaded.latency.count(), softirq.latency.count());  // fewer round trips
  ASSERT_EQ(threaded.sim_time, softirq.sim_time);
  EXPECT_GT(threaded.cpu.busy(0, ContextKind::thread), softirq.cpu.busy(0, ContextKind::thread));
}

// With the thread on another core the request's poll runs in parallel with nothing of the
// server's: the server core no longer takes the poll, the thread's core does.
TEST(threaded_napi, napi_thread_core_places_the_thread) {
  const std::string two_cores = kPingPong + "[cpu]\ncores = 2\napp-core = 0\nirq-cores = \"0\"\n";
  const RunReport pinned = run(loaded(two_cores, {"napi.threaded=true", "napi.thread-core=1"}));
  ASSERT_EQ(pinned.napi_threads.size(), 1U);
  EXPECT_EQ(pinned.napi_threads[0].core, 1U);
  EXPECT_EQ(pinned.cores[1].polls, pinned.napi_threads[0].polls);
  EXPECT_EQ(pinned.cores[0].polls, 0U);
  EXPECT_GT(pinned.cpu.busy(1, ContextKind::thread), Duration::zero());
  const RunReport beside = run(loaded(two_cores, {"napi.threaded=true"}));
  EXPECT_EQ(beside.napi_threads[0].core, 0U);  // default: the vector's core
  EXPECT_EQ(beside.cores[1].polls, 0U);
}

// Busy polling still works with a NAPI thread: the application's busy loop takes the context
// whenever the thread does not own it, and the thread polls only what was scheduled to it.
TEST(threaded_napi, busy_polling_takes_the_context_from_the_thread) {
  const std::string busy = kPingPong + "[napi]\nbusy_read = 50\nthreaded = true\n";
  const RunReport r = run(loaded(busy));
  ASSERT_EQ(r.napi_threads.size(), 1U);
  EXPECT_GT(r.cpu.busy(0, ContextKind::busy_poll), Duration::zero());
  // The busy loop does most polls; the thread is woken by the interrupts only (the busy-poll
  // exit's software interrupt, seed 000's fix, among them) and polls once each.
  EXPECT_LT(r.napi_threads[0].polls * 10, r.cores[0].polls);
  EXPECT_EQ(r.napi_threads[0].wakeups, r.cores[0].device_irqs);
  // On a shared core those wake-ups cost the busy poller its core (a kernel thread is not
  // preempted): the round trip is longer than with the softirq.
  const RunReport softirq = run(loaded(kPingPong + "[napi]\nbusy_read = 50\n"));
  EXPECT_GT(r.latency.mean(), softirq.latency.mean());
  EXPECT_TRUE(r.conservation.ok());
  EXPECT_EQ(r.cpu.busy(0, ContextKind::softirq), Duration::zero());
}

// Line rate on one queue: full-budget polls repoll in the thread's loop, and the application
// thread gets the core only when the NAPI thread yields at cond_resched.
TEST(threaded_napi, under_load_the_thread_repolls_and_yields_to_the_application) {
  const std::string stream = R"(platform = "x86-i40e"
[scenario]
duration = "20ms"
[traffic]
kind = "constant"
rate = 3000000
[napi]
threaded = true
)";
  const RunReport r = run(loaded(stream));
  ASSERT_EQ(r.napi_threads.size(), 1U);
  const NapiThreadCounters& t = r.napi_threads[0];
  EXPECT_GT(t.polls, t.wakeups);  // repolls without sleeping
  EXPECT_GT(t.yields, 0U);
  EXPECT_GT(r.delivered_packets, 0U);
  EXPECT_TRUE(r.conservation.ok());
}

TEST(threaded_napi, the_report_prints_the_threads_counts) {
  const RunReport r = run(loaded(kPingPong, {"napi.threaded=true"}));
  std::ostringstream text;
  write_text(text, r);
  EXPECT_NE(text.str().find("napi thread napi/eth0-1 (cpu 0): "), std::string::npos);
  std::ostringstream json;
  write_json(json, r);
  EXPECT_NE(json.str().find("\"napi_threads\":[{\"napi_id\":1,\"core\":0,\"wakeups\":"),
            std::string::npos);
  std::ostringstream plain;
  write_json(plain, run(loaded(kPingPong)));
  EXPECT_EQ(plain.str().find("napi_threads"), std::string::npos);
}

TEST(threaded_napi, a_kernel_before_5_12_refuses_it_naming_the_commit) {
  const std::string message = error_of("kernel = \"5.11\"\n" + kPingPong, {"napi.threaded=true"});
  EXPECT_NE(message.find("napi.threaded: kernel = \"5.11\" does not have it: Linux 5.12 added it "
                         "(29863d41bb6e \"net: implement threaded-able napi poll loop support\")"),
            std::string::npos)
      << message;
  EXPECT_TRUE(load("kernel = \"5.12\"\n" + kPingPong, {"napi.threaded=true"}).ok());
}

TEST(threaded_napi, refuses_settings_it_would_ignore) {
  EXPECT_NE(error_of(kPingPong, {"napi.thread-core=0"}).find("napi.thread-core: only NAPI threads"),
            std::string::npos);
  EXPECT_NE(error_of(kPingPong, {"napi.threaded=true", "napi.thread-core=3"})
                .find("napi.thread-core: 3 is not a core"),
            std::string::npos);
  EXPECT_NE(
      error_of(kPingPong, {"napi.threaded=true", "napi.poll-in-irq=true", "napi.rx-backlog=true"})
          .find("napi.threaded: a poll in the interrupt handler"),
      std::string::npos);
}

TEST(threaded_napi, the_scenario_prints_and_loads_back) {
  const Scenario s = loaded(kPingPong, {"napi.threaded=true", "napi.thread-core=0"});
  std::ostringstream out;
  write_toml(out, s);
  EXPECT_NE(out.str().find("threaded = true"), std::string::npos);
  const Scenario back = loaded(out.str());
  EXPECT_EQ(back, s);
}

}  // namespace
}  // namespace irqmod::sim
