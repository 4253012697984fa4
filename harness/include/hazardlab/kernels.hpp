#pragma once
// Loads the harness's kernels on the current device now.
//
// With lazy module loading (the default since CUDA 12.2) a kernel's module is loaded at its
// first launch, and loading waits for the device to go idle. A first launch behind a closed gate
// therefore waits for the gate, and the host never gets to open it: a deadlock that only the
// gate's timeout ends. Every case calls this before it closes its first gate.
namespace hazardlab {

void load_harness_kernels();

}  // namespace hazardlab
