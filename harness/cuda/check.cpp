#include "cuda/check.hpp"

#include <cstdio>
#include <sstream>

namespace hazardlab {
namespace {
std::string format_error(cudaError_t code, const std::string& call, const std::string& file, int line) {
  std::ostringstream out;
  out << file << ':' << line << ": " << call << " failed: " << cudaGetErrorName(code) << " (" << static_cast<int>(code)
      << "): " << cudaGetErrorString(code);
  return out.str();
}
}  // namespace

CudaError::CudaError(cudaError_t code, std::string call, std::string file, int line)
    : std::runtime_error(format_error(code, call, file, line)),
      code_(code),
      call_(std::move(call)),
      file_(std::move(file)),
      line_(line) {}

bool CudaError::sticky() const noexcept { return is_sticky_error(code_); }

void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line) {
  // Clear the non-sticky error so that later calls in this process are not blamed for it.
  (void)cudaGetLastError();
  throw CudaError(code, call, file, line);
}

void warn_cuda(cudaError_t code, const char* call, const char* file, int line) noexcept {
  if (code == cudaSuccess) return;
  (void)cudaGetLastError();
  std::fprintf(stderr, "hazardlab: warning: %s:%d: %s failed during cleanup: %s: %s\n", file, line, call,
               cudaGetErrorName(code), cudaGetErrorString(code));
}

bool is_sticky_error(cudaError_t code) noexcept {
  switch (code) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorLaunchTimeout:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorECCUncorrectable:
    case cudaErrorUnknown:
      return true;
    default:
      return false;
  }
}

}  // namespace hazardlab
