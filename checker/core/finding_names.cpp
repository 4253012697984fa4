// The words the reports and the process log use for a finding's enumerations.
#include "checker/core/finding.hpp"

namespace hazardlab::check {

std::string_view to_string(FindingKind kind) {
  switch (kind) {
    case FindingKind::HostWroteCopySource: return "host-wrote-copy-source";
    case FindingKind::HostReadCopyDestination: return "host-read-copy-destination";
    case FindingKind::HostWroteCopyDestination: return "host-wrote-copy-destination";
    case FindingKind::FreedWhileCopyOwns: return "freed-while-copy-owns";
    case FindingKind::UnregisteredWhileCopyOwns: return "unregistered-while-copy-owns";
    case FindingKind::DeviceWorkRace: return "device-work-race";
  }
  return "?";
}

std::string_view to_string(DeviceAccessKind kind) {
  switch (kind) {
    case DeviceAccessKind::Read: return "read";
    case DeviceAccessKind::Write: return "write";
    case DeviceAccessKind::MayWrite: return "may-write";
  }
  return "?";
}

std::string_view to_string(DeviceWorkKind kind) {
  switch (kind) {
    case DeviceWorkKind::Copy: return "copy";
    case DeviceWorkKind::Memset: return "memset";
    case DeviceWorkKind::Kernel: return "kernel";
    case DeviceWorkKind::FreeAsync: return "free";
  }
  return "?";
}

std::string_view to_string(RangeSource source) {
  switch (source) {
    case RangeSource::Named: return "named";
    case RangeSource::Recorded: return "recorded";
    case RangeSource::PointedElement: return "pointed-element";
    case RangeSource::ReadFromPtx: return "ptx";
  }
  return "?";
}

std::string_view to_string(PinnedKind kind) {
  switch (kind) {
    case PinnedKind::HostAlloc: return "pinned";
    case PinnedKind::WriteCombined: return "pinned write-combined";
    case PinnedKind::Registered: return "registered";
    case PinnedKind::Managed: return "managed";
  }
  return "?";
}

std::string_view to_string(QueuedBehindKernel queued) {
  switch (queued) {
    case QueuedBehindKernel::Nothing: return "";
    case QueuedBehindKernel::PrefetchToHost: return "prefetch-to-host";
    case QueuedBehindKernel::StreamAttach: return "stream-attach";
  }
  return "?";
}

std::string_view to_string(conformance::StreamKind kind) {
  switch (kind) {
    case conformance::StreamKind::Legacy: return "legacy";
    case conformance::StreamKind::Blocking: return "blocking";
    case conformance::StreamKind::NonBlocking: return "non-blocking";
  }
  return "?";
}

}  // namespace hazardlab::check
