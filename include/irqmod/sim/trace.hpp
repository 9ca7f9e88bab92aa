// The timeline: a streaming writer of Chrome's trace-event JSON ("JSON Object Format" of the
// Trace Event Format document), which Perfetto's UI and chrome://tracing open.
//
// Layout: {"displayTimeUnit":"ns","traceEvents":[ ... ]}. Timestamps ("ts", "dur") are in
// microseconds as the format requires, written with three decimals so nanoseconds survive.
// Processes and threads are small integers the caller chooses (a process per machine, a thread
// per core or queue) and names with process_name() / thread_name() (metadata events, "ph":"M").
//
// The window [start, end] keeps the file small for long runs: events outside it are left out and
// slices that straddle an edge are clipped to it. Begin/end pairs are matched per (pid, tid): an
// end whose begin fell before the window gets a begin at the window's start, a begin whose end
// falls after it an end at the window's end, and close() ends whatever is still open, so the
// file always holds balanced slices and is valid JSON once closed (the destructor closes).
//
// Detail: by default a frame is not an event. A line-rate 10 GbE queue writes back 14.88 M
// frames a second, and one instant each made a 1 s trace of stream-10g-dim 131 MB, 92 % of it
// those instants (measured, 2026-11-30). The default (`polls`) keeps per-poll slices and counter
// tracks instead: per queue, at each poll, the ring's fill and free descriptors and the running
// totals of frames written back and dropped. `frames` adds the instant per written-back frame.
//
// Names and categories are std::string_view: copied out immediately, never kept, except the
// names of open begin/end slices, which must outlive the slice (string literals in practice).
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "irqmod/error.hpp"
#include "irqmod/time.hpp"

namespace irqmod::sim {

// Which part of the run to record; both ends included.
struct TraceWindow {
  Instant start = Instant::min();
  Instant end = Instant::max();

  bool contains(Instant t) const { return t >= start && t <= end; }
};

// How much of the run becomes events (see above).
enum class TraceDetail : std::uint8_t {
  polls,   // slices, interrupts and per-poll counters; frames only as counts
  frames,  // the same plus an instant per frame written back
};

// Parses --trace-detail: "polls" or "frames". Error key "--trace-detail".
Expected<TraceDetail> parse_trace_detail(std::string_view text);

// Traces above this many bytes get a warning before they are written (1 GB: what Perfetto's UI
// opens in a browser tab without running out of memory is of this order; a round number).
inline constexpr std::uint64_t kTraceWarnBytes = 1'000'000'000;

// The size a trace will reach when `written` bytes cover `fraction` (0..1] of its window, by
// linear extrapolation; 0 when fraction is not above 0.
std::uint64_t estimate_trace_bytes(std::uint64_t written, double fraction);

// Parses --trace-window START:END: durations with a unit (ns, us, ms, s; "1.5ms"), either side
// may be empty for "from the beginning" / "to the end". Error key "--trace-window".
Expected<TraceWindow> parse_trace_window(std::string_view text);

class TraceWriter {
 public:
  TraceWriter(std::ostream& out, TraceWindow window = {}, TraceDetail detail = TraceDetail::polls);
  ~TraceWriter() { close(); }
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  // Metadata: the names Perfetto shows for a process and a thread.
  void process_name(std::uint32_t pid, std::string_view name);
  void thread_name(std::uint32_t pid, std::uint32_t tid, std::string_view name);

  // A complete slice ("X") from `start` lasting `duration`, clipped to the window.
  void slice(std::uint32_t pid, std::uint32_t tid, std::string_view name, std::string_view category,
             Instant start, Duration duration);

  // A slice opened now and closed by the matching end() on the same thread ("B" / "E"). Slices
  // on one thread nest: end() closes the most recent open one.
  void begin(std::uint32_t pid, std::uint32_t tid, std::string_view name, std::string_view category,
             Instant t);
  void end(std::uint32_t pid, std::uint32_t tid, Instant t);

  // An instant event ("i"), thread-scoped: an interrupt, an arrival.
  void instant(std::uint32_t pid, std::uint32_t tid, std::string_view name,
               std::string_view category, Instant t);

  // A counter sample ("C"): the series `series` of counter `name` has `value` from t on.
  void counter(std::uint32_t pid, std::string_view name, std::string_view series, Instant t,
               std::int64_t value);

  // Ends open slices at the window's end (or the last time seen) and closes the JSON. Idempotent.
  void close();

  std::uint64_t written() const { return written_; }  // trace events written (metadata included)
  std::uint64_t skipped() const { return skipped_; }  // left out by the window
  std::uint64_t bytes() const { return bytes_; }      // bytes of events given to the stream
  const TraceWindow& window() const { return window_; }
  // Whether per-frame instants are wanted (TraceDetail::frames).
  bool frames() const { return detail_ == TraceDetail::frames; }

 private:
  struct Open {
    std::string_view name;
    std::string_view category;
    Instant start;  // when it began
    bool written;   // its "B" is in the file
  };

  void event_head(char phase, std::uint32_t pid, std::uint32_t tid, std::string_view name,
                  std::string_view category, Instant t);
  void finish_event();
  void note_time(Instant t) {
    if (t > last_time_) last_time_ = t;
  }

  std::ostream& out_;
  TraceWindow window_;
  TraceDetail detail_;
  bool closed_ = false;
  bool first_ = true;
  Instant last_time_ = Instant::min();
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<Open>> open_;
  std::uint64_t written_ = 0;
  std::uint64_t skipped_ = 0;
  std::uint64_t bytes_ = 0;
  std::string line_;
};

}  // namespace irqmod::sim
