#include "irqmod/sweep/names.hpp"

#include <algorithm>
#include <cstddef>
#include <utility>

namespace irqmod::sweep {
namespace {

// One letter as the comparison sees it: lower case, '_' as '-'.
char folded(char c) {
  if (c == '_') return '-';
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

std::string fold(std::string_view text) {
  std::string out;
  for (char c : text)
    out += folded(c);
  return out;
}

// Levenshtein distance over two rows of the table (insert, delete, substitute: 1 each).
std::size_t edits(const std::string& a, const std::string& b) {
  std::vector<std::size_t> above(b.size() + 1), here(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    above[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    here[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitute = above[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      here[j] = std::min({substitute, above[j] + 1, here[j - 1] + 1});
    }
    std::swap(above, here);
  }
  return above[b.size()];
}

}  // namespace

std::vector<std::string> near_names(std::string_view word, const std::vector<std::string>& names,
                                    std::size_t most) {
  const std::string w = fold(word);
  if (w.empty()) return {};
  const std::size_t limit = w.size() >= 12 ? 3 : 2;
  // (rank, position): edits first, then names that hold the word or are held by it, in order.
  std::vector<std::pair<std::size_t, std::size_t>> found;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string n = fold(names[i]);
    const std::size_t d = edits(w, n);
    if (d <= limit && d < n.size()) {
      found.emplace_back(d, i);
    } else if (n.find(w) != std::string::npos ||
               (n.size() >= 2 && w.find(n) != std::string::npos)) {
      found.emplace_back(limit + 1, i);
    }
  }
  std::stable_sort(found.begin(), found.end());
  std::vector<std::string> out;
  for (const auto& [rank, i] : found) {
    if (out.size() == most) break;
    if (std::find(out.begin(), out.end(), names[i]) == out.end()) out.push_back(names[i]);
  }
  return out;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names)
    out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::string unknown_name(std::string_view word, std::string_view what,
                         const std::vector<std::string>& names, std::string_view allowed) {
  std::string message = "'" + std::string(word) + "' is not " + std::string(what);
  const std::vector<std::string> near = near_names(word, names);
  if (!near.empty()) {
    message += "; did you mean ";
    for (std::size_t i = 0; i < near.size(); ++i)
      message += (i == 0 ? "" : i + 1 == near.size() ? " or " : ", ") + ("'" + near[i] + "'");
    message += "?";
  }
  return message + (near.empty() ? "; allowed: " : " allowed: ") + std::string(allowed);
}

}  // namespace irqmod::sweep
