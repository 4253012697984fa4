#include "plan/gpu_resources.hpp"

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "hazardlab/strict_number.hpp"

namespace hazardlab {

std::string gpu_resource_spec(const std::vector<int>& devices) {
  nlohmann::json gpus = nlohmann::json::array();
  for (const int d : devices) gpus.push_back({{"id", std::to_string(d)}, {"slots", 1}});
  if (devices.empty()) gpus.push_back({{"id", std::string(kNoGpuResourceId)}, {"slots", kNoGpuResourceSlots}});
  const nlohmann::json spec = {{"version", {{"major", 1}, {"minor", 0}}},
                               {"local", nlohmann::json::array({{{std::string(kGpuResourceType), gpus}}})},
                               {std::string(kSpecMarkerKey), std::string(kSpecMarker)}};
  return spec.dump(2) + "\n";
}

bool spec_written_by_hazardlab(const std::string& text) {
  const nlohmann::json spec = nlohmann::json::parse(text, nullptr, false);
  if (!spec.is_object()) return false;
  const auto marker = spec.find(std::string(kSpecMarkerKey));
  return marker != spec.end() && marker->is_string() && marker->get<std::string>() == kSpecMarker;
}

namespace {

// "id:2,slots:1" -> "2". ctest joins the resources of one group with ';': more than one is more GPUs than a GPU
// test asks for, never the first of them.
std::string id_of(const std::string& allocation) {
  if (allocation.find(';') != std::string::npos) {
    throw std::invalid_argument("CTEST_RESOURCE_GROUP_0_GPUS='" + allocation + "' allocates more than one GPU; a GPU "
                                "test asks for one (RESOURCE_GROUPS gpus:1), and hazardlab gpu-test runs it on one");
  }
  std::string id;
  std::size_t start = 0;
  while (start <= allocation.size()) {
    const std::size_t end = std::min(allocation.find(',', start), allocation.size());
    const std::string field = allocation.substr(start, end - start);
    if (field.rfind("id:", 0) == 0) {
      if (!id.empty()) throw std::invalid_argument("'" + allocation + "' names more than one resource");
      id = field.substr(3);
    }
    start = end + 1;
  }
  if (id.empty()) throw std::invalid_argument("'" + allocation + "' names no resource id");
  return id;
}

}  // namespace

std::optional<std::string> allocated_gpu(
    const std::function<std::optional<std::string>(const std::string& name)>& variable) {
  const std::optional<std::string> count = variable("CTEST_RESOURCE_GROUP_COUNT");
  if (!count) return std::nullopt;
  if (count->empty())
    throw std::invalid_argument("CTEST_RESOURCE_GROUP_COUNT is set but empty; ctest sets it to the number of resource "
                                "groups it allocated (1 for a GPU test): unset it, or give the test its allocation");
  const std::string type(kGpuResourceType);
  const std::optional<std::string> types = variable("CTEST_RESOURCE_GROUP_0");
  if (!types) {  // ctest sets both together: the count alone is set by hand, or half copied from a test's environment
    throw std::invalid_argument("CTEST_RESOURCE_GROUP_COUNT='" + *count + "' is set but CTEST_RESOURCE_GROUP_0 is "
                                "not; ctest sets both (and CTEST_RESOURCE_GROUP_0_GPUS) for a GPU test: unset "
                                "CTEST_RESOURCE_GROUP_COUNT, or set all three as ctest would");
  }
  if (*count != "1" || *types != type) {
    throw std::invalid_argument("ctest allocated " + *count + " resource group(s) of type(s) '" + *types +
                                "'; a GPU test asks for one group of the type '" + type +
                                "' (gpus:1): a resource spec of your own must name the GPUs as '" + type + "'");
  }
  const std::optional<std::string> allocation = variable("CTEST_RESOURCE_GROUP_0_GPUS");
  if (!allocation) throw std::invalid_argument("ctest named the group's type '" + type + "' but allocated nothing");
  return id_of(*allocation);
}

std::string visible_devices_for(const std::string& id, const std::optional<std::string>& visible) {
  std::uint64_t index = 0;
  try {
    index = parse_whole_number(id, 0, 1U << 20);
  } catch (const NumberRefused&) {
    throw std::invalid_argument("the GPU resource id '" + id + "' is not a GPU's index");
  }
  if (!visible) return id;
  std::vector<std::string> entries;
  std::size_t start = 0;
  while (start <= visible->size()) {
    const std::size_t end = std::min(visible->find(',', start), visible->size());
    entries.push_back(visible->substr(start, end - start));
    start = end + 1;
  }
  if (index >= entries.size() || entries[index].empty()) {
    throw std::invalid_argument("ctest allocated GPU " + id + ", but CUDA_VISIBLE_DEVICES='" + *visible +
                                "' names no such entry (the plan numbers the GPUs within it)");
  }
  return entries[index];
}

}  // namespace hazardlab
