// Static interrupt throttling: the minimum gap between two interrupts of one vector, and the
// register values real drivers program to get it.
//
// Each device family has its own register arithmetic, copied from the driver that programs it,
// with the driver file and macro next to every number. Encoders take interrupts per second or
// microseconds (ethtool's rx-usecs) and use the driver's own integer arithmetic, so they round
// the way the driver rounds (C integer division truncates). Each family's comment says which way
// that moves the interval. Inputs the driver would reject, or that the register cannot hold, are
// an Error naming the key ("rate" / "usecs") and the allowed range. The value is never
// clamped silently.
//
// Discrepancies between sources, checked against the code:
//  - 82598. Old Linux ixgbe (EITR_INTS_PER_SEC_TO_REG, ixgbe.h) writes 1000000000 / (rate * 256):
//    256 ns per register LSB. Seed 004's OpenBSD diff (if_ix.c rev 1.61, 2012) writes
//    (8000000 / rate) & 0xff8 for 82598, which is 125 ns per LSB. On a 256 ns counter that is
//    about twice the requested interval: 8000/s programs 1000 = 256 us, about 3906/s. OpenBSD
//    later dropped that branch and now writes (4000000 / rate) & 0xff8 for every MAC (if_ix.c
//    ixgbe_init). FreeBSD's ixgbe_configure_ivars went from 8000000 to 4000000 in the same way.
//    Modern Linux writes (usecs << 2) & IXGBE_MAX_EITR for 82598 as well, which is 250 ns per
//    LSB. This file uses the 256 ns encoding.
//  - 82599. Linux and the BSDs treat bits 11:3 as 2 us units. DPDK (ixgbe_ethdev.h,
//    IXGBE_EITR_INTERVAL_UNIT_NS) says 2048 ns at 1G/10G link, which is 8 x 256 ns. Old Linux
//    also wrote EITR_INTS_PER_SEC_TO_REG (256 ns per LSB) on 82599, so 8000/s gave 488 = 122 us
//    where OpenBSD gives 496 = 124 us. This file uses the drivers' 2 us reading.
//  - i40e. The usec-valued I40E_ITR_8K is 122 us, but ICE_ITR_8K is 124 us, and the older
//    register-valued I40E_ITR_8K was 0x3E = 62 x 2 us = 124 us. The older I40E_ITR_18K was 0x1B
//    = 54 us; the usec-valued one (still IAVF_ITR_18K in iavf_txrx.h) is 60 us. The older
//    I40E_MIN_INT_RATE 250 says "~= 1000000 / (I40E_MAX_ITR * 2)", but that is 122.5, not 250.
//    Linux commit 998e5166e604 ("i40e: initialize ITRN registers with correct values") fixed
//    initial ITRN writes that had left out the >> 1, which programmed 100 us for the 50 us
//    default.
//  - i40e rounds odd rx-usecs up (ITR_REG_ALIGN is __ALIGN_MASK); ice rejects them with "must
//    be even" and its ITR_REG_ALIGN masks, i.e. rounds down.
//  - e1000 under QEMU. hw/net/e1000.c raises any ITR below 500 (128 us, "7813 interrupts/sec")
//    to 500, so a guest asking for 20000/s gets 7813/s. Real hardware honours the register.
#pragma once

#include <array>
#include <cassert>
#include <cstdint>
#include <string_view>

#include "irqmod/error.hpp"
#include "irqmod/time.hpp"

namespace irqmod::itr {

// ---- ixgbe 82598 EITR: 256 ns units, bits 15:0 ---------------------------------------------

// Nanoseconds per register LSB: the divisor in EITR_INTS_PER_SEC_TO_REG (old Linux ixgbe.h),
// 1000000000 / (rate * 256).
inline constexpr std::int64_t kEitr82598UnitNs = 256;
// The interval field: "82598 EITR is 16 bits" (ixgbe_type.h comment above IXGBE_MAX_INT_RATE).
inline constexpr std::uint32_t kEitr82598IntervalMask = 0x0000FFFF;
// Highest rate old Linux ixgbe_set_coalesce accepts: IXGBE_MAX_INT_RATE (ixgbe_type.h). It
// encodes to 8 (IXGBE_MIN_EITR), about 2 us.
inline constexpr std::uint32_t kIxgbeMaxIntRate = 488281;
// Lowest rate it accepts: IXGBE_MIN_INT_RATE (ixgbe_type.h), encoding to 4086 <= IXGBE_MAX_EITR.
// 82598 could hold 16 bits but the limit is "based on the max supported by all ixgbe hardware".
inline constexpr std::uint32_t kIxgbeMinIntRate = 956;
// Seed 004's 2012 OpenBSD dividend for 82598, (8000000 / rate) & 0xff8. Kept to document the
// discrepancy only; no encoder here uses it.
inline constexpr std::uint32_t kOpenbsd2012Eitr82598Dividend = 8000000;

// EITR_INTS_PER_SEC_TO_REG(rate) from old Linux ixgbe.h, also the e1000/e1000e ITR arithmetic:
// 1000000000 / (rate * 256), truncated, so the interval is at most the requested period. rate 0
// maps to 8 as in the macro. Computed in 64 bits; for the accepted rates the kernel's `int`
// product does not overflow either.
constexpr std::uint32_t ints_per_sec_to_256ns(std::uint32_t rate) {
  if (rate == 0) return 8;
  return static_cast<std::uint32_t>(1000000000ULL / (static_cast<std::uint64_t>(rate) * 256U));
}

// The 32-bit word Linux ixgbe_write_eitr writes on 82598: the interval in both 16-bit halves,
// because the driver "must write high and low 16 bits to reset counter".
constexpr std::uint32_t eitr_82598_write_value(std::uint32_t interval_field) {
  const std::uint32_t low = interval_field & kEitr82598IntervalMask;
  return low | (low << 16);
}

// ---- ixgbe 82599 / X540 EITR: 2 us units, bits 11:3 ----------------------------------------

// The interval field, bits 11:3: IXGBE_EITR_ITR_INT_MASK == IXGBE_MAX_EITR (ixgbe_type.h).
inline constexpr std::uint32_t kIxgbeEitrIntervalMask = 0x00000FF8;
// Shift of the interval field ("82599 EITR is only 12 bits, with the lower 3 always zero").
inline constexpr unsigned kIxgbeEitrIntervalShift = 3;
// Nanoseconds per interval-field count: 2 us as Linux (usecs << 2) and the BSDs (500000 / usec
// in the sysctl handler) read it. DPDK says 2048 ns; see the note at the top of this file.
inline constexpr std::int64_t kEitr82599UnitNs = 2000;
// Smallest non-zero register value (IXGBE_MIN_EITR, ixgbe_type.h): one 2 us count.
inline constexpr std::uint32_t kIxgbeMinEitr = 8;
// Moderate low-latency interrupts with this vector's EITR (IXGBE_EITR_LLI_MOD, ixgbe_type.h).
// OpenBSD sets it with CNT_WDIS since seed 004. That is an LLI policy choice, so it is not in
// write_value.
inline constexpr std::uint32_t kIxgbeEitrLliMod = 0x00008000;
// "Set the WDIS bit to not clear the timer bits and cause an immediate assertion of the
// interrupt" on a rewrite (IXGBE_EITR_CNT_WDIS, ixgbe_type.h; Linux ixgbe_write_eitr).
inline constexpr std::uint32_t kIxgbeEitrCntWdis = 0x80000000;
// OpenBSD's rate dividend: itr = (4000000 / IXGBE_INTS_PER_SEC) & 0xff8 (if_ix.c ixgbe_init;
// also FreeBSD ixgbe_configure_ivars). 4000000 / rate is 8x the period in 2 us counts.
inline constexpr std::uint32_t kOpenbsdEitrDividend = 4000000;
// OpenBSD's only rate, IXGBE_INTS_PER_SEC (if_ix.h, seed 004): encodes to 496 = 0x1F0.
inline constexpr std::uint32_t kOpenbsdIntsPerSec = 8000;
// Highest rx-usecs Linux ixgbe_set_coalesce accepts: IXGBE_MAX_EITR >> 2 (else -EINVAL).
inline constexpr std::uint32_t kIxgbeMaxEitrUsecs = kIxgbeEitrIntervalMask >> 2;
// Highest rate the OpenBSD formula can encode: 4000000 / 500000 = 8, one count. Above it the
// field is 0 (throttling off). FreeBSD's sysctl treats >= 500000 as "no limitation".
inline constexpr std::uint32_t kEitr82599MaxRate = kOpenbsdEitrDividend / kIxgbeMinEitr;
// Lowest rate the formula can encode without the quotient overflowing the 12-bit field, which
// `& 0xff8` would wrap (976 gives 4098 & 0xff8 = 0). FreeBSD's sysctl raises rates below 1000 to
// 1000; OpenBSD never meets the case. Here it is an Error.
inline constexpr std::uint32_t kEitr82599MinRate = 977;
static_assert(kOpenbsdEitrDividend / kEitr82599MinRate <= 0xFFF);
static_assert(kOpenbsdEitrDividend / (kEitr82599MinRate - 1) > 0xFFF);

// OpenBSD / FreeBSD encoder: (4000000 / rate) & 0xff8. Both steps truncate, so the interval is
// at most the requested period (the rate rounds up). Rate 0 gives 0, throttling off, as the
// drivers write when no rate is set.
constexpr std::uint32_t eitr_82599_from_rate_openbsd(std::uint32_t rate) {
  if (rate == 0) return 0;
  return (kOpenbsdEitrDividend / rate) & kIxgbeEitrIntervalMask;
}

// Linux encoder: ixgbe_set_coalesce stores rx-usecs << 2 and ixgbe_write_eitr masks it with
// IXGBE_MAX_EITR. The mask drops usecs' low bit, so odd microseconds round down to even.
constexpr std::uint32_t eitr_82599_from_usecs_linux(std::uint32_t usecs) {
  return (usecs << 2) & kIxgbeEitrIntervalMask;
}

// ---- i40e PFINT_ITRN and ice GLINT_ITR: 2 us units, bits 11:0 ------------------------------

// Nanoseconds per register count: "reg uses 2 usec resolution" (I40E_MIN_ITR, i40e_txrx.h);
// "ITR granularity is always 2us" (ICE_ITR_GRAN_S = 1, ice_txrx.h).
inline constexpr std::int64_t kItr2usUnitNs = 2000;
// The 12-bit INTERVAL field of ITRN / GLINT_ITR (PF_GLINT_ITR_INTERVAL_M = GENMASK(11, 0) in the
// same-generation idpf_lan_pf_regs.h). The drivers stop at 0xFF0, "the maximum value for the
// ITR ... as per datasheet" (iavf_txrx.h comment).
inline constexpr std::uint32_t kItrIntervalMask = 0x00000FFF;
// Settings in microseconds are kept even: I40E_ITR_MASK / ICE_ITR_MASK "mask for ITR register
// value".
inline constexpr std::uint32_t kItrUsecsMask = 0x1FFE;

// I40E_MIN_ITR (i40e_txrx.h): the smallest non-zero interval, 2 us.
inline constexpr std::uint32_t kI40eMinItrUsecs = 2;
// I40E_MAX_ITR (i40e_txrx.h): 8160 us = 0xFF0 counts. i40e ethtool: "rx-usecs range is 0-8160".
inline constexpr std::uint32_t kI40eMaxItrUsecs = 8160;
// I40E_ITR_20K (i40e_txrx.h): 50 us, the default Rx/Tx setting; seed 000's software-interrupt
// rate limit.
inline constexpr std::uint32_t kI40eItr20kUsecs = 50;
// I40E_ITR_18K (i40e_txrx.h in the usec-valued era, still IAVF_ITR_18K): 60 us, 16667/s.
inline constexpr std::uint32_t kI40eItr18kUsecs = 60;
// I40E_ITR_8K (i40e_txrx.h): 122 us, 8197/s.
inline constexpr std::uint32_t kI40eItr8kUsecs = 122;
// ICE_ITR_MAX (ice_txrx.h): 8160 us, "0x1FE0".
inline constexpr std::uint32_t kIceItrMaxUsecs = 8160;
// ICE_ITR_20K (ice_txrx.h): 50 us, ICE_DFLT_RX_ITR / ICE_DFLT_TX_ITR.
inline constexpr std::uint32_t kIceItr20kUsecs = 50;
// ICE_ITR_8K (ice_txrx.h): 124 us, 8065/s. Not the same as I40E_ITR_8K.
inline constexpr std::uint32_t kIceItr8kUsecs = 124;
// Highest rate for the 2 us families: I40E_MAX_INT_RATE "== 1000000 / (I40E_MIN_ITR * 2)" (older
// i40e_txrx.h). Faster rates give 1 us, register 0, throttling off.
inline constexpr std::uint32_t kItr2usMaxRate = 500000;
// Lowest rate whose 1000000 / rate still fits I40E_MAX_ITR / ICE_ITR_MAX (122 gives 8196 us).
inline constexpr std::uint32_t kItr2usMinRate = 123;
static_assert(1000000 / kItr2usMinRate <= kI40eMaxItrUsecs);
static_assert(1000000 / (kItr2usMinRate - 1) > kI40eMaxItrUsecs);

// i40e ITR_REG_ALIGN: __ALIGN_MASK(usecs, ~I40E_ITR_MASK) = (usecs + ~0x1FFE) & 0x1FFE, i.e.
// odd values round UP to the next even microsecond (51 -> 52). The register write then shifts
// right by one (i40e_vsi_configure_msix `target_itr >> 1`, i40e_buildreg_itr `interval >>= 1`).
constexpr std::uint32_t i40e_itr_reg_align(std::uint32_t usecs) {
  return (usecs + ~kItrUsecsMask) & kItrUsecsMask;
}

// ice ITR_REG_ALIGN: usecs & ICE_ITR_MASK, so odd values round DOWN. __ice_write_itr then
// writes ITR_REG_ALIGN(itr) >> ICE_ITR_GRAN_S.
constexpr std::uint32_t ice_itr_reg_align(std::uint32_t usecs) {
  return usecs & kItrUsecsMask;
}

// ---- e1000 / e1000e ITR (and 82574 EITR): 256 ns units, bits 15:0 --------------------------

// Nanoseconds per register LSB: both drivers write 1000000000 / (itr * 256) (e1000_main.c
// e1000_configure_rx, e1000e netdev.c e1000e_write_itr).
inline constexpr std::int64_t kE1000ItrUnitNs = 256;
// The 16-bit INTERVAL field; the largest accepted setting (100/s) encodes to 39062 < 0x10000.
inline constexpr std::uint32_t kE1000ItrIntervalMask = 0x0000FFFF;
// InterruptThrottleRate limits MIN_ITR / MAX_ITR (e1000_param.c, e1000e param.c): "Valid
// Range: 100-100000". An out-of-range value is replaced by DEFAULT_ITR 3 (dynamic conservative).
inline constexpr std::uint32_t kE1000MinItrRate = 100;
inline constexpr std::uint32_t kE1000MaxItrRate = 100000;
// E1000_MIN_ITR_USECS / E1000_MAX_ITR_USECS (e1000.h, e1000e e1000.h): rx-usecs 10..10000; 0..4
// select driver modes (off, dynamic, ...) and are not intervals.
inline constexpr std::uint32_t kE1000MinItrUsecs = 10;
inline constexpr std::uint32_t kE1000MaxItrUsecs = 10000;

// ---- device table --------------------------------------------------------------------------

// The register arithmetic a device uses.
enum class Family : std::uint8_t {
  ixgbe_82598,  // EITR, 256 ns counts in bits 15:0, written into both halves
  ixgbe_82599,  // EITR, 2 us counts in bits 11:3 (82599 and X540)
  i40e,         // PFINT_ITRN, 2 us counts in bits 11:0, odd usecs round up
  ice,          // GLINT_ITR, 2 us counts in bits 11:0, odd usecs rejected
  e1000,        // ITR / 82574 EITR, 256 ns counts in bits 15:0 (e1000 and e1000e)
};

// An inclusive range of accepted inputs.
struct Range {
  std::uint32_t min = 0;  // smallest accepted value
  std::uint32_t max = 0;  // largest accepted value
  constexpr bool contains(std::uint32_t v) const { return v >= min && v <= max; }
};

// One row per device name.
struct Device {
  std::string_view name;        // lookup name, lower case
  Family family;                // register arithmetic
  Range rate;                   // interrupts per second encode_rate accepts
  Range usecs;                  // microseconds encode_usecs accepts
  std::string_view rate_rule;   // the arithmetic encode_rate follows, with its source
  std::string_view usecs_rule;  // the arithmetic encode_usecs follows, with its source
};

// Every device. Rates for the usecs-driven families go through usecs = 1000000 / rate
// (truncating, the inverse ixgbe and e1000 use), then the driver's usecs arithmetic.
inline constexpr std::array<Device, 7> kDevices = {{
    // Old Linux ixgbe_set_coalesce: rates 956..488281, rx-usecs via rate = 1000000 / usecs, so
    // 3..1046 us land inside that range.
    {"82598",
     Family::ixgbe_82598,
     {kIxgbeMinIntRate, kIxgbeMaxIntRate},
     {3, 1046},
     "1000000000 / (rate * 256), Linux EITR_INTS_PER_SEC_TO_REG",
     "1000000000 / ((1000000 / usecs) * 256), old Linux ixgbe_set_coalesce"},
    // OpenBSD rate encoder and Linux usecs encoder; rx-usecs 0 or 2..IXGBE_MAX_EITR >> 2.
    // 0 is ethtool's "throttling off": ixgbe_set_coalesce (ixgbe_ethtool.c) keeps rx-usecs 0 and
    // 1 as they are (rx_itr_setting = usecs > 1 ? usecs << 2 : usecs), EITR 0 is no interval;
    // 1 selects the driver's dynamic ITR, not an interval, and is refused here.
    {"82599",
     Family::ixgbe_82599,
     {kEitr82599MinRate, kEitr82599MaxRate},
     {0, kIxgbeMaxEitrUsecs},
     "(4000000 / rate) & 0xFF8, OpenBSD if_ix.c",
     "(usecs << 2) & 0xFF8, Linux ixgbe_write_eitr"},
    // X540 shares 82599's EITR layout (ixgbe_write_eitr handles both in one case).
    {"x540",
     Family::ixgbe_82599,
     {kEitr82599MinRate, kEitr82599MaxRate},
     {0, kIxgbeMaxEitrUsecs},
     "(4000000 / rate) & 0xFF8, OpenBSD if_ix.c",
     "(usecs << 2) & 0xFF8, Linux ixgbe_write_eitr"},
    // i40e accepts rx-usecs 0 to I40E_MAX_ITR ("rx-usecs range is 0-8160", i40e_ethtool.c
    // i40e_set_itr_per_queue; 0 = ITR 0, no throttling, "need to disable adaptive-rx for a
    // complete disable"); 1 rounds up to 2 us via ITR_REG_ALIGN.
    {"i40e",
     Family::i40e,
     {kItr2usMinRate, kItr2usMaxRate},
     {0, kI40eMaxItrUsecs},
     "usecs = 1000000 / rate, then the i40e usecs rule",
     "ITR_REG_ALIGN(usecs) >> 1 (odd usecs round up), Linux i40e"},
    // ice accepts even rx-usecs 0 to ICE_ITR_MAX (ice_ethtool.c ice_set_rc_coalesce: above
    // ICE_ITR_MAX or odd is -EINVAL); 0 = GLINT_ITR 0, no throttling.
    {"ice",
     Family::ice,
     {kItr2usMinRate, kItr2usMaxRate},
     {0, kIceItrMaxUsecs},
     "usecs = 1000000 / rate, then (usecs & 0x1FFE) >> 1, Linux __ice_write_itr",
     "usecs >> 1 for even usecs, Linux ice_set_rc_coalesce"},
    // InterruptThrottleRate 100..100000; rx-usecs 10..10000.
    {"e1000",
     Family::e1000,
     {kE1000MinItrRate, kE1000MaxItrRate},
     {kE1000MinItrUsecs, kE1000MaxItrUsecs},
     "1000000000 / (rate * 256), Linux e1000",
     "1000000000 / ((1000000 / usecs) * 256), Linux e1000_set_coalesce"},
    {"e1000e",
     Family::e1000,
     {kE1000MinItrRate, kE1000MaxItrRate},
     {kE1000MinItrUsecs, kE1000MaxItrUsecs},
     "1000000000 / (rate * 256), Linux e1000e_write_itr",
     "1000000000 / ((1000000 / usecs) * 256), Linux e1000_set_coalesce"},
}};

// The device called `name` (ASCII case-insensitive). An unknown name is an Error with key
// "device" whose message lists every allowed name.
Expected<Device> find_device(std::string_view name);

// ---- encodings -----------------------------------------------------------------------------

// A throttle setting as the hardware holds it.
struct Encoding {
  std::string_view device;           // Device::name it was encoded for
  std::uint32_t register_value = 0;  // interval field in place, without flags or mirror
  std::uint32_t write_value = 0;     // the 32-bit word the driver writes: 82598 mirrors the
                                     // field into bits 31:16, 82599/X540 add IXGBE_EITR_CNT_WDIS
                                     // (Linux ixgbe_write_eitr); others equal register_value
  Duration interval{};               // minimum gap between interrupts the register enforces
  double effective_rate = 0.0;       // interrupts per second, 1 s / interval; 0 when the
                                     // interval is 0 (throttling off, no finite limit)
  friend constexpr bool operator==(const Encoding&, const Encoding&) = default;
};

// Nanoseconds per count of the interval field, after its shift.
constexpr std::int64_t unit_ns(Family family) {
  switch (family) {
    case Family::ixgbe_82598:
      return kEitr82598UnitNs;
    case Family::ixgbe_82599:
      return kEitr82599UnitNs;
    case Family::i40e:
    case Family::ice:
      return kItr2usUnitNs;
    case Family::e1000:
      return kE1000ItrUnitNs;
  }
  return 0;
}

// Reads a register back. Flag bits and 82598's mirrored upper half are ignored, so either
// register_value or write_value may be passed. Never fails: every field value is an interval.
constexpr Encoding decode(const Device& device, std::uint32_t value) {
  Encoding e;
  e.device = device.name;
  std::int64_t counts = 0;
  switch (device.family) {
    case Family::ixgbe_82598:
      e.register_value = value & kEitr82598IntervalMask;
      e.write_value = eitr_82598_write_value(e.register_value);
      counts = e.register_value;
      break;
    case Family::ixgbe_82599:
      e.register_value = value & kIxgbeEitrIntervalMask;
      e.write_value = e.register_value | kIxgbeEitrCntWdis;
      counts = e.register_value >> kIxgbeEitrIntervalShift;
      break;
    case Family::i40e:
    case Family::ice:
      e.register_value = value & kItrIntervalMask;
      e.write_value = e.register_value;
      counts = e.register_value;
      break;
    case Family::e1000:
      e.register_value = value & kE1000ItrIntervalMask;
      e.write_value = e.register_value;
      counts = e.register_value;
      break;
  }
  e.interval = Duration{counts * unit_ns(device.family)};
  e.effective_rate = counts == 0 ? 0.0 : 1e9 / static_cast<double>(e.interval.count());
  return e;
}

// Whether encode_usecs accepts `usecs`: in range, even on ice ("rx-usecs must be even"), and
// not ixgbe's 1 (dynamic ITR, not an interval).
constexpr bool usecs_allowed(const Device& device, std::uint32_t usecs) {
  if (!device.usecs.contains(usecs)) return false;
  if (device.family == Family::ixgbe_82599 && usecs == 1) return false;
  return device.family != Family::ice || usecs % 2 == 0;
}

// The register value for `rate` interrupts per second, by the device's rate rule
// (Device::rate_rule). Precondition: device.rate.contains(rate); a rate of 0 still returns 0
// (throttling off) rather than dividing by zero.
constexpr std::uint32_t register_from_rate(const Device& device, std::uint32_t rate) {
  assert(device.rate.contains(rate) && "validate with encode_rate");
  if (rate == 0) return 0;
  switch (device.family) {
    case Family::ixgbe_82598:
    case Family::e1000:
      return ints_per_sec_to_256ns(rate);
    case Family::ixgbe_82599:
      return eitr_82599_from_rate_openbsd(rate);
    case Family::i40e:
      return i40e_itr_reg_align(1000000 / rate) >> 1;
    case Family::ice:
      return ice_itr_reg_align(1000000 / rate) >> 1;
  }
  return 0;
}

// The register value for an interval of `usecs` microseconds, by the device's usecs rule
// (Device::usecs_rule). Precondition: usecs_allowed(device, usecs); 0 still returns 0
// (throttling off) rather than dividing by zero.
constexpr std::uint32_t register_from_usecs(const Device& device, std::uint32_t usecs) {
  assert(usecs_allowed(device, usecs) && "validate with encode_usecs");
  if (usecs == 0) return 0;
  switch (device.family) {
    case Family::ixgbe_82598:
    case Family::e1000:
      return ints_per_sec_to_256ns(1000000 / usecs);
    case Family::ixgbe_82599:
      return eitr_82599_from_usecs_linux(usecs);
    case Family::i40e:
      return i40e_itr_reg_align(usecs) >> 1;
    case Family::ice:
      return ice_itr_reg_align(usecs) >> 1;
  }
  return 0;
}

// Encodes a rate in interrupts per second. Errors (key "rate"): 0, or outside device.rate.
Expected<Encoding> encode_rate(const Device& device, std::uint32_t rate);
Expected<Encoding> encode_rate(std::string_view device, std::uint32_t rate);

// Encodes an interval in microseconds, as ethtool's rx-usecs. Errors (key "usecs"): outside
// device.usecs, or odd on ice.
Expected<Encoding> encode_usecs(const Device& device, std::uint32_t usecs);
Expected<Encoding> encode_usecs(std::string_view device, std::uint32_t usecs);

// Encodes a Duration, dropping any sub-microsecond part as an integer rx-usecs would, then as
// encode_usecs. A negative interval is an Error with key "usecs".
Expected<Encoding> encode_interval(const Device& device, Duration interval);

// ---- run-time throttle ---------------------------------------------------------------------

// The EITR rule for one vector: after an interrupt, the next one may not fire for `interval`.
// An event arriving sooner stays pending until next_allowed(). The caller passes the time;
// nothing here reads a clock or allocates.
class Throttle {
 public:
  // A vector that has not fired yet and may fire at once. Interval 0 means no throttling.
  constexpr explicit Throttle(Duration interval) : interval_(interval) {
    assert(interval >= Duration::zero() && "an interval is never negative");
  }
  constexpr explicit Throttle(const Encoding& encoding) : Throttle(encoding.interval) {}

  // True when an interrupt may be raised at `now`.
  constexpr bool may_fire(Instant now) const { return now >= next_allowed_; }

  // The earliest instant the next interrupt may fire. Instant::min() before the first one.
  constexpr Instant next_allowed() const { return next_allowed_; }

  // An interrupt fired at `now`; the gap restarts. This is also how to record an interrupt that
  // bypassed moderation, such as an unmoderated LLI: the hardware counter restarts on it too.
  constexpr void fired(Instant now) {
    assert(now >= last_fired_ && "time never runs backwards");
    last_fired_ = now;
    next_allowed_ = now + interval_;
  }

  // A new register value. With IXGBE_EITR_CNT_WDIS the running count is kept, so the new gap is
  // measured from the last interrupt.
  constexpr void set_interval(Duration interval) {
    assert(interval >= Duration::zero() && "an interval is never negative");
    interval_ = interval;
    if (last_fired_ != Instant::min()) next_allowed_ = last_fired_ + interval_;
  }

  constexpr Duration interval() const { return interval_; }

 private:
  Duration interval_;                      // minimum gap between interrupts
  Instant last_fired_ = Instant::min();    // last interrupt; min() until the first
  Instant next_allowed_ = Instant::min();  // last_fired_ + interval_, or min() if none yet
};

}  // namespace irqmod::itr
