// The simulator's random numbers: xoshiro256** seeded through splitmix64, and the few
// distributions the models need, written out so that a seed gives the same stream everywhere.
//
// std::mt19937_64 would be portable, but std::uniform_real_distribution and
// std::exponential_distribution are not: their algorithms are left to the library, and libstdc++
// and libc++ (and versions of each) differ. Here every step is specified:
//   - splitmix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number generators", 2014)
//     turns the scenario seed into the 256-bit state, as the xoshiro authors recommend;
//   - xoshiro256** 1.0 (Blackman and Vigna, "Scrambled linear pseudorandom number generators",
//     2018, prng.di.unimi.it);
//   - uniform doubles take the top 53 bits; integers below n use Lemire's multiply-and-reject;
//   - exponential samples are -mean * log(1 - u). The one libm call is std::log, which glibc
//     computes to within 1 ulp with the same result on every x86-64 and AArch64 build of one
//     glibc version; results are rounded to whole nanoseconds (or picoseconds) by the caller.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>

namespace irqmod::sim {

// splitmix64: a 64-bit state advanced by a Weyl constant and mixed. Used to seed Rng.
class SplitMix64 {
 public:
  explicit constexpr SplitMix64(std::uint64_t seed) : state_(seed) {}

  constexpr std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
    z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
    return z ^ (z >> 31);
  }

 private:
  std::uint64_t state_;
};

// xoshiro256**: the generator every model draws from. A scenario seed plus a stream number
// (one per component: traffic source 0, source 1, ...) gives independent, reproducible streams.
class Rng {
 public:
  // Stream `stream` of `seed`: splitmix64 seeded with seed ^ (stream x an odd constant), four
  // outputs as the state. Stream 0 is plain splitmix64(seed), the authors' recommended seeding.
  explicit constexpr Rng(std::uint64_t seed, std::uint64_t stream = 0) {
    SplitMix64 mix(seed ^ (stream * 0xd1b54a32d192ed03));
    for (std::uint64_t& word : s_)
      word = mix.next();
  }

  // The next 64 random bits.
  constexpr std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // Uniform in [0, 1): the top 53 bits, so every value is a multiple of 2^-53.
  constexpr double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  // Uniform integer in [0, n). Lemire, "Fast random integer generation in an interval" (2019):
  // the high word of a 128-bit product, rejecting the few low words that would bias it.
  // Precondition: n > 0.
  std::uint64_t below(std::uint64_t n) {
    __extension__ using U128 = unsigned __int128;
    U128 product = U128{next()} * n;
    auto low = static_cast<std::uint64_t>(product);
    if (low < n) {
      const std::uint64_t threshold = (0 - n) % n;
      while (low < threshold) {
        product = U128{next()} * n;
        low = static_cast<std::uint64_t>(product);
      }
    }
    return static_cast<std::uint64_t>(product >> 64);
  }

  // Exponentially distributed with the given mean (inverse transform). 1 - u is in (0, 1], so the
  // logarithm is finite; the largest sample is mean x 36.7 (u = 1 - 2^-53).
  double exponential(double mean) { return -mean * std::log(1.0 - uniform()); }

  const std::array<std::uint64_t, 4>& state() const { return s_; }

 private:
  static constexpr std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

  std::array<std::uint64_t, 4> s_{};
};

}  // namespace irqmod::sim
