#pragma once
// What `hazardlab` tells without running anything: the hazards (list, explain), the GPUs (devices) and the
// settings (settings). Each prints to stdout and returns the exit status.
#include <string>

namespace hazardlab {

int list_hazards();
// Throws UsageError for an id no hazard has.
int explain_hazard(const std::string& id);
int list_devices(bool as_json);
int list_settings();

}  // namespace hazardlab
