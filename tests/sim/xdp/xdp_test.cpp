// The AF_XDP model (src/sim/xdp/): every [xdp] key and AF_XDP cost changes a run (a key the model
// ignored would fail here), the books balance, bad settings are refused by name, and [[variant]]
// tables load, check their assignments and equal the same --set on the command line.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "irqmod/sim/metrics.hpp"
#include "irqmod/sim/scenario.hpp"
#include "irqmod/sim/simulation.hpp"
#include "sim/load_helpers.hpp"
#include "sim/xdp/xdp_report.hpp"
#include "sim/xdp/xsk.hpp"

namespace irqmod::sim {
namespace {

// Seed 002's machine, 10 ms, two cores (the application on core 1).
constexpr const char* kBase = R"(platform = "i40e-afxdp-2019"
[scenario]
duration = "10ms"
[cpu]
cores = 2
app-core = 1
[napi]
busy_read = "50us"
busy_poll_budget = 64
[xdp]
app = "rxdrop"
)";

LoadResult load(const std::vector<std::string>& sets, const char* text = kBase) {
  return load_scenario_text(text, std::string(IRQMOD_SCENARIO_DIR) + "/test.toml",
                            test::costs_only(text, sets));
}

RunReport run(const std::vector<std::string>& sets) {
  const LoadResult s = load(sets);
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().what());
  auto r = simulate(s.value());
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().what());
  EXPECT_TRUE(r.value().conservation.ok());
  EXPECT_TRUE(r.value().tx_conservation.ok());
  return r.value();
}

std::uint64_t delivered(const std::vector<std::string>& sets) {
  return run(sets).delivered_packets;
}

const std::vector<std::string> kOneCore = {"cpu.cores=1", "cpu.app-core=0"};

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST(xdp, the_application_decides_what_moves) {
  const RunReport rx = run({});
  const RunReport tx = run({"xdp.app=txpush"});
  const RunReport fwd = run({"xdp.app=l2fwd"});
  EXPECT_GT(rx.conservation.entered, 0U);
  EXPECT_EQ(tx.conservation.entered, 0U);  // txpush receives nothing
  EXPECT_GT(tx.tx_conservation.entered, 0U);
  EXPECT_GT(fwd.tx_conservation.entered, 0U);
  EXPECT_GT(tx.delivered_packets, rx.delivered_packets);
  EXPECT_GT(rx.delivered_packets, fwd.delivered_packets);
}

// An AF_XDP run has no sockperf-like client: the text report says what the socket did and no
// "No messages were received from the server".
TEST(xdp, the_text_report_has_no_sockperf_lines) {
  std::ostringstream text;
  write_text(text, run({}));
  EXPECT_EQ(text.str().find("sockperf:"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("af_xdp: "), std::string::npos) << text.str();
}

// The Tx completions the application took back (xdpsock's complete_tx_only): only a sender has
// any, and the report's JSON and text carry them.
TEST(xdp, the_report_counts_the_tx_completions_taken_back) {
  const RunReport rx = run({});
  const RunReport tx = run({"xdp.app=txpush"});
  ASSERT_TRUE(rx.xdp && tx.xdp);
  EXPECT_EQ(rx.xdp->app.completed, 0U);
  EXPECT_GT(tx.xdp->app.completed, 0U);
  EXPECT_LE(tx.xdp->app.completed, tx.xdp->queue.sent);  // a completion is of a sent frame
  std::ostringstream json;
  write_json(json, tx);
  EXPECT_EQ(nlohmann::json::parse(json.str())["af_xdp"]["completions"].get<std::uint64_t>(),
            tx.xdp->app.completed);
  std::ostringstream text;
  write_text(text, tx);
  EXPECT_NE(
      text.str().find(", " + std::to_string(tx.xdp->app.completed) + " Tx completions taken back;"),
      std::string::npos)
      << text.str();
}

// 100 ms: the crawl's first ring of frames is then well below 1 % of a running method's.
const std::vector<std::string> kOneCoreLong = {"cpu.cores=1", "cpu.app-core=0",
                                               "scenario.duration=100ms"};

TEST(xdp, each_method_and_the_interrupt_change_a_one_core_run) {
  const auto rtc = delivered(kOneCoreLong);
  const auto poll = delivered(with(kOneCoreLong, {"xdp.method=poll"}));
  const auto busy = delivered(with(kOneCore, {"xdp.method=busypoll"}));
  const auto no_irq = delivered(with(kOneCore, {"xdp.method=busypoll", "xdp.irqs=false"}));
  EXPECT_LT(rtc * 100, poll);  // the crawl: nobody reads the fill ring's flag
  EXPECT_NE(poll, busy);
  EXPECT_GT(no_irq, busy);
}

TEST(xdp, need_wakeup_ends_the_one_core_crawl) {
  EXPECT_GT(delivered(with(kOneCoreLong, {"xdp.need-wakeup=true"})), 100 * delivered(kOneCoreLong));
}

TEST(xdp, ring_and_umem_sizes_bind) {
  const auto plain = delivered(with(kOneCore, {"xdp.method=poll"}));
  EXPECT_LT(delivered(with(kOneCore, {"xdp.method=poll", "xdp.frames=64"})), plain);
  EXPECT_LT(delivered(with(kOneCore, {"xdp.method=poll", "xdp.fill-ring=64"})), plain);
  const RunReport small_rx = run(with(kOneCore, {"xdp.method=poll", "xdp.rx-ring=64"}));
  const RunReport big_rx = run(with(kOneCore, {"xdp.method=poll"}));
  EXPECT_NE(small_rx.drops.count(DropReason::socket_queue_full),
            big_rx.drops.count(DropReason::socket_queue_full));
  const auto push = delivered({"xdp.app=txpush"});
  EXPECT_LT(delivered({"xdp.app=txpush", "xdp.tx-ring=64"}), push);
  EXPECT_LT(delivered({"xdp.app=txpush", "xdp.comp-ring=64"}), push);
}

TEST(xdp, batch_tx_budget_and_tx_work_reporting_change_the_driver) {
  const RunReport push = run({"xdp.app=txpush"});
  EXPECT_NE(delivered({"xdp.app=txpush", "xdp.batch=8"}), push.delivered_packets);
  EXPECT_LT(delivered({"xdp.app=txpush", "xdp.tx-budget=16"}), push.delivered_packets);
  // Reported Tx work keeps a one-core softirq polling when a poll used the whole Tx budget; at
  // the seed's 256 a 64-frame batch never does, which is why reporting it changed nothing there.
  const auto one_push = with(kOneCore, {"xdp.app=txpush", "xdp.tx-budget=32"});
  EXPECT_NE(delivered(one_push), delivered(with(one_push, {"xdp.report-tx-work=true"})));
  const auto seed_push = with(kOneCore, {"xdp.app=txpush"});
  EXPECT_EQ(delivered(seed_push), delivered(with(seed_push, {"xdp.report-tx-work=true"})));
}

TEST(xdp, the_busy_loop_end_rule_changes_a_busy_poll) {
  const auto rfc = delivered(with(kOneCore, {"xdp.method=busypoll"}));
  const auto once = delivered(with(kOneCore, {"xdp.method=busypoll", "xdp.busy-loop-end=once"}));
  EXPECT_NE(rfc, once);
  // Sridhar's reading (the socket's rings, xsk_poll's events): on two cores the busy loop ends
  // as soon as the socket has frames, instead of spinning while the softirq on core 0 holds the
  // context and the driver's ring keeps filling.
  const auto driver_rings = delivered({"xdp.method=busypoll"});
  const auto events = delivered({"xdp.method=busypoll", "xdp.busy-loop-end=poll-events"});
  EXPECT_GT(events, driver_rings + driver_rings / 5);
}

// The RFC's XDP_BUSY_POLL_BATCH_SIZE is the busy loop's budget when set, whatever
// napi.busy_poll_budget says (the kernel's BUSY_POLL_BUDGET, 8, on the seed's 5.2).
TEST(xdp, the_rfcs_busy_poll_batch_is_the_busy_loops_budget) {
  const std::vector<std::string> bp = {"xdp.method=busypoll", "xdp.busy-loop-end=poll-events"};
  const auto batch8 = delivered(with(kOneCore, with(bp, {"xdp.busy-poll-batch=8"})));
  const auto batch64 = delivered(with(kOneCore, with(bp, {"xdp.busy-poll-batch=64"})));
  EXPECT_GT(batch64, batch8);
  const auto budget8 =
      delivered(with(kOneCore, with(bp, {"xdp.busy-poll-batch=64", "napi.busy_poll_budget=8"})));
  EXPECT_EQ(budget8, batch64);
  // Without the RFC's option the kernel's budget is the loop's (kBase: 64).
  EXPECT_EQ(delivered(with(kOneCore, bp)), batch64);
}

// i40e_napi_poll's off-affinity branch (napi::Driver::poll_return) on the AF_XDP queue: a busy
// poll that fills its budget on the application's core (core 1) completes, forces a write-back
// interrupt and returns budget - 1, so busy_poll_stop does not __napi_schedule the context on
// core 1 and the interrupt brings it back to core 0, where the driver works beside the
// application. Without the branch, l2fwd's driver work stays on the application's core.
TEST(xdp, the_off_affinity_branch_hands_a_full_busy_poll_back_to_the_interrupts_core) {
  const std::vector<std::string> l2fwd = {"xdp.app=l2fwd", "xdp.method=busypoll",
                                          "xdp.busy-loop-end=poll-events",
                                          "scenario.duration=20ms"};
  const RunReport branch = run(l2fwd);
  const RunReport none = run(with(l2fwd, {"nic.off-affinity-force-wb=false"}));
  EXPECT_GT(branch.delivered_packets, none.delivered_packets + none.delivered_packets / 5);
  // The context stays with core 0's softirq: the application's busy loop rarely owns it.
  ASSERT_TRUE(branch.xdp && none.xdp);
  EXPECT_LT(10 * branch.xdp->napi.busy_polls, none.xdp->napi.busy_polls);
  // On one core every poll is on the vector's core: the branch never fires.
  EXPECT_EQ(delivered(with(kOneCore, l2fwd)),
            delivered(with(kOneCore, with(l2fwd, {"nic.off-affinity-force-wb=false"}))));
}

// i40e 5.2's Tx completion cause (nic.xdp-tx-irq, on for i40e-afxdp-2019): the RS bit on each
// i40e_xmit_zc call's last descriptor raises the vector's interrupt when it completes, through
// ITR index 1 (nic.tx-usecs), not Rx's. On one core with the RFC's busy poll (no kick, the
// interrupt enabled between polls) txpush takes one per tx-usecs and pays for them.
TEST(xdp, a_completed_rs_descriptor_raises_the_tx_interrupt_through_the_tx_itr) {
  const auto bp = with(kOneCore, {"xdp.app=txpush", "xdp.method=busypoll",
                                  "xdp.busy-loop-end=poll-events", "scenario.duration=20ms"});
  const RunReport on = run(bp);
  const RunReport off = run(with(bp, {"nic.xdp-tx-irq=false"}));
  ASSERT_TRUE(on.xdp && off.xdp);
  EXPECT_EQ(off.xdp->queue.tx_interrupts, 0U);
  EXPECT_EQ(off.interrupts.total(), 0U);
  // One per 50 us (the schema's tx-usecs, I40E_ITR_20K) over 20 ms, the first at once.
  EXPECT_EQ(on.xdp->queue.tx_interrupts, 400U);
  EXPECT_EQ(on.interrupts.total(), 400U);
  EXPECT_LT(on.delivered_packets, off.delivered_packets);
  // Tx's own interval: 20 us gives 2.5 times as many; Rx's does not throttle it.
  const RunReport fast = run(with(bp, {"nic.tx-usecs=20"}));
  ASSERT_TRUE(fast.xdp);
  EXPECT_EQ(fast.xdp->queue.tx_interrupts, 1000U);
  const RunReport rx_itr = run(with(bp, {"nic.rx-usecs=200"}));
  ASSERT_TRUE(rx_itr.xdp);
  EXPECT_EQ(rx_itr.xdp->queue.tx_interrupts, 400U);
  // No interrupt on the context (xdp.irqs = false): no Tx cause either.
  const RunReport none = run(with(bp, {"xdp.irqs=false"}));
  ASSERT_TRUE(none.xdp);
  EXPECT_EQ(none.xdp->queue.tx_interrupts, 0U);
}

// The RS completion times are kept in a ring of nic.tx-ring entries (one per descriptor on the
// wire at most; the asan preset's assert checks the bound): the smallest rings, every method, one
// and two cores, run with their packets conserved (run() checks). Busypoll, which makes no
// sendto() kick, raises Tx completion interrupts on them; r-t-c's and poll's kicks keep the
// context scheduled, so their Tx causes find it owned.
TEST(xdp, the_tx_cause_keeps_its_completions_within_the_smallest_rings) {
  for (const char* ring : {"nic.tx-ring=2", "nic.tx-ring=3", "nic.tx-ring=4"}) {
    for (const char* method : {"xdp.method=r-t-c", "xdp.method=poll", "xdp.method=busypoll"}) {
      for (const auto& cores : {std::vector<std::string>{}, kOneCore}) {
        const RunReport r = run(with(
            cores, {"xdp.app=txpush", ring, method, "nic.tx-usecs=1", "scenario.duration=2ms"}));
        ASSERT_TRUE(r.xdp);
        EXPECT_GT(r.xdp->queue.sent, 0U) << ring << " " << method << " " << cores.size();
        if (std::string(method) == "xdp.method=busypoll") {
          EXPECT_GT(r.xdp->queue.tx_interrupts, 0U) << ring << " " << cores.size();
        }
      }
    }
  }
  // The most RS descriptors on the wire at once: one frame per i40e_xmit_zc call on a slow
  // link, so every descriptor of the ring carries an RS and waits for the wire.
  const RunReport slow = run(
      {"xdp.app=txpush", "link.speed=1G", "nic.tx-ring=4", "xdp.batch=1", "scenario.duration=2ms"});
  ASSERT_TRUE(slow.xdp);
  EXPECT_GT(slow.xdp->queue.sent, 2000U);  // 1 Gbit/s of 64-byte frames: ~1.49 Mpps, ~2976 in 2 ms
}

// i40e_clean_xdp_tx_irq's budget (nic.xdp-tx-clean-budget, vsi->work_limit 256 on the platform)
// and i40e_napi_poll's answer to Tx not done (nic.xdp-tx-unfinished). At 256 a one-core r-t-c
// txpush never has more completions ready (64-frame batches); at 32 it has, the completions come
// back slower and the application waits for them. Not done keeps the softirq polling (it
// returns the budget) instead of completing until the next sendto() kick.
TEST(xdp, the_tx_clean_budget_and_its_not_done_answer_change_the_driver) {
  const auto push = with(kOneCore, {"xdp.app=txpush", "scenario.duration=20ms"});
  const RunReport seed = run(push);
  const RunReport small = run(with(push, {"nic.xdp-tx-clean-budget=32"}));
  ASSERT_TRUE(seed.xdp && small.xdp);
  EXPECT_EQ(seed.xdp->queue.tx_unfinished, 0U);
  EXPECT_GT(small.xdp->queue.tx_unfinished, 0U);
  EXPECT_LT(small.delivered_packets, seed.delivered_packets);
  EXPECT_EQ(delivered(with(push, {"nic.xdp-tx-clean-budget=0"})), seed.delivered_packets);
  const auto completes =
      delivered(with(push, {"nic.xdp-tx-clean-budget=32", "nic.xdp-tx-unfinished=false"}));
  EXPECT_GT(small.delivered_packets, completes + completes / 10);
  // A Tx ring that fills with budget left is not done too (i40e_xmit_zc checks for a free
  // descriptor first): 2 cores, the driver the bottleneck, a 64-descriptor ring.
  const RunReport ring = run({"xdp.app=txpush", "nic.tx-ring=64", "nic.xdp-tx-clean-budget=0"});
  ASSERT_TRUE(ring.xdp);
  EXPECT_GT(ring.xdp->queue.tx_unfinished, 0U);
  // A loop that runs out of frames after budget - 1 of them leaves the unsigned count at 0: "not
  // done" too. One core, 64-frame batches: every poll sends 64, not done at a budget of 65 only.
  const RunReport one_short = run(with(push, {"xdp.tx-budget=65"}));
  const RunReport two_short = run(with(push, {"xdp.tx-budget=66"}));
  ASSERT_TRUE(one_short.xdp && two_short.xdp);
  EXPECT_GT(one_short.xdp->queue.tx_unfinished, 0U);
  EXPECT_EQ(two_short.xdp->queue.tx_unfinished, 0U);
}

// The RFC's xdpsock (patch 7/7): in busypoll it never calls sendto() and its poll() has a 0
// timeout, so nothing sleeps and txpush never kicks the driver (l2fwd's poll() still kicks when
// the fill ring's flag is set: the seed's fix).
TEST(xdp, the_rfcs_busy_poll_sample_makes_no_sendto_and_never_sleeps) {
  const RunReport push = run(with(kOneCore, {"xdp.app=txpush", "xdp.method=busypoll"}));
  ASSERT_TRUE(push.xdp);
  EXPECT_EQ(push.xdp->queue.kicks, 0U);
  EXPECT_EQ(push.xdp->app.sleeps, 0U);
  const RunReport poll = run(with(kOneCore, {"xdp.app=txpush", "xdp.method=poll"}));
  ASSERT_TRUE(poll.xdp);
  EXPECT_GT(poll.xdp->queue.kicks, 0U);  // -p without busy polling still kicks Tx with sendto()
  for (const auto& cores : {std::vector<std::string>{}, kOneCore}) {
    const RunReport fwd = run(with(cores, {"xdp.app=l2fwd", "xdp.method=busypoll"}));
    ASSERT_TRUE(fwd.xdp);
    EXPECT_EQ(fwd.xdp->app.sleeps, 0U) << cores.size();
  }
}

TEST(xdp, every_af_xdp_cost_is_charged) {
  const auto rx = delivered({});
  EXPECT_LT(delivered({"cpu.xdp-rx=120"}), rx);
  const auto push = delivered({"xdp.app=txpush"});
  EXPECT_LT(delivered({"xdp.app=txpush", "cpu.xdp-tx=40"}), push);
  // Waking the application asleep in poll() is charged to the driver's core (2 cores: the
  // bottleneck), once per poll that produced.
  EXPECT_LT(delivered({"xdp.method=poll", "cpu.wakeup=850"}),
            delivered({"xdp.method=poll", "cpu.wakeup=0"}));
  const auto one = delivered(with(kOneCore, {"xdp.method=poll"}));
  EXPECT_LT(delivered(with(kOneCore, {"xdp.method=poll", "cpu.xsk-rx=60"})), one);
  const auto one_push = delivered(with(kOneCore, {"xdp.app=txpush"}));
  EXPECT_LT(delivered(with(kOneCore, {"xdp.app=txpush", "cpu.xsk-tx=60"})), one_push);
  const auto one_fwd = delivered(with(kOneCore, {"xdp.app=l2fwd"}));
  EXPECT_LT(delivered(with(kOneCore, {"xdp.app=l2fwd", "cpu.xsk-fwd=100"})), one_fwd);
  // A system call's own work: poll()'s with -p (not in r-t-c, which makes none), the sendto()
  // kick's dispatch in r-t-c txpush (not in rxdrop, which kicks nothing without need_wakeup).
  EXPECT_LT(delivered(with(kOneCore, {"xdp.method=poll", "cpu.poll-call=1000"})), one);
  const RunReport rtc_drop = run(with(kOneCore, {"xdp.need-wakeup=true"}));
  const RunReport rtc_drop_poll =
      run(with(kOneCore, {"xdp.need-wakeup=true", "cpu.poll-call=1000"}));
  EXPECT_EQ(rtc_drop.events, rtc_drop_poll.events);
  EXPECT_LT(delivered(with(kOneCore, {"xdp.app=txpush", "cpu.socket-call=1000"})), one_push);
  // recvfrom() with need_wakeup pays the dispatch too; on one core a slower call leaves the
  // softirq more of the core, so the run changes in either direction: it changes.
  EXPECT_NE(delivered(with(kOneCore, {"xdp.need-wakeup=true", "cpu.socket-call=3000"})),
            rtc_drop.delivered_packets);
}

// The rings' cache lines cost only between cores: on two cores the driver (core 0, the
// bottleneck) reads the fill ring's and Tx ring's lines that the application wrote on core 1;
// on one core every line is a hit.
TEST(xdp, ring_cache_lines_are_charged_between_cores_only) {
  const auto ratio = [](const std::vector<std::string>& sets) {
    return static_cast<double>(delivered(with(sets, {"cpu.xsk-cache-line=100"}))) /
           static_cast<double>(delivered(with(sets, {"cpu.xsk-cache-line=0"})));
  };
  // rxdrop: the driver's 76 ns + 400 / 64 ns a frame gains a fill-ring line per 8 frames and
  // the producer index's line per refill: 82 -> 96 ns or more (refills of fewer than 64), x0.84.
  EXPECT_NEAR(ratio({"xdp.app=rxdrop"}), 0.84, 0.03);
  // txpush: a Tx-ring line per 4 descriptors and the index's: the driver's 16 ns -> 43 ns.
  EXPECT_LT(ratio({"xdp.app=txpush"}), 0.6);
  EXPECT_LT(ratio({"xdp.app=l2fwd"}), 0.9);
  for (const char* app : {"xdp.app=rxdrop", "xdp.app=txpush", "xdp.app=l2fwd"}) {
    const RunReport one = run(with(kOneCore, {app, "cpu.xsk-cache-line=100"}));
    const RunReport one_none = run(with(kOneCore, {app, "cpu.xsk-cache-line=0"}));
    EXPECT_EQ(one.delivered_packets, one_none.delivered_packets) << app;
    EXPECT_EQ(one.events, one_none.events) << app;
  }
  // The application pays for what it reads too: with a slow application (core 1 the
  // bottleneck, 150 ns a frame; need_wakeup, or the driver stalls on the fill ring as in the
  // one-core r-t-c cell) an Rx-ring line per 4 descriptors and the index's: 150 -> 177 ns, x0.85
  // (x0.83 with the recvfrom() calls).
  EXPECT_NEAR(ratio({"cpu.xsk-rx=150", "xdp.need-wakeup=true"}), 0.84, 0.03);
}

// A ring's lines read from another core: the entries' 64 B lines from the consumer's position on,
// plus the producer index's line; nothing on the writer's own core or before anyone wrote.
TEST(xdp, a_ring_counts_the_cache_lines_a_consumer_reads_from_the_producers_core) {
  XskRing rx;
  rx.size = 2048;
  rx.entry_bytes = 16;
  EXPECT_EQ(rx.produce(64, 0U), 64U);
  EXPECT_EQ(rx.remote_lines(64, 1), 64U * 16 / 64 + 1);  // 16 lines of xdp_desc + the index
  EXPECT_EQ(rx.remote_lines(64, 0), 0U);                 // the producer's own core
  EXPECT_EQ(rx.remote_lines(100, 1), 17U);               // no more than the ring holds
  EXPECT_EQ(rx.consume(3), 3U);
  EXPECT_EQ(rx.remote_lines(5, 1), 2U + 1);  // entries 3..7: lines 0 and 1
  XskRing fill;
  fill.size = 2048;
  fill.entry_bytes = 8;
  EXPECT_EQ(fill.produce(64, std::nullopt), 64U);
  EXPECT_EQ(fill.remote_lines(64, 0), 0U);  // put there before the socket was bound
  fill.produce(64, 1U);
  EXPECT_EQ(fill.remote_lines(64, 0), 64U * 8 / 64 + 1);
}

TEST(xdp, a_line_rate_second_offers_the_seeds_59_52_mpps) {
  const RunReport r = run({"scenario.duration=20ms"});
  EXPECT_EQ(r.conservation.entered, 1'190'476U);  // 20 ms / 16.8 ns, the first at 14.4 ns
}

TEST(xdp, settings_that_would_do_nothing_or_cannot_run_are_refused_by_name) {
  const auto key_of = [](const std::vector<std::string>& sets, const char* text = kBase) {
    const LoadResult r = load(sets, text);
    return r.ok() ? std::string("(loaded)") : r.error().error.key;
  };
  EXPECT_EQ(key_of({"xdp.irqs=false"}), "xdp.irqs");
  EXPECT_EQ(key_of({"xdp.busy-loop-end=once"}), "xdp.busy-loop-end");
  EXPECT_EQ(key_of({"xdp.method=busypoll", "napi.busy_read=0"}), "napi.busy_read");
  EXPECT_EQ(key_of({"traffic.kind=poisson", "traffic.rate=1000"}), "traffic.kind");
  EXPECT_EQ(key_of({"nic.queues=2"}), "nic.queues");
  EXPECT_EQ(key_of({"xdp.busy-poll-batch=64"}), "xdp.busy-poll-batch");
  EXPECT_EQ(key_of({"xdp.method=busypoll", "xdp.busy-loop-end=once", "xdp.busy-poll-batch=64"}),
            "xdp.busy-poll-batch");
  EXPECT_EQ(key_of({"xdp.method=busypoll", "xdp.busy-poll-batch=65"}), "xdp.busy-poll-batch");
  EXPECT_EQ(key_of({"xdp.app=none", "xdp.batch=32"}), "xdp.batch");
}

// ---- [[variant]] -------------------------------------------------------------------------------

constexpr const char* kVariants = R"(platform = "i40e-afxdp-2019"
[scenario]
duration = "5ms"
[xdp]
app = "rxdrop"
[[variant]]
name = "push"
set = ["xdp.app=txpush"]
[[variant]]
name = "fwd"
set = ["xdp.app=l2fwd", "xdp.batch=32"]
[[seed_row]]
seed = "002"
table = "t"
row = "r"
metric = "throughput"
unit = "Mpps"
seed_value = 1
role = "predicted"
variant = "push"
)";

std::string error_of(const std::string& text) {
  const LoadResult r = load({}, text.c_str());
  return r.ok() ? std::string("(loaded)") : r.error().what();
}

TEST(variant, a_variant_is_the_file_with_its_assignments) {
  const LoadResult file = load({}, kVariants);
  ASSERT_TRUE(file.ok()) << file.error().what();
  ASSERT_EQ(file.value().variants.size(), 2U);
  EXPECT_EQ(file.value().variants[1].sets,
            (std::vector<std::string>{"xdp.app=l2fwd", "xdp.batch=32"}));
  EXPECT_EQ(file.value().seed_rows[0].variant, "push");
  const LoadResult by_variant = load(file.value().variants[0].sets, kVariants);
  ASSERT_TRUE(by_variant.ok());
  EXPECT_EQ(by_variant.value().xdp.app, XdpApp::txpush);
  // write_toml keeps the variants and the row's variant.
  std::ostringstream out;
  write_toml(out, file.value());
  const LoadResult again = load_scenario_text(
      out.str(), std::string(IRQMOD_SCENARIO_DIR) + "/t.toml", test::costs_only(out.str(), {}));
  ASSERT_TRUE(again.ok()) << again.error().what();
  EXPECT_EQ(again.value().variants, file.value().variants);
  EXPECT_EQ(again.value().seed_rows, file.value().seed_rows);
}

TEST(variant, bad_variants_are_refused_with_their_key) {
  const std::string base = kVariants;
  EXPECT_NE(
      error_of(base + "[[variant]]\nname = \"push\"\nset = []\n").find("'push' names two variants"),
      std::string::npos);
  EXPECT_NE(error_of(base + "[[variant]]\nname = \"Bad Name\"\n").find("variant.3.name"),
            std::string::npos);
  EXPECT_NE(error_of(base + "[[variant]]\nname = \"x\"\nset = [\"xdp.ap=rxdrop\"]\n")
                .find("variant.3.set"),
            std::string::npos);
  EXPECT_NE(error_of(base + "[[variant]]\nname = \"x\"\nset = [\"xdp.irqs=false\"]\n")
                .find("variant 'x': xdp.irqs"),
            std::string::npos);
  EXPECT_NE(error_of(base + "[[variant]]\nname = \"x\"\ncolour = 1\n").find("unknown key"),
            std::string::npos);
  std::string unnamed = kVariants;
  unnamed.replace(unnamed.find("variant = \"push\""), 16, "variant = \"pull\"");
  EXPECT_NE(error_of(unnamed).find("seed_row.1.variant: 'pull' is not a variant"),
            std::string::npos);
}

}  // namespace
}  // namespace irqmod::sim
