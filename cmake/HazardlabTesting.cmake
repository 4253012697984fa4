# Test registration helpers.
#
#   hazardlab_add_test_file(<file.cpp> LABELS <labels...> [LIBRARIES <targets...>])
#       One GoogleTest executable per file; each of its tests becomes a ctest test with the labels.
#
#   hazardlab_add_gpu_cases(CASES <target> PERF <target> TOOL <target>)
#       Registers the GPU cases when ctest starts (the GPUs are those of the machine that runs
#       ctest, not the one that built): the run plan that the tool makes (harness/plan/): one test
#       per GPU and variant, one per GPU and group of performance measurements (label perf), and
#       the session fixtures that start the run (its own folder under the results root) and write
#       its per-GPU reports.
#
#   hazardlab_add_gpu_test(NAME <name> COMMAND <program> [<arg>...] [LABELS <label>...] [TIMEOUT <s>] [ALL_GPUS])
#       Every other test that runs on a GPU (the checker's GPU tests, the lessons, the conformance programs): ctest
#       hands it one GPU of the machine that runs ctest (RESOURCE_GROUPS gpus:1, from the resource spec the run
#       plan writes when ctest starts: harness/plan/gpu_resources.hpp), one such test per GPU at a time, and
#       `hazardlab gpu-test` runs <program> with that GPU alone visible (CUDA_VISIBLE_DEVICES). Skipped (77) where
#       the plan found no GPU. When the suite's cases are selected too, it runs after their run (DEPENDS on its
#       report), so that no GPU ever runs one of these beside a case. ALL_GPUS: <program> sees every GPU, and
#       ctest runs it alone (RUN_SERIAL). TIMEOUT defaults to 600 s. The layout lint refuses a GPU test
#       registered any other way (cases/lint/test_layout.py, gpu_tests_registered_once).
#
# Any GPU case can be rerun under compute-sanitizer:
#   HAZARDLAB_SANITIZE=memcheck ctest --test-dir build -L kind:guard
enable_testing()
include(GoogleTest)
include(HazardlabWarnings)

# hazardlab_python_with(<module> <variable>): the first Python interpreter that imports <module>, or "".
# A version manager's python3 may come first on PATH without a Debian package the system's python3 has.
function(hazardlab_python_with module variable)
  find_package(Python3 COMPONENTS Interpreter QUIET)
  find_program(_hl_system_python NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
  foreach(candidate IN ITEMS ${Python3_EXECUTABLE} ${_hl_system_python})
    execute_process(COMMAND ${candidate} -c "import ${module}" RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
    if(rc EQUAL 0)
      set(${variable} ${candidate} PARENT_SCOPE)
      return()
    endif()
  endforeach()
  set(${variable} "" PARENT_SCOPE)
endfunction()

function(hazardlab_add_test_file file)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "LABELS;LIBRARIES")
  get_filename_component(name ${file} NAME_WE)
  add_executable(${name} ${file})
  target_link_libraries(${name} PRIVATE GTest::gtest GTest::gtest_main ${ARG_LIBRARIES})
  hazardlab_warnings(${name})
  gtest_discover_tests(${name} TEST_PREFIX "${name}." DISCOVERY_TIMEOUT 60)
  # gtest_discover_tests would keep only the first of several labels (it writes the list unquoted),
  # so the labels are set by a script ctest runs after it has read the discovered tests.
  set(script ${CMAKE_CURRENT_BINARY_DIR}/${name}_labels.cmake)
  string(REPLACE "\\;" ";" labels "${ARG_LABELS}")  # one quoted "a;b" argument arrives escaped
  file(WRITE ${script} "set(hazardlab_discovered_glob \"${CMAKE_CURRENT_BINARY_DIR}/${name}[[]*_tests.cmake\")\n"
                       "set(hazardlab_labels \"${labels}\")\n"
                       "include(\"${PROJECT_SOURCE_DIR}/cmake/HazardlabLabelDiscoveredTests.cmake\")\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${script})
endfunction()

function(hazardlab_add_gpu_cases)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "CASES;PERF;TOOL" "")
  # Defaults only: HAZARDLAB_RESULTS_ROOT and HAZARDLAB_REPORTS_DIR, read when ctest starts, win.
  set(HAZARDLAB_DEFAULT_RESULTS ${PROJECT_BINARY_DIR}/results)
  set(HAZARDLAB_DEFAULT_REPORTS ${PROJECT_BINARY_DIR}/gpu-reports)
  set(HAZARDLAB_TOOL "$<TARGET_FILE:${ARG_TOOL}>")
  set(HAZARDLAB_CASES "$<TARGET_FILE:${ARG_CASES}>")
  set(HAZARDLAB_PERF "$<TARGET_FILE:${ARG_PERF}>")
  set(HAZARDLAB_RESOURCE_SPECS ${PROJECT_BINARY_DIR}/gpu-resources)
  set(script ${CMAKE_CURRENT_BINARY_DIR}/hazardlab_register_gpu_cases.cmake)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/RegisterGpuCases.cmake.in ${script}.in @ONLY)
  file(GENERATE OUTPUT ${script} INPUT ${script}.in)
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${script})
endfunction()

function(hazardlab_add_gpu_test)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "ALL_GPUS" "NAME;TIMEOUT" "COMMAND;LABELS")
  if(NOT ARG_NAME OR NOT ARG_COMMAND OR ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "hazardlab_add_gpu_test(NAME <name> COMMAND <program> [<arg>...] [LABELS ...] [TIMEOUT <s>] "
                        "[ALL_GPUS]): got '${ARGV}'")
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 600)
  endif()
  # add_test names a target's file only when the target comes first; here the launcher comes first.
  list(POP_FRONT ARG_COMMAND program)
  if(TARGET ${program})
    set(program $<TARGET_FILE:${program}>)
  endif()
  set(launcher $<TARGET_FILE:hazardlab> gpu-test)
  if(ARG_ALL_GPUS)
    list(APPEND launcher --all-gpus)
  endif()
  add_test(NAME ${ARG_NAME} COMMAND ${launcher} -- ${program} ${ARG_COMMAND})
  # hazardlab/report: the plan's last test (harness/plan/run_plan.cpp), when the suite's cases are selected too;
  # DEPENDS only orders, and a test that is not selected is not waited for.
  set_tests_properties(${ARG_NAME} PROPERTIES LABELS "${ARG_LABELS}" SKIP_RETURN_CODE 77 TIMEOUT ${ARG_TIMEOUT}
                                              RESOURCE_GROUPS gpus:1 DEPENDS hazardlab/report)
  if(ARG_ALL_GPUS)
    set_tests_properties(${ARG_NAME} PROPERTIES RUN_SERIAL ON)
  endif()
endfunction()
