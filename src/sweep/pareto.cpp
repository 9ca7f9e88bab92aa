#include "irqmod/sweep/pareto.hpp"

#include <cstddef>

namespace irqmod::sweep {

std::vector<bool> pareto_front(const std::vector<std::vector<double>>& points) {
  // O(n^2 k): sweeps have thousands of points at most, and this is run once per picture.
  std::vector<bool> front(points.size(), true);
  for (std::size_t i = 0; i < points.size(); ++i) {
    for (std::size_t j = 0; j < points.size() && front[i]; ++j) {
      if (i == j) continue;
      bool no_worse = true, better = false;
      for (std::size_t k = 0; k < points[i].size(); ++k) {
        if (points[j][k] > points[i][k]) no_worse = false;
        if (points[j][k] < points[i][k]) better = true;
      }
      if (no_worse && better) front[i] = false;
    }
  }
  return front;
}

}  // namespace irqmod::sweep
