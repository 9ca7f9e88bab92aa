#include "irqmod/sweep/pareto.hpp"

#include <gtest/gtest.h>

namespace irqmod::sweep {
namespace {

TEST(Pareto, MarksTheHandBuiltFront) {
  // (cpu %, p99 us):  a knee at b; d is beaten by b on both; e ties a on cpu but is slower;
  // f equals c exactly (both on the front); g is the fastest at the most CPU.
  const std::vector<std::vector<double>> points{
      {10, 100},  // a: least CPU
      {20, 40},   // b
      {30, 30},   // c
      {25, 45},   // d: b is better on both
      {10, 120},  // e: a is as good on CPU and better on latency
      {30, 30},   // f: the same as c
      {80, 12},   // g: lowest latency
      {90, 12},   // h: g's latency at more CPU
  };
  EXPECT_EQ(pareto_front(points),
            (std::vector<bool>{true, true, true, false, false, true, true, false}));
}

TEST(Pareto, OnePointIsItsOwnFrontAndThreeObjectivesWork) {
  EXPECT_EQ(pareto_front({{5, 5}}), (std::vector<bool>{true}));
  EXPECT_EQ(pareto_front({{1, 2, 3}, {1, 2, 4}, {0, 9, 9}}),
            (std::vector<bool>{true, false, true}));
  EXPECT_TRUE(pareto_front({}).empty());
}

}  // namespace
}  // namespace irqmod::sweep
