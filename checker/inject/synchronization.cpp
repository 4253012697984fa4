// Streams and events, and what the host learns finished: stream and event creation, an event recorded on a stream
// or waited for by one, and synchronizations (a stream's, an event's, a context's), taken at the call's exit
// when it succeeded. cuEventQuery and cuStreamQuery reach their exit handlers only with CUDA_SUCCESS: the work is
// done, as after a synchronize (rule 4).
#include "checker/inject/call.hpp"
#include "checker/inject/events.hpp"
#include "checker/inject/handlers.hpp"
#include "checker/inject/session.hpp"

namespace hazardlab::check::inject {

namespace {

std::uint64_t event_key(CUevent event) { return reinterpret_cast<std::uint64_t>(event); }

void take(const Synchronized& s) {
  Checker& checker = session().checker;
  switch (s.scope) {
    case Scope::Stream: return checker.stream_synchronized(s.stream);
    case Scope::Event: return checker.event_synchronized(s.event);
    case Scope::Context: return checker.context_synchronized(s.context);
  }
}

}  // namespace

void stream_created(const Call& c) {
  const bool priority = c.is(CUPTI_DRIVER_TRACE_CBID_cuStreamCreateWithPriority);
  const CUstream s = priority ? *PARAMS(cuStreamCreateWithPriority).phStream : *PARAMS(cuStreamCreate).phStream;
  const unsigned flags = priority ? PARAMS(cuStreamCreateWithPriority).flags : PARAMS(cuStreamCreate).Flags;
  const StreamKey key{c.context(), reinterpret_cast<std::uint64_t>(s)};
  Session& in = session();
  in.core.handles.stream_created(key.handle, key);
  in.checker.stream_created(key, (flags & CU_STREAM_NON_BLOCKING) ? StreamKind::NonBlocking : StreamKind::Blocking);
}
void stream_destroyed(const Call& c) {
  session().core.handles.stream_destroyed(reinterpret_cast<std::uint64_t>(PARAMS(cuStreamDestroy_v2).hStream));
}

void event_created(const Call& c) { session().checker.event_created(event_key(*PARAMS(cuEventCreate).phEvent)); }
void event_recorded(const Call& c) {
  // cuEventRecord and cuEventRecordWithFlags: the same first two fields.
  const EventRecorded e{event_key(PARAMS(cuEventRecord).hEvent), c.stream(PARAMS(cuEventRecord).hStream)};
  session().checker.event_recorded(e.event, e.stream);
}
void stream_waited_event(const Call& c) {
  const StreamWaited w{c.stream(PARAMS(cuStreamWaitEvent).hStream), event_key(PARAMS(cuStreamWaitEvent).hEvent)};
  session().checker.stream_waited_event(w.stream, w.event);
}

void event_synchronized(const Call& c) {
  const CUevent event = c.is(CUPTI_DRIVER_TRACE_CBID_cuEventQuery) ? PARAMS(cuEventQuery).hEvent
                                                                   : PARAMS(cuEventSynchronize).hEvent;
  take(Synchronized{Scope::Event, {}, event_key(event)});
}
void stream_synchronized(const Call& c) {
  // cuStreamSynchronize and cuStreamQuery: the stream is the only field.
  take(Synchronized{Scope::Stream, c.stream(PARAMS(cuStreamSynchronize).hStream)});
}
void context_synchronized(const Call& c) {
  CUcontext ctx = nullptr;
  if (c.is(CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize_v2)) ctx = PARAMS(cuCtxSynchronize_v2).ctx;
  take(Synchronized{Scope::Context, {}, 0, ctx != nullptr ? key_of(ctx) : c.context()});
}

}  // namespace hazardlab::check::inject
