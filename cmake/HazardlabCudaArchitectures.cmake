# Chooses CMAKE_CUDA_ARCHITECTURES when the user did not:
# - the compute capabilities of the GPUs that nvidia-smi reports on this machine, or
# - without a visible GPU, a list that covers every architecture nvcc 13 still targets (Turing
#   and newer), real code for each plus PTX for the newest so future GPUs can JIT it.
if(DEFINED CMAKE_CUDA_ARCHITECTURES OR DEFINED ENV{CUDAARCHS})
  return()
endif()

set(_hl_portable_archs 75-real 80-real 86-real 89-real 90-real 100-real 120)
find_program(HAZARDLAB_NVIDIA_SMI nvidia-smi)
set(_hl_detected "")
if(HAZARDLAB_NVIDIA_SMI)
  execute_process(COMMAND ${HAZARDLAB_NVIDIA_SMI} --query-gpu=compute_cap --format=csv,noheader
                  OUTPUT_VARIABLE _hl_caps RESULT_VARIABLE _hl_rc ERROR_QUIET TIMEOUT 20)
  if(_hl_rc EQUAL 0)
    string(REPLACE "\n" ";" _hl_caps "${_hl_caps}")
    foreach(_cap IN LISTS _hl_caps)
      string(STRIP "${_cap}" _cap)
      if(_cap MATCHES "^([0-9]+)\\.([0-9]+)$")
        list(APPEND _hl_detected "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
      endif()
    endforeach()
    list(REMOVE_DUPLICATES _hl_detected)
  endif()
endif()

if(_hl_detected)
  set(CMAKE_CUDA_ARCHITECTURES ${_hl_detected} CACHE STRING "CUDA architectures (detected GPUs)")
  message(STATUS "hazardlab: building for the GPUs on this machine: ${_hl_detected}")
else()
  set(CMAKE_CUDA_ARCHITECTURES ${_hl_portable_archs} CACHE STRING "CUDA architectures (no GPU detected)")
  message(STATUS "hazardlab: no GPU detected; building for ${_hl_portable_archs}")
endif()
