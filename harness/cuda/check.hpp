#pragma once
// Every CUDA runtime call goes through HL_CUDA; every kernel launch is followed by
// HL_CUDA_LAUNCHED. A failure becomes a CudaError that names the call, file and line.
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace hazardlab {

class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, std::string call, std::string file, int line);
  cudaError_t code() const noexcept { return code_; }
  const std::string& call() const noexcept { return call_; }
  const std::string& file() const noexcept { return file_; }
  int line() const noexcept { return line_; }
  // True when the error corrupted the context: every later call in this process fails too.
  bool sticky() const noexcept;

 private:
  cudaError_t code_;
  std::string call_;
  std::string file_;
  int line_;
};

[[noreturn]] void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line);

inline void check_cuda(cudaError_t code, const char* call, const char* file, int line) {
  if (code != cudaSuccess) throw_cuda_error(code, call, file, line);
}

// For destructors, which must not throw: prints the failure and carries on.
void warn_cuda(cudaError_t code, const char* call, const char* file, int line) noexcept;

// Errors after which the CUDA context is unusable (CUDA Runtime API, cudaError_t).
bool is_sticky_error(cudaError_t code) noexcept;

}  // namespace hazardlab

#define HL_CUDA(call) ::hazardlab::check_cuda((call), #call, __FILE__, __LINE__)
#define HL_CUDA_WARN(call) ::hazardlab::warn_cuda((call), #call, __FILE__, __LINE__)
// Launch errors (bad configuration, no kernel image for this GPU) are reported by
// cudaGetLastError, not by the launch statement itself.
#define HL_CUDA_LAUNCHED(kernel_name) \
  ::hazardlab::check_cuda(cudaGetLastError(), "launch of " kernel_name, __FILE__, __LINE__)
