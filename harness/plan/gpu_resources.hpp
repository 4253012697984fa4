#pragma once
// How a GPU test outside the suite's own cases gets its GPU: ctest's resource allocation hands it one.
//
// When ctest starts, the run plan (ctest-manifest) writes a resource spec that names the GPUs it planned
// for, each one slot of the resource type "gpus", with its index as the id (GPUs numbered as nvidia-smi
// numbers them, within the CUDA_VISIBLE_DEVICES ctest runs under); the registration script hands it to
// ctest (CTEST_RESOURCE_SPEC_FILE). A test registered with hazardlab_add_gpu_test
// (cmake/HazardlabTesting.cmake) asks for "gpus:1"; ctest gives it a GPU no other such test holds and
// names it in CTEST_RESOURCE_GROUP_0_GPUS ("id:2,slots:1"); `hazardlab gpu-test` then runs the test's
// command with only that GPU visible. On a machine without a usable GPU the spec names one resource,
// "none", with many slots: the GPU tests still run side by side, and skip.
//
// The suite's own cases are the plan's, pinned to their GPU by name and lock (run_plan.hpp); the GPU tests
// registered with hazardlab_add_gpu_test run after the suite's run when both are selected (DEPENDS on its report), so
// the two never share a GPU.
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hazardlab {

inline constexpr std::string_view kGpuResourceType = "gpus";
inline constexpr std::string_view kNoGpuResourceId = "none";
inline constexpr int kNoGpuResourceSlots = 64;  // the GPU tests of a machine without a GPU, side by side

// ctest's resource spec (version 1.0) for `devices`, one slot each; none: the one "none" resource. It carries
// kSpecMarker under kSpecMarkerKey (ctest reads past a member it does not know): the proof that hazardlab wrote it,
// without which no spec file is pruned or replaced.
inline constexpr std::string_view kSpecMarkerKey = "written_by";
inline constexpr std::string_view kSpecMarker = "hazardlab ctest-manifest: removed once its ctest has ended";
std::string gpu_resource_spec(const std::vector<int>& devices);

// Whether `text` is a resource spec hazardlab wrote: JSON whose kSpecMarkerKey is kSpecMarker.
bool spec_written_by_hazardlab(const std::string& text);

// The GPU ctest allocated to this test, read from ctest's variables through `variable` (a lookup of the
// environment): its id (an index, or kNoGpuResourceId), or nullopt when resource allocation is off
// (CTEST_RESOURCE_GROUP_COUNT unset). Throws std::invalid_argument when the allocation is not one resource
// of type "gpus" (a resource spec of someone else's that names other types, or more than one GPU in the group:
// "id:0,slots:1;id:1,slots:1").
std::optional<std::string> allocated_gpu(
    const std::function<std::optional<std::string>(const std::string& name)>& variable);

// The CUDA_VISIBLE_DEVICES that shows GPU `id` of the plan alone: the id-th entry of `visible` (the
// CUDA_VISIBLE_DEVICES ctest ran under, within which the plan numbered the GPUs), or `id` itself when
// ctest saw every GPU. Throws std::invalid_argument when `id` is not an index or `visible` has no such entry.
std::string visible_devices_for(const std::string& id, const std::optional<std::string>& visible);

}  // namespace hazardlab
