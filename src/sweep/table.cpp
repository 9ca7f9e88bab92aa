#include "irqmod/sweep/table.hpp"

#include <algorithm>
#include <charconv>
#include <map>

#include "irqmod/sim/json.hpp"

namespace irqmod::sweep {

std::optional<std::size_t> Table::column(std::string_view name) const {
  const auto it = std::find(columns.begin(), columns.end(), name);
  if (it == columns.end()) return std::nullopt;
  return static_cast<std::size_t>(it - columns.begin());
}

Expected<std::vector<std::string>> split_csv_line(std::string_view line) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (quoted) {
      if (ch == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cells.back() += '"';
        ++i;
      } else if (ch == '"') {
        quoted = false;
      } else {
        cells.back() += ch;
      }
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',') {
      cells.emplace_back();
    } else {
      cells.back() += ch;
    }
  }
  if (quoted) return Error{"csv", "a quoted cell is not closed"};
  return cells;
}

std::string csv_cell(std::string_view cell) {
  if (cell.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(cell);
  std::string out = "\"";
  for (char ch : cell)
    out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

namespace {
void write_csv_row(std::ostream& out, const std::vector<std::string>& cells) {
  for (std::size_t c = 0; c < cells.size(); ++c)
    out << (c ? "," : "") << csv_cell(cells[c]);
  out << '\n';
}
}  // namespace

void write_csv(std::ostream& out, const Table& table) {
  write_csv_row(out, table.columns);
  for (const auto& row : table.rows)
    write_csv_row(out, row);
}

bool is_json_number(std::string_view s) {
  std::size_t i = 0;
  const auto digits = [&] {
    const std::size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9')
      ++i;
    return i > start;
  };
  if (i < s.size() && s[i] == '-') ++i;
  if (i >= s.size()) return false;
  if (s[i] == '0') {
    ++i;
  } else if (!digits()) {
    return false;
  }
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (!digits()) return false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == s.size();
}

void write_json(std::ostream& out, const Table& table) {
  out << "[";
  std::string text;
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    out << (r ? ",\n" : "\n") << "{";
    for (std::size_t c = 0; c < table.columns.size(); ++c) {
      text.clear();
      sim::append_json_string(text, table.columns[c]);
      const std::string& cell = table.rows[r][c];
      text += ':';
      if (cell.empty()) {
        text += "null";
      } else if (is_json_number(cell) || cell == "true" || cell == "false") {
        text += cell;
      } else {
        sim::append_json_string(text, cell);
      }
      out << (c ? "," : "") << text;
    }
    out << "}";
  }
  out << "\n]\n";
}

Expected<Table> read_csv(std::istream& in, std::string_view name) {
  Table table;
  std::string line;
  std::size_t number = 0;
  const auto fail = [&](const std::string& message) {
    return Error{std::string(name) + ":" + std::to_string(number), message};
  };
  while (std::getline(in, line)) {
    ++number;
    auto cells = split_csv_line(line);
    if (!cells) return fail(cells.error().message);
    if (number == 1) {
      table.columns = std::move(cells).value();
      continue;
    }
    if (cells->size() != table.columns.size()) {
      return fail(std::to_string(cells->size()) + " cells; the header has " +
                  std::to_string(table.columns.size()));
    }
    table.rows.push_back(std::move(cells).value());
  }
  if (number == 0) return Error{std::string(name), "empty: no CSV header"};
  return table;
}

Expected<Table> merge(const std::vector<Table>& shards, const std::vector<std::string>& names,
                      std::string_view index_column, std::string_view count_column) {
  if (shards.empty()) return Error{"--merge", "no shard given"};
  Table merged;
  merged.columns = shards[0].columns;
  const auto index_at = merged.column(index_column);
  const auto count_at = merged.column(count_column);
  if (!index_at || !count_at) {
    return Error{names[0], "no columns '" + std::string(index_column) + "' and '" +
                               std::string(count_column) + "': not a sweep's CSV"};
  }
  std::string count;
  std::size_t points = 0;
  std::map<std::size_t, const std::vector<std::string>*> by_index;
  for (std::size_t s = 0; s < shards.size(); ++s) {
    if (shards[s].columns != merged.columns) {
      return Error{names[s], "its columns differ from " + names[0] + "'s: not the same sweep"};
    }
    for (const auto& row : shards[s].rows) {
      const std::string& cell = row[*index_at];
      std::size_t index = 0;
      const auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), index);
      if (ec != std::errc() || end != cell.data() + cell.size()) {
        return Error{names[s], "'" + cell + "' in column " + std::string(index_column) +
                                   " is not a point number"};
      }
      if (count.empty()) {
        count = row[*count_at];
        const auto [count_end, count_ec] =
            std::from_chars(count.data(), count.data() + count.size(), points);
        if (count_ec != std::errc() || count_end != count.data() + count.size()) {
          return Error{names[s], "'" + count + "' in column " + std::string(count_column) +
                                     " is not a number of points"};
        }
      }
      if (row[*count_at] != count) {
        return Error{names[s], "point " + cell + " is of a grid of " + row[*count_at] +
                                   " points, others of " + count + ": not the same sweep"};
      }
      if (!by_index.emplace(index, &row).second) {
        return Error{names[s], "point " + cell + " is in two shards"};
      }
    }
  }
  std::size_t expected = 0;
  for (const auto& [index, row] : by_index) {
    if (index != expected) {
      return Error{"--merge", "point " + std::to_string(expected) +
                                  " is in no shard: a shard's file is missing"};
    }
    merged.rows.push_back(*row);
    ++expected;
  }
  if (!count.empty() && expected != points) {
    return Error{"--merge", "points " + std::to_string(expected) + ".." +
                                std::to_string(points - 1) + " of the grid's " + count +
                                " are in no shard: a shard's file is missing"};
  }
  return merged;
}

}  // namespace irqmod::sweep
