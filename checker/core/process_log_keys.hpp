// The process log's format, named once for its writer (process_log.cpp) and its reader (process_log_reader.cpp):
// each record kind's name and each key. Internal to checker/core.
#pragma once

#include "checker/core/finding.hpp"

namespace hazardlab::check::process_log_format {

// Each record kind's name and each key, declared once for the writer and the reader (the JSON report's
// finding uses the same keys, and adds the sentences the launcher derives).
constexpr const char* kProcess = "process";
constexpr const char* kNote = "note";
constexpr const char* kFinding = "finding";
constexpr const char* kSummary = "summary";
constexpr const char* kProgress = "progress";
constexpr const char* kProtection = "protection";
namespace key {
constexpr const char *type = "type", *pid = "pid", *parent = "parent", *program = "program", *watching = "watching",
                     *not_watching_because = "not_watching_because", *text = "text", *finding = "finding",
                     *copy_stack = "copy_stack", *access_stack = "access_stack", *copy_python = "copy_python",
                     *access_python = "access_python", *stats = "stats", *driver_calls = "driver_calls",
                     *access_python_of_main_thread = "access_python_of_main_thread", *backend = "backend", *why = "why",
                     *rank = "rank";
// A frame, a Python frame, a finding, its copy, a deviation it relies on, the counts.
constexpr const char *module = "module", *offset = "offset", *function = "function", *location = "location",
                     *file = "file", *line = "line";
constexpr const char *kind = "kind", *copy = "copy", *id = "id", *api = "api", *stream = "stream",
                     *stream_kind = "stream_kind", *host_end = "host_end", *host_begin = "host_begin", *bytes = "bytes",
                     *memory = "memory", *graph_node = "graph_node", *site = "site", *address = "address",
                     *access_site = "access_site", *thread = "thread", *relies_on = "relies_on", *name = "name";
constexpr const char *copies_watched = "copies_watched", *pageable_d2h_async = "pageable_d2h_async",
                     *findings = "findings", *occurrences = "occurrences", *neighbour_faults = "neighbour_faults",
                     *copies_sampled_out = "copies_sampled_out";
// A race between two items of device work.
constexpr const char *race = "race", *earlier = "earlier", *later = "later", *work = "work", *access = "access",
                     *kernel = "kernel", *python = "python", *source = "source";
// A kernel's hold on managed memory: what was queued behind the kernel before the access (written only when any).
constexpr const char* queued_behind = "queued_behind";
}  // namespace key

// The words a finding's enumerations are written as, in the order the reader accepts them.
constexpr FindingKind kFindingKinds[] = {FindingKind::HostWroteCopySource, FindingKind::HostReadCopyDestination,
                                         FindingKind::HostWroteCopyDestination, FindingKind::FreedWhileCopyOwns,
                                         FindingKind::UnregisteredWhileCopyOwns, FindingKind::DeviceWorkRace};
constexpr DeviceWorkKind kDeviceWorkKinds[] = {DeviceWorkKind::Copy, DeviceWorkKind::Memset, DeviceWorkKind::Kernel,
                                               DeviceWorkKind::FreeAsync};
constexpr DeviceAccessKind kDeviceAccessKinds[] = {DeviceAccessKind::Read, DeviceAccessKind::Write,
                                                   DeviceAccessKind::MayWrite};
constexpr RangeSource kRangeSources[] = {RangeSource::Named, RangeSource::Recorded, RangeSource::PointedElement,
                                         RangeSource::ReadFromPtx};
constexpr PinnedKind kPinnedKinds[] = {PinnedKind::HostAlloc, PinnedKind::WriteCombined, PinnedKind::Registered,
                                       PinnedKind::Managed};
constexpr QueuedBehindKernel kQueuedBehindKernel[] = {QueuedBehindKernel::PrefetchToHost, QueuedBehindKernel::StreamAttach};

constexpr conformance::StreamKind kStreamKinds[] = {conformance::StreamKind::Legacy, conformance::StreamKind::Blocking,
                                                    conformance::StreamKind::NonBlocking};

}  // namespace hazardlab::check::process_log_format
