// `hazardlab check`'s report for people: what the console text says, laid out once as a document
// (hazardlab/document.hpp) and rendered in Markdown (--markdown) and HTML (--html) like every other report.
#pragma once

#include "checker/launch/check_report.hpp"
#include "hazardlab/document.hpp"

namespace hazardlab::check {

// The command, how the program ended, the verdict and what it means, what was not checked, a table of the
// findings and each finding's two stacks, and the counts.
doc::Document check_document(const CheckReport& report);

}  // namespace hazardlab::check
