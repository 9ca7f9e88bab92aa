// The softirq transmitter's bounded queue: more skbs waiting for one pass than it holds is a model
// limit, reported as the run's error naming the key that leads there, not a silent loss.
#include "sim/host/softirq_tx.hpp"

#include <gtest/gtest.h>

#include "irqmod/sim/random.hpp"
#include "sim/cpu/core.hpp"
#include "sim/host/stack.hpp"
#include "sim/nic/peers.hpp"
#include "sim/world.hpp"

namespace irqmod::sim {
namespace {

TEST(softirq_tx, more_skbs_than_one_pass_holds_is_the_runs_error_not_a_silent_loss) {
  World world;
  Core core(world, 0, Rng(1, 1), microseconds(3000));
  const Peers peers(1);
  Stack stack(world, peers, 1, 1);
  SoftirqTx tx(world, core, stack, SoftirqTxCosts{});
  // Nothing runs the pass: every reply waits. 4096 fit.
  for (int i = 0; i < 4096; ++i)
    tx.add_reply(Packet{0, 64, 0});
  EXPECT_FALSE(world.model_limit);
  tx.add_reply(Packet{0, 64, 0});
  ASSERT_TRUE(world.model_limit);
  EXPECT_EQ(world.model_limit->key, "napi.netdev_budget");
  EXPECT_NE(world.model_limit->message.find("4096 skbs"), std::string::npos);
  // The first one is kept.
  world.exceeded(Error{"traffic.window", "later"});
  EXPECT_EQ(world.model_limit->key, "napi.netdev_budget");
}

}  // namespace
}  // namespace irqmod::sim
