// The link's validation and the pcap reader: the parts of the traffic models that touch the
// configuration edge or the file system.
#include "irqmod/sim/traffic.hpp"

#include <pcap/pcap.h>

#include <memory>
#include <string>

#include "irqmod/sim/link.hpp"

namespace irqmod::sim {

Expected<Link> Link::create(std::uint64_t link_bps) {
  if (link_bps < tx_coalesce::kMinLinkBps || link_bps > tx_coalesce::kMaxLinkBps) {
    return Error{"link.speed", std::to_string(link_bps) +
                                   " bit/s is out of range; allowed: 10 Mbit/s to 800 Gbit/s "
                                   "(ethtool SPEED_10 to SPEED_800000)"};
  }
  return Link(link_bps);
}

namespace {

// Closes the capture on every path out of load_pcap.
struct PcapCloser {
  void operator()(pcap_t* p) const { pcap_close(p); }
};

Error frame_error(const std::string& path, std::uint64_t number, const std::string& what) {
  return Error{path, "frame " + std::to_string(number) + ": " + what};
}

}  // namespace

Expected<Trace> load_pcap(const std::string& path) {
  char errbuf[PCAP_ERRBUF_SIZE] = {};
  std::unique_ptr<pcap_t, PcapCloser> pcap(
      pcap_open_offline_with_tstamp_precision(path.c_str(), PCAP_TSTAMP_PRECISION_NANO, errbuf));
  if (!pcap) return Error{path, std::string("cannot read the capture: ") + errbuf};
  if (pcap_datalink(pcap.get()) != DLT_EN10MB) {
    const char* name = pcap_datalink_val_to_name(pcap_datalink(pcap.get()));
    return Error{path, std::string("link type ") + (name ? name : "unknown") +
                           " is not supported; allowed: Ethernet (DLT_EN10MB)"};
  }
  Trace trace;
  trace.file = path;
  std::int64_t first_ns = 0;
  std::int64_t last_ns = 0;
  for (std::uint64_t number = 1;; ++number) {
    pcap_pkthdr* header = nullptr;
    const u_char* data = nullptr;
    const int status = pcap_next_ex(pcap.get(), &header, &data);
    if (status == PCAP_ERROR_BREAK) break;  // end of file
    if (status != 1) {
      return frame_error(path, number, std::string("cannot read: ") + pcap_geterr(pcap.get()));
    }
    const std::int64_t t_ns =
        static_cast<std::int64_t>(header->ts.tv_sec) * 1'000'000'000 + header->ts.tv_usec;
    if (number == 1) first_ns = last_ns = t_ns;
    if (t_ns < last_ns) {
      return frame_error(path, number,
                         "timestamp " + std::to_string(t_ns) +
                             " ns is earlier than the frame "
                             "before (" +
                             std::to_string(last_ns) +
                             " ns); allowed: a capture in "
                             "time order");
    }
    last_ns = t_ns;
    std::uint64_t frame = std::uint64_t{header->len} + tx_coalesce::kFcsBytes;
    if (frame < tx_coalesce::kMinFrameBytes) frame = tx_coalesce::kMinFrameBytes;
    if (frame > tx_coalesce::kMaxFrameBytes) {
      return frame_error(path, number,
                         std::to_string(header->len) +
                             " bytes is larger than a frame on the "
                             "wire; allowed: up to 9212 bytes captured (9216 with FCS); a capture "
                             "taken on a host with TSO/GRO holds merged segments");
    }
    trace.records.push_back(TraceRecord{t_ns - first_ns, static_cast<std::uint32_t>(frame)});
  }
  if (trace.records.empty()) return Error{path, "the capture holds no frame"};
  return trace;
}

TraceReplay::TraceReplay(std::shared_ptr<const Trace> trace, bool loop, std::int64_t start_ps)
    : trace_(std::move(trace)), loop_(loop), base_ps_(start_ps) {
  const std::vector<TraceRecord>& r = trace_->records;
  const std::int64_t span_ns = r.back().offset_ns;
  const std::int64_t period_ns =
      r.size() < 2 ? 1'000'000'000 : span_ns + span_ns / static_cast<std::int64_t>(r.size() - 1);
  period_ps_ = period_ns * kPicosecondsPerNanosecond;
}

}  // namespace irqmod::sim
