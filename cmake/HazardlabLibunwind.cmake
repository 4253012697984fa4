# libunwind (the portable one, not LLVM's), for the native stack of every copy the checker watches. Its unw_backtrace
# keeps, per thread, each return address's frame layout, and walks a stack of known addresses in a few
# nanoseconds a frame, where libgcc's unwinder decodes each frame's call-frame information again on every walk
# (measured on x86-64: about 6 ns against 130 ns a frame).
#
# Debian's binary package cannot serve: its archive is not position-independent, so it cannot go into the
# injected library, and its shared library exports the _Unwind_* functions, which would take the place of
# libgcc's in the checked program's own exception handling. So it is built here from its release archive,
# pinned by hash, static and position-independent; the injected library keeps its symbols hidden
# (--exclude-libs). The build names no URL for it: tools/deps/stage-deps stages Debian's copy of the archive
# (its source package's original tarball, the same bytes) in `src/` of a prefix in CMAKE_PREFIX_PATH
# (`.deps/src/` for the presets), and reads this version and hash from here; HAZARDLAB_LIBUNWIND_ARCHIVE names
# a copy elsewhere.
include(ExternalProject)
enable_language(C)
find_program(HAZARDLAB_MAKE NAMES make gmake REQUIRED DOC "make, to build libunwind (autotools)")

set(_hl_unwind_version 1.6.2)
set(_hl_unwind_sha256 4a6aec666991fb45d0889c44aede8ad6eb108071c3554fcdff671f9c94794976)
set(_hl_unwind_hints "")
foreach(_hl_prefix IN LISTS CMAKE_PREFIX_PATH)
  list(APPEND _hl_unwind_hints "${_hl_prefix}/src")
endforeach()
set(_hl_unwind_names libunwind_${_hl_unwind_version}.orig.tar.gz libunwind-${_hl_unwind_version}.tar.gz)
find_file(HAZARDLAB_LIBUNWIND_ARCHIVE NAMES ${_hl_unwind_names} HINTS ${_hl_unwind_hints} NO_DEFAULT_PATH
          DOC "libunwind's ${_hl_unwind_version} release archive (tools/deps/stage-deps stages it)")
# Not staged yet: staged now by the same command, through the distribution's own client (apt-get source, never a
# URL of this project's), so that each of the README's two commands sets up a fresh Debian or Ubuntu machine. CI
# stages it before it configures, so its configure reaches no network; without network the command fails and the
# message below says what to do.
set(_hl_default_prefix "${PROJECT_SOURCE_DIR}/.deps")
if(NOT HAZARDLAB_LIBUNWIND_ARCHIVE AND "${_hl_default_prefix}" IN_LIST CMAKE_PREFIX_PATH)
  find_program(_hl_apt_get apt-get)
  if(_hl_apt_get)
    message(STATUS "libunwind ${_hl_unwind_version}'s source is not staged: staging it with tools/deps/stage-deps")
    execute_process(COMMAND "${PROJECT_SOURCE_DIR}/tools/deps/stage-deps" --prefix "${_hl_default_prefix}"
                    RESULT_VARIABLE _hl_staged)
    unset(HAZARDLAB_LIBUNWIND_ARCHIVE CACHE)
    find_file(HAZARDLAB_LIBUNWIND_ARCHIVE NAMES ${_hl_unwind_names} HINTS ${_hl_unwind_hints} NO_DEFAULT_PATH
              DOC "libunwind's ${_hl_unwind_version} release archive (tools/deps/stage-deps stages it)")
  endif()
endif()
if(NOT HAZARDLAB_LIBUNWIND_ARCHIVE)
  list(JOIN _hl_unwind_names " or " _hl_names_text)
  if(_hl_unwind_hints)
    list(JOIN _hl_unwind_hints ", " _hl_where)
  else()
    set(_hl_where "src/ of a CMAKE_PREFIX_PATH prefix (it names none)")
  endif()
  message(FATAL_ERROR "libunwind ${_hl_unwind_version}'s source archive is not staged: no ${_hl_names_text} in "
                      "${_hl_where}, and staging it through apt failed or apt is not here. Stage it (into .deps/src/, from "
                      "the distribution's archive) by running, from the checkout's root:\n"
                      "  tools/deps/stage-deps\n"
                      "or name a copy with -DHAZARDLAB_LIBUNWIND_ARCHIVE=FILE (SHA256 ${_hl_unwind_sha256}).")
endif()
if(NOT EXISTS "${HAZARDLAB_LIBUNWIND_ARCHIVE}" OR IS_DIRECTORY "${HAZARDLAB_LIBUNWIND_ARCHIVE}")
  message(FATAL_ERROR "HAZARDLAB_LIBUNWIND_ARCHIVE is '${HAZARDLAB_LIBUNWIND_ARCHIVE}', which is no file: name "
                      "libunwind ${_hl_unwind_version}'s release archive, or leave it unset "
                      "(-UHAZARDLAB_LIBUNWIND_ARCHIVE) and run tools/deps/stage-deps.")
endif()
# Checked here too, not only before it is unpacked, so that a wrong file stops the configure, not the build.
file(SHA256 "${HAZARDLAB_LIBUNWIND_ARCHIVE}" _hl_unwind_found)
if(NOT _hl_unwind_found STREQUAL _hl_unwind_sha256)
  message(FATAL_ERROR "HAZARDLAB_LIBUNWIND_ARCHIVE '${HAZARDLAB_LIBUNWIND_ARCHIVE}': SHA256 ${_hl_unwind_found}, "
                      "expected ${_hl_unwind_sha256}: not libunwind ${_hl_unwind_version}'s release archive. Name "
                      "that archive, or stage it with tools/deps/stage-deps (which replaces a wrong copy in its "
                      "prefix's src/).")
endif()

set(_hl_unwind_prefix "${CMAKE_BINARY_DIR}/_deps/libunwind")
# Through the C compiler's launcher too, where the build has one (a compiler cache): its files are the same every build.
set(_hl_unwind_cc "${CMAKE_C_COMPILER}")
if(CMAKE_C_COMPILER_LAUNCHER)
  list(JOIN CMAKE_C_COMPILER_LAUNCHER " " _hl_unwind_launcher)
  set(_hl_unwind_cc "${_hl_unwind_launcher} ${CMAKE_C_COMPILER}")
endif()
include(ProcessorCount)
ProcessorCount(_hl_cores)
if(_hl_cores EQUAL 0)
  set(_hl_cores 2)
endif()
ExternalProject_Add(hazardlab_libunwind_build
  URL "${HAZARDLAB_LIBUNWIND_ARCHIVE}"  # a local file; the hash is checked before it is unpacked
  URL_HASH SHA256=${_hl_unwind_sha256}
  DOWNLOAD_EXTRACT_TIMESTAMP ON
  PREFIX "${CMAKE_BINARY_DIR}/_deps/libunwind-build"
  INSTALL_DIR "${_hl_unwind_prefix}"
  # Only the local unwinder, position-independent; none of what would add dependencies (LZMA, zlib) or
  # export more (backtrace() as a weak alias, unwind.h).
  CONFIGURE_COMMAND <SOURCE_DIR>/configure --quiet --prefix=<INSTALL_DIR> --libdir=<INSTALL_DIR>/lib
                    --enable-static --disable-shared --with-pic --disable-minidebuginfo --disable-zlibdebuginfo
                    --disable-coredump --disable-ptrace --disable-setjmp --disable-tests --disable-documentation
                    --disable-weak-backtrace --disable-unwind-header
                    "CC=${_hl_unwind_cc}" "CFLAGS=-O2 -fPIC"
  BUILD_COMMAND ${HAZARDLAB_MAKE} -j${_hl_cores} --silent
  INSTALL_COMMAND ${HAZARDLAB_MAKE} install --silent
  BUILD_BYPRODUCTS "${_hl_unwind_prefix}/lib/libunwind.a"
  LOG_CONFIGURE ON LOG_BUILD ON LOG_INSTALL ON LOG_OUTPUT_ON_FAILURE ON)

# Its licence (MIT) asks that the notice go with every copy: the installed package carries it.
ExternalProject_Get_Property(hazardlab_libunwind_build SOURCE_DIR)
set(HAZARDLAB_LIBUNWIND_NOTICE "${SOURCE_DIR}/COPYING" CACHE INTERNAL "libunwind's licence notice, installed with the package")

file(MAKE_DIRECTORY "${_hl_unwind_prefix}/include")  # an imported target's include folder must exist now
add_library(hazardlab_libunwind STATIC IMPORTED GLOBAL)
set_target_properties(hazardlab_libunwind PROPERTIES IMPORTED_LOCATION "${_hl_unwind_prefix}/lib/libunwind.a"
                                                     INTERFACE_INCLUDE_DIRECTORIES "${_hl_unwind_prefix}/include")
add_dependencies(hazardlab_libunwind hazardlab_libunwind_build)
