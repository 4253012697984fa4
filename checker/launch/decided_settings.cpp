#include "checker/launch/decided_settings.hpp"

#include "hazardlab/setting_source.hpp"

namespace hazardlab::check {

CheckSettings decided_settings(const CheckOptions& options) {
  CheckSettings settings = read_check_settings(SettingSource::from_environment()).settings;
  if (options.sample > 0) settings.sample = options.sample;
  if (options.every_occurrence) settings.every_occurrence = *options.every_occurrence;
  if (options.kernels_own_mapped_memory) settings.kernels_own_mapped_memory = *options.kernels_own_mapped_memory;
  if (options.managed_memory) settings.managed_memory = *options.managed_memory;
  if (options.graph_nodes) settings.graph_nodes = *options.graph_nodes;
  if (options.ptx_footprints) settings.ptx_footprints = *options.ptx_footprints;
  if (options.protection) settings.protection = *options.protection;  // given, auto too, it wins
  return settings;
}

}  // namespace hazardlab::check
