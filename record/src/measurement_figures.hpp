#pragma once
// Each figure of a measurement record written as JSON and read back (measurement_figures.cpp), for the groups
// that measurements.cpp puts together, with the small readers and writers both files use.
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "hazardlab/measurements.hpp"

namespace hazardlab::perf {

using json = nlohmann::json;

// A key a record may lack (another version's), read into `out` when it is there.
template <class T>
void read_if(const json& j, const char* k, T& out) {
  if (const auto it = j.find(k); it != j.end() && !it->is_null()) it->get_to(out);
}
template <class T>
void read_if(const json& j, const char* k, std::optional<T>& out) {
  if (const auto it = j.find(k); it != j.end() && !it->is_null()) out = it->get<T>();
}

template <class T, class Read>
std::vector<T> read_list(const json& j, Read read) {
  std::vector<T> out;
  for (const json& one : j) out.push_back(read(one));
  return out;
}

json write(const BandwidthPoint& b);
BandwidthPoint read_point(const json& j);
json write(const BidirectionalResult& b);
BidirectionalResult read_bidirectional(const json& j);
json write(const AllGpusResult& r);
AllGpusResult read_all_gpus(const json& j);
json write(const PeerBandwidth& p);
PeerBandwidth read_peer(const json& j);
json write(const ReferenceComparison& c);
ReferenceComparison read_reference(const json& j);
json write(const OverlapResult& o);
OverlapResult read_overlap(const json& j);
json write(const Comparison& c);
Comparison read_comparison(const json& j);
json write(const soak::SoakResult& r);
soak::SoakResult read_soak(const json& j);

template <class T>
json write_list(const std::vector<T>& items) {
  json out = json::array();
  for (const T& one : items) out.push_back(write(one));
  return out;
}

}  // namespace hazardlab::perf
