// The plan's bookkeeping (calibrate_plan.hpp), shared by the file that runs the measurements
// (calibrate_plan.cpp) and the one that derives the keys from them (calibrate_keys.cpp).
// Private to src/rt.
#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "irqmod/rt/calibrate.hpp"
#include "irqmod/rt/calibrate_plan.hpp"
#include "irqmod/rt/calibrate_report.hpp"

namespace irqmod::rt::calibrate::detail {

// Message sizes: sockperf's default, a full 1500-byte frame's UDP payload, and a large message
// whose copy dominates (its difference from 64 B gives cpu.copy-kb).
inline constexpr std::size_t kMessageSizes[] = {64, 1472, 16384};
// The two batch sizes of the kernel-path measurements: far enough apart for a per-packet slope
// well above the noise, the larger within veth's NAPI budget (64) and the backlog's quantum.
inline constexpr std::size_t kSmallBatch = 4;
inline constexpr std::size_t kLargeBatch = 32;

// The raw measurement of `segments` through `path`: "path-loopback-32".
inline std::string path_sample(Path path, std::size_t segments) {
  return std::string("path-") + path_name(path) + "-" + std::to_string(segments);
}

// What one measurement may take in a full run and with --quick.
struct BudgetRow {
  Budget full;
  Budget quick;
};

// The idles of the other-CPU wake-up sweep: calibrate_plan.cpp records "wake-other-core-<N>us"
// for each, calibrate_keys.cpp finds cpu.idle-halt among them.
inline std::vector<Duration> idle_sweep() {
  return {microseconds(5),   microseconds(10),   microseconds(20),
          microseconds(50),  microseconds(100),  microseconds(200),
          microseconds(500), microseconds(1000), microseconds(2000)};
}

// Collects raw measurements, pooled over the plan's passes, and the entries derived from them.
class Planner {
 public:
  // `passes`: how many times the plan runs each measurement, each with 1/passes of its budget.
  Planner(const PlanOptions& options, int passes) : options_(options), passes_(passes) {}

  Budget budget(const BudgetRow& row) const {
    const Budget& b = options_.quick ? row.quick : row.full;
    const double share = options_.scale / passes_;
    return Budget{
        std::max<std::size_t>(1, static_cast<std::size_t>(static_cast<double>(b.samples) * share)),
        Duration{static_cast<std::int64_t>(static_cast<double>(b.time.count()) * share)}};
  }

  // Adds a pass's samples of the raw measurement `name`; false when it failed. A measurement
  // that failed in any pass is reported as failed, with the first pass's error.
  bool record(const std::string& name, const std::string& method, Expected<Samples> samples) {
    Raw& raw = raw_[name];
    if (raw.method.empty()) {
      raw.method = method;
      order_.push_back(name);
    }
    if (!samples) {
      if (raw.error.empty()) raw.error = samples.error().what();
    } else {
      raw.samples.insert(raw.samples.end(), samples.value().begin(), samples.value().end());
    }
    raw.summary.reset();
    return raw.error.empty();
  }

  // A number that checks a measurement (NET_RX softirqs per send, ...), one per pass; the
  // method says its range over the passes.
  void annotate(const std::string& name, const std::string& label, double value) {
    Raw& raw = raw_[name];
    raw.label = label;
    raw.notes.push_back(value);
  }

  void progress(const std::string& what) const {
    if (options_.progress) options_.progress(what);
  }

  bool has(const std::string& name) const {
    const auto it = raw_.find(name);
    return it != raw_.end() && it->second.error.empty() && !it->second.samples.empty();
  }
  const Samples& samples(const std::string& name) const { return raw_.at(name).samples; }
  double median(const std::string& name) const { return summary(name).p50; }

  // A key from `main`'s samples less `subtract`, divided by `divide`; skipped (naming the
  // first missing measurement) unless every one in `needs` was measured.
  void key(const std::string& key, const std::string& method, const std::string& main,
           const std::vector<std::string>& needs, const std::function<double()>& subtract,
           double divide = 1) {
    for (const std::string& name : needs)
      if (!has(name))
        return skip(key,
                    "needs the measurement '" + name + "', which failed: " + why_missing(name));
    if (!has(main))
      return skip(key, "needs the measurement '" + main + "', which failed: " + why_missing(main));
    keys_.push_back(
        Entry{key, method, summarise(derive(samples(main), subtract(), divide)), {}, false, {}});
  }

  // A key whose value is text found from several measurements (a curve), with `method` saying
  // how it was found.
  void text(const std::string& key, const std::string& method, const std::string& value) {
    keys_.push_back(Entry{key, method, Summary{1, 0, 0, 0}, {}, false, value});
  }

  // A key whose distribution `value` is chosen from `main`'s samples otherwise than by the fit
  // (`why` says how); the samples' spread is written beside it.
  void chosen(const std::string& key, const std::string& method, const std::string& main,
              const std::string& value, const std::string& why) {
    if (!has(main))
      return skip(key, "needs the measurement '" + main + "', which failed: " + why_missing(main));
    keys_.push_back(Entry{key, method, summary(main), {}, false, value, false, why});
  }

  // A fact of the host, not a measurement: `literal` is written as TOML ("true").
  void fact(const std::string& key, const std::string& method, const std::string& literal) {
    keys_.push_back(Entry{key, method, Summary{1, 0, 0, 0}, {}, false, literal, true});
  }

  void skip(const std::string& key, const std::string& why) {
    keys_.push_back(Entry{key, {}, {}, why, false, {}});
  }

  // Keys first (in the order derived), then the raw measurements (in the order first recorded).
  std::vector<Entry> entries() const {
    std::vector<Entry> all = keys_;
    for (const std::string& name : order_) {
      const Raw& raw = raw_.at(name);
      Entry e{name, raw.method + notes_text(raw) + passes_text(), {}, raw.error, true, {}};
      if (raw.error.empty()) e.summary = summary(name);
      if (raw.error.empty() && raw.samples.empty()) e.skipped = "no sample";
      all.push_back(std::move(e));
    }
    return all;
  }

 private:
  struct Raw {
    std::string method;
    Samples samples;                         // every pass's, in order
    std::string error;                       // the first failure; empty when none
    std::string label;                       // what `notes` are
    std::vector<double> notes;               // one per pass
    mutable std::optional<Summary> summary;  // of `samples`, computed when first asked
  };

  const Summary& summary(const std::string& name) const {
    const Raw& raw = raw_.at(name);
    if (!raw.summary) raw.summary = summarise(raw.samples);
    return *raw.summary;
  }

  static std::string notes_text(const Raw& raw) {
    if (raw.notes.empty()) return "";
    const auto [low, high] = std::minmax_element(raw.notes.begin(), raw.notes.end());
    std::string text = "; " + raw.label + " " + two_decimals(*low);
    if (*high != *low) text += " to " + two_decimals(*high);
    return text;
  }

  static std::string two_decimals(double value) {
    std::ostringstream out;
    out.setf(std::ios::fixed);
    out.precision(2);
    out << value;
    return out.str();
  }

  std::string passes_text() const {
    return passes_ > 1 ? "; pooled over " + std::to_string(passes_) + " passes" : "";
  }

  std::string why_missing(const std::string& name) const {
    const auto it = raw_.find(name);
    if (it == raw_.end()) return "not run";
    return it->second.error.empty() ? "no sample" : it->second.error;
  }

  const PlanOptions& options_;
  int passes_;
  std::map<std::string, Raw> raw_;
  std::vector<std::string> order_;  // raw measurements in the order first recorded
  std::vector<Entry> keys_;
};

// Adds every key's entry, derived from the raw measurements `planner` holds (or skipped, naming
// the measurement that is missing and why).
void derive_keys(Planner& planner);

}  // namespace irqmod::rt::calibrate::detail
