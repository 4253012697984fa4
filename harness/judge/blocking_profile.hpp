#pragma once
// Which copy calls returned while the stream was still held closed, by size: the evidence for
// "this call is asynchronous to the host" or "this call waits for the stream". Properties and
// observations keep one; a rule's finding is its summary.
#include <cstddef>
#include <string>

#include "hazardlab/observations.hpp"

namespace hazardlab {

class BlockingProfile {
 public:
  void add(std::size_t bytes, bool blocked, bool hazard_visible);
  BlockingTally tally() const;
  std::string summary() const;
  int trials() const noexcept { return trials_; }
  int blocked() const noexcept { return blocked_; }
  int hazard_visible() const noexcept { return visible_; }

 private:
  int trials_ = 0, blocked_ = 0, visible_ = 0;
  std::size_t largest_returned_early_ = 0;
  std::size_t smallest_blocked_ = 0;
};

}  // namespace hazardlab
