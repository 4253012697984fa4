"""Races between streams on the device, in PyTorch and CuPy, for `hazardlab check`: each scenario in an unsafe
form and a guarded twin that differs from it by the one call that orders the streams.

  python3 stream_races.py SCENARIO unsafe|guarded      (python3 stream_races.py --list shows them)

  torch-wait-stream      the default stream writes a tensor behind a spin; `with torch.cuda.stream(side)` reads
                         it. Guarded: side.wait_stream(torch.cuda.current_stream()) before the read.
  torch-side-streams     one side stream writes a tensor behind a spin, a second side stream reads it. Guarded:
                         the reader's stream waits for the writer's (wait_stream).
  torch-record-stream    a side stream reads a tensor behind a spin; the tensor is deleted at once and the
                         default stream allocates a tensor of the same size (the caching allocator hands it the
                         same block) and writes it. Guarded: t.record_stream(side) before `del`.
  cupy-wait-event        CuPy: stream a writes an array behind a spin, stream b reads it. Guarded:
                         an Event recorded on a after the write, b.wait_event(event) before the read.
  cupy-pool-reuse        CuPy's memory pool: an array allocated on stream a is read on stream b behind a spin,
                         deleted, and its block reallocated on a and written. Guarded: a.wait_event(b.record())
                         before `del`.
  cupy-async-pool-reuse  the same with cupy.cuda.MemoryAsyncPool (cudaMallocAsync / cudaFreeAsync on stream a).

The spin (a kernel bounded in time, or torch.cuda._sleep with a bounded cycle count) holds the writer's stream
(or the reader's) so that an unsafe form does go wrong, not only may. Each prints one line, the same in both
forms: whether the result is right. An unsafe form exits 0 whatever it printed; a guarded form that comes out
wrong exits 1; where PyTorch or CuPy is not installed, one line naming the module, exit 77 (cannot run here)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "drivers"))
from driver_options import DriverParser  # noqa: E402
from missing_module import run_or_say_missing  # noqa: E402

N = 1 << 22  # float32 elements: 16 MiB, a block of the allocators' large pools
SPIN_MS = 50  # how long the spin holds its stream; the host issues the racing work within microseconds
SMALL = 1024  # the warm-up's tensors: the same kernels, blocks of the small pools (not the racing block)


def outcome(scenario, form, wrong, total, want):
    """One line, the same kind in both forms; 1 for a guarded form that went wrong."""
    if wrong:
        print(f"{scenario} {form}: result WRONG ({wrong} of {total} elements not {want})")
    else:
        print(f"{scenario} {form}: result right")
    return 1 if wrong and form == "guarded" else 0


# PyTorch ---------------------------------------------------------------------------------------------------


SPIN_RATE = []  # torch.cuda._sleep's cycles a millisecond, measured once


def torch_spin(torch, ms, rate=SPIN_RATE):
    """Queues about `ms` milliseconds of spinning on the current stream. torch.cuda._sleep counts clock cycles:
    the rate is measured once, on first use, and held between 0.1 and 4 cycles a nanosecond, so that the spin
    ends within a second at any clock whatever the measurement said."""
    if not rate:
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(1000)  # loads the kernel
        start.record()
        torch.cuda._sleep(10_000_000)
        end.record()
        end.synchronize()
        rate.append(min(max(10_000_000 / max(start.elapsed_time(end), 1e-3), 1e5), 4e6))  # cycles a millisecond
    torch.cuda._sleep(int(rate[0] * ms))


def torch_warm_up(torch):
    """Loads the kernels the race uses (on small tensors), so that nothing slow happens between the spin and the
    racing work, and measures the spin's rate."""
    small = torch.zeros(SMALL, device="cuda")
    small.fill_(1.0)
    (small * 2).sum().item()
    torch.empty(SMALL, device="cuda").fill_(7.0)
    torch_spin(torch, 0.01)
    torch.cuda.synchronize()


def torch_wrong(torch, got, want):
    torch.cuda.synchronize()  # every stream done: the check reads the result on the default stream
    return int((got != want).sum().item())


def torch_wait_stream(form):
    import torch
    torch_warm_up(torch)
    side = torch.cuda.Stream()
    x = torch.zeros(N, device="cuda")
    torch.cuda.synchronize()
    torch_spin(torch, SPIN_MS)  # the default stream is busy...
    x.fill_(1.0)  # ...and writes x behind the spin
    if form == "guarded":
        side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        y = x * 2  # unsafe: the side stream reads x before the default stream wrote it
    return outcome("torch-wait-stream", form, torch_wrong(torch, y, 2.0), N, 2.0)


def torch_side_streams(form):
    import torch
    torch_warm_up(torch)
    writer, reader = torch.cuda.Stream(), torch.cuda.Stream()
    x = torch.zeros(N, device="cuda")
    torch.cuda.synchronize()
    with torch.cuda.stream(writer):
        torch_spin(torch, SPIN_MS)
        x.fill_(1.0)
    if form == "guarded":
        reader.wait_stream(writer)
    with torch.cuda.stream(reader):
        y = x * 2  # unsafe: the reader's stream runs before the writer's fill
    return outcome("torch-side-streams", form, torch_wrong(torch, y, 2.0), N, 2.0)


def torch_record_stream(form):
    import torch
    torch_warm_up(torch)
    side = torch.cuda.Stream()
    t = torch.full((N,), 1.0, device="cuda")
    torch.cuda.synchronize()
    with torch.cuda.stream(side):
        torch_spin(torch, SPIN_MS)  # the side stream is busy...
        out = t * 3  # ...and reads t behind the spin
    if form == "guarded":
        t.record_stream(side)  # the allocator keeps t's block until the side stream's work so far is done
    del t  # unsafe: the block is free for the default stream at once
    u = torch.empty(N, device="cuda")  # the same size on the default stream: t's block, unless guarded
    u.fill_(7.0)  # unsafe: overwrites what the side stream has not read yet
    wrong = torch_wrong(torch, out, 3.0)
    del u
    return outcome("torch-record-stream", form, wrong, N, 3.0)


# CuPy ------------------------------------------------------------------------------------------------------

SPIN_SOURCE = r"""
extern "C" __global__ void hazardlab_spin(unsigned long long ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}
"""


def cupy_setup(async_pool=False):
    """CuPy, the bounded spin kernel (one thread on the GPU's nanosecond clock), and the kernels the race uses
    loaded on small arrays. With async_pool, allocations go through cudaMallocAsync / cudaFreeAsync."""
    import cupy
    import numpy
    if async_pool:
        cupy.cuda.set_allocator(cupy.cuda.MemoryAsyncPool().malloc)
    kernel = cupy.RawKernel(SPIN_SOURCE, "hazardlab_spin")

    def spin(ms):  # on the current stream
        kernel((1,), (1,), (numpy.uint64(int(ms * 1_000_000)),))

    small = cupy.zeros(SMALL, cupy.float32)
    small.fill(1)
    int(((small * 2) != 2).sum())
    (small * 3).fill(7)
    spin(0.01)
    del small  # freed before the synchronization (with async_pool: its cudaFreeAsync is ordered before the race)
    cupy.cuda.Device().synchronize()
    return cupy, spin


def cupy_wrong(cupy, got, want):
    cupy.cuda.Device().synchronize()  # every stream done: the check runs on the default stream
    return int((got != want).sum())


def cupy_wait_event(form):
    import numpy
    cupy, spin = cupy_setup()
    a, b = cupy.cuda.Stream(non_blocking=True), cupy.cuda.Stream(non_blocking=True)
    x = cupy.zeros(N, cupy.float32)
    cupy.cuda.Device().synchronize()
    with a:
        spin(SPIN_MS)
        # Stream a uploads x behind the spin: a copy, whose write the checker knows (CuPy's own kernels are
        # `extern "C"`, so what they write through a pointer is not known, and two of them are never a race).
        x.set(numpy.ones(N, numpy.float32))
    if form == "guarded":
        written = cupy.cuda.Event(disable_timing=True)
        written.record(a)
        b.wait_event(written)
    with b:
        y = x * 2  # unsafe: stream b reads x before stream a wrote it
    return outcome("cupy-wait-event", form, cupy_wrong(cupy, y, 2), N, 2)


def cupy_reuse(form, async_pool):
    import numpy
    name = "cupy-async-pool-reuse" if async_pool else "cupy-pool-reuse"
    cupy, spin = cupy_setup(async_pool)
    a, b = cupy.cuda.Stream(non_blocking=True), cupy.cuda.Stream(non_blocking=True)
    with a:
        t = cupy.full(N, 1, cupy.float32)  # allocated for stream a, written on it
    a.synchronize()
    with b:
        spin(SPIN_MS)
        out = t * 3  # stream b reads t behind the spin
    if form == "guarded":
        a.wait_event(b.record())  # what stream a does from now on (the free, the reuse) waits for the read
    del t  # back to stream a's pool (async_pool: cudaFreeAsync on stream a)
    with a:
        u = cupy.empty(N, cupy.float32)  # the same size on stream a: t's block
        u.set(numpy.full(N, 7, numpy.float32))  # unsafe: overwrites what stream b has not read yet (a copy)
    wrong = cupy_wrong(cupy, out, 3)
    del u
    return outcome(name, form, wrong, N, 3)


SCENARIOS = {
    "torch-wait-stream": torch_wait_stream,
    "torch-side-streams": torch_side_streams,
    "torch-record-stream": torch_record_stream,
    "cupy-wait-event": cupy_wait_event,
    "cupy-pool-reuse": lambda form: cupy_reuse(form, False),
    "cupy-async-pool-reuse": lambda form: cupy_reuse(form, True),
}

if __name__ == "__main__":
    parser = DriverParser(prog="stream_races.py", description=__doc__.splitlines()[0])
    if sys.argv[1:] == ["--list"]:
        print("\n".join(SCENARIOS))
        sys.exit(0)
    if "--list" in sys.argv[1:]:
        parser.error(f"--list takes no other arguments (given: {' '.join(sys.argv[1:])}); give --list alone, "
                     "or SCENARIO and its form")
    parser.add_argument("scenario", choices=SCENARIOS, metavar="SCENARIO")
    parser.add_argument("form", choices=("unsafe", "guarded"))
    args = parser.parse_args()
    sys.exit(run_or_say_missing("stream_races.py", lambda: SCENARIOS[args.scenario](args.form)))
