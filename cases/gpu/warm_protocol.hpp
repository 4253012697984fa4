#pragma once
// What a case's client, the supervisor and the worker say to each other over their sockets (warm_worker.hpp): a
// request as three lines, "taken" once the supervisor has handed it to a worker, and the reply as the case's
// exit status with whether the worker stays.
#include <optional>
#include <string>

#include "warm_worker.hpp"

namespace hazardlab::warm {

inline constexpr const char* kTaken = "taken";  // the supervisor has handed the request to a worker

inline std::string encode(const CaseRequest& r) { return r.device + '\n' + r.hazard + '\n' + r.variant; }

inline std::optional<CaseRequest> decode(const std::string& bytes) {
  const std::size_t a = bytes.find('\n'), b = bytes.find('\n', a + 1);
  if (a == std::string::npos || b == std::string::npos) return std::nullopt;
  return CaseRequest{bytes.substr(0, a), bytes.substr(a + 1, b - a - 1), bytes.substr(b + 1)};
}

inline std::string reply_bytes(const CaseReply& r) {
  return std::to_string(r.exit_code) + (r.retire ? " retire" : " stay");
}

}  // namespace hazardlab::warm
