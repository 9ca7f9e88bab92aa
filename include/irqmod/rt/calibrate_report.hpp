// What `irqmod calibrate` makes of its samples (calibrate.hpp): percentiles, a distribution in
// the simulator's cost syntax, and the platform file or JSON that carries every number with its
// method and spread. Pure: no clock, no I/O but the stream handed in.
//
// The fit. Every form the simulator draws from is placed at the measured median, its spread set
// by the measured p10-p90 span:
//   uniform(a, b)             b - a = (p90 - p10) / 0.8, centred on p50 (mean = median);
//   exponential(mean, min=m)  the tail's mean t = (p90 - p10) / ln(9), m = p50 - t ln 2;
//   lognormal(mean, cv=c)     sigma = ln(p90 / p10) / (2 z90), median p50, so
//                             mean = p50 exp(sigma^2 / 2) and c = sqrt(exp(sigma^2) - 1).
// Of the forms that are valid (a >= 0, m >= 0, p10 > 0), the one whose own p10 and p90 lie
// nearest the measured ones is written: that is the form whose skew the samples have (uniform:
// none, lognormal: some, exponential: a floor and a long tail). Fitting through percentiles,
// not a mean and standard deviation, keeps the rare sample a timer interrupt or a preemption
// inflated (on this VM up to 100 times the median) from setting the whole spread; those events
// are modelled by the simulator itself, not hidden in a cost.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "irqmod/rt/calibrate.hpp"

namespace irqmod::rt::calibrate {

struct Summary {
  std::size_t n = 0;  // samples; 0 = none
  double p10 = 0;     // ns
  double p50 = 0;     // ns
  double p90 = 0;     // ns
};

// The q-quantile (0 <= q <= 1) of `sorted` (ascending, not empty), interpolated linearly
// between the closest ranks (Hyndman and Fan's type 7, R's and NumPy's default).
double percentile(std::span<const double> sorted, double q);
// n, p10, p50, p90 of `samples` (a Summary with n = 0 when empty).
Summary summarise(const Samples& samples);

enum class Form : std::uint8_t { constant, uniform, exponential, lognormal };

struct Fit {
  Form form = Form::constant;
  std::string text;  // the value in the cost syntax: "172ns", "lognormal(172ns, cv=0.046)"
  std::string why;   // how the form and its parameters were chosen, one phrase
};

// The distribution written for `s` (see the header comment). A median at or below 0 ns is
// written as 0 (the difference it comes from is within the noise); a spread of 0 as a constant.
Fit fit_distribution(const Summary& s);

// Samples of a derived cost: each of `main`'s samples less `subtract` (the medians of what is
// taken out), divided by `divide` (> 0, a batch's size), rounded to whole ns. Its spread is
// therefore `main`'s own, shifted and scaled.
Samples derive(const Samples& main, double subtract, double divide = 1);

// One number of the report.
struct Entry {
  std::string key;       // "cpu.syscall" (a key of the simulator or one it will have), or the
                         // name of a raw measurement ("getppid")
  std::string method;    // how it was measured, or derived and from what
  Summary summary;       // n = 0 when skipped
  std::string skipped;   // why it was not measured (no root, one CPU, ...); empty when it was
  bool raw = false;      // a measurement the keys are derived from, not itself a key
  std::string text;      // a key whose value is not a distribution (a curve): the value as written
  bool literal = false;  // text is a TOML literal (true, false: a fact of the host), unquoted
  // A distribution chosen from the samples otherwise than by fit_distribution (text holds it,
  // summary the samples' spread): why, written where a fit's reason is.
  std::string chosen{};
};

struct Header {
  std::string cpu_model;  // /proc/cpuinfo "model name"
  unsigned cpus = 0;      // online CPUs
  std::string kernel;     // uname -r
  std::string date;       // ISO 8601, UTC
  std::string command;    // the command line
  double seconds = 0;     // how long the measurements took
  bool quick = false;     // --quick
  std::string load;       // /proc/loadavg's first field before -> after
  std::string nice;       // the measurements' nice value ("-20"), or why it stayed
  std::string lab;        // "measured" or why the root measurements were skipped
};

struct Report {
  Header header;
  std::vector<Entry> entries;
};

// Whether the simulator's schema has a key (irqmod sim's find_key, handed in by the tool so
// that this library does not depend on the simulator).
using KeyKnown = std::function<bool(std::string_view)>;

// The platform file: a header of comments; then per section ("cpu" of "cpu.syscall") its keys,
// each 'name = "VALUE"  # method; p10/p50/p90 A/B/C ns; n N; fit: why'. A key the schema lacks is
// the same line as a comment, "# no key yet: cpu.veth-poll = VALUE  # ...", so the file loads
// today; a skipped key is "# skipped: KEY: why"; raw measurements come last, as
// "# measured: NAME: p10/p50/p90 A/B/C ns; n N; method".
void write_platform(std::ostream& out, const Report& report, const KeyKnown& known);

// The same as one JSON object: the header's fields and "entries", each with key, kind ("key",
// "no-key-yet", "skipped", "measured"), value (cost syntax, null when skipped or raw), p10,
// p50, p90 (ns, null when skipped), n, method, fit and skipped (null when measured).
void write_json(std::ostream& out, const Report& report, const KeyKnown& known);

}  // namespace irqmod::rt::calibrate
