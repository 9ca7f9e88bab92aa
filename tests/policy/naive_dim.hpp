// A second rendering of Linux net_dim, written independently of src/policy/dim.cpp and as
// plainly as possible: every quantity is a `long long`, every kernel width is an explicit
// modulo, every state is a small integer, and the whole algorithm is one function. It exists
// only to be compared with the real implementation (dim_property_test.cpp); it is not fast,
// not pretty and not used anywhere else.
#pragma once

namespace naive_dim {

// States as numbers, in the kernel's enum order.
enum { START_MEASURE = 0, MEASURE_IN_PROGRESS = 1, APPLY_NEW_PROFILE = 2 };
enum { PARKING_ON_TOP = 0, PARKING_TIRED = 1, GOING_RIGHT = 2, GOING_LEFT = 3 };
enum { WORSE = 0, SAME = 1, BETTER = 2 };

struct Dim {
  long long state = START_MEASURE;
  long long prev_ppms = 0, prev_bpms = 0, prev_epms = 0;
  long long start_time_ns = 0, start_pkts = 0, start_bytes = 0, start_events = 0;
  long long profile_ix = 0;
  long long tune_state = PARKING_ON_TOP;
  long long steps_right = 0, steps_left = 0, tired = 0;
};

inline long long mod(long long v, long long m) {
  return ((v % m) + m) % m;
}

// The value a 32-bit `int` holds after storing v (two's complement).
inline long long as_int32(long long v) {
  long long u = mod(v, 4294967296LL);
  return u >= 2147483648LL ? u - 4294967296LL : u;
}

inline long long ceil_div(long long n, long long d) {
  return (n + d - 1) / d;
}

// "More than 10 % away": 100 * |val - ref| / ref > 10 in the kernel's unsigned long arithmetic.
// For the magnitudes that can occur with a positive ref this is the plain integer test below;
// a negative ref (an `int` that overflowed) becomes a huge unsigned divisor: never significant,
// unless the difference is itself "negative" (it wrapped), which we compute the same way.
inline bool significant(long long val, long long ref) {
  if (ref == 0) return false;
  long long diff = as_int32(val - ref);
  if (diff < 0) diff = as_int32(-diff);
  unsigned long long numerator = 100ULL * static_cast<unsigned long long>(diff);
  unsigned long long denominator = static_cast<unsigned long long>(ref);
  return numerator / denominator > 10;
}

inline int compare(long long cb, long long cp, long long ce, const Dim& d) {
  if (d.prev_bpms == 0) return cb != 0 ? BETTER : SAME;
  if (significant(cb, d.prev_bpms)) return cb > d.prev_bpms ? BETTER : WORSE;
  if (d.prev_ppms == 0) return cp != 0 ? BETTER : SAME;
  if (significant(cp, d.prev_ppms)) return cp > d.prev_ppms ? BETTER : WORSE;
  if (d.prev_epms == 0) return SAME;
  if (significant(ce, d.prev_epms)) return ce < d.prev_epms ? BETTER : WORSE;
  return SAME;
}

// One step: returns 0 stepped, 1 too tired, 2 on edge.
inline int step(Dim& d) {
  if (d.tired == 10) return 1;
  if (d.tune_state == GOING_RIGHT) {
    if (d.profile_ix == 4) return 2;
    d.profile_ix += 1;
    d.steps_right = mod(d.steps_right + 1, 256);
  } else if (d.tune_state == GOING_LEFT) {
    if (d.profile_ix == 0) return 2;
    d.profile_ix -= 1;
    d.steps_left = mod(d.steps_left + 1, 256);
  }
  d.tired = mod(d.tired + 1, 256);
  return 0;
}

inline void park_on_top(Dim& d) {
  d.steps_right = d.steps_left = d.tired = 0;
  d.tune_state = PARKING_ON_TOP;
}

// Feeds one sample (raw counters of any width, time in ns). Returns true when a new profile
// must be applied. `now_ns` stamps a newly opened window.
inline bool feed(Dim& d, long long time_ns, long long events, long long pkts, long long bytes,
                 long long now_ns) {
  if (d.state == APPLY_NEW_PROFILE) return false;
  if (d.state == MEASURE_IN_PROGRESS) {
    long long nevents = mod(events - d.start_events, 65536);
    if (nevents < 64) return false;
    long long delta_us = mod((time_ns - d.start_time_ns) / 1000, 4294967296LL);
    if (delta_us == 0) return false;
    long long npkts = mod(pkts - d.start_pkts, 4294967296LL);
    long long nbytes = mod(bytes - d.start_bytes, 4294967296LL);
    long long ppms = as_int32(ceil_div(npkts * 1000, delta_us));
    long long bpms = as_int32(ceil_div(nbytes * 1000, delta_us));
    long long epms = as_int32(ceil_div(64 * 1000, delta_us));

    long long old_state = d.tune_state;
    long long old_ix = d.profile_ix;
    if (d.tune_state == PARKING_ON_TOP) {
      if (compare(bpms, ppms, epms, d) != SAME) {
        d.tune_state = d.profile_ix != 0 ? GOING_LEFT : GOING_RIGHT;
        step(d);
      }
    } else if (d.tune_state == PARKING_TIRED) {
      d.tired = mod(d.tired - 1, 256);
      if (d.tired == 0) {
        d.tune_state = d.profile_ix != 0 ? GOING_LEFT : GOING_RIGHT;
        step(d);
      }
    } else {
      if (compare(bpms, ppms, epms, d) != BETTER) {
        if (d.tune_state == GOING_RIGHT) {
          d.tune_state = GOING_LEFT;
          d.steps_left = 0;
        } else {
          d.tune_state = GOING_RIGHT;
          d.steps_right = 0;
        }
      }
      bool on_top = d.tune_state == GOING_RIGHT ? (d.steps_left > 1 && d.steps_right == 1)
                                                : (d.steps_right > 1 && d.steps_left == 1);
      if (on_top) {
        park_on_top(d);
      } else {
        int r = step(d);
        if (r == 2) park_on_top(d);
        if (r == 1) {
          d.steps_right = d.steps_left = 0;
          d.tune_state = PARKING_TIRED;
        }
      }
    }
    if (!(old_state == PARKING_ON_TOP && d.tune_state == PARKING_ON_TOP)) {
      d.prev_ppms = ppms;
      d.prev_bpms = bpms;
      d.prev_epms = epms;
    }
    if (d.profile_ix != old_ix) {
      d.state = APPLY_NEW_PROFILE;
      return true;
    }
  }
  d.start_time_ns = now_ns;
  d.start_pkts = mod(pkts, 4294967296LL);
  d.start_bytes = mod(bytes, 4294967296LL);
  d.start_events = mod(events, 65536);
  d.state = MEASURE_IN_PROGRESS;
  return false;
}

}  // namespace naive_dim
