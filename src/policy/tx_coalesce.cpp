// Tx coalescing from link speed: validation at the configuration edge and the table lookup. The
// arithmetic itself is constexpr in the header so that the table is built at compile time.
#include "irqmod/policy/tx_coalesce.hpp"

#include <string>

namespace irqmod::tx_coalesce {

Expected<TxCoalesce> plan(const TxConfig& config) {
  if (config.link_bps < kMinLinkBps || config.link_bps > kMaxLinkBps) {
    return Error{"link-speed", std::to_string(config.link_bps) +
                                   " bit/s is out of range; allowed: 10000000 (10 Mbit/s) to "
                                   "800000000000 (800 Gbit/s) bit/s"};
  }
  if (config.queue_frames == 0 || config.queue_frames > kMaxQueueFrames) {
    return Error{"tx-ring", std::to_string(config.queue_frames) +
                                " frames is out of range; allowed: 1 to 65536 frames"};
  }
  if (config.frame_bytes < kMinFrameBytes || config.frame_bytes > kMaxFrameBytes) {
    return Error{"frame-bytes", std::to_string(config.frame_bytes) +
                                    " bytes is out of range; allowed: 64 (minimum Ethernet "
                                    "frame, FCS included) to 9216 (jumbo) bytes"};
  }
  if (config.reserve_percent > 99) {
    return Error{"reserve-percent", std::to_string(config.reserve_percent) +
                                        " is out of range; allowed: 0 to 99 percent of the queue"};
  }
  if (usable_frames(config.queue_frames, config.reserve_percent) == 0) {
    return Error{"tx-ring", std::to_string(config.queue_frames) + " frames with a " +
                                std::to_string(config.reserve_percent) +
                                "% reserve leaves no frame to coalesce; allowed: a ring that "
                                "keeps at least 1 frame outside reserve-percent"};
  }
  return compute(config);
}

const TxCoalesce* find_in_table(std::uint64_t link_bps) {
  for (const TxCoalesce& row : kTable) {
    if (row.link_bps == link_bps) return &row;
  }
  return nullptr;
}

}  // namespace irqmod::tx_coalesce
