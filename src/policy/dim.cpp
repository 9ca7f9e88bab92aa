// net_dim, following lib/dim/dim.c and lib/dim/net_dim.c (Linux 6.12) rule for rule.
//
// The kernel's arithmetic is reproduced at its own widths: u16 / u32 counter gaps (BIT_GAP),
// a u32 microsecond delta, 64-bit `long` products, results stored in `int`, and the kernel's
// wrapping signed arithmetic (it builds with -fno-strict-overflow). Each step below names the
// kernel expression it stands for.
#include "irqmod/policy/dim.hpp"

#include <charconv>
#include <string>

namespace irqmod::dim {
namespace {

// Profile tables from lib/dim/net_dim.c. EQE tables hold pkts at
// NET_DIM_DEFAULT_{RX,TX}_CQ_PKTS_FROM_EQE (256 / 128); CQE tables trade usec for pkts.
constexpr ProfileTable kRxEqe = {
    {{1, 256, 0}, {8, 256, 0}, {64, 256, 0}, {128, 256, 0}, {256, 256, 0}}};
constexpr ProfileTable kRxCqe = {{{2, 256, 0}, {8, 128, 0}, {16, 64, 0}, {32, 64, 0}, {64, 64, 0}}};
constexpr ProfileTable kTxEqe = {
    {{1, 128, 0}, {8, 128, 0}, {32, 128, 0}, {64, 128, 0}, {128, 128, 0}}};
constexpr ProfileTable kTxCqe = {{{5, 128, 0}, {8, 64, 0}, {16, 32, 0}, {32, 32, 0}, {64, 32, 0}}};

// `int` arithmetic as the kernel compiles it: two's complement, wrapping.
constexpr std::int32_t wrap_sub(std::int32_t a, std::int32_t b) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) - static_cast<std::uint32_t>(b));
}
constexpr std::int32_t wrap_neg(std::int32_t a) {
  return static_cast<std::int32_t>(0U - static_cast<std::uint32_t>(a));
}
constexpr std::int32_t wrap_mul(std::int32_t a, std::int32_t b) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) * static_cast<std::uint32_t>(b));
}
// Conversion of a signed value to `unsigned long` (sign extension, then reinterpretation).
constexpr std::uint64_t to_ulong(std::int32_t a) {
  return static_cast<std::uint64_t>(static_cast<std::int64_t>(a));
}

// IS_SIGNIFICANT_DIFF(val, ref): ref && (100UL * abs(val - ref)) / ref > 10.
constexpr bool is_significant_diff(std::int32_t val, std::int32_t ref) {
  if (ref == 0) return false;
  std::int32_t diff = wrap_sub(val, ref);
  if (diff < 0) diff = wrap_neg(diff);  // the kernel's abs() on int
  return (100UL * to_ulong(diff)) / to_ulong(ref) > 10;
}

// DIV_ROUND_UP(n * USEC_PER_MSEC, delta_us): `long` numerator, u32 divisor, stored in `int`.
constexpr std::int32_t per_msec(std::uint32_t count, std::uint32_t delta_us) {
  const std::int64_t n = static_cast<std::int64_t>(count) * 1000;
  return static_cast<std::int32_t>((n + delta_us - 1) / delta_us);
}

}  // namespace

const ProfileTable& default_profiles(Direction direction, CqPeriodMode mode) {
  if (direction == Direction::rx) return mode == CqPeriodMode::start_from_eqe ? kRxEqe : kRxCqe;
  return mode == CqPeriodMode::start_from_eqe ? kTxEqe : kTxCqe;
}

bool dim_on_top(const State& dim) {
  switch (dim.tune_state) {
    case TuneState::parking_on_top:
    case TuneState::parking_tired:
      return true;
    case TuneState::going_right:
      return dim.steps_left > 1 && dim.steps_right == 1;
    case TuneState::going_left:
      return dim.steps_right > 1 && dim.steps_left == 1;
  }
  return true;
}

void dim_turn(State& dim) {
  switch (dim.tune_state) {
    case TuneState::parking_on_top:
    case TuneState::parking_tired:
      break;
    case TuneState::going_right:
      dim.tune_state = TuneState::going_left;
      dim.steps_left = 0;
      break;
    case TuneState::going_left:
      dim.tune_state = TuneState::going_right;
      dim.steps_right = 0;
      break;
  }
}

void dim_park_on_top(State& dim) {
  dim.steps_right = 0;
  dim.steps_left = 0;
  dim.tired = 0;
  dim.tune_state = TuneState::parking_on_top;
}

void dim_park_tired(State& dim) {
  dim.steps_right = 0;
  dim.steps_left = 0;
  dim.tune_state = TuneState::parking_tired;
}

bool dim_calc_stats(const Sample& start, const Sample& end, Stats& curr) {
  // ktime_us_delta: s64 nanoseconds / 1000 (truncating), stored in a u32.
  const std::int64_t delta_ns = (end.time - start.time).count();
  const auto delta_us = static_cast<std::uint32_t>(delta_ns / 1000);
  // BIT_GAP(32, end, start): the modular difference of u32 counters.
  const std::uint32_t npkts = end.pkt_ctr - start.pkt_ctr;
  const std::uint32_t nbytes = end.byte_ctr - start.byte_ctr;
  const std::uint32_t ncomps = end.comp_ctr - start.comp_ctr;

  if (delta_us == 0) return false;

  curr.ppms = per_msec(npkts, delta_us);
  curr.bpms = per_msec(nbytes, delta_us);
  curr.epms = per_msec(kNumEvents, delta_us);
  curr.cpms = per_msec(ncomps, delta_us);
  if (curr.epms != 0) {
    // DIV_ROUND_DOWN_ULL(cpms * 100, epms): an `int` product widened to u64, do_div by u32.
    const std::uint64_t numerator = to_ulong(wrap_mul(curr.cpms, 100));
    curr.cpe_ratio = static_cast<std::int32_t>(numerator / static_cast<std::uint32_t>(curr.epms));
  } else {
    curr.cpe_ratio = 0;
  }
  return true;
}

StepResult net_dim_step(State& dim) {
  if (dim.tired == kTiredLimit) return StepResult::too_tired;

  switch (dim.tune_state) {
    case TuneState::parking_on_top:
    case TuneState::parking_tired:
      break;
    case TuneState::going_right:
      if (dim.profile_ix == kNumProfiles - 1) return StepResult::on_edge;
      ++dim.profile_ix;
      ++dim.steps_right;
      break;
    case TuneState::going_left:
      if (dim.profile_ix == 0) return StepResult::on_edge;
      --dim.profile_ix;
      ++dim.steps_left;
      break;
  }

  ++dim.tired;
  return StepResult::stepped;
}

void net_dim_exit_parking(State& dim) {
  dim.tune_state = dim.profile_ix != 0 ? TuneState::going_left : TuneState::going_right;
  net_dim_step(dim);
}

StatsCompare net_dim_stats_compare(const Stats& curr, const Stats& prev) {
  if (prev.bpms == 0) return curr.bpms != 0 ? StatsCompare::better : StatsCompare::same;
  if (is_significant_diff(curr.bpms, prev.bpms))
    return curr.bpms > prev.bpms ? StatsCompare::better : StatsCompare::worse;

  if (prev.ppms == 0) return curr.ppms != 0 ? StatsCompare::better : StatsCompare::same;
  if (is_significant_diff(curr.ppms, prev.ppms))
    return curr.ppms > prev.ppms ? StatsCompare::better : StatsCompare::worse;

  if (prev.epms == 0) return StatsCompare::same;
  // Fewer events for the same traffic is better: moderation is doing its job.
  if (is_significant_diff(curr.epms, prev.epms))
    return curr.epms < prev.epms ? StatsCompare::better : StatsCompare::worse;

  return StatsCompare::same;
}

bool net_dim_decision(const Stats& curr, State& dim) {
  const TuneState prev_state = dim.tune_state;
  const std::uint8_t prev_ix = dim.profile_ix;

  switch (dim.tune_state) {
    case TuneState::parking_on_top:
      if (net_dim_stats_compare(curr, dim.prev_stats) != StatsCompare::same)
        net_dim_exit_parking(dim);
      break;

    case TuneState::parking_tired:
      --dim.tired;
      if (dim.tired == 0) net_dim_exit_parking(dim);
      break;

    case TuneState::going_right:
    case TuneState::going_left:
      if (net_dim_stats_compare(curr, dim.prev_stats) != StatsCompare::better) dim_turn(dim);

      if (dim_on_top(dim)) {
        dim_park_on_top(dim);
        break;
      }

      switch (net_dim_step(dim)) {
        case StepResult::on_edge:
          dim_park_on_top(dim);
          break;
        case StepResult::too_tired:
          dim_park_tired(dim);
          break;
        case StepResult::stepped:
          break;
      }
      break;
  }

  // While parked on top the reference window stays the one that got us there.
  if (prev_state != TuneState::parking_on_top || dim.tune_state != TuneState::parking_on_top)
    dim.prev_stats = curr;

  return dim.profile_ix != prev_ix;
}

bool net_dim(State& dim, const Sample& end_sample, Instant now) {
  switch (dim.state) {
    case MeasureState::measure_in_progress: {
      // BIT_GAP(16, end, start) compared with DIM_NEVENTS.
      const auto nevents =
          static_cast<std::uint16_t>(end_sample.event_ctr - dim.start_sample.event_ctr);
      if (nevents < kNumEvents) return false;
      Stats curr{};
      if (!dim_calc_stats(dim.start_sample, end_sample, curr)) return false;
      if (net_dim_decision(curr, dim)) {
        dim.state = MeasureState::apply_new_profile;
        return true;
      }
      [[fallthrough]];
    }
    case MeasureState::start_measure:
      // dim_update_sample(): the counters of this sample, stamped with the current time.
      dim.start_sample = Sample{now, end_sample.pkt_ctr, end_sample.byte_ctr, end_sample.event_ctr,
                                dim.start_sample.comp_ctr};
      dim.state = MeasureState::measure_in_progress;
      return false;
    case MeasureState::apply_new_profile:
      return false;
  }
  return false;
}

namespace {

// One field of a profile: a decimal number up to 65535, or 'n' for "keep the current value".
bool parse_field(std::string_view text, std::uint16_t current, std::uint16_t& out) {
  if (text == "n") {
    out = current;
    return true;
  }
  unsigned value = 0;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc{} || ptr != end || value > 0xFFFF) return false;
  out = static_cast<std::uint16_t>(value);
  return true;
}

}  // namespace

Expected<ProfileTable> parse_profile_list(std::string_view text, const ProfileTable& current,
                                          std::string_view key) {
  const std::string allowed =
      "expected 1 to 5 profiles separated by '_', each \"usec,pkts,comps\" with numbers 0-65535 "
      "or 'n' to keep the current value (e.g. 1,256,n_8,256,n_64,256,n_128,256,n_256,256,n)";
  const auto fail = [&](const std::string& what) {
    return Error{std::string(key), what + "; " + allowed};
  };
  if (text.empty()) return fail("empty profile list");
  // Like ethnl_update_profile: entries replace the table from index 0 on, the rest is kept,
  // and a sixth entry is refused (-E2BIG). Unlike the kernel, which stores the u32 it gets in a
  // u16 field without a check, a value above 65535 is refused rather than truncated.
  ProfileTable table = current;
  std::size_t index = 0;
  std::string_view rest = text;
  while (true) {
    if (index == kNumProfiles) return fail("more than 5 profiles in \"" + std::string(text) + "\"");
    const std::size_t cut = rest.find('_');
    std::string_view fields = rest.substr(0, cut);
    std::uint16_t* targets[] = {&table[index].usec, &table[index].pkts, &table[index].comps};
    const std::uint16_t currents[] = {current[index].usec, current[index].pkts,
                                      current[index].comps};
    for (std::size_t f = 0;; ++f) {
      if (f == 3) return fail("profile " + std::to_string(index + 1) + " has more than 3 fields");
      const std::size_t comma = fields.find(',');
      const std::string_view field = fields.substr(0, comma);
      if (!parse_field(field, currents[f], *targets[f]))
        return fail("profile " + std::to_string(index + 1) + " field \"" + std::string(field) +
                    "\" is not valid");
      if (comma == std::string_view::npos) break;
      fields.remove_prefix(comma + 1);
    }
    ++index;
    if (cut == std::string_view::npos) break;
    rest.remove_prefix(cut + 1);
  }
  return table;
}

std::string_view to_string(TuneState s) {
  switch (s) {
    case TuneState::parking_on_top:
      return "parking_on_top";
    case TuneState::parking_tired:
      return "parking_tired";
    case TuneState::going_right:
      return "going_right";
    case TuneState::going_left:
      return "going_left";
  }
  return "?";
}

std::string_view to_string(MeasureState s) {
  switch (s) {
    case MeasureState::start_measure:
      return "start_measure";
    case MeasureState::measure_in_progress:
      return "measure_in_progress";
    case MeasureState::apply_new_profile:
      return "apply_new_profile";
  }
  return "?";
}

}  // namespace irqmod::dim
