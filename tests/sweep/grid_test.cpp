#include "irqmod/sweep/grid.hpp"

#include <gtest/gtest.h>

namespace irqmod::sweep {
namespace {

TEST(ParseVary, TakesAListOfValues) {
  auto axis = parse_vary("nic.moderation=none,coalesce,dim");
  ASSERT_TRUE(axis) << axis.error().what();
  EXPECT_EQ(axis->key, "nic.moderation");
  EXPECT_EQ(axis->values, (std::vector<std::string>{"none", "coalesce", "dim"}));
}

TEST(ParseVary, ExpandsARangeWithTheEndIncluded) {
  auto axis = parse_vary("nic.rx-usecs=10:50:20");
  ASSERT_TRUE(axis);
  EXPECT_EQ(axis->values, (std::vector<std::string>{"10", "30", "50"}));
}

TEST(ParseVary, ARangeStopsBeforeAnEndThatIsNotAWholeStepAway) {
  auto axis = parse_vary("nic.rx-usecs=0:25:10");
  ASSERT_TRUE(axis);
  EXPECT_EQ(axis->values, (std::vector<std::string>{"0", "10", "20"}));
}

TEST(ParseVary, ARangeKeepsItsUnitAndFractions) {
  auto axis = parse_vary("napi.gro_flush_timeout=0.5us:1.5us:0.5us");
  ASSERT_TRUE(axis) << axis.error().what();
  EXPECT_EQ(axis->values, (std::vector<std::string>{"0.5us", "1us", "1.5us"}));
}

TEST(ParseVary, RefusesMalformedSpecsNamingTheFlag) {
  for (const char* bad :
       {"nic.rx-usecs", "=1,2", "nic.rx-usecs=1,,2", "nic.rx-usecs=10:0:1", "nic.rx-usecs=0:10:0",
        "nic.rx-usecs=0us:10ms:1us", "nic.rx-usecs=a:b:c", "nic.rx-usecs=0:1000000:1"}) {
    auto axis = parse_vary(bad);
    ASSERT_FALSE(axis) << bad;
    EXPECT_EQ(axis.error().key, "--vary") << bad;
  }
}

TEST(Grid, PointsAreTheCartesianProductWithTheLastAxisFastest) {
  const std::vector<Axis> axes{{"a", {"1", "2"}}, {"b", {"x", "y", "z"}}};
  ASSERT_EQ(point_count(axes), 6u);
  EXPECT_EQ(point_values(axes, 0), (std::vector<std::string>{"1", "x"}));
  EXPECT_EQ(point_values(axes, 2), (std::vector<std::string>{"1", "z"}));
  EXPECT_EQ(point_values(axes, 3), (std::vector<std::string>{"2", "x"}));
  EXPECT_EQ(point_overrides(axes, 5), (std::vector<std::string>{"a=2", "b=z"}));
  EXPECT_EQ(point_count({}), 1u);
}

TEST(Shard, ParsesIOfN) {
  auto s = parse_shard("2/5");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->index, 2u);
  EXPECT_EQ(s->count, 5u);
  for (const char* bad : {"5/5", "1", "1/0", "a/2", "-1/2", "1/2x", "/2"})
    EXPECT_FALSE(parse_shard(bad)) << bad;
}

TEST(Shard, ShardsCoverEveryPointOnceInOrder) {
  for (std::size_t points : {0u, 1u, 7u, 10u}) {
    for (std::size_t n : {1u, 2u, 3u, 4u, 11u}) {
      std::size_t next = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const Range r = shard_range(points, Shard{i, n});
        EXPECT_EQ(r.begin, next);
        EXPECT_LE(r.end - r.begin, points / n + 1);
        next = r.end;
      }
      EXPECT_EQ(next, points);
    }
  }
}

}  // namespace
}  // namespace irqmod::sweep
