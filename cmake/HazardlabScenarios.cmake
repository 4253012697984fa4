# Scenario tests: the real tools and the real ctest registration, run the way a user runs them
# (no GPU needed: GPU cases skip honestly), with every report and run record validated against
# the shipped JSON Schemas. They need Python 3 with the jsonschema module (Debian:
# python3-jsonschema); without it they are registered as one test that fails and says so.
#
#   hazardlab_add_scenarios(<script.py> TOOL <t> REPORT_TOOL <t> CASES <t> PERF <t> STANDIN_WORKER <t>)
function(hazardlab_add_scenarios script)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "TOOL;REPORT_TOOL;CASES;PERF;STANDIN_WORKER" "")
  hazardlab_python_with(jsonschema python)
  if(python STREQUAL "")
    if(TEST scenarios/need-python-jsonschema)  # said once, whatever the number of scenario scripts
      return()
    endif()
    add_test(NAME scenarios/need-python-jsonschema
             COMMAND ${CMAKE_COMMAND} -E echo "the scenario tests need python3 with jsonschema (apt install python3-jsonschema)")
    set_tests_properties(scenarios/need-python-jsonschema PROPERTIES LABELS "selftest;scenario"
                         FAIL_REGULAR_EXPRESSION "need python3")
    return()
  endif()

  execute_process(COMMAND ${python} ${script} --list OUTPUT_VARIABLE names RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "hazardlab: cannot list the scenarios of ${script}")
  endif()
  string(STRIP "${names}" names)
  string(REPLACE "\n" ";" names "${names}")
  # Only the scripts that take the stand-in worker are given it.
  set(standin "")
  if(ARG_STANDIN_WORKER)
    set(standin --standin-worker $<TARGET_FILE:${ARG_STANDIN_WORKER}>)
  endif()
  foreach(name IN LISTS names)
    add_test(NAME scenarios/${name}
             COMMAND ${python} ${script} ${name}
                     --source-dir ${PROJECT_SOURCE_DIR} --build-dir ${PROJECT_BINARY_DIR}
                     --register-script ${CMAKE_CURRENT_BINARY_DIR}/hazardlab_register_gpu_cases.cmake
                     --tool $<TARGET_FILE:${ARG_TOOL}> --report-tool $<TARGET_FILE:${ARG_REPORT_TOOL}>
                     --cases $<TARGET_FILE:${ARG_CASES}> --perf $<TARGET_FILE:${ARG_PERF}>
                     ${standin}
                     --ctest ${CMAKE_CTEST_COMMAND} --cmake ${CMAKE_COMMAND})
    set_tests_properties(scenarios/${name} PROPERTIES LABELS "selftest;scenario" TIMEOUT 900)
    # Installing and packaging read the build tree and write its install_manifest.txt: one at a time.
    if(name MATCHES "install|package|slurm")
      set_tests_properties(scenarios/${name} PROPERTIES RESOURCE_LOCK build-tree-install)
    endif()
    # A second build of the tree: the longest test, started first so that the others run beside it.
    if(name MATCHES "build-without-cuda")
      set_tests_properties(scenarios/${name} PROPERTIES COST 10000)
    endif()
  endforeach()
endfunction()
