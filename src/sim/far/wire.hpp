// The peer's side of the link, as a Linux peer with fq_codel (net.core.default_qdisc on
// systemd-based distributions) uses it: its bulk senders' frames queue one after the other, and
// a sparse flow's frame (an ACK, an echo request) is served ahead of that queue, waiting only
// behind other sparse frames. Its time on the wire still counts: the bulk queue's later frames
// leave that much later, so the two never carry more than the link does.
#pragma once

#include <cstdint>

#include "irqmod/sim/link.hpp"

namespace irqmod::sim {

struct FarWire {
  explicit FarWire(const Link& link) : bulk(link), sparse(link) {}

  // A sparse frame offered at `offered_ps`: when its last bit arrives, in ps.
  std::int64_t send_sparse(std::int64_t offered_ps, std::uint32_t frame_bytes) {
    bulk.transmit(offered_ps, frame_bytes);  // the bulk queue's next frames leave after it
    return sparse.transmit(offered_ps, frame_bytes);
  }

  Link bulk;    // the bulk senders' queue (TcpBulkSender)
  Link sparse;  // the frames fq_codel serves first
};

}  // namespace irqmod::sim
