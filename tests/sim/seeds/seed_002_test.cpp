// Seed 002 (Magnus Karlsson's AF_XDP busy-poll table, May 2019) and the busy-poll budget curve of
// Björn Töpel's preferred busy-polling series (Nov 2020), on the shipped files
// scenarios/seeds/002-afxdp.toml and 002-afxdp-budget.toml, each [[variant]] run for 200 ms
// (the orderings below already hold; the shipped runs are 1 s).
//
// Fitted: cpu.xdp-rx and cpu.xdp-tx on the 2-core r-t-c row (rxdrop, txpush); the budget
// curve's platform by one factor on its 2-core row. Everything else is a prediction, and the
// orderings the model does NOT reproduce are listed here (kKnownMisses) and in docs/seeds.md:
// they are findings, pinned so that a change of the model that fixes or adds one shows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "irqmod/sim/scenario.hpp"
#include "irqmod/sim/simulation.hpp"
#include "sim/xdp/xdp_report.hpp"

namespace irqmod::sim {
namespace {

std::string shipped(const std::string& name) {
  return std::string(IRQMOD_SCENARIO_DIR) + "/seeds/" + name;
}

// The file's variant `name`, as `irqmod sim FILE --variant NAME --set ...`.
Scenario variant_of(const std::string& file, const std::string& name,
                    const std::vector<std::string>& extra = {}) {
  const LoadResult base = load_scenario_file(shipped(file));
  EXPECT_TRUE(base.ok()) << (base.ok() ? "" : base.error().what());
  std::vector<std::string> sets;
  for (const Variant& v : base.value().variants) {
    if (v.name == name) sets = v.sets;
  }
  EXPECT_FALSE(sets.empty()) << name;
  sets.insert(sets.end(), extra.begin(), extra.end());
  const LoadResult s = load_scenario_file(shipped(file), sets);
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().what());
  return s.value();
}

double mpps(const RunReport& r) {
  return static_cast<double>(r.delivered_packets) / 1e6 /
         (static_cast<double>(r.sim_time.count()) / 1e9);
}

RunReport run(const Scenario& s) {
  auto r = simulate(s);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().what());
  return r.value();
}

// Every cell of the seed's table: variant -> (seed's Mpps, the model's Mpps).
struct Cell {
  std::string app;
  double seed = 0;
  double model = 0;
};

const std::map<std::string, Cell>& table() {
  static const std::map<std::string, Cell> cells = [] {
    std::map<std::string, Cell> out;
    const LoadResult file = load_scenario_file(shipped("002-afxdp.toml"));
    EXPECT_TRUE(file.ok());
    for (const SeedRow& row : file.value().seed_rows) {
      const Scenario s = variant_of("002-afxdp.toml", row.variant, {"scenario.duration=200ms"});
      const RunReport r = run(s);
      EXPECT_TRUE(r.conservation.ok()) << row.variant;
      EXPECT_TRUE(r.tx_conservation.ok()) << row.variant;
      const std::string app = row.variant.substr(row.variant.rfind('-') + 1);
      out[row.variant] = Cell{app, row.seed_value, mpps(r)};
    }
    return out;
  }();
  return cells;
}

// Orderings of the seed (values more than 10 % apart within a column) that the model inverts
// (higher, lower): the findings of docs/seeds.md, all txpush's. The one-core busypoll cells sit
// below one-core r-t-c (23.9 and 23.6 against 24.0; the seed 22.0 and 21.5 against 18.1): every
// one-core txpush cell is too fast, r-t-c and poll the most, so the per-batch path of r-t-c
// (sendto(), the kick's interrupt, a softirq poll) costs the seed's host more than the model's.
// Six inversions went when a busy-loop turn stopped paying a poll call's fixed cost; poll()'s and
// sendto()'s own work (cpu.poll-call, cpu.socket-call, measured) brought back three, by 0.4 %.
// Three went with i40e 5.2's Tx completion interrupt (nic.xdp-tx-irq), each by less than 1 %:
// busypoll / 2 / txpush (24.07) now sits above the one-core cells (24.02, 23.89, 23.62), where
// the seed has it 45-48 % above them. Its interrupt brings core 0 in once per tx-usecs (50 us),
// a poll of at most 256 frames when the application's busy loop does not hold the context, so
// the driver's Tx work stays on the application's core (the seed's 31.9 says core 0 did it).
const std::set<std::pair<std::string, std::string>> kKnownMisses = {
    {"busypoll-1-n-txpush", "rtc-1-y-txpush"},
    {"busypoll-1-y-txpush", "rtc-1-y-txpush"},
};

TEST(seed_002, within_each_application_the_model_orders_cells_as_the_seed_wherever_they_differ) {
  const auto& cells = table();
  ASSERT_EQ(cells.size(), 21U);
  std::set<std::pair<std::string, std::string>> misses;
  for (const auto& [a, ca] : cells) {
    for (const auto& [b, cb] : cells) {
      if (ca.app != cb.app || ca.seed <= cb.seed * 1.10) continue;  // a above b by > 10 %
      if (ca.model <= cb.model) misses.insert({a, b});
    }
  }
  std::string listed;
  for (const auto& [a, b] : misses)
    listed += "  {\"" + a + "\", \"" + b + "\"},\n";
  EXPECT_EQ(misses, kKnownMisses) << "orderings the model inverts:\n" << listed;
}

TEST(seed_002, one_core_busy_poll_without_an_interrupt_beats_it_with_one) {
  const auto& cells = table();
  EXPECT_GT(cells.at("busypoll-1-n-rxdrop").model, cells.at("busypoll-1-y-rxdrop").model);
  EXPECT_GT(cells.at("busypoll-1-n-l2fwd").model, cells.at("busypoll-1-y-l2fwd").model);
  // txpush "increases only marginally ... as there are few interrupts on Tx" (the seed: 22.0
  // against 21.5, +2.3 %): the Tx completion interrupt, one per 50 us, costs the one-core cell
  // with it 1.2 % (23.62 against 23.89); without that cause the two were equal.
  const double n = cells.at("busypoll-1-n-txpush").model, y = cells.at("busypoll-1-y-txpush").model;
  EXPECT_GT(n, y);
  EXPECT_LT(n, 1.03 * y);
}

TEST(seed_002, one_core_run_to_completion_rxdrop_crawls) {
  const auto& cells = table();
  EXPECT_LT(cells.at("rtc-1-y-rxdrop").model, 0.01 * cells.at("rtc-2-y-rxdrop").model);
  // ... and it is the fill ring's flag that nobody reads: with need_wakeup obeyed it runs.
  const RunReport fixed = run(variant_of("002-afxdp.toml", "rtc-1-y-rxdrop",
                                         {"scenario.duration=50ms", "xdp.need-wakeup=true"}));
  EXPECT_GT(mpps(fixed), 0.3 * cells.at("rtc-2-y-rxdrop").model);
}

// The two-core busypoll rows with the 2019 i40e's off-affinity branch: the driver's Rx work goes
// back to core 0 and the application's busy loop ends on the socket's rings, so rxdrop and l2fwd
// run near their r-t-c figures (the seed: 10.5 and 7.9 against 11.2 and 8.6, 6 % and 8 % below).
// The model's l2fwd is 0.5 % above its r-t-c figure (8.62 against 8.58: the busy loop's share of
// the driver's work runs on the application's core); not faster by more than 1 %.
TEST(seed_002, two_core_busy_poll_keeps_the_driver_on_the_interrupts_core_for_rxdrop_and_l2fwd) {
  const auto& cells = table();
  for (const char* app : {"rxdrop", "l2fwd"}) {
    const std::string bp = std::string("busypoll-2-y-") + app, rtc = std::string("rtc-2-y-") + app;
    EXPECT_GT(cells.at(bp).model, 0.9 * cells.at(rtc).model) << app;
    EXPECT_LE(cells.at(bp).model, cells.at(rtc).model * 1.01) << app;
  }
}

TEST(seed_002, the_fitted_cells_land_on_the_seed) {
  const auto& cells = table();
  for (const char* v : {"rtc-2-y-txpush", "rtc-2-y-rxdrop"})
    EXPECT_NEAR(cells.at(v).model, cells.at(v).seed, 0.02 * cells.at(v).seed) << v;
}

// The driver costs fitted on the 2-core rows with the rings' cache lines charged apart
// (cpu.xsk-cache-line) are the driver's work alone, which is all one core pays, and a busy-loop
// turn pays its iteration and the frames, not a poll call's fixed cost: the one-core busypoll
// rxdrop and l2fwd cells land within 10 % of the seed (x0.93-1.01). Their txpush cells do not
// all (x1.11 and x1.09): every one-core txpush cell is too fast in the model (docs/seeds.md).
TEST(seed_002, one_core_busy_poll_lands_near_the_seed_once_the_fit_leaves_out_cross_core_lines) {
  const auto& cells = table();
  for (const char* v :
       {"busypoll-1-y-rxdrop", "busypoll-1-y-l2fwd", "busypoll-1-n-rxdrop", "busypoll-1-n-l2fwd"})
    EXPECT_NEAR(cells.at(v).model / cells.at(v).seed, 1.0, 0.10) << v;
}

TEST(seed_002, the_budget_curve_rises_and_saturates_near_the_two_core_figure) {
  const auto at = [](const std::string& v) {
    return mpps(run(variant_of("002-afxdp-budget.toml", v, {"scenario.duration=200ms"})));
  };
  const double two = at("two-cores");
  const double b8 = at("budget-8"), b64 = at("budget-64"), b256 = at("budget-256"),
               b512 = at("budget-512");
  EXPECT_NEAR(two, 20.7, 0.02 * 20.7);  // fitted
  EXPECT_LT(b8, b64);
  EXPECT_LT(b64, b256);
  EXPECT_LE(b256, b512 * 1.001);
  EXPECT_GT(b64 / b8, 1.5);     // the steep part
  EXPECT_LT(b512 / b256, 1.1);  // saturated
  EXPECT_GT(b512, 0.85 * two);  // the largest budget within 15 % of two cores
}

TEST(seed_002, runs_are_deterministic_and_pinned) {
  const Scenario s = variant_of("002-afxdp.toml", "busypoll-1-y-l2fwd", {"scenario.duration=10ms"});
  const RunReport a = run(s);
  const RunReport b = run(s);
  EXPECT_EQ(a.delivered_packets, b.delivered_packets);
  EXPECT_EQ(a.events, b.events);
  // 51584 before the RFC's loop end followed Sridhar's review (poll-events): the first 10 ms of a
  // one-core l2fwd run end their busy loops on the socket's rings. 51349 before the rings' cache
  // lines were charged apart (cpu.xsk-cache-line): the driver costs refitted on the 2-core rows
  // without them (cpu.xdp-rx 83 -> 76, cpu.xdp-tx 26 -> 16) are lower, and one core pays no line.
  // 56725 before a busy-loop turn stopped paying a poll call's fixed cost (cpu.napi-poll), 58965
  // before poll()'s own work was charged (cpu.poll-call).
  EXPECT_EQ(a.delivered_packets, 58005U);
  // A one-core busypoll txpush run takes the Tx completion interrupt (200 in 10 ms); 238784
  // before i40e 5.2's Tx completion cause was modelled (nic.xdp-tx-irq).
  const Scenario t =
      variant_of("002-afxdp.toml", "busypoll-1-y-txpush", {"scenario.duration=10ms"});
  const RunReport tx = run(t);
  ASSERT_TRUE(tx.xdp);
  EXPECT_EQ(tx.xdp->queue.tx_interrupts, 200U);
  EXPECT_EQ(tx.delivered_packets, 236032U);
}

}  // namespace
}  // namespace irqmod::sim
