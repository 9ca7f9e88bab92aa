// Names the user types (a metric, a column, a varied key), checked against the names that exist:
// a name that is not one gets the valid names and the near ones ("did you mean"), so that a typo
// is refused instead of answered.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace irqmod::sweep {

// The names of `names` close to `word`, nearest first, at most `most`: within 2 edits (3 for words
// of 12 or more characters; '-' and '_' count as one letter, case is ignored), or holding `word`
// whole ("latency" -> latency_p50_ns, ...), or held whole by it ("p99us" -> p99).
std::vector<std::string> near_names(std::string_view word, const std::vector<std::string>& names,
                                    std::size_t most = 3);

// "'foo' is not a metric; did you mean 'p99'? allowed: a, b, c": `what` names the kind of thing,
// `allowed` is how the valid names are listed (the names joined, or a shorter description).
std::string unknown_name(std::string_view word, std::string_view what,
                         const std::vector<std::string>& names, std::string_view allowed);

// The names joined by ", ".
std::string joined(const std::vector<std::string>& names);

}  // namespace irqmod::sweep
