// The run's time series. See sampler.hpp and irqmod/sim/series.hpp.
#include "sim/sampler.hpp"

#include <algorithm>

namespace irqmod::sim {

std::string vector_name(const Host& host, const QueueVector& v) {
  std::string name = "vector " + std::to_string(v.index()) + ":";
  if (v.rx()) name += " rx queue " + std::to_string(v.index());
  const bool egress = std::any_of(host.egress_queues.begin(), host.egress_queues.end(),
                                  [&](const TxQueue& q) { return &q == v.tx(); });
  if (egress) name += " port 1";
  if (v.tx()) name += " tx queue " + std::to_string(v.tx()->index());
  return name;
}

Sampler::Sampler(Host& host, const Scenario& scenario, RunSeries& out)
    : host_(host), out_(out), warmup_(at_ns(0) + scenario.scenario.warmup) {
  out_ = RunSeries{};
  out_.interval = series_step(scenario.scenario.series_interval, scenario.scenario.duration);
  out_.warmup_end = warmup_;
  for (const QueueVector& v : host_.queue_vectors) {
    if (!v.rx()) continue;
    out_.queues.push_back(
        {"rx queue " + std::to_string(v.index()), static_cast<std::uint32_t>(v.rx()->capacity())});
  }
  const bool coalescing =
      scenario.nic.moderation == Moderation::coalesce || scenario.nic.moderation == Moderation::dim;
  out_.moderation = coalescing ? "rx-usecs" : "ITR interval";
  out_.dim = scenario.nic.moderation == Moderation::dim;
  out_.vectors.resize(host_.msix ? host_.msix->vectors() : 0);
  for (std::size_t i = 0; i < out_.vectors.size(); ++i)
    out_.vectors[i] = "vector " + std::to_string(i);
  for (const QueueVector& v : host_.queue_vectors)
    out_.vectors[v.msix_vector()] = vector_name(host_, v);
  next_ = at_ns(0) + out_.interval;
  record(at_ns(0));
}

void Sampler::catch_up(Instant now) {
  for (; next_ < now; next_ += out_.interval) {
    if (next_ == warmup_) continue;  // at_warmup's sample stands for it
    land(next_);
    record(next_);
  }
}

void Sampler::at_warmup() {
  record(host_.world.now());
}

void Sampler::finish(Instant end) {
  catch_up(end);
  land(end);
  if (out_.times.back() != end) record(end);
}

void Sampler::land(Instant t) {
  if (host_.port) host_.port->land(t);
  if (host_.egress) host_.egress->land(t);
}

void Sampler::record(Instant t) {
  out_.times.push_back(t);
  for (const QueueVector& v : host_.queue_vectors) {
    if (v.rx()) out_.queue_samples.push_back(v.rx_sample());
  }
  for (std::size_t i = 0; i < out_.vectors.size(); ++i)
    out_.interrupts.push_back(host_.world.report.interrupts.count_of(i));
}

}  // namespace irqmod::sim
