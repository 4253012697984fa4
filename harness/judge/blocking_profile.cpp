#include "judge/blocking_profile.hpp"

#include <algorithm>
#include <sstream>

namespace hazardlab {

void BlockingProfile::add(std::size_t bytes, bool blocked, bool hazard_visible) {
  ++trials_;
  if (hazard_visible) ++visible_;
  if (blocked) {
    ++blocked_;
    if (smallest_blocked_ == 0 || bytes < smallest_blocked_) smallest_blocked_ = bytes;
  } else {
    largest_returned_early_ = std::max(largest_returned_early_, bytes);
  }
}

BlockingTally BlockingProfile::tally() const {
  return {trials_, trials_ - blocked_, blocked_, largest_returned_early_, smallest_blocked_, visible_};
}

std::string BlockingProfile::summary() const {
  std::ostringstream out;
  out << "the call under test returned at once in " << trials_ - blocked_ << " of " << trials_ << " trials";
  if (trials_ > blocked_) out << " (largest " << largest_returned_early_ << " B)";
  if (blocked_) {
    out << " and waited for the held stream, until the watchdog opened it, in " << blocked_ << " (smallest "
        << smallest_blocked_ << " B)";
  }
  out << "; the race showed in " << visible_;
  return out.str();
}

}  // namespace hazardlab
