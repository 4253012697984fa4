#pragma once
// Every key of a measurement record (hazardlab/measurements.hpp), named once: the writers and readers of
// measurements.cpp and measurement_figures.cpp use these, and reports/schema/gpu-report.schema.json lists the
// same ones (a self-test compares the two). No other source reads a measurement by its key (the layout lint).

namespace hazardlab::perf {

namespace key {
// The groups, at the top of a record's "measurements".
constexpr const char* bandwidth = "bandwidth";
constexpr const char* bidirectional = "bidirectional";
constexpr const char* link_raw_gbps = "link_raw_gbps_per_direction";
constexpr const char* checked_sizes = "checked_sizes";
constexpr const char* link_threshold_gbps = "link_threshold_gbps";
constexpr const char* reference = "reference";
constexpr const char* all_gpus_at_once = "all_gpus_at_once";
constexpr const char* peer_matrix = "peer_matrix";
constexpr const char* overlap = "overlap";
constexpr const char* overlap_attempts = "overlap_attempts";
constexpr const char* findings = "findings";
constexpr const char* soak = "soak";
constexpr const char* host_placement = "host_placement";
constexpr const char* isolation = "isolation";
// Inside them.
constexpr const char* direction = "direction";
constexpr const char* host_memory = "host_memory";
constexpr const char* bytes = "bytes";
constexpr const char* copies_per_repeat = "copies_per_repeat";
constexpr const char* median_gbps = "median_gbps";
constexpr const char* min_gbps = "min_gbps";
constexpr const char* max_gbps = "max_gbps";
constexpr const char* cv = "cv";
constexpr const char* iqr_gbps = "iqr_gbps";
constexpr const char* samples = "samples";
constexpr const char* attempts = "attempts";
constexpr const char* samples_gbps = "samples_gbps";
constexpr const char* spread = "spread";
constexpr const char* floor_gbps = "floor_gbps";
constexpr const char* confirmed_miss = "confirmed_miss";
constexpr const char* measured = "measured";
constexpr const char* per_gpu = "per_gpu";
constexpr const char* device_index = "device_index";
constexpr const char* gbps = "gbps";
constexpr const char* total_gbps = "total_gbps";
constexpr const char* source_index = "source_index";
constexpr const char* destination_index = "destination_index";
constexpr const char* peer_access = "peer_access";
constexpr const char* tool = "tool";
constexpr const char* runs_per_size = "runs_per_size";
constexpr const char* remeasured_below = "remeasured_below_fraction";
constexpr const char* figures = "figures";
constexpr const char* errors = "errors";
constexpr const char* figure = "figure";
constexpr const char* hazardlab_gbps = "hazardlab_gbps";
constexpr const char* nvbandwidth_gbps = "nvbandwidth_gbps";
constexpr const char* ratio = "ratio";
constexpr const char* nvbandwidth_runs = "nvbandwidth_runs_gbps";
constexpr const char* hazardlab_attempts = "hazardlab_attempts_gbps";
constexpr const char* numa_node = "numa_node";
constexpr const char* cpus = "cpus";
constexpr const char* bound = "bound_to_gpu_cpus";
constexpr const char* not_bound_reason = "not_bound_reason";
constexpr const char* alone_on_host = "alone_on_host";
constexpr const char* waited_ms = "waited_ms";
constexpr const char* lock = "lock";
constexpr const char* streams = "streams";
constexpr const char* kernel_ms = "kernel_ms";
constexpr const char* copy_ms = "copy_ms";
constexpr const char* both_ms = "both_ms";
constexpr const char* fraction_hidden = "fraction_hidden";
constexpr const char* id = "id";
constexpr const char* question = "question";
constexpr const char* a = "a";
constexpr const char* b = "b";
constexpr const char* a_ms = "a_ms";
constexpr const char* b_ms = "b_ms";
constexpr const char* b_over_a = "b_over_a";
// Spread.
constexpr const char* n = "n";
constexpr const char* median = "median";
constexpr const char* min = "min";
constexpr const char* max = "max";
constexpr const char* q1 = "q1";
constexpr const char* q3 = "q3";
constexpr const char* iqr = "iqr";
// The soak.
constexpr const char* seconds = "seconds";
constexpr const char* overshoot_s = "overshoot_s";
constexpr const char* rounds = "rounds";
constexpr const char* churns = "churns";
constexpr const char* bytes_per_copy = "bytes_per_copy";
constexpr const char* copies = "copies";
constexpr const char* copy = "copy";
constexpr const char* bytes_verified = "bytes_verified";
constexpr const char* corrupted = "corrupted";
constexpr const char* t_s = "t_s";
constexpr const char* fault_injected = "fault_injected";
}  // namespace key

}  // namespace hazardlab::perf
