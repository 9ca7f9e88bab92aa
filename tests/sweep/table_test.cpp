#include "irqmod/sweep/table.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace irqmod::sweep {
namespace {

Table sample() {
  return Table{{"point", "points", "name", "p99"},
               {{"0", "2", "a,b", "12.5"}, {"1", "2", "q\"x", ""}}};
}

TEST(Table, CsvRoundTripsQuotedCells) {
  std::ostringstream out;
  write_csv(out, sample());
  EXPECT_EQ(out.str(), "point,points,name,p99\n0,2,\"a,b\",12.5\n1,2,\"q\"\"x\",\n");
  std::istringstream in(out.str());
  auto back = read_csv(in, "t.csv");
  ASSERT_TRUE(back) << back.error().what();
  EXPECT_EQ(back.value(), sample());
}

TEST(Table, JsonWritesNumbersBareAndEmptyCellsAsNull) {
  std::ostringstream out;
  write_json(out, Table{{"n", "s", "b", "e"}, {{"-1.5e3", "1.", "true", ""}}});
  EXPECT_EQ(out.str(), "[\n{\"n\":-1.5e3,\"s\":\"1.\",\"b\":true,\"e\":null}\n]\n");
}

TEST(Table, JsonNumbersFollowTheGrammar) {
  for (const char* yes : {"0", "-0", "12", "3.25", "1e9", "1E-3"})
    EXPECT_TRUE(is_json_number(yes)) << yes;
  for (const char* no : {"", "-", "+1", ".5", "01", "1.", "nan", "1e", "0x10", "12us"})
    EXPECT_FALSE(is_json_number(no)) << no;
}

TEST(Table, ReadCsvNamesTheLineOfARowOfTheWrongWidth) {
  std::istringstream in("a,b\n1,2\n3\n");
  auto t = read_csv(in, "s.csv");
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().key, "s.csv:3");
}

TEST(Merge, ShardsInAnyOrderGiveTheRowsInPointOrder) {
  const Table whole = sample();
  Table first{whole.columns, {whole.rows[0]}};
  Table second{whole.columns, {whole.rows[1]}};
  auto merged = merge({second, first}, {"b.csv", "a.csv"}, "point", "points");
  ASSERT_TRUE(merged) << merged.error().what();
  EXPECT_EQ(merged.value(), whole);
}

TEST(Merge, RefusesADuplicateAGapAMissingLastShardAndOtherColumns) {
  const Table whole = sample();
  Table first{whole.columns, {whole.rows[0]}};
  EXPECT_FALSE(merge({first, first}, {"a.csv", "a.csv"}, "point", "points"));
  Table gap{whole.columns, {{"2", "3", "c", "1"}}};
  Table first_of_3{whole.columns, {{"0", "3", "a", "1"}}};
  auto missing = merge({first_of_3, gap}, {"a.csv", "c.csv"}, "point", "points");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("point 1 is in no shard"), std::string::npos);
  auto last = merge({first}, {"a.csv"}, "point", "points");
  ASSERT_FALSE(last);
  EXPECT_NE(last.error().message.find("points 1..1 of the grid's 2 are in no shard"),
            std::string::npos)
      << last.error().message;
  EXPECT_FALSE(merge({first, gap}, {"a.csv", "c.csv"}, "point", "points"));  // 2 vs 3 points
  Table other{{"point", "points", "x", "p99"}, {}};
  EXPECT_FALSE(merge({first, other}, {"a.csv", "o.csv"}, "point", "points"));
  EXPECT_FALSE(merge({Table{{"x"}, {}}}, {"a.csv"}, "point", "points"));
}

}  // namespace
}  // namespace irqmod::sweep
