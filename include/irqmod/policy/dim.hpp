// net_dim: Linux's dynamic interrupt moderation, decision for decision.
//
// A rendering of `include/linux/dim.h`, `lib/dim/dim.c` and `lib/dim/net_dim.c` (Linux 6.12):
// the driver samples cumulative event / packet / byte counters once per NAPI completion; every
// DIM_NEVENTS (64) events net_dim compares the traffic rate with the previous window and walks a
// table of five moderation profiles (usec, pkts) left or right, parking when it stops improving.
//
// What differs from the kernel is only the plumbing: time is handed in (`now`) instead of read
// with ktime_get(), and the "schedule work to apply the new profile" callback is data returned
// to the caller, who applies the profile and calls `acknowledge()` (mlx5's work handler sets
// `dim->state = DIM_START_MEASURE` in the same place). Counter widths are the kernel's, so
// wrap-around behaves exactly as there.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "irqmod/error.hpp"
#include "irqmod/time.hpp"

namespace irqmod::dim {

// Events per measurement window (DIM_NEVENTS in include/linux/dim.h).
inline constexpr std::uint16_t kNumEvents = 64;
// Profiles per table (NET_DIM_PARAMS_NUM_PROFILES).
inline constexpr std::size_t kNumProfiles = 5;
// Steps before parking tired: net_dim_step returns DIM_TOO_TIRED at NUM_PROFILES * 2.
inline constexpr std::uint8_t kTiredLimit = kNumProfiles * 2;

// One moderation setting (struct dim_cq_moder).
struct Profile {
  std::uint16_t usec = 0;   // interrupt delay after the first completion, microseconds
  std::uint16_t pkts = 0;   // completions that force an interrupt regardless of time
  std::uint16_t comps = 0;  // completions per event, used by RDMA DIM only; kept for ethtool
  friend constexpr bool operator==(const Profile&, const Profile&) = default;
};

using ProfileTable = std::array<Profile, kNumProfiles>;

// Which side of the queue the table moderates.
enum class Direction : std::uint8_t { rx, tx };

// When the moderation timer starts (enum dim_cq_period_mode).
enum class CqPeriodMode : std::uint8_t {
  start_from_eqe = 0,  // timer starts at the first event (interrupt) that is not yet signalled
  start_from_cqe = 1,  // timer restarts at every new completion
};

// The kernel's default tables (NET_DIM_{RX,TX}_{EQE,CQE}_PROFILES in lib/dim/net_dim.c).
const ProfileTable& default_profiles(Direction direction, CqPeriodMode mode);

// The profile a driver starts from before net_dim has run (NET_DIM_DEF_PROFILE_CQE/EQE = 1).
inline constexpr std::uint8_t kDefaultProfileIx = 1;

// Cumulative counters read by the driver at one NAPI completion (struct dim_sample). Widths are
// the kernel's: the driver's wider counters are truncated on assignment, as in dim_update_sample.
struct Sample {
  Instant time{};               // when the counters were read
  std::uint32_t pkt_ctr = 0;    // packets, cumulative, modulo 2^32
  std::uint32_t byte_ctr = 0;   // bytes, cumulative, modulo 2^32
  std::uint16_t event_ctr = 0;  // interrupts / NAPI completions, cumulative, modulo 2^16
  std::uint32_t comp_ctr = 0;   // completions (RDMA only), cumulative, modulo 2^32
};

// Builds a sample from counters of any width, keeping the low bits as the kernel does.
constexpr Sample make_sample(Instant time, std::uint64_t events, std::uint64_t packets,
                             std::uint64_t bytes) {
  return Sample{time, static_cast<std::uint32_t>(packets), static_cast<std::uint32_t>(bytes),
                static_cast<std::uint16_t>(events), 0};
}

// Rates over one window (struct dim_stats); `int` in the kernel, so 32-bit signed here.
struct Stats {
  std::int32_t ppms = 0;       // packets per millisecond
  std::int32_t bpms = 0;       // bytes per millisecond
  std::int32_t epms = 0;       // events per millisecond
  std::int32_t cpms = 0;       // completions per millisecond
  std::int32_t cpe_ratio = 0;  // completions per event, percent
  friend constexpr bool operator==(const Stats&, const Stats&) = default;
};

// enum dim_state: where the measurement is.
enum class MeasureState : std::uint8_t {
  start_measure = 0,        // next sample opens a window
  measure_in_progress = 1,  // a window is open
  apply_new_profile = 2,    // a decision is waiting for the caller to apply and acknowledge it
};

// enum dim_tune_state: where the profile search is.
enum class TuneState : std::uint8_t {
  parking_on_top = 0,  // settled on a good profile; leaves when the traffic changes
  parking_tired = 1,   // stepped too often; sits out `tired` windows
  going_right = 2,     // moving to higher moderation (larger index)
  going_left = 3,      // moving to lower moderation (smaller index)
};

// enum dim_stats_state: the comparison of one window with the previous.
enum class StatsCompare : std::uint8_t { worse = 0, same = 1, better = 2 };

// enum dim_step_result.
enum class StepResult : std::uint8_t { stepped = 0, too_tired = 1, on_edge = 2 };

// struct dim without the work item and private pointer. All-zero is how drivers allocate it
// (kzalloc in mlx5): profile 0, parking on top, start measuring.
struct State {
  MeasureState state = MeasureState::start_measure;
  Stats prev_stats{};
  Sample start_sample{};
  std::uint8_t profile_ix = 0;
  CqPeriodMode mode = CqPeriodMode::start_from_eqe;
  TuneState tune_state = TuneState::parking_on_top;
  std::uint8_t steps_right = 0;
  std::uint8_t steps_left = 0;
  std::uint8_t tired = 0;
};

// What one call to `NetDim::step` asks of the caller.
struct Decision {
  bool apply = false;           // a new profile was chosen: apply it, then acknowledge()
  std::uint8_t profile_ix = 0;  // the current profile index (the new one when `apply`)
  Profile profile{};            // the profile at that index
};

// The rules, as free functions over State so that tests can drive each one alone. They are
// the kernel's functions of the same names.
bool dim_on_top(const State& dim);
void dim_turn(State& dim);
void dim_park_on_top(State& dim);
void dim_park_tired(State& dim);
// False when no time has elapsed: the window is "not reliable" and is skipped.
bool dim_calc_stats(const Sample& start, const Sample& end, Stats& curr);
StepResult net_dim_step(State& dim);
void net_dim_exit_parking(State& dim);
StatsCompare net_dim_stats_compare(const Stats& curr, const Stats& prev);
// True when the profile index changed.
bool net_dim_decision(const Stats& curr, State& dim);
// The entry point: one sample per NAPI completion. `now` stamps a newly opened window, as
// dim_update_sample's ktime_get() does in the kernel. Returns true when a new profile must be
// applied (the kernel's schedule_work).
bool net_dim(State& dim, const Sample& end_sample, Instant now);

// net_dim with its profile table: what a driver or the simulator holds per queue.
class NetDim {
 public:
  // A zero-initialised struct dim moderating with `table`.
  explicit NetDim(const ProfileTable& table, CqPeriodMode mode = CqPeriodMode::start_from_eqe)
      : table_(table) {
    state_.mode = mode;
  }
  NetDim(const ProfileTable& table, const State& initial) : table_(table), state_(initial) {}

  // Feeds one sample. When the decision says `apply`, the caller programs the profile and calls
  // acknowledge(); until then further samples are ignored, as in the kernel.
  Decision step(const Sample& sample, Instant now) {
    const bool apply = net_dim(state_, sample, now);
    return Decision{apply, state_.profile_ix, table_[state_.profile_ix]};
  }

  // The new profile is in effect: start a new measurement (mlx5e_rx_dim_work and friends).
  void acknowledge() { state_.state = MeasureState::start_measure; }

  const Profile& profile() const { return table_[state_.profile_ix]; }
  const State& state() const { return state_; }
  const ProfileTable& table() const { return table_; }

 private:
  ProfileTable table_;
  State state_{};
};

// Parses a profile list as ethtool's `rx-profile` / `tx-profile` take it (net_dim.rst): up to
// five profiles separated by '_', each "usec,pkts,comps" where a field may be 'n' to keep
// `current`'s value and trailing fields may be left out. Profiles not given keep their current
// values, as in the kernel's ethnl_update_profile. `key` names the setting in errors.
Expected<ProfileTable> parse_profile_list(std::string_view text, const ProfileTable& current,
                                          std::string_view key);

std::string_view to_string(TuneState s);
std::string_view to_string(MeasureState s);

}  // namespace irqmod::dim
