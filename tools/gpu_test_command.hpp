#pragma once
// `hazardlab gpu-test [--all-gpus] -- PROGRAM [ARGS...]`: how a test registered with hazardlab_add_gpu_test
// (cmake/HazardlabTesting.cmake) runs. It reads the GPU ctest's resource allocation gave the test
// (harness/plan/gpu_resources.hpp), shows the program that GPU alone (CUDA_VISIBLE_DEVICES, GPUs numbered in
// PCI bus order as the plan numbers them) and becomes the program. Where the plan found no GPU it exits 77
// (ctest's skip) without running the program, or 1 when HAZARDLAB_REQUIRE_GPU=1. --all-gpus: the program sees
// every GPU (ctest runs such a test alone). Without resource allocation (the command run by hand) the program
// runs as it is.
namespace hazardlab {
int gpu_test_main(int argc, char** argv);
}
