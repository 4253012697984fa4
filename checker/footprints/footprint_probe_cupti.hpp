// The probe's CUPTI subscriber, in a file of its own: cupti.h and sanitizer.h both declare the driver's obsolete
// parameter structures, so no translation unit can include both.
#pragma once

namespace hazardlab::check::footprints {

// Subscribes to CUPTI's driver-API callbacks beside the Sanitizer API and counts kernel launches: 0, or CUPTI's
// result where it refused.
int count_cupti_launches();
long cupti_launches();

}  // namespace hazardlab::check::footprints
