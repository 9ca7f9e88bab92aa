// A sweep's results: a table of text cells, one row per point, written as CSV (RFC 4180) or JSON
// (an array of objects; a cell that is a JSON number, true or false is written bare, an empty
// cell as null, any other as a string). Cells keep the simulator's own text, so a sweep's
// metrics equal `irqmod sim --csv`'s byte for byte. Shards' CSVs merge back into one table.
#pragma once

#include <cstddef>
#include <istream>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "irqmod/error.hpp"

namespace irqmod::sweep {

struct Table {
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;  // each as wide as `columns`

  // The column named `name`, or nullopt.
  std::optional<std::size_t> column(std::string_view name) const;
  friend bool operator==(const Table&, const Table&) = default;
};

// One CSV line's cells ("a,\"b,c\"" -> {a, b,c}); an Error on an unterminated quote.
Expected<std::vector<std::string>> split_csv_line(std::string_view line);
// A cell as CSV: quoted when it holds a comma, a quote or a line break.
std::string csv_cell(std::string_view cell);

void write_csv(std::ostream& out, const Table& table);
void write_json(std::ostream& out, const Table& table);
// A table written by write_csv; `name` is used in errors ("shard-0.csv:3: ...").
Expected<Table> read_csv(std::istream& in, std::string_view name);

// Shards' tables back into the single run's: the same columns, rows ordered by the integer in
// column `index_column`, every index 0..n-1 present exactly once, where n is column
// `count_column`'s value (the same in every row). Errors name the shard or the missing point.
Expected<Table> merge(const std::vector<Table>& shards, const std::vector<std::string>& names,
                      std::string_view index_column, std::string_view count_column);

// True when `cell` is a JSON number as written ("-12", "3.5", "1e-3"; not "", "+1", ".5", "nan").
bool is_json_number(std::string_view cell);

}  // namespace irqmod::sweep
