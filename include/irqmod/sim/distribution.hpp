// A duration that is either constant or drawn at random: the simulator's CPU costs and arrival
// jitter. A scenario writes one as text ("760ns", "uniform(600ns, 900ns)", ...); the model holds
// a Distribution and calls draw() with the run's seeded generator each time it needs a value.
//
// A constant never touches the generator. Adding a random cost to one component therefore does
// not shift the draws of any other, and a scenario made only of constants gives the results it
// gave before this type existed.
//
// Sampling is specified down to the operation, like random.hpp, so a seed gives the same values
// on every build:
//   - uniform(min, max): min + rng.below(max - min + 1), an exact integer draw over [min, max];
//   - exponential(mean, min=m): m + round(rng.exponential(mean - m)), rounded half away from 0;
//   - lognormal(mean, cv=c): sigma^2 = ln(1 + c^2), z standard normal, and the draw is
//     round(mean x exp(sigma z - sigma^2 / 2)), which is exp(mu + sigma z) with
//     mu = ln(mean) - sigma^2 / 2 without the logarithm of the mean. z comes from Marsaglia's
//     polar method on rng.uniform(): it needs only log and sqrt, where Box-Muller needs sin and
//     cos as well, two more libm functions whose last bit could differ between libraries. The
//     polar method makes a pair of normals; the second is dropped, so that a draw depends only
//     on the generator and never on what an earlier draw left behind.
//     A draw is capped at 1000 x mean so that one far tail value cannot stall a run. The cap
//     lowers the mean by 0.7 % at cv 10 (the largest allowed, where 1 draw in 110 000 reaches
//     it), by 0.002 % at cv 3, and by nothing measurable at cv 1.
// A random form always consumes the generator, even when its spread is zero (uniform(600ns,
// 600ns), exponential(600ns, min=600ns)): a sweep that narrows a spread to nothing keeps every
// other component's draws where they were.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "irqmod/error.hpp"
#include "irqmod/sim/random.hpp"
#include "irqmod/time.hpp"

namespace irqmod::sim {

enum class DistributionKind : std::uint8_t {
  constant,     // always a_ns
  uniform,      // every whole ns in [a_ns, b_ns] equally likely
  exponential,  // a_ns plus an exponential tail; b_ns is the mean of the whole draw
  lognormal,    // mean a_ns, coefficient of variation cv_ppm
};

// Fields hold what parse_distribution accepts: durations are never negative, a uniform's
// minimum is at most its maximum, an exponential's mean is at least its minimum, and a
// lognormal's cv is in (0, 10].
struct Distribution {
  DistributionKind kind = DistributionKind::constant;
  std::int64_t a_ns = 0;     // constant: the value; uniform: min; exponential: min; lognormal: mean
  std::int64_t b_ns = 0;     // uniform: max; exponential: mean of the whole draw; otherwise 0
  std::uint32_t cv_ppm = 0;  // lognormal: coefficient of variation, parts per million; otherwise 0

  friend bool operator==(const Distribution&, const Distribution&) = default;

  static constexpr Distribution constant_ns(std::int64_t ns) {
    return Distribution{DistributionKind::constant, ns, 0, 0};
  }

  // True when draw() never touches the generator. A uniform with min == max is not constant.
  bool is_constant() const { return kind == DistributionKind::constant; }

  // The mean, in whole ns: a uniform's is rounded down when min + max is odd; a lognormal's
  // ignores the 1000 x mean cap.
  Duration mean() const;
  // The value a fraction `q` (0 < q < 1) of the draws stays below, in whole ns: exact for the
  // constant, uniform and exponential kinds; a lognormal's standard normal quantile found by
  // bisection on erfc to 1e-9 (its 1000 x mean cap ignored). What a caller that knows only a
  // percentile of a measured cost (irqmod serve's p90 sleep lateness) reads from a platform's.
  Duration quantile(double q) const;

  // One value. A constant is returned without touching `rng`; the other kinds are drawn out of
  // line, as the header comment specifies.
  Duration draw(Rng& rng) const {
    if (kind == DistributionKind::constant) return Duration{a_ns};
    return draw_random(rng);
  }

 private:
  Duration draw_random(Rng& rng) const;
};

// A distribution from its text. Values are durations "<decimal>[ns|us|ms|s]" (units.hpp); a bare
// number is in `unit` (empty: a unit is required). Whitespace around tokens is ignored.
//   760  760ns  constant(760ns)     the constant 760 ns
//   uniform(600ns, 900ns)            min and max, min <= max
//   exponential(760ns)               exponential with mean 760 ns
//   exponential(760ns, min=600ns)    600 ns plus an exponential tail, mean 760 ns overall
//   lognormal(760ns, cv=0.3)         mean and coefficient of variation, 0 < cv <= 10, at most
//                                    6 decimals
// An Error's message says what is wrong and what is allowed; its key is left empty for the
// caller, who knows the setting's name.
Expected<Distribution> parse_distribution(std::string_view text, std::string_view unit);

// The canonical text, which parse_distribution reads back to the same value. A constant is its
// duration alone ("760ns"), so scenario files written before random costs existed round-trip
// unchanged; a cv is written with the fewest exact decimals (0.3, 0.25, 1).
std::string format_distribution(const Distribution& distribution);

}  // namespace irqmod::sim
