#include "irqmod/sweep/tune.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <map>
#include <nlopt.hpp>
#include <numeric>
#include <thread>
#include <utility>

namespace irqmod::sweep {
namespace {

// What NLopt is told a refused setting costs: worse than any run.
constexpr double kRefused = 1e30;

struct Evaluation {
  std::vector<std::string> overrides;
  PointRow row;
};

// One grid point's search: its runs, cached by their (rounded) settings.
class PointSearch {
 public:
  PointSearch(const TuneRequest& request, std::vector<std::string> grid_overrides,
              const sim::Scenario* base, const std::vector<std::string>& base_outside)
      : request_(request),
        grid_(std::move(grid_overrides)),
        base_(base),
        base_outside_(base_outside) {}

  // The grid point at the middle of the searched ranges: outside the host's vocabulary or
  // refused, the grid point is skipped (its own keys clash, or the scenario's with them); NLopt
  // starts there otherwise.
  void start() {
    const std::vector<std::string> middle =
        settings(std::vector<double>(request_.search.size(), 0.5));
    // Asked before the scenario's own checks: a point outside the vocabulary is "not offered"
    // even where the scenario would refuse it too (coalescing with adaptive-rx on and no
    // sample-interval), so that the message points at the host, not at a key to add.
    if (request_.vocabulary && base_) {
      sim::Scenario point = *base_;
      bool applied = true;
      for (const std::vector<std::string>* list : {&std::as_const(grid_), &middle}) {
        for (const std::string& o : *list)
          applied = applied && !sim::apply_override(point, o, "--vary");
      }
      for (const std::string& why :
           applied ? outside_vocabulary(*request_.vocabulary, point) : std::vector<std::string>{}) {
        if (std::find(base_outside_.begin(), base_outside_.end(), why) == base_outside_.end()) {
          not_offered = why;
          skipped_point = true;
          return;
        }
      }
    }
    if (refused(evaluate(middle))) skipped_point = true;
  }

  // The metric cells of the first run (the varied values left out), to tell grid points apart.
  std::vector<std::string> first_metrics() const {
    const std::vector<std::string>& cells = evaluations.front().row.cells;
    const std::size_t from = 2 + evaluations.front().overrides.size();
    return {cells.begin() + static_cast<std::ptrdiff_t>(std::min(from, cells.size())), cells.end()};
  }

  void search() {
    if (skipped_point || request_.search.empty()) return;
    const unsigned n = static_cast<unsigned>(request_.search.size());
    nlopt::opt opt(nlopt::LN_COBYLA, n);
    opt.set_lower_bounds(std::vector<double>(n, 0.0));
    opt.set_upper_bounds(std::vector<double>(n, 1.0));
    opt.set_min_objective(&PointSearch::objective, this);
    for (std::size_t c = 0; c < request_.constraints.size(); ++c) {
      constraint_context_.push_back({this, c});
    }
    for (auto& context : constraint_context_)
      opt.add_inequality_constraint(&PointSearch::constraint, &context, 0.0);
    opt.set_maxeval(static_cast<int>(request_.evaluations));
    opt.set_xtol_abs(1e-3);
    opt.set_initial_step(0.25);
    std::vector<double> x(n, 0.5);  // the middle of every range
    double value = 0;
    try {
      opt.optimize(x, value);
    } catch (const std::exception&) {
      // NLopt stops by an exception on a round-off limit or a forced stop (a refused point);
      // every run made so far is kept and ranked all the same.
    }
  }

  std::vector<Evaluation> evaluations;
  Table table;
  bool skipped_point = false;
  std::string not_offered;  // why the point is outside the host's vocabulary; empty: it is not

  static bool refused(const Evaluation& e) { return e.row.error && e.row.error->bad_input; }

 private:
  struct ConstraintContext {
    PointSearch* self;
    std::size_t index;
  };

  std::vector<std::string> settings(const std::vector<double>& x) const {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < request_.search.size(); ++i) {
      const SearchAxis& a = request_.search[i];
      const double v = a.low + std::clamp(x[i], 0.0, 1.0) * (a.high - a.low);
      out.push_back(a.key + "=" + std::to_string(std::llround(v)) + a.unit);
    }
    return out;
  }

  const Evaluation& evaluate(const std::vector<std::string>& searched) {
    const auto cached = cache_.find(searched);
    if (cached != cache_.end()) return evaluations[cached->second];
    std::vector<std::string> overrides = grid_;
    overrides.insert(overrides.end(), searched.begin(), searched.end());
    Spec spec = request_.base;
    spec.axes.clear();
    for (const std::string& o : overrides) {
      const std::size_t eq = o.find('=');
      spec.axes.push_back({o.substr(0, eq), {o.substr(eq + 1)}});
    }
    if (table.columns.empty()) table.columns = columns(spec);
    evaluations.push_back({overrides, run_point(spec, 0)});
    cache_.emplace(searched, evaluations.size() - 1);
    return evaluations.back();
  }

  const Evaluation& at(const double* x) {
    return evaluate(settings(std::vector<double>(x, x + request_.search.size())));
  }

  static double objective(unsigned n, const double* x, double*, void* data) {
    auto* self = static_cast<PointSearch*>(data);
    (void)n;
    const Evaluation& e = self->at(x);
    if (refused(e)) return kRefused;
    if (e.row.error) throw nlopt::forced_stop();
    const auto v = metric_value(self->table, e.row.cells, self->request_.minimize);
    return v ? *v : kRefused;
  }

  // Signed for COBYLA: below 0 when met, so it sees how much room there is.
  static double constraint(unsigned, const double* x, double*, void* data) {
    auto* context = static_cast<ConstraintContext*>(data);
    PointSearch* self = context->self;
    const Evaluation& e = self->at(x);
    if (refused(e)) return 1.0;  // infeasible, as a constraint missed by its whole limit
    if (e.row.error) throw nlopt::forced_stop();
    const Constraint& c = self->request_.constraints[context->index];
    const auto v = metric_value(self->table, e.row.cells, c.metric);
    if (!v) return 1.0;
    const double scale = std::max(std::fabs(c.limit), 1e-9);
    const bool upper = c.relation == Relation::at_most || c.relation == Relation::below;
    return (upper ? *v - c.limit : c.limit - *v) / scale;
  }

  const TuneRequest& request_;
  std::vector<std::string> grid_;
  const sim::Scenario* base_;                     // the scenario with --set, or null
  const std::vector<std::string>& base_outside_;  // the scenario's own, not the point's fault
  std::map<std::vector<std::string>, std::size_t> cache_;
  std::vector<ConstraintContext> constraint_context_;
};

}  // namespace

TuneSpace default_tune_space(const Vocabulary& v, const sim::Scenario& base) {
  TuneSpace space;
  const auto has = [&](std::string_view key) { return !lacks(v, base, key).has_value(); };
  // The moderation kind: ethtool coalescing, and the driver's adaptive-rx: i40e's and ice's
  // adaptive ITR (adaptive-rx off: a static rx-usecs), or net_dim on mlx5 and enetc.
  if (has("nic.moderation")) {
    if (v.adaptive_itr) {
      space.vary.push_back("nic.moderation=coalesce,adaptive-itr");
      space.vary.push_back("nic.adaptive-rx=false,true");
    } else if (v.net_dim) {
      space.vary.push_back("nic.moderation=coalesce,dim");
    }
  }
  // Busy polling off or at the 50 us Linux's documentation suggests
  // (Documentation/networking/napi.rst, "busy polling"), for read and for poll/epoll.
  if (has("napi.busy_read")) space.vary.push_back("napi.busy_read=0,50us");
  if (has("napi.busy_poll")) space.vary.push_back("napi.busy_poll=0,50us");
  // Hard IRQs deferred 0 or 2 polls (the kernel's IRQ-suspension example, same file).
  if (has("napi.napi_defer_hard_irqs")) space.vary.push_back("napi.napi_defer_hard_irqs=0,2");
  // IRQ suspension off or at the 20 ms its authors measured with
  // (docs/research/irq-suspend-modes.md: defer 100, gro_flush_timeout 10-200 us, 20 ms).
  if (has("napi.irq_suspend_timeout")) space.vary.push_back("napi.irq_suspend_timeout=0,20ms");
  // rx-usecs over i40e's range of useful values (0: at once; the scenario refuses 0 with
  // rx-frames 0), rx-frames up to NAPI_POLL_WEIGHT (64, include/linux/netdevice.h: the most
  // frames one poll takes) where the driver has them, gro_flush_timeout 0..200 us (napi.rst's
  // example: 20 us; the IRQ-suspension measurements went to 200 us).
  if (has("nic.rx-usecs")) space.search.push_back("nic.rx-usecs=0:128");
  if (has("nic.rx-frames")) space.search.push_back("nic.rx-frames=0:64");
  if (has("napi.gro_flush_timeout")) space.search.push_back("napi.gro_flush_timeout=0us:200us");
  return space;
}

Expected<SearchAxis> parse_search(std::string_view spec) {
  auto axis = parse_vary(spec);
  const std::size_t eq = spec.find('=');
  const std::string_view range = eq == std::string_view::npos ? "" : spec.substr(eq + 1);
  if (!axis || std::count(range.begin(), range.end(), ':') != 1) {
    return Error{"--search", "'" + std::string(spec) +
                                 "' is not KEY=LOW:HIGH; e.g. nic.rx-usecs=1:128 or "
                                 "napi.gro_flush_timeout=0us:200us"};
  }
  // LOW:HIGH read as the range LOW:HIGH:(HIGH-LOW), which checks numbers and the shared unit.
  const std::string low(range.substr(0, range.find(':')));
  const std::string high(range.substr(range.find(':') + 1));
  SearchAxis out{axis->key, 0, 0, ""};
  char* end = nullptr;
  out.low = std::strtod(low.c_str(), &end);
  out.unit = end;
  if (end == low.c_str()) return Error{"--search", "'" + low + "' is not a number"};
  out.high = std::strtod(high.c_str(), &end);
  if (end == high.c_str() || std::string(end) != out.unit) {
    return Error{"--search", "'" + std::string(range) + "': LOW and HIGH need one unit"};
  }
  if (!(out.high > out.low))
    return Error{"--search", "HIGH must be above LOW in '" + std::string(range) + "'"};
  return out;
}

TuneResult tune(const TuneRequest& request) {
  const std::size_t points = point_count(request.base.axes);
  // What the scenario itself has outside the vocabulary is no grid point's doing.
  std::vector<std::string> base_outside;
  const sim::LoadResult base =
      load_measured(request.base.text, request.base.file, request.base.sets, request.base.duration);
  if (request.vocabulary && base)
    base_outside = outside_vocabulary(*request.vocabulary, base.value());
  std::vector<PointSearch> searches;
  for (std::size_t p = 0; p < points; ++p) {
    searches.emplace_back(request, point_overrides(request.base.axes, p),
                          base ? &base.value() : nullptr, base_outside);
  }
  const auto parallel = [&](const std::vector<std::size_t>& which, void (PointSearch::*step)()) {
    std::atomic<std::size_t> next{0};
    const auto worker = [&] {
      for (std::size_t i = next++; i < which.size(); i = next++)
        (searches[which[i]].*step)();
    };
    std::vector<std::thread> threads;
    for (unsigned t = 1; t < std::min<unsigned>(request.jobs, static_cast<unsigned>(which.size()));
         ++t)
      threads.emplace_back(worker);
    worker();
    for (auto& t : threads)
      t.join();
  };
  std::vector<std::size_t> all(points);
  std::iota(all.begin(), all.end(), std::size_t{0});
  parallel(all, &PointSearch::start);
  // A grid point whose first run gives the same metrics, cell for cell, as an earlier point's is
  // the same setting for this scenario (a knob with no effect here: busy_poll for an application
  // that blocks in recv, irq_suspend_timeout without prefer_busy_poll): not searched again. The
  // simulator is deterministic, so equal rows come from equal runs, not from chance.
  TuneResult result;
  std::vector<std::size_t> distinct;
  std::map<std::vector<std::string>, std::size_t> seen;
  for (std::size_t p = 0; p < points; ++p) {
    if (!searches[p].not_offered.empty()) {
      if (result.not_offered++ == 0) result.not_offered_example = searches[p].not_offered;
      continue;
    }
    if (searches[p].skipped_point || searches[p].evaluations.front().row.error) continue;
    if (seen.emplace(searches[p].first_metrics(), p).second) {
      distinct.push_back(p);
    } else {
      ++result.same_points;
    }
  }
  parallel(distinct, &PointSearch::search);

  for (PointSearch& s : searches) {
    if (result.table.columns.empty()) result.table.columns = s.table.columns;
    if (!s.not_offered.empty()) continue;
    if (s.skipped_point) ++result.skipped_points;
    for (Evaluation& e : s.evaluations) {
      if (PointSearch::refused(e)) {
        if (!s.skipped_point) ++result.skipped_runs;
        if (result.skipped_example.empty()) result.skipped_example = e.row.error->message;
        continue;
      }
      if (e.row.error) {
        if (!result.error) result.error = e.row.error;
        continue;
      }
      Candidate c{e.overrides, e.row.cells, 0, 0};
      const auto v = metric_value(s.table, c.row, request.minimize);
      c.objective = v ? *v : 1e30;
      for (const Constraint& k : request.constraints)
        c.violation += violation(s.table, c.row, k);
      result.table.rows.push_back(c.row);
      result.ranked.push_back(std::move(c));
    }
  }
  // Point numbers in the table: the order of the runs.
  for (std::size_t r = 0; r < result.table.rows.size(); ++r) {
    for (auto* row : {&result.table.rows[r], &result.ranked[r].row}) {
      (*row)[0] = std::to_string(r);
      (*row)[1] = std::to_string(result.table.rows.size());
    }
  }
  std::stable_sort(result.ranked.begin(), result.ranked.end(),
                   [](const Candidate& a, const Candidate& b) {
                     const bool a_met = a.violation == 0, b_met = b.violation == 0;
                     if (a_met != b_met) return a_met;
                     if (!a_met && a.violation != b.violation) return a.violation < b.violation;
                     return a.objective < b.objective;
                   });
  result.met = !result.ranked.empty() && result.ranked[0].violation == 0;
  if (result.ranked.empty() && !result.error && !result.skipped_example.empty())
    result.error = PointError{
        "the scenario refuses every setting searched, e.g. " + result.skipped_example, true};
  if (result.ranked.empty() && !result.error && result.not_offered > 0) {
    result.error = PointError{
        "no setting searched is one the scenario's host has, e.g. " + result.not_offered_example,
        true};
  }
  // A metric no run has a value of cannot be minimised or checked: refused, not ranked by the
  // 1e30 that stands for "no value".
  if (!result.error && !result.ranked.empty()) {
    std::vector<const Metric*> metrics{&request.minimize};
    for (const Constraint& c : request.constraints)
      metrics.push_back(&c.metric);
    for (const Metric* m : metrics) {
      const bool any = std::any_of(
          result.ranked.begin(), result.ranked.end(),
          [&](const Candidate& c) { return metric_value(result.table, c.row, *m).has_value(); });
      if (!any) {
        result.error =
            PointError{m->name + " (" + m->column + "): no run has a value of it (" +
                           (m->column.starts_with("latency_")
                                ? "latency_count 0: the scenario's traffic measures no latency"
                                : "its cells are empty") +
                           "); nothing to minimise or check it by",
                       true};
        break;
      }
    }
  }
  return result;
}

std::vector<std::string> keys_without_effect(const TuneRequest& request, const Candidate& best) {
  std::vector<std::string> out;
  const std::size_t n = best.overrides.size();
  const auto metrics_of = [](const std::vector<std::string>& cells, std::size_t overrides) {
    const std::size_t from = std::min(2 + overrides, cells.size());
    return std::vector<std::string>(cells.begin() + static_cast<std::ptrdiff_t>(from), cells.end());
  };
  const std::vector<std::string> mine = metrics_of(best.row, n);
  std::vector<std::string> all = request.base.sets;
  all.insert(all.end(), best.overrides.begin(), best.overrides.end());
  const sim::LoadResult with =
      load_measured(request.base.text, request.base.file, all, request.base.duration);
  if (!with) return out;
  for (std::size_t i = 0; i < n; ++i) {
    Spec spec = request.base;
    spec.axes.clear();
    std::vector<std::string> sets = request.base.sets;
    for (std::size_t j = 0; j < n; ++j) {
      if (j == i) continue;
      const std::string& o = best.overrides[j];
      const std::size_t eq = o.find('=');
      spec.axes.push_back({o.substr(0, eq), {o.substr(eq + 1)}});
      sets.push_back(o);
    }
    const sim::LoadResult without =
        load_measured(request.base.text, request.base.file, sets, request.base.duration);
    if (!without || without.value() == with.value()) continue;
    const PointRow row = run_point(spec, 0);
    if (row.error) continue;
    if (metrics_of(row.cells, n - 1) == mine) out.push_back(best.overrides[i]);
  }
  return out;
}

}  // namespace irqmod::sweep
