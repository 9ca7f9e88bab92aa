// The Pareto front of points to minimise on two (or more) objectives: a point is on it when no
// other point is at least as good on every objective and better on one.
#pragma once

#include <vector>

namespace irqmod::sweep {

// One flag per point: on the front. Points equal on every objective are all on it, or none.
// Every point must have as many objectives as the first.
std::vector<bool> pareto_front(const std::vector<std::vector<double>>& points);

}  // namespace irqmod::sweep
