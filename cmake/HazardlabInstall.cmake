# What a GPU node gets: `cmake --install` (or the Debian package CPack makes from it) puts the
# command-line tools in bin/, the case and measurement runners in libexec/hazardlab/ (found by
# `hazardlab run` next to itself), the schemas in share/hazardlab/ and the docs and the Slurm
# script in share/doc/hazardlab/. The binaries link the CUDA runtime, libstdc++ and libgcc
# statically and load the driver's libcuda and NVML at run time, so the NVIDIA driver is all a
# node needs.
include(GNUInstallDirs)

set(_hl_bin hazardlab-report)
set(_hl_libexec "")
if(HAZARDLAB_WITH_CUDA)
  list(APPEND _hl_bin hazardlab)
  set(_hl_libexec hazardlab-cases hazardlab-perf)
endif()
set(_hl_lessons "")
foreach(hazard IN LISTS HAZARDLAB_LESSONS)
  list(APPEND _hl_lessons lesson-${hazard})
endforeach()
foreach(program IN LISTS _hl_bin _hl_libexec _hl_lessons)
  target_link_options(${program} PRIVATE -static-libstdc++ -static-libgcc)
endforeach()
install(TARGETS ${_hl_bin} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(_hl_libexec)
  install(TARGETS ${_hl_libexec} RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/hazardlab)
  # `hazardlab check` finds the library CUDA injects into the checked program next to the runners, with
  # NVIDIA's CUPTI beside it (redistributable; a GPU node has the driver, not the toolkit).
  set_target_properties(hazardlab_check_inject PROPERTIES INSTALL_RPATH "$ORIGIN")
  install(TARGETS hazardlab_check_inject LIBRARY DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/hazardlab)
  install(TARGETS hazardlab_check_threads hazardlab_check_signals LIBRARY DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/hazardlab)
  # The injected library carries libunwind (MIT), whose notice goes with it.
  install(FILES "${HAZARDLAB_LIBUNWIND_NOTICE}" DESTINATION ${CMAKE_INSTALL_DOCDIR} RENAME libunwind.COPYING)
  get_target_property(_hl_cupti CUDA::cupti IMPORTED_LOCATION)
  if(_hl_cupti)
    # Under the name the library asks for (its SONAME, libcupti.so.<major>), whatever the file is called.
    file(REAL_PATH "${_hl_cupti}" _hl_cupti_file)
    install(FILES "${_hl_cupti_file}" DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/hazardlab
            RENAME libcupti.so.${CUDAToolkit_VERSION_MAJOR})
  endif()
endif()
install(FILES reports/schema/gpu-report.schema.json reports/schema/fleet-report.schema.json
              reports/schema/check-report.schema.json
              record/schema/run-record.schema.json DESTINATION ${CMAKE_INSTALL_DATADIR}/hazardlab/schema)
# The documents keep their places relative to each other, so that their links work installed as in the tree
# (cases/lint/test_doc_links.py checks both); SCHEMA.md's schemas are beside it as in the tree.
# The pytest plugin, where Debian's python3 imports from, with the entry point that makes pytest load it
# (`pytest --hazardlab`); it finds the hazardlab program installed beside it (<prefix>/bin).
set(HAZARDLAB_PYTHON_DIR lib/python3/dist-packages CACHE STRING "where the pytest plugin is installed, under the prefix")
install(FILES checker/pytest/hazardlab_pytest.py checker/pytest/hazardlab_pytest_findings.py
              checker/pytest/hazardlab_pytest_options.py DESTINATION ${HAZARDLAB_PYTHON_DIR})
file(WRITE ${CMAKE_BINARY_DIR}/hazardlab_pytest.dist-info/METADATA
     "Metadata-Version: 2.1\nName: hazardlab-pytest\nVersion: ${PROJECT_VERSION}\n"
     "Summary: pytest --hazardlab: each hazardlab check finding fails the test it happened in\n")
file(WRITE ${CMAKE_BINARY_DIR}/hazardlab_pytest.dist-info/entry_points.txt "[pytest11]\nhazardlab = hazardlab_pytest\n")
install(DIRECTORY ${CMAKE_BINARY_DIR}/hazardlab_pytest.dist-info/
        DESTINATION ${HAZARDLAB_PYTHON_DIR}/hazardlab_pytest-${PROJECT_VERSION}.dist-info)
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs FILES_MATCHING PATTERN "*.md" PATTERN "*.png")
foreach(page IN ITEMS reports/SCHEMA.md hazards/README.md conformance/README.md lessons/README.md checker/README.md
                      checker/corpus/README.md reports/schema/gpu-report.schema.json
                      reports/schema/fleet-report.schema.json reports/schema/check-report.schema.json
                      record/schema/run-record.schema.json)
  get_filename_component(folder ${page} DIRECTORY)
  install(FILES ${page} DESTINATION ${CMAKE_INSTALL_DOCDIR}/${folder})
endforeach()
install(PROGRAMS tools/slurm/hazardlab-fleet.sbatch DESTINATION ${CMAKE_INSTALL_DOCDIR}/slurm)
install(PROGRAMS tools/health/hazardlab-health-check DESTINATION ${CMAKE_INSTALL_DOCDIR}/health)
install(FILES tools/health/hazardlab.nhc tools/health/hazardlab-health.default DESTINATION ${CMAKE_INSTALL_DOCDIR}/health)

# cpack -G DEB (from the build folder). Debian's shlibdeps would list libc6 and libstdc++6; libc6
# is essential and libstdc++ is linked in, so the package names only what it cannot carry: the
# driver's libcuda (in Debian's libcuda1, in Ubuntu's and NVIDIA's libnvidia-compute-<branch>).
# It is a recommendation, not a dependency, because many GPU nodes get their driver from NVIDIA's
# .run installer, which no package manager knows about; without a driver `hazardlab run` reports
# "no usable GPU" and exits non-zero under HAZARDLAB_REQUIRE_GPU=1.
set(CPACK_PACKAGE_NAME hazardlab)
set(CPACK_PACKAGE_VENDOR "hazardlab")
set(CPACK_PACKAGE_CONTACT "hazardlab maintainers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libcuda1 | libnvidia-compute-580 | libnvidia-compute-575 | libnvidia-compute-570 | libnvidia-compute-560 | libnvidia-compute-550")
set(CPACK_STRIP_FILES ON)
set(CPACK_GENERATOR DEB)
include(CPack)
