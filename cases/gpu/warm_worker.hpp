#pragma once
// A warm worker per GPU: the cases of one ctest run on one GPU run one after another in a process
// that has already paid for the CUDA driver and context (about 0.35 s per process on an H100,
// a third of the default run), while keeping what a process per case guaranteed.
//
// - The first case's client starts a supervisor (no CUDA) that forks the worker; later clients of
//   the same ctest run, GPU, binary and settings reach it through a local socket.
// - A client hands over its request and its own stdout and stderr, so the case prints into that
//   client's ctest log, and exits with the case's status.
// - The worker retires after any case that is not a pass or a skip and after any case that leaves
//   a CUDA error; the next case gets a fresh process. A worker that dies mid-case fails that case
//   (its crash marker stays recorded), with the signal named; a client that ctest kills on its
//   timeout takes the worker down with it. Nothing else is shared.
// - The supervisor goes when the ctest that started it does, or after two idle minutes.
#include <functional>
#include <optional>
#include <string>

namespace hazardlab::warm {

struct CaseRequest {
  std::string device;
  std::string hazard;
  std::string variant;
};

struct CaseReply {
  int exit_code = 1;
  bool retire = false;  // the process must not take another case
};

// Runs in the worker process: one case, printing to stdout and stderr.
using CaseRunner = std::function<CaseReply(const CaseRequest&)>;

// The case's exit status from this GPU's warm worker, started if needed. std::nullopt, with the
// reason in `why_not`, when no worker could be reached and the case was not started: the caller
// then runs it in its own process.
std::optional<int> run_in_worker(const CaseRequest& request, const CaseRunner& runner, std::string& why_not);

}  // namespace hazardlab::warm
