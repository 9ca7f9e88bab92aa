// The trace-event writer: window filtering, begin/end matching, JSON framing.
#include "irqmod/sim/trace.hpp"

#include <algorithm>

#include "irqmod/sim/json.hpp"
#include "irqmod/sim/metrics.hpp"
#include "irqmod/sim/units.hpp"

namespace irqmod::sim {
namespace {

// ns as microseconds with three decimals, the unit of "ts" and "dur".
void append_us(std::string& out, std::int64_t ns) {
  out += format_usec(ns);
}

}  // namespace

Expected<TraceWindow> parse_trace_window(std::string_view text) {
  const std::size_t colon = text.find(':');
  const auto bad = [&] {
    return Error{"--trace-window",
                 "'" + std::string(text) +
                     "' is not START:END; allowed: durations with a unit (ns, us, ms, s), e.g. "
                     "10ms:20ms, 1.5s: or :500us, with START <= END"};
  };
  if (colon == std::string_view::npos) return bad();
  TraceWindow window;
  const std::string_view start = text.substr(0, colon);
  const std::string_view end = text.substr(colon + 1);
  if (!start.empty()) {
    const auto ns = parse_duration_ns(start, "");
    if (!ns) return bad();
    window.start = at_ns(*ns);
  }
  if (!end.empty()) {
    const auto ns = parse_duration_ns(end, "");
    if (!ns) return bad();
    window.end = at_ns(*ns);
  }
  if (window.start > window.end) return bad();
  return window;
}

Expected<TraceDetail> parse_trace_detail(std::string_view text) {
  if (text == "polls") return TraceDetail::polls;
  if (text == "frames") return TraceDetail::frames;
  return Error{"--trace-detail",
               "'" + std::string(text) +
                   "' is not a level of detail; allowed: polls (the default: "
                   "per-poll slices and counters) or frames (an event per frame)"};
}

std::uint64_t estimate_trace_bytes(std::uint64_t written, double fraction) {
  if (!(fraction > 0)) return 0;
  return static_cast<std::uint64_t>(static_cast<double>(written) / std::min(fraction, 1.0));
}

TraceWriter::TraceWriter(std::ostream& out, TraceWindow window, TraceDetail detail)
    : out_(out), window_(window), detail_(detail) {
  out_ << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[";
}

void TraceWriter::event_head(char phase, std::uint32_t pid, std::uint32_t tid,
                             std::string_view name, std::string_view category, Instant t) {
  line_.clear();
  line_ += first_ ? "\n{" : ",\n{";
  first_ = false;
  line_ += "\"ph\":\"";
  line_ += phase;
  line_ += "\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid);
  if (!name.empty()) {
    line_ += ",\"name\":";
    append_json_string(line_, name);
  }
  if (!category.empty()) {
    line_ += ",\"cat\":";
    append_json_string(line_, category);
  }
  if (phase != 'M') {
    line_ += ",\"ts\":";
    append_us(line_, ns_since_epoch(t));
  }
}

void TraceWriter::finish_event() {
  line_ += '}';
  out_ << line_;
  bytes_ += line_.size();
  ++written_;
}

void TraceWriter::process_name(std::uint32_t pid, std::string_view name) {
  if (closed_) return;
  event_head('M', pid, 0, "process_name", "", Instant{});
  line_ += ",\"args\":{\"name\":";
  append_json_string(line_, name);
  line_ += '}';
  finish_event();
}

void TraceWriter::thread_name(std::uint32_t pid, std::uint32_t tid, std::string_view name) {
  if (closed_) return;
  event_head('M', pid, tid, "thread_name", "", Instant{});
  line_ += ",\"args\":{\"name\":";
  append_json_string(line_, name);
  line_ += '}';
  finish_event();
}

void TraceWriter::slice(std::uint32_t pid, std::uint32_t tid, std::string_view name,
                        std::string_view category, Instant start, Duration duration) {
  if (closed_) return;
  const Instant stop = start + duration;
  note_time(stop);
  if (stop < window_.start || start > window_.end) {
    ++skipped_;
    return;
  }
  const Instant from = std::max(start, window_.start);
  const Instant to = std::min(stop, window_.end);
  event_head('X', pid, tid, name, category, from);
  line_ += ",\"dur\":";
  append_us(line_, (to - from).count());
  finish_event();
}

void TraceWriter::begin(std::uint32_t pid, std::uint32_t tid, std::string_view name,
                        std::string_view category, Instant t) {
  if (closed_) return;
  note_time(t);
  const bool in = window_.contains(t);
  open_[{pid, tid}].push_back(Open{name, category, t, in});
  if (in) {
    event_head('B', pid, tid, name, category, t);
    finish_event();
  } else {
    ++skipped_;
  }
}

void TraceWriter::end(std::uint32_t pid, std::uint32_t tid, Instant t) {
  if (closed_) return;
  note_time(t);
  auto it = open_.find({pid, tid});
  if (it == open_.end() || it->second.empty()) return;  // an end without a begin: ignored
  const Open open = it->second.back();
  it->second.pop_back();
  if (!open.written) {
    // Began outside the window: after it, or before it and ended before it too, is left out;
    // before it and ended inside or after it, is clipped to begin at the window's start.
    if (open.start > window_.end || t < window_.start) {
      ++skipped_;
      return;
    }
    event_head('B', pid, tid, open.name, open.category, window_.start);
    finish_event();
  }
  event_head('E', pid, tid, "", "", std::min(t, window_.end));
  finish_event();
}

void TraceWriter::instant(std::uint32_t pid, std::uint32_t tid, std::string_view name,
                          std::string_view category, Instant t) {
  if (closed_) return;
  note_time(t);
  if (!window_.contains(t)) {
    ++skipped_;
    return;
  }
  event_head('i', pid, tid, name, category, t);
  line_ += ",\"s\":\"t\"";
  finish_event();
}

void TraceWriter::counter(std::uint32_t pid, std::string_view name, std::string_view series,
                          Instant t, std::int64_t value) {
  if (closed_) return;
  note_time(t);
  if (!window_.contains(t)) {
    ++skipped_;
    return;
  }
  event_head('C', pid, 0, name, "", t);
  line_ += ",\"args\":{";
  append_json_string(line_, series);
  line_ += ':' + std::to_string(value) + '}';
  finish_event();
}

void TraceWriter::close() {
  if (closed_) return;
  // End every slice still open whose begin is in the file, at the window's end or, for an
  // unbounded window, the last time seen.
  const Instant stop = window_.end == Instant::max() ? last_time_ : window_.end;
  for (auto& [key, stack] : open_) {
    while (!stack.empty()) {
      if (stack.back().written) {
        event_head('E', key.first, key.second, "", "", std::max(stop, window_.start));
        finish_event();
      }
      stack.pop_back();
    }
  }
  out_ << "\n]}\n";
  out_.flush();
  closed_ = true;
}

}  // namespace irqmod::sim
