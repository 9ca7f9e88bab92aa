// The plan's bookkeeping (calibrate_plan.hpp), shared by the file that runs the measurements
// (calibrate_plan.cpp) and the one that derives the keys from them (calibrate_keys.cpp).
// Private to src/rt.
#pragma once

#include <algorithm>
#include <functional>
#include <map>
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

// Collects raw measurements and the entries derived from them.
class Planner {
 public:
  explicit Planner(const PlanOptions& options) : options_(options) {}

  Budget budget(const BudgetRow& row) const {
    const Budget& b = options_.quick ? row.quick : row.full;
    return Budget{
        std::max<std::size_t>(
            1, static_cast<std::size_t>(static_cast<double>(b.samples) * options_.scale)),
        Duration{static_cast<std::int64_t>(static_cast<double>(b.time.count()) * options_.scale)}};
  }

  // Records a raw measurement under `name`; false when it failed (the entry says why).
  bool record(const std::string& name, const std::string& method, Expected<Samples> samples) {
    Entry e{name, method, {}, {}, true};
    if (samples) {
      e.summary = summarise(samples.value());
      samples_[name] = std::move(samples.value());
    } else {
      e.skipped = samples.error().what();
    }
    entries_.push_back(std::move(e));
    return samples_.count(name) > 0;
  }

  void progress(const std::string& what) const {
    if (options_.progress) options_.progress(what);
  }

  bool has(const std::string& name) const { return samples_.count(name) > 0; }
  const Samples& samples(const std::string& name) const { return samples_.at(name); }
  double median(const std::string& name) const { return summarise(samples(name)).p50; }

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
    keys_.push_back(Entry{key, method, summarise(derive(samples(main), subtract(), divide)), {}});
  }

  void skip(const std::string& key, const std::string& why) {
    keys_.push_back(Entry{key, {}, {}, why});
  }

  // Keys first (in the order derived), then the raw measurements.
  std::vector<Entry> entries() const {
    std::vector<Entry> all = keys_;
    all.insert(all.end(), entries_.begin(), entries_.end());
    return all;
  }

  void annotate(const std::string& name, const std::string& note) {
    for (Entry& e : entries_)
      if (e.key == name) e.method += note;
  }

 private:
  std::string why_missing(const std::string& name) const {
    for (const Entry& e : entries_)
      if (e.key == name) return e.skipped;
    return "not run";
  }

  const PlanOptions& options_;
  std::map<std::string, Samples> samples_;
  std::vector<Entry> entries_;  // raw
  std::vector<Entry> keys_;
};

// Adds every key's entry, derived from the raw measurements `planner` holds (or skipped, naming
// the measurement that is missing and why).
void derive_keys(Planner& planner);

}  // namespace irqmod::rt::calibrate::detail
