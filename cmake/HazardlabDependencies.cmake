# Third-party libraries: the system's packages first (find_package), a pinned download
# (FetchContent) only where the system lacks them. On machines without network, stage the
# packages into a prefix and pass it in CMAKE_PREFIX_PATH (`tools/deps/stage-deps --with-packages`
# stages Debian's into `.deps/`, which the presets pass). The dev preset refuses the downloads
# (FETCHCONTENT_FULLY_DISCONNECTED), so that its build, CI's, shows none of them is needed.
include(FetchContent)

FetchContent_Declare(googletest
  URL https://github.com/google/googletest/archive/refs/tags/v1.14.0.tar.gz
  URL_HASH SHA256=8ad598c73ad796e0d8280b082cebd82a630d73e73cd3c70057938a6501bba5d7
  FIND_PACKAGE_ARGS NAMES GTest)
FetchContent_Declare(rapidcheck
  GIT_REPOSITORY https://github.com/emil-e/rapidcheck.git
  GIT_TAG 08b505857e32d52a20b2240b5125d937d67a6d86
  FIND_PACKAGE_ARGS CONFIG)
FetchContent_Declare(nlohmann_json
  URL https://github.com/nlohmann/json/releases/download/v3.11.3/json.tar.xz
  URL_HASH SHA256=d6c65aca6b1ed68e7a182f4757257b107ae403032760ed6ef121c9d55e81757d
  FIND_PACKAGE_ARGS 3.10 CONFIG)
FetchContent_Declare(CLI11
  URL https://github.com/CLIUtils/CLI11/archive/refs/tags/v2.4.2.tar.gz
  FIND_PACKAGE_ARGS 2.1 CONFIG)

set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
set(gtest_force_shared_crt ON CACHE BOOL "" FORCE)
set(JSON_Install OFF CACHE BOOL "" FORCE)
set(CLI11_PRECOMPILED OFF CACHE BOOL "" FORCE)
# rapidcheck drives the guards' properties on the GPU: the CUDA-free build does not need it.
if(HAZARDLAB_WITH_CUDA)
  FetchContent_MakeAvailable(googletest rapidcheck nlohmann_json CLI11)
else()
  FetchContent_MakeAvailable(googletest nlohmann_json CLI11)
endif()

# GoogleTest found as a system package may only define the namespaced targets.
if(NOT TARGET GTest::gtest AND TARGET gtest)
  add_library(GTest::gtest ALIAS gtest)
endif()
set(_hl_deps GTest::gtest nlohmann_json::nlohmann_json CLI11::CLI11)
if(HAZARDLAB_WITH_CUDA)
  list(APPEND _hl_deps rapidcheck)
endif()
foreach(_hl_dep IN LISTS _hl_deps)
  if(NOT TARGET ${_hl_dep})
    message(FATAL_ERROR "hazardlab: dependency target ${_hl_dep} is missing after find_package/FetchContent")
  endif()
endforeach()

set(THREADS_PREFER_PTHREAD_FLAG ON)
find_package(Threads REQUIRED)
