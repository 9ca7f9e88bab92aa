// calibrate's measurements and plan on the running kernel, with small budgets (calibrate.hpp,
// calibrate_plan.hpp). Times on a shared 2-vCPU machine vary by tens of percent, so these
// assert what must hold whatever the load: sample counts within the budget, costs that are
// positive where an operation cannot be free, every key measured or skipped with a reason.
#include "irqmod/rt/calibrate.hpp"

#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <set>

#include "irqmod/rt/calibrate_plan.hpp"
#include "irqmod/rt/calibrate_report.hpp"

namespace irqmod::rt::calibrate {
namespace {

constexpr Budget kSmall{200, milliseconds(200)};

double median(const Samples& s) {
  return summarise(s).p50;
}

TEST(calibrate, a_measurement_stops_at_its_sample_count) {
  const auto s = null_syscall(Budget{50, seconds(5)});
  ASSERT_TRUE(s) << s.error().what();
  EXPECT_EQ(s->size(), 50u);
  EXPECT_GT(median(*s), 0);
}

TEST(calibrate, a_measurement_stops_at_its_time) {
  const auto s = hrtimer_lateness(Budget{1'000'000, milliseconds(20)}, microseconds(500));
  ASSERT_TRUE(s) << s.error().what();
  // 20 ms hold at most 40 sleeps of 500 us; the warm-up's are not sampled.
  EXPECT_LE(s->size(), 40u);
}

TEST(calibrate, a_sleep_never_returns_early) {
  const auto s = hrtimer_lateness(Budget{20, milliseconds(100)}, microseconds(50));
  ASSERT_TRUE(s) << s.error().what();
  ASSERT_FALSE(s->empty());
  // clock_nanosleep sleeps at least the time asked; the clock's own cost (tens of ns) is taken
  // out of each sample, so a sample can be that much below zero, not more.
  for (const std::int64_t late : *s)
    EXPECT_GT(late, -1000);
}

TEST(calibrate, the_clock_event_device_measurements_sample_every_kind) {
  const auto programmed = timer_programming(Budget{200, milliseconds(200)});
  ASSERT_TRUE(programmed) << programmed.error().what();
  for (const Samples* kind : {&programmed->arm_soon, &programmed->cancel_soon, &programmed->arm_far,
                              &programmed->cancel_far}) {
    ASSERT_FALSE(kind->empty());
    EXPECT_GT(median(*kind), 0);
  }
  const auto gaps = timer_interrupt_gaps(Budget{100, milliseconds(200)});
  ASSERT_TRUE(gaps) << gaps.error().what();
  ASSERT_FALSE(gaps->with_timer.empty());
  ASSERT_EQ(gaps->with_timer.size(), gaps->without.size());
  // An interrupt, whatever it costs on this machine, is a longer gap than a clock read.
  EXPECT_GT(median(gaps->with_timer), median(gaps->without));
}

TEST(calibrate, the_host_noise_spin_sorts_its_gaps_by_length_and_spins_each_cpu_its_time) {
  const auto noise = host_noise(Budget{1'000'000, milliseconds(100)});
  ASSERT_TRUE(noise) << noise.error().what();
  // One spin per CPU the thread may run on (up to kNoiseCpus), each for the budget's time.
  std::size_t cpus = 0;
  while (cpus < static_cast<std::size_t>(kNoiseCpus) && allowed_cpu(static_cast<int>(cpus)) >= 0)
    ++cpus;
  ASSERT_EQ(noise->spun.size(), cpus);
  for (const std::int64_t ns : noise->spun) {
    EXPECT_GE(ns, milliseconds(100).count());
    EXPECT_LT(ns, milliseconds(100).count() + milliseconds(50).count());
  }
  for (const std::int64_t gap : noise->lengths) {
    EXPECT_GT(gap, kNoiseFloor.count());
    EXPECT_LE(gap, kNoiseSplit.count());
  }
  for (const std::int64_t gap : noise->long_lengths)
    EXPECT_GT(gap, kNoiseSplit.count());
  // An interval is counted from an event to the next of its kind on one CPU: one fewer a CPU at
  // most, and never shorter than the event it starts with.
  EXPECT_LE(noise->intervals.size(), noise->lengths.size());
  EXPECT_GE(noise->intervals.size() + cpus, noise->lengths.size());
  EXPECT_LE(noise->long_intervals.size(), noise->long_lengths.size());
  for (const std::int64_t interval : noise->intervals)
    EXPECT_GT(interval, kNoiseFloor.count());
}

TEST(calibrate, the_kernels_tick_rate_is_one_linux_allows_or_says_where_it_looked) {
  const Expected<int> hz = kernel_hz();
  if (hz) {
    EXPECT_TRUE(hz.value() == 100 || hz.value() == 250 || hz.value() == 300 || hz.value() == 1000)
        << hz.value();
  } else {
    EXPECT_NE(hz.error().what().find("/boot/config-"), std::string::npos) << hz.error().what();
  }
}

TEST(calibrate, the_single_thread_calls_are_positive_costs) {
  for (const auto& measure : {clock_read, null_syscall, udp_recv_empty, epoll_wait_empty,
                              epoll_wait_ready, poll_one_socket}) {
    const auto s = measure(kSmall);
    ASSERT_TRUE(s) << s.error().what();
    EXPECT_FALSE(s->empty());
    EXPECT_GT(median(*s), 0);
  }
}

TEST(calibrate, a_message_exchange_has_a_send_and_a_receive_sample_per_message) {
  for (const MessageApi api : {MessageApi::sendto_recvfrom, MessageApi::sendmsg_recvmsg}) {
    const auto udp = udp_loopback(kSmall, 1472, api);
    ASSERT_TRUE(udp) << udp.error().what();
    EXPECT_EQ(udp->send.size(), udp->receive.size());
    EXPECT_GT(median(udp->send), 0);
    EXPECT_GT(median(udp->receive), 0);
    const auto tcp = tcp_loopback(kSmall, 16384, api);
    ASSERT_TRUE(tcp) << tcp.error().what();
    EXPECT_EQ(tcp->send.size(), tcp->receive.size());
    EXPECT_GT(median(tcp->receive), 0);
  }
}

TEST(calibrate, message_sizes_out_of_range_are_refused_naming_the_range) {
  const auto empty = udp_loopback(kSmall, 0, MessageApi::sendto_recvfrom);
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().message.find("allowed 1 to 65507"), std::string::npos);
  EXPECT_FALSE(udp_loopback(kSmall, 65508, MessageApi::sendto_recvfrom));
  EXPECT_FALSE(tcp_loopback(kSmall, (1 << 20) + 1, MessageApi::sendmsg_recvmsg));
}

TEST(calibrate, a_yield_switches_to_the_partner_on_the_same_cpu) {
  double switched = -1;
  const auto s = yield_switch(kSmall, &switched);
  ASSERT_TRUE(s) << s.error().what();
  EXPECT_GT(median(*s), 0);
  EXPECT_GE(switched, 0);
}

TEST(calibrate, a_wake_up_on_the_same_cpu_is_measured_and_the_other_needs_two_cpus) {
  const auto same = wakeup_latency(kSmall, WakeCore::same, Duration::zero());
  ASSERT_TRUE(same) << same.error().what();
  EXPECT_GT(median(*same), 0);
  const auto other =
      wakeup_latency(Budget{50, milliseconds(200)}, WakeCore::other, microseconds(10));
  if (allowed_cpu(1) < 0) {
    ASSERT_FALSE(other);
    EXPECT_NE(other.error().message.find("two CPUs"), std::string::npos);
  } else {
    ASSERT_TRUE(other) << other.error().what();
    EXPECT_GT(median(*other), 0);
  }
}

TEST(calibrate, a_cpu_pin_holds_one_cpu_and_gives_the_mask_back) {
  cpu_set_t before;
  ASSERT_EQ(sched_getaffinity(0, sizeof before, &before), 0);
  {
    const CpuPin pin(0);
    ASSERT_FALSE(pin.error());
    EXPECT_EQ(pin.cpu(), allowed_cpu(0));
    EXPECT_EQ(allowed_cpu(1), -1);
    EXPECT_EQ(sched_getcpu(), pin.cpu());
  }
  cpu_set_t after;
  ASSERT_EQ(sched_getaffinity(0, sizeof after, &after), 0);
  EXPECT_TRUE(CPU_EQUAL(&before, &after));
  EXPECT_TRUE(CpuPin(CPU_SETSIZE).error());
}

TEST(calibrate, the_kernel_paths_need_root_and_send_every_batch_kind_alike) {
  auto lab = PathLab::open();
  if (::geteuid() != 0) {
    ASSERT_FALSE(lab);
    EXPECT_NE(lab.error().message.find("root"), std::string::npos);
    return;
  }
  ASSERT_TRUE(lab) << lab.error().what();
  const std::vector<PathLab::Batch> batches{
      {Path::tun, 4}, {Path::loopback, 4}, {Path::loopback_dropped, 32}, {Path::veth_dropped, 4}};
  const auto sent = lab.value()->send(Budget{30, milliseconds(500)}, batches);
  ASSERT_TRUE(sent) << sent.error().what();
  ASSERT_EQ(sent->per_batch.size(), batches.size());
  for (const Samples& s : sent->per_batch) {
    EXPECT_EQ(s.size(), sent->per_batch[0].size());
    EXPECT_GT(median(s), 0);
  }
  EXPECT_GE(sent->softirqs_per_send, 0);
  EXPECT_FALSE(lab.value()->send(kSmall, {{Path::tun, 65}}));
}

TEST(calibrate, a_small_plan_measures_or_skips_every_key_with_a_method_or_a_reason) {
  PlanOptions options;
  options.quick = true;
  options.scale = 0.05;
  int progress = 0;
  options.progress = [&progress](const std::string&) { ++progress; };
  const Report report = run_plan(options);
  EXPECT_GT(progress, 0);
  EXPECT_FALSE(report.header.kernel.empty());
  EXPECT_GT(report.header.cpus, 0u);
  EXPECT_GT(report.header.seconds, 0);
  std::set<std::string> keys;
  for (const Entry& e : report.entries) {
    if (e.skipped.empty()) {
      EXPECT_FALSE(e.method.empty()) << e.key;
      EXPECT_GT(e.summary.n, 0u) << e.key;
      EXPECT_LE(e.summary.p10, e.summary.p50) << e.key;
      EXPECT_LE(e.summary.p50, e.summary.p90) << e.key;
    } else {
      EXPECT_EQ(e.summary.n, 0u) << e.key;
    }
    if (!e.raw) keys.insert(e.key);
  }
  for (const char* key : {"cpu.syscall",
                          "cpu.app-message",
                          "cpu.copy-kb",
                          "cpu.context-switch",
                          "cpu.wakeup",
                          "cpu.wakeup-remote",
                          "cpu.wakeup-idle",
                          "cpu.busy-poll-iteration",
                          "cpu.poll-call",
                          "cpu.epoll-wait",
                          "cpu.epoll-empty",
                          "cpu.hrtimer-late",
                          "cpu.tx-packet",
                          "cpu.rx-packet",
                          "cpu.napi-poll",
                          "cpu.backlog-enqueue",
                          "cpu.backlog-poll",
                          "cpu.veth-packet",
                          "cpu.veth-poll",
                          "cpu.veth-xmit",
                          "cpu.softirq-entry",
                          "cpu.wakeup-ipi",
                          "cpu.wakeup-run",
                          "cpu.hrtimer-arm",
                          "cpu.timer-irq",
                          "cpu.hz",
                          "cpu.wakeup-run-local",
                          "cpu.noise-interval",
                          "cpu.noise",
                          "cpu.noise-long-interval",
                          "cpu.noise-long"})
    EXPECT_EQ(keys.count(key), 1u) << key;
  // Every key is there once.
  std::size_t listed = 0;
  for (const Entry& e : report.entries)
    listed += e.raw ? 0 : 1;
  EXPECT_EQ(listed, keys.size());
}

}  // namespace
}  // namespace irqmod::rt::calibrate
