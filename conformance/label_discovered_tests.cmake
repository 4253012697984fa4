# Run by ctest (see CMakeLists.txt): gives every discovered test_model test the labels
# "selftest;conformance". The discovered tests are read back from the file gtest_discover_tests wrote.
file(GLOB discovered_files "${HAZARDLAB_DISCOVERED_DIR}/test_model*_tests.cmake")
foreach(discovered IN LISTS discovered_files)
  file(STRINGS "${discovered}" lines REGEX "^add_test\\(\\[=\\[")
  foreach(line IN LISTS lines)
    if(line MATCHES "^add_test\\(\\[=\\[([^]]+)\\]=\\]")
      set_tests_properties("${CMAKE_MATCH_1}" PROPERTIES LABELS "selftest;conformance")
    endif()
  endforeach()
endforeach()
