// Posted MSI: every device MSI of a CPU is posted into one per-CPU bitmap, and one notification
// interrupt demultiplexes them (seed 003; Linux 6.10+, CONFIG_X86_POSTED_MSI).
//
// The kernel's pieces and what stands for them here:
//   struct pi_desc (arch/x86/include/asm/posted_intr.h): a 256-bit posted-interrupt request
//     bitmap (PIR, NR_PIR_WORDS = 4 words of 64 bits) and the control word whose bit 0
//     (POSTED_INTR_ON) is the outstanding-notification bit       -> PostedMsiDescriptor
//   the IOMMU posting an MSI: set the vector's PIR bit; if ON was clear, set ON and send the
//     notification vector to the CPU; otherwise send nothing      -> post()
//   sysvec_posted_msi_notification (arch/x86/kernel/irq.c), i = 0:
//       while (++i < MAX_POSTED_MSI_COALESCING_LOOP)
//           if (!handle_pending_pir(pir)) break;                  -> demux_pass()
//       pi_clear_on(pid);                                          -> clear_outstanding()
//       handle_pending_pir(pir);                                   -> final_pass()
//       apic_eoi();                                                -> eoi()
//   handle_pending_pir: read the four PIR words, xchg each non-zero one with 0, then call the
//     handler of every vector taken, lowest first                -> a PassResult
//
// The kernel loop runs at most MAX_POSTED_MSI_COALESCING_LOOP - 1 = 2 passes with ON set; the
// final pass after clearing ON is the third ("Max coalescing count includes the extra round of
// handle_pending_pir after clearing the outstanding notification bit"). The earlier postings of
// the series (the RFC and v1 of Jan 2024, the one seed 003 measured) ran `while (i++ < MAX)`: up to
// three passes before clearing ON, four scans in all; max_coalescing_loop = 4 models those.
//
// Atomicity. In the kernel the IOMMU posts with an atomic swap of the whole descriptor cache line
// (the comment above handle_pending_pir), so "set PIR bit + test-and-set ON" is one atomic step;
// the CPU takes each PIR word with one `lock xchg` and clears ON with one atomic clear_bit.
// Between those steps device posts interleave freely. This model is single-threaded: each member
// function below is one of those atomic steps, and the host (simulator, test) interleaves post()
// calls between them to model MSIs arriving while the handler runs. A pass's read-then-xchg of
// the four words is modelled as one step: a bit posted into a word the pass read as zero stays
// for the next pass in the kernel, which is what taking the words "before" that post gives too.
//
// Like every policy: no clock, no allocation, no logging, no virtual call, no exception.
#pragma once

#include <array>
#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string_view>

#include "irqmod/error.hpp"

namespace irqmod::posted_msi {

// Vectors a PIR can hold (NR_PIR_VECTORS in posted_intr.h, = NR_VECTORS in irq_vectors.h).
inline constexpr unsigned kNumVectors = 256;
// Bits per PIR word: the kernel's pir[] is `unsigned long`, 64 bits on x86-64.
inline constexpr unsigned kBitsPerWord = 64;
// PIR words (NR_PIR_WORDS = NR_PIR_VECTORS / BITS_PER_LONG in posted_intr.h).
inline constexpr std::size_t kPirWords = kNumVectors / kBitsPerWord;
// Vectors 0-31 are exceptions; device vectors start here (FIRST_EXTERNAL_VECTOR, irq_vectors.h).
inline constexpr unsigned kFirstExternalVector = 0x20;
// The notification vector all posted MSIs share (POSTED_MSI_NOTIFICATION_VECTOR, irq_vectors.h).
inline constexpr unsigned kNotificationVector = 0xeb;
// First system vector: with a local APIC it is POSTED_MSI_NOTIFICATION_VECTOR (irq_vectors.h).
// handle_pending_pir only dispatches vectors below it, so a device vector must be below it too.
inline constexpr unsigned kFirstSystemVector = kNotificationVector;
// MAX_POSTED_MSI_COALESCING_LOOP in arch/x86/kernel/irq.c: PIR scans per notification, final
// pass included. "Performance data shows that 3 is good enough to harvest 90+% of the benefit on
// high IRQ rate workload."
inline constexpr std::uint8_t kMaxCoalescingLoop = 3;

// True for a vector a device MSI may be posted on: [FIRST_EXTERNAL_VECTOR, FIRST_SYSTEM_VECTOR).
constexpr bool is_device_vector(unsigned vector) {
  return vector >= kFirstExternalVector && vector < kFirstSystemVector;
}

// Validates a device vector at the configuration edge (scenario file, command line); `key` names
// the setting in the Error. post() only asserts, so a host validates its vectors here once.
Expected<std::uint8_t> device_vector(std::int64_t value, std::string_view key);

// Validates a MAX_POSTED_MSI_COALESCING_LOOP override: 1 (clear ON at once, then one pass) to
// 255; the kernel's value is kMaxCoalescingLoop.
Expected<std::uint8_t> max_coalescing_loop(std::int64_t value, std::string_view key);

// A set of vectors laid out like the PIR: bit (v % 64) of word (v / 64). Fixed size, no
// allocation; iterates set vectors in ascending order, the order handle_pending_pir calls them.
class VectorSet {
 public:
  class Iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = std::uint8_t;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = std::uint8_t;

    constexpr Iterator() = default;
    constexpr std::uint8_t operator*() const {
      return static_cast<std::uint8_t>(word_ * kBitsPerWord +
                                       static_cast<unsigned>(std::countr_zero(rest_)));
    }
    constexpr Iterator& operator++() {
      rest_ &= rest_ - 1;  // drop the lowest set bit
      skip_empty_words();
      return *this;
    }
    constexpr Iterator operator++(int) {
      Iterator old = *this;
      ++*this;
      return old;
    }
    friend constexpr bool operator==(const Iterator&, const Iterator&) = default;

   private:
    friend class VectorSet;
    constexpr Iterator(const std::array<std::uint64_t, kPirWords>* words, std::size_t word)
        : words_(words), word_(word), rest_(word < kPirWords ? (*words)[word] : 0) {
      skip_empty_words();
    }
    constexpr void skip_empty_words() {
      while (rest_ == 0 && word_ < kPirWords) {
        ++word_;
        rest_ = word_ < kPirWords ? (*words_)[word_] : 0;
      }
    }

    const std::array<std::uint64_t, kPirWords>* words_ = nullptr;
    std::size_t word_ = kPirWords;  // word being walked; kPirWords at the end
    std::uint64_t rest_ = 0;        // bits of that word not yet visited
  };

  constexpr VectorSet() = default;

  constexpr bool contains(std::uint8_t vector) const {
    return (words_[vector / kBitsPerWord] >> (vector % kBitsPerWord)) & 1U;
  }
  // Sets the vector's bit; returns whether it was already set (the kernel's test_and_set_bit).
  constexpr bool test_and_set(std::uint8_t vector) {
    const std::uint64_t mask = std::uint64_t{1} << (vector % kBitsPerWord);
    std::uint64_t& word = words_[vector / kBitsPerWord];
    const bool was_set = (word & mask) != 0;
    word |= mask;
    return was_set;
  }
  constexpr unsigned count() const {
    unsigned n = 0;
    for (const std::uint64_t w : words_)
      n += static_cast<unsigned>(std::popcount(w));
    return n;
  }
  constexpr bool empty() const {
    std::uint64_t any = 0;
    for (const std::uint64_t w : words_)
      any |= w;
    return any == 0;
  }
  // Word `i` as the kernel's pir[i] would hold it.
  constexpr std::uint64_t word(std::size_t i) const { return words_[i]; }

  constexpr Iterator begin() const { return Iterator(&words_, 0); }
  constexpr Iterator end() const { return Iterator(&words_, kPirWords); }

  friend constexpr bool operator==(const VectorSet&, const VectorSet&) = default;

 private:
  friend class PostedMsiDescriptor;
  std::array<std::uint64_t, kPirWords> words_{};
};

// Where the notification handler is. Member functions of PostedMsiDescriptor name the phase
// they need; calling one in another phase is a programming error (assert).
enum class Phase : std::uint8_t {
  idle,        // no handler running; a notification may be pending (sent, not yet handled)
  demux_loop,  // handler entered, ON set: demux_pass() next; posts are coalesced
  loop_done,   // the loop ended (an empty pass or the pass limit), ON still set: clear next
  on_cleared,  // ON cleared, final_pass() next: a post now notifies and is also taken below
  final_done,  // final pass taken, ON clear: eoi() next; a post now sends a fresh notification
};

// One PIR scan (handle_pending_pir): the vectors whose handlers the host now runs.
struct PassResult {
  VectorSet vectors{};  // taken from the PIR, one handler call each, ascending
  bool final = false;   // the scan made after ON was cleared
};

// Monotonic event counts since construction. Conservation (see is_conserved()):
//   posted == notifications + coalesced
//   posted == delivered + merged + (bits still pending in the PIR)
struct Counters {
  std::uint64_t posted = 0;         // device MSIs posted (post() calls)
  std::uint64_t notifications = 0;  // notification interrupts sent: posts that found ON clear
  std::uint64_t coalesced = 0;      // posts that found ON set and sent nothing
  std::uint64_t merged = 0;         // posts whose vector bit was already pending: one delivery
                                    // covers both (orthogonal to coalesced)
  std::uint64_t handler_runs = 0;   // notifications handled (begin_notification() calls)
  std::uint64_t passes = 0;         // PIR scans, final passes included
  std::uint64_t empty_passes = 0;   // PIR scans that found nothing
  std::uint64_t delivered = 0;      // vector handler calls (bits taken from the PIR)
  std::uint64_t eois = 0;           // APIC EOIs (one per handler run)
  std::uint64_t empty_runs = 0;     // handler runs that delivered nothing: the MSI that sent
                                    // the notification was taken by the previous run's final
                                    // pass (posted between pi_clear_on and that pass)
};

// One CPU's posted-interrupt descriptor plus the state of its notification handler.
//
// Host protocol, per notification (post() may be called between any two steps):
//   if post(v) returned true, a notification is pending; when the CPU takes it:
//   begin_notification();
//   while (phase() == Phase::demux_loop) run handlers of demux_pass().vectors;
//   clear_outstanding(); run handlers of final_pass().vectors;   // or finish()
//   eoi();
// handle_notification() below runs exactly that sequence with a callback per pass.
class PostedMsiDescriptor {
 public:
  // `max_coalescing_loop`: PIR scans per notification, final pass included (>= 1).
  explicit PostedMsiDescriptor(std::uint8_t max_coalescing_loop = kMaxCoalescingLoop)
      : max_loop_passes_(static_cast<std::uint8_t>(max_coalescing_loop - 1)) {
    assert(max_coalescing_loop >= 1 && "MAX_POSTED_MSI_COALESCING_LOOP must be at least 1");
  }

  // A device MSI on `vector` arrives at the IOMMU: the vector's PIR bit is set, and if ON was
  // clear ON is set and true is returned: a notification interrupt must be delivered to the CPU.
  // Otherwise the MSI is coalesced into the notification already outstanding. One atomic step.
  // Precondition: is_device_vector(vector) (validate with device_vector() at the edge).
  bool post(std::uint8_t vector) {
    assert(is_device_vector(vector) && "device MSIs use vectors 0x20..0xea");
    ++counters_.posted;
    if (pir_.test_and_set(vector)) {
      ++counters_.merged;
    } else {
      ++pending_;
    }
    if (on_) {
      ++counters_.coalesced;
      return false;
    }
    on_ = true;
    ++counters_.notifications;
    return true;
  }

  // The CPU enters sysvec_posted_msi_notification. Needs Phase::idle and a pending notification.
  void begin_notification();
  // One pass of the coalescing loop. Needs Phase::demux_loop. Afterwards the phase stays
  // demux_loop unless the pass was empty or the loop limit is reached (then loop_done).
  PassResult demux_pass();
  // pi_clear_on(): from here on a post notifies again. Needs Phase::loop_done.
  void clear_outstanding();
  // The scan after clearing ON, catching MSIs posted since the last loop pass (they sent no
  // notification because ON was still set). Needs Phase::on_cleared.
  PassResult final_pass();
  // clear_outstanding() then final_pass(), with no post in between.
  PassResult finish() {
    clear_outstanding();
    return final_pass();
  }
  // apic_eoi(): the handler is done and the CPU may take the next notification.
  void eoi();

  Phase phase() const { return phase_; }
  // The ON bit.
  bool outstanding() const { return on_; }
  // A notification was sent that no handler run has begun yet (at most one: ON stays set until
  // the handler clears it, and the handler clears it once per run).
  bool notification_pending() const { return counters_.notifications > counters_.handler_runs; }
  // Vectors posted and not yet taken.
  const VectorSet& pir() const { return pir_; }
  const Counters& counters() const { return counters_; }
  // Coalescing-loop passes made by the current (or last) handler run, final pass excluded.
  std::uint8_t loop_passes() const { return loop_passes_; }

  // Nothing lost, nothing invented: the two conservation equations of Counters hold.
  bool is_conserved() const {
    return counters_.posted == counters_.notifications + counters_.coalesced &&
           counters_.posted == counters_.delivered + counters_.merged + pir_.count();
  }

 private:
  // handle_pending_pir(): take every pending bit.
  PassResult take_pending(bool final);

  VectorSet pir_{};
  unsigned pending_ = 0;  // bits set in pir_, kept so that a pass needs no popcount
  bool on_ = false;
  Phase phase_ = Phase::idle;
  std::uint8_t max_loop_passes_;  // MAX_POSTED_MSI_COALESCING_LOOP - 1
  std::uint8_t loop_passes_ = 0;
  std::uint64_t delivered_this_run_ = 0;
  Counters counters_{};
};

// Runs one whole notification as sysvec_posted_msi_notification does, calling
// `on_pass(const PassResult&)` after every PIR scan (empty ones included). The callback is where
// the host runs the vectors' handlers, and it may post() to model MSIs that arrive meanwhile.
template <typename OnPass>
void handle_notification(PostedMsiDescriptor& descriptor, OnPass&& on_pass) {
  descriptor.begin_notification();
  while (descriptor.phase() == Phase::demux_loop)
    on_pass(descriptor.demux_pass());
  on_pass(descriptor.finish());
  descriptor.eoi();
}

std::string_view to_string(Phase phase);

}  // namespace irqmod::posted_msi
