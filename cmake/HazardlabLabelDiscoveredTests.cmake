# Run by ctest after the tests gtest_discover_tests found are read: gives each of them every label
# of its file (hazardlab_add_test_file writes hazardlab_discovered_glob and hazardlab_labels).
file(GLOB hazardlab_discovered_files "${hazardlab_discovered_glob}")
foreach(discovered IN LISTS hazardlab_discovered_files)
  file(STRINGS "${discovered}" lines REGEX "^add_test\\(\\[=\\[")
  foreach(line IN LISTS lines)
    if(line MATCHES "^add_test\\(\\[=\\[([^]]+)\\]=\\]")
      set_tests_properties("${CMAKE_MATCH_1}" PROPERTIES LABELS "${hazardlab_labels}")
    endif()
  endforeach()
endforeach()
