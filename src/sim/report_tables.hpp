// Every counter table of the report with the place of its rows in a RunReport, for what goes
// through all of them alike: the warm-up's subtraction, and the tests that fill and print every
// counter. The writers (report_text.cpp, report_json.cpp, report.cpp) name the tables in their
// own format's order.
#pragma once

#include "irqmod/sim/metrics.hpp"
#include "sim/storage/storage_report.hpp"
#include "sim/xdp/xdp_report.hpp"

namespace irqmod::sim {

// Calls visit(table, section) for each table, where section(report) is its rows in `report`
// (RunReport& or const RunReport&): the owner itself, an optional one, or a vector of rows.
template <class Visit>
void for_each_counter_table(Visit&& visit) {
  visit(
      kSockperfMessages, [](auto& r) -> auto& { return r.sockperf; });
  visit(
      kStrandedFrames, [](auto& r) -> auto& { return r; });
  visit(
      kLossProbes, [](auto& r) -> auto& { return r; });
  visit(
      kCoreCounters, [](auto& r) -> auto& { return r.cores; });
  visit(
      kQueueCounters, [](auto& r) -> auto& { return r.queues; });
  visit(
      kNapiThreadCounters, [](auto& r) -> auto& { return r.napi_threads; });
  visit(
      kMclgetiCounters, [](auto& r) -> auto& { return r.mclgeti; });
  visit(
      kTxOnlyQueueCounters, [](auto& r) -> auto& { return r.tx_only_queues; });
  visit(
      kEgressQueueCounters, [](auto& r) -> auto& { return r.egress_queues; });
  visit(
      kStorageCounters, [](auto& r) -> auto& { return r.storage; });
  visit(
      kXdpCounters, [](auto& r) -> auto& { return r.xdp; });
  visit(
      kThroughput, [](auto& r) -> auto& { return r; });
  visit(
      kTcpCounters, [](auto& r) -> auto& { return r.tcp; });
  visit(
      kPing, [](auto& r) -> auto& { return r.ping; });
  visit(
      kLabClient, [](auto& r) -> auto& { return r.lab_client; });
  visit(
      kLabServer, [](auto& r) -> auto& { return r.lab_server; });
  visit(
      kSearchResult, [](auto& r) -> auto& { return r.search; });
}

}  // namespace irqmod::sim
