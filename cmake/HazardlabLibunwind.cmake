# libunwind (the nongnu.org one), for the native stack of every copy the checker watches. Its unw_backtrace
# keeps, per thread, each return address's frame layout, and walks a stack of known addresses in a few
# nanoseconds a frame, where libgcc's unwinder decodes each frame's call-frame information again on every walk
# (measured on x86-64: about 6 ns against 130 ns a frame).
#
# Debian's package cannot serve: its archive is not position-independent, so it cannot go into the injected
# library, and its shared library exports the _Unwind_* functions, which would take the place of libgcc's in
# the checked program's own exception handling. So it is built here from the release archive, pinned by hash,
# static and position-independent; the injected library keeps its symbols hidden (--exclude-libs). Without
# network, stage the archive in `src/` of a prefix in CMAKE_PREFIX_PATH (`.deps/src/` for the presets), or name
# it in HAZARDLAB_LIBUNWIND_ARCHIVE.
include(ExternalProject)
enable_language(C)
find_program(HAZARDLAB_MAKE NAMES make gmake REQUIRED DOC "make, to build libunwind (autotools)")

set(_hl_unwind_version 1.6.2)
set(_hl_unwind_sha256 4a6aec666991fb45d0889c44aede8ad6eb108071c3554fcdff671f9c94794976)
set(_hl_unwind_hints "")
foreach(_hl_prefix IN LISTS CMAKE_PREFIX_PATH)
  list(APPEND _hl_unwind_hints "${_hl_prefix}/src")
endforeach()
find_file(HAZARDLAB_LIBUNWIND_ARCHIVE NAMES libunwind-${_hl_unwind_version}.tar.gz
          libunwind_${_hl_unwind_version}.orig.tar.gz HINTS ${_hl_unwind_hints} NO_DEFAULT_PATH
          DOC "a local copy of libunwind's ${_hl_unwind_version} release archive (else it is downloaded)")
if(HAZARDLAB_LIBUNWIND_ARCHIVE)
  set(_hl_unwind_urls "${HAZARDLAB_LIBUNWIND_ARCHIVE}")
else()
  # The same archive twice: Debian's copy of the release, then the release itself.
  set(_hl_unwind_urls
      https://deb.debian.org/debian/pool/main/libu/libunwind/libunwind_${_hl_unwind_version}.orig.tar.gz
      https://github.com/libunwind/libunwind/releases/download/v${_hl_unwind_version}/libunwind-${_hl_unwind_version}.tar.gz)
endif()

set(_hl_unwind_prefix "${CMAKE_BINARY_DIR}/_deps/libunwind")
include(ProcessorCount)
ProcessorCount(_hl_cores)
if(_hl_cores EQUAL 0)
  set(_hl_cores 2)
endif()
ExternalProject_Add(hazardlab_libunwind_build
  URL ${_hl_unwind_urls}
  URL_HASH SHA256=${_hl_unwind_sha256}
  DOWNLOAD_EXTRACT_TIMESTAMP ON
  DOWNLOAD_NO_PROGRESS ON
  PREFIX "${CMAKE_BINARY_DIR}/_deps/libunwind-build"
  INSTALL_DIR "${_hl_unwind_prefix}"
  # Only the local unwinder, position-independent; none of what would add dependencies (LZMA, zlib) or
  # export more (backtrace() as a weak alias, unwind.h).
  CONFIGURE_COMMAND <SOURCE_DIR>/configure --quiet --prefix=<INSTALL_DIR> --libdir=<INSTALL_DIR>/lib
                    --enable-static --disable-shared --with-pic --disable-minidebuginfo --disable-zlibdebuginfo
                    --disable-coredump --disable-ptrace --disable-setjmp --disable-tests --disable-documentation
                    --disable-weak-backtrace --disable-unwind-header
                    CC=${CMAKE_C_COMPILER} "CFLAGS=-O2 -fPIC"
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
