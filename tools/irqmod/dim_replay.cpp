#include "dim_replay.hpp"

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <istream>
#include <ostream>
#include <string_view>

namespace irqmod::cli {
namespace {

constexpr std::string_view kHeader = "time_ns,events,packets,bytes";
constexpr std::string_view kColumns[] = {"time_ns", "events", "packets", "bytes"};

// Parses the four unsigned decimal columns of one row. Returns an empty string on success,
// otherwise what is wrong with the row.
std::string parse_row(std::string_view line, std::uint64_t (&values)[4]) {
  for (std::size_t i = 0; i < 4; ++i) {
    const std::size_t comma = line.find(',');
    if (i < 3 && comma == std::string_view::npos)
      return "expected 4 columns (" + std::string(kHeader) + "), got " + std::to_string(i + 1);
    if (i == 3 && comma != std::string_view::npos) return "more than 4 columns";
    const std::string_view field = line.substr(0, comma);
    const char* end = field.data() + field.size();
    const auto [ptr, ec] = std::from_chars(field.data(), end, values[i]);
    if (field.empty() || ec != std::errc{} || ptr != end)
      return "column " + std::string(kColumns[i]) + " is \"" + std::string(field) +
             "\"; expected an unsigned decimal integer below 2^64";
    line.remove_prefix(comma == std::string_view::npos ? line.size() : comma + 1);
  }
  return {};
}

}  // namespace

int replay_dim(std::istream& in, const std::string& source, const DimReplayOptions& options,
               const DimReplaySinks& sinks, std::ostream& err) {
  const dim::ProfileTable table = options.profiles
                                      ? *options.profiles
                                      : dim::default_profiles(options.direction, options.cq_mode);
  dim::NetDim net_dim(table, options.cq_mode);

  std::string raw;
  std::size_t line_no = 0;
  std::uint64_t step = 0;
  bool have_header = false;
  std::int64_t last_time = 0;
  const auto fail = [&](const std::string& what) {
    err << "irqmod dim-replay: " << source << ":" << line_no << ": " << what << "\n";
    return 2;
  };

  while (std::getline(in, raw)) {
    ++line_no;
    std::string_view line = raw;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    if (line.front() == '#') {
      if (sinks.comment) sinks.comment(step, std::string(line.substr(1)));
      continue;
    }
    if (!have_header) {
      if (line != kHeader)
        return fail("expected the header \"" + std::string(kHeader) + "\", got \"" +
                    std::string(line) + "\"");
      have_header = true;
      continue;
    }
    std::uint64_t v[4] = {};
    if (const std::string problem = parse_row(line, v); !problem.empty()) return fail(problem);
    if (v[0] > static_cast<std::uint64_t>(INT64_MAX))
      return fail("time_ns " + std::to_string(v[0]) + " does not fit a signed 64-bit ktime");
    const auto time_ns = static_cast<std::int64_t>(v[0]);
    if (step > 0 && time_ns < last_time)
      return fail("time_ns " + std::to_string(time_ns) + " is before the previous row's " +
                  std::to_string(last_time) + "; the trace must be monotonic");
    last_time = time_ns;

    // The sample is read at the completion and handed to net_dim at once, so `now` is its time.
    const Instant now = at_ns(time_ns);
    const dim::Decision d = net_dim.step(dim::make_sample(now, v[1], v[2], v[3]), now);
    if (d.apply) net_dim.acknowledge();  // the profile is programmed before the next completion
    ++step;
    sinks.row(DimReplayRow{step, d, net_dim.state().tune_state});
  }
  if (in.bad()) return fail("read error");
  if (!have_header) return fail("no header; expected \"" + std::string(kHeader) + "\"");
  return 0;
}

int run_dim_replay(std::istream& in, const std::string& source, const DimReplayOptions& options,
                   std::ostream& out, std::ostream& err) {
  // Rows are formatted into one buffer and written 64 KiB at a time: a stream write per row
  // (std::cout goes through C stdio, with a lock per call) cost more than net_dim itself.
  constexpr std::size_t kFlushBytes = 64 * 1024;
  std::string buffer = "step,profile_ix,usec,pkts,changed\n";
  buffer.reserve(kFlushBytes + 64);
  DimReplaySinks sinks;
  sinks.row = [&](const DimReplayRow& r) {
    char row[96];
    const int n = std::snprintf(row, sizeof row, "%llu,%u,%u,%u,%d\n",
                                static_cast<unsigned long long>(r.step),
                                unsigned{r.decision.profile_ix}, unsigned{r.decision.profile.usec},
                                unsigned{r.decision.profile.pkts}, r.decision.apply ? 1 : 0);
    buffer.append(row, static_cast<std::size_t>(n));
    if (buffer.size() >= kFlushBytes) {
      out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
      buffer.clear();
    }
  };
  const int status = replay_dim(in, source, options, sinks, err);
  out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
  return status;
}

}  // namespace irqmod::cli
