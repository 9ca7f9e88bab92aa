// The report's words (issue 30, item 4): hardirqs by source and NAPI polls by what ran them, per
// core; one "cpu" (the mean over the cores) with the per-core lines after it; seconds for the
// run; a run whose inputs are all constants says so beside its percentiles.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "irqmod/sim/metrics.hpp"
#include "irqmod/sim/scenario.hpp"
#include "irqmod/sim/simulation.hpp"
#include "sim/load_helpers.hpp"
#include "sim/run_setup.hpp"

namespace irqmod::sim {
namespace {

RunReport shipped_run(const std::string& name, std::vector<std::string> sets) {
  sets.emplace_back("scenario.duration=30ms");
  const LoadResult loaded =
      load_scenario_file(std::string(IRQMOD_SCENARIO_DIR) + "/" + name, std::move(sets));
  EXPECT_TRUE(loaded.ok()) << (loaded.ok() ? "" : loaded.error().what());
  return loaded.ok() ? test::run(loaded.value()) : RunReport();
}

std::string text_of(const RunReport& r) {
  std::ostringstream out;
  write_text(out, r);
  return out.str();
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(report_words, the_napi_timers_interrupts_and_polls_are_not_the_devices) {
  // 000-modes-defer: napi_defer_hard_irqs keeps the vector masked, and the NAPI timer
  // (gro_flush_timeout) interrupts instead: one device interrupt, thousands of timer ones.
  const RunReport r = shipped_run("seeds/000-modes-defer.toml", {"scenario.warmup=0"});
  ASSERT_EQ(r.cores.size(), 1U);
  const CoreCounters& c = r.cores[0];
  EXPECT_EQ(c.device_irqs, r.interrupts.total());  // the vector's, and only they
  EXPECT_GT(c.timer_irqs, 100 * c.device_irqs);
  // Each timer interrupt schedules the poll it is there for.
  EXPECT_EQ(c.timer_polls, c.timer_irqs);
  EXPECT_EQ(c.busy_polls, 0U);
  const std::string text = text_of(r);
  EXPECT_TRUE(has(text, "device hardirqs: " + std::to_string(r.interrupts.total()) + " (")) << text;
  EXPECT_TRUE(has(text, "hardirqs " + std::to_string(c.device_irqs + c.timer_irqs) + " (device " +
                            std::to_string(c.device_irqs) + ", napi timer " +
                            std::to_string(c.timer_irqs) + ")"))
      << text;
  EXPECT_TRUE(has(text, "napi polls " + std::to_string(c.polls) + " (softirq " +
                            std::to_string(c.polls - c.timer_polls) + ", timer " +
                            std::to_string(c.timer_polls) + ", busy 0)"))
      << text;
}

TEST(report_words, busy_polls_are_counted_apart_from_the_softirqs) {
  // 000-modes-suspend: epoll busy-polls while the IRQs are suspended.
  const RunReport r = shipped_run("seeds/000-modes-suspend.toml", {});
  const CoreCounters& c = r.cores[0];
  EXPECT_GT(c.busy_polls, 100U);
  EXPECT_GT(c.polls, c.busy_polls + c.timer_polls);  // NET_RX polls too
}

// Per vector the same three kinds, counted where the core's are: on a NIC the queues' NAPI
// contexts ran every poll the cores did, and a mode's kind shows where it should.
TEST(report_words, each_vectors_polls_by_kind_add_up_to_the_cores) {
  for (const char* name : {"seeds/000-modes-defer.toml", "seeds/000-modes-suspend.toml",
                           "seeds/000-modes-napibusy.toml", "basics/rss-4q-10g.toml"}) {
    const RunReport r = shipped_run(name, {});
    CoreCounters cores;
    for (const CoreCounters& c : r.cores) {
      cores.polls += c.polls;
      cores.timer_polls += c.timer_polls;
      cores.busy_polls += c.busy_polls;
    }
    NapiPolls vectors;
    for (const QueueCounters& q : r.queues) {
      vectors.softirq += q.polls.softirq;
      vectors.timer += q.polls.timer;
      vectors.busy += q.polls.busy;
    }
    EXPECT_EQ(vectors.softirq + vectors.timer + vectors.busy, cores.polls) << name;
    EXPECT_EQ(vectors.timer, cores.timer_polls) << name;
    EXPECT_EQ(vectors.busy, cores.busy_polls) << name;
    EXPECT_GT(vectors.softirq + vectors.timer + vectors.busy, 0U) << name;
    const std::string text = text_of(r);
    EXPECT_TRUE(has(text, "; napi polls: softirq " + std::to_string(r.queues[0].polls.softirq) +
                              ", timer " + std::to_string(r.queues[0].polls.timer) + ", busy " +
                              std::to_string(r.queues[0].polls.busy)))
        << name;
  }
}

TEST(report_words, cpu_is_the_mean_over_the_cores_with_each_core_after_it) {
  const RunReport r = shipped_run("basics/rss-4q-10g.toml", {});
  ASSERT_EQ(r.cpu.cores(), 4U);
  double sum = 0;
  for (std::size_t c = 0; c < 4; ++c)
    sum += static_cast<double>(r.cpu.busy(c).count()) / static_cast<double>(r.sim_time.count());
  ASSERT_TRUE(r.cpu.utilization(r.sim_time));
  EXPECT_NEAR(*r.cpu.utilization(r.sim_time), sum / 4, 1e-12);
  char line[96];
  std::snprintf(line, sizeof line, "cpu: %.1f%% busy, the mean over 4 cores (per core below)\n",
                100 * sum / 4);
  const std::string text = text_of(r);
  EXPECT_TRUE(has(text, line)) << text;
  EXPECT_LT(text.find(line), text.find("cpu 0: busy"));
}

TEST(report_words, the_header_names_the_platform_and_gives_the_run_in_seconds) {
  const std::string text =
      text_of(shipped_run("seeds/000-modes-base.toml", {"scenario.warmup=5ms"}));
  EXPECT_EQ(text.rfind("scenario 000-modes-base, seed 1, platform x86-i40e, simulated 0.025 s "
                       "after 0.005 s of warm-up, ",
                       0),
            0U)
      << text.substr(0, text.find('\n'));
  const RunReport none = test::run(test::loaded("[scenario]\nduration = \"1500us\"\n"));
  EXPECT_EQ(text_of(none).rfind("scenario test, seed 1, platform none (the scenario's own costs "
                                "only), simulated 0.0015 s, ",
                                0),
            0U);
}

TEST(report_words, a_run_of_constants_says_its_spread_is_the_models_alone) {
  const std::string note = "note: every cost and arrival of this run is a constant";
  // A ping-pong on constant costs: one number.
  const std::string pingpong = text_of(shipped_run("basics/pingpong-udp.toml", {}));
  EXPECT_TRUE(has(pingpong, note + ", so its latency spread is only what queueing and batching "
                                   "make of them (none here: one number by construction)"))
      << pingpong;
  // A line-rate stream on the same costs: batching spreads it, and the note does not say none.
  const std::string stream = text_of(shipped_run("basics/stream-10g-dim.toml", {}));
  EXPECT_TRUE(has(stream, note));
  EXPECT_FALSE(has(stream, "none here"));
  // Drawn costs (seed 000's platform spreads) or Poisson arrivals: no note.
  EXPECT_FALSE(has(text_of(shipped_run("seeds/000-modes-base.toml", {})), note));
  EXPECT_FALSE(has(text_of(shipped_run("basics/pingpong-udp.toml",
                                       {"traffic.kind=poisson", "traffic.rate=10000"})),
                   note));
}

TEST(report_words, inputs_are_constant_reads_every_drawn_key_the_run_uses) {
  EXPECT_TRUE(inputs_are_constant(test::loaded("[cpu]\nsyscall = 150\n")));
  EXPECT_FALSE(inputs_are_constant(test::loaded("[cpu]\nsyscall = \"uniform(100ns, 200ns)\"\n")));
  EXPECT_FALSE(inputs_are_constant(test::loaded("[traffic]\njitter = \"exponential(1us)\"\n")));
  EXPECT_FALSE(inputs_are_constant(test::loaded(
      "[[flow]]\nkind = \"constant\"\nrate = 1000\njitter = \"uniform(0ns, 5ns)\"\n")));
  EXPECT_FALSE(inputs_are_constant(test::loaded("[traffic]\nkind = \"poisson\"\nrate = 1000\n")));
  // A drive's service time (a uniform range by default) is not drawn without a drive.
  EXPECT_TRUE(
      inputs_are_constant(test::loaded("[storage]\nservice-time = \"uniform(4us, 6us)\"\n")));
}

}  // namespace
}  // namespace irqmod::sim
