// How a GPU test gets its GPU from ctest (plan/gpu_resources.hpp): the resource spec the plan writes, what a test
// reads of ctest's allocation, and the CUDA_VISIBLE_DEVICES that shows it that GPU alone.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "plan/ctest_plan.hpp"
#include "plan/gpu_resources.hpp"

using namespace hazardlab;

namespace {

using Variables = std::map<std::string, std::string>;

std::optional<std::string> allocated(const Variables& set) {
  return allocated_gpu([&](const std::string& name) -> std::optional<std::string> {
    const auto it = set.find(name);
    return it == set.end() ? std::nullopt : std::optional<std::string>(it->second);
  });
}

}  // namespace

TEST(GpuResources, TheSpecNamesEachGpuOfThePlanWithOneSlot) {
  const nlohmann::json spec = nlohmann::json::parse(gpu_resource_spec({0, 1, 2, 3}));
  EXPECT_EQ(spec["version"], (nlohmann::json{{"major", 1}, {"minor", 0}}));
  ASSERT_EQ(spec["local"].size(), 1U);
  const nlohmann::json& gpus = spec["local"][0]["gpus"];
  ASSERT_EQ(gpus.size(), 4U);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(gpus[i]["id"], std::to_string(i));
    EXPECT_EQ(gpus[i]["slots"], 1);
  }
}

TEST(GpuResources, TheSpecCarriesTheMarkerThatProvesHazardlabWroteIt) {
  EXPECT_TRUE(spec_written_by_hazardlab(gpu_resource_spec({0})));
  EXPECT_TRUE(spec_written_by_hazardlab(gpu_resource_spec({})));
  const std::string users = R"({"version": {"major": 1, "minor": 0}, "local": [{"gpus": [{"id": "0", "slots": 1}]}]})";
  EXPECT_FALSE(spec_written_by_hazardlab(users));
  EXPECT_FALSE(spec_written_by_hazardlab(""));
  EXPECT_FALSE(spec_written_by_hazardlab("not json"));
  EXPECT_FALSE(spec_written_by_hazardlab(R"(["written_by"])"));
  EXPECT_FALSE(spec_written_by_hazardlab(R"({"written_by": "someone else"})"));
}

TEST(GpuResources, WithoutAGpuTheSpecNamesNoneWithManySlots) {
  const nlohmann::json gpus = nlohmann::json::parse(gpu_resource_spec({}))["local"][0]["gpus"];
  ASSERT_EQ(gpus.size(), 1U);
  EXPECT_EQ(gpus[0]["id"], "none");
  EXPECT_EQ(gpus[0]["slots"], kNoGpuResourceSlots);
}

TEST(GpuResources, TheAllocatedGpuIsReadFromCtestsVariables) {
  EXPECT_EQ(allocated({}), std::nullopt);  // resource allocation off
  EXPECT_EQ(allocated({{"CTEST_RESOURCE_GROUP_COUNT", "1"},
                       {"CTEST_RESOURCE_GROUP_0", "gpus"},
                       {"CTEST_RESOURCE_GROUP_0_GPUS", "id:2,slots:1"}}),
            "2");
  EXPECT_EQ(allocated({{"CTEST_RESOURCE_GROUP_COUNT", "1"},
                       {"CTEST_RESOURCE_GROUP_0", "gpus"},
                       {"CTEST_RESOURCE_GROUP_0_GPUS", "slots:1,id:none"}}),
            "none");
}

TEST(GpuResources, AnAllocationOfAnotherShapeIsRefused) {
  const Variables two{{"CTEST_RESOURCE_GROUP_COUNT", "2"},
                      {"CTEST_RESOURCE_GROUP_0", "gpus"},
                      {"CTEST_RESOURCE_GROUP_0_GPUS", "id:0,slots:1"}};
  const Variables other_type{{"CTEST_RESOURCE_GROUP_COUNT", "1"}, {"CTEST_RESOURCE_GROUP_0", "cpus"}};
  const Variables nothing{{"CTEST_RESOURCE_GROUP_COUNT", "1"}, {"CTEST_RESOURCE_GROUP_0", "gpus"}};
  const Variables no_id{{"CTEST_RESOURCE_GROUP_COUNT", "1"},
                        {"CTEST_RESOURCE_GROUP_0", "gpus"},
                        {"CTEST_RESOURCE_GROUP_0_GPUS", "slots:1"}};
  const Variables two_ids{{"CTEST_RESOURCE_GROUP_COUNT", "1"},
                          {"CTEST_RESOURCE_GROUP_0", "gpus"},
                          {"CTEST_RESOURCE_GROUP_0_GPUS", "id:0,slots:1,id:1,slots:1"}};
  const Variables two_gpus{{"CTEST_RESOURCE_GROUP_COUNT", "1"},
                           {"CTEST_RESOURCE_GROUP_0", "gpus"},
                           {"CTEST_RESOURCE_GROUP_0_GPUS", "id:0,slots:1;id:1,slots:1"}};
  for (const Variables& v : {two, other_type, nothing, no_id, two_ids, two_gpus})
    EXPECT_THROW(allocated(v), std::invalid_argument);
  // Set but empty: said so, never "ctest allocated  resource group(s)".
  try {
    allocated({{"CTEST_RESOURCE_GROUP_COUNT", ""}});
    ADD_FAILURE() << "an empty CTEST_RESOURCE_GROUP_COUNT was taken";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("CTEST_RESOURCE_GROUP_COUNT is set but empty"), std::string::npos) << e.what();
  }
}

// A count without the group it counts names the variable that is missing.
TEST(GpuResources, ACountWithoutItsGroupNamesTheUnsetVariable) {
  try {
    allocated({{"CTEST_RESOURCE_GROUP_COUNT", "2"}});
    ADD_FAILURE() << "a count without CTEST_RESOURCE_GROUP_0 was taken";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("CTEST_RESOURCE_GROUP_0 is not"), std::string::npos) << e.what();
  }
}

TEST(GpuResources, TheTestSeesItsGpuAloneWithinWhatCtestSaw) {
  EXPECT_EQ(visible_devices_for("2", std::nullopt), "2");
  EXPECT_EQ(visible_devices_for("1", std::string("5,7")), "7");
  EXPECT_EQ(visible_devices_for("0", std::string("GPU-8c1e")), "GPU-8c1e");
  EXPECT_THROW(visible_devices_for("2", std::string("5,7")), std::invalid_argument);
  EXPECT_THROW(visible_devices_for("1", std::string("5,")), std::invalid_argument);
  EXPECT_THROW(visible_devices_for("none", std::nullopt), std::invalid_argument);
  EXPECT_THROW(visible_devices_for("-1", std::nullopt), std::invalid_argument);
}

TEST(GpuResources, ThePlanNamesItsSpecForTheRegistration) {
  std::ostringstream out;
  write_resource_spec_line(out, "/b/gpu-resources/ctest-42.json");
  EXPECT_EQ(out.str(), "resource-spec\t/b/gpu-resources/ctest-42.json\n");
  std::ostringstream bad;
  EXPECT_THROW(write_resource_spec_line(bad, "/b/a;b/ctest-42.json"), std::invalid_argument);
}
