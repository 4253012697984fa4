// The agreement runner's kernel, compiled apart so that its C++ (the generator and the model) is built by
// the host compiler alone.
#pragma once

#include <cuda_runtime.h>

void launch_touch(cudaStream_t stream, const unsigned char* read, unsigned char* write);
