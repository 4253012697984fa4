"""The PyTorch tutorial's transfer hazards and their fixes, one per command-line argument, for `hazardlab check`.

  python3 tutorial_hazards.py CASE      (python3 tutorial_hazards.py --list shows them)

No timing tricks: whether the race goes wrong this time does not matter to the checker."""
import sys

import torch

N = 1 << 20


def pinned_mutated_after_upload(fixed):
    t = torch.ones(N, pin_memory=True)
    d = t.to("cuda", non_blocking=True)
    if fixed:
        torch.cuda.current_stream().synchronize()
    t.add_(1)  # the upload may not have read t yet
    torch.cuda.synchronize()
    return d


def readback_read_early(fixed):
    d = torch.ones(N, device="cuda")
    h = d.to("cpu", non_blocking=True)
    if fixed:
        torch.cuda.synchronize()
    return float(h[7])  # the copy may not have landed


def copy_into_pinned_read_early(fixed):
    d = torch.full((N,), 3.0, device="cuda")
    h = torch.empty(N, pin_memory=True)
    h.copy_(d, non_blocking=True)
    if fixed:
        e = torch.cuda.Event()
        e.record()
        while not e.query():
            pass
    return float(h[11])


def event_synchronize(fixed):
    d = torch.ones(N, device="cuda")
    h = d.to("cpu", non_blocking=True)
    e = torch.cuda.Event()
    e.record()
    if fixed:
        e.synchronize()
    return float(h[0])


def side_stream_wait_stream(fixed):
    # Two halves: the readback on the side stream must wait for the default stream's fill of `d` (the device's
    # half: wait_stream), and the host must wait for the readback before it reads `h` (the host's half).
    side = torch.cuda.Stream()
    d = torch.ones(N, device="cuda")
    if fixed:
        side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        h = d.to("cpu", non_blocking=True)
    if fixed:
        side.synchronize()
    return float(h[5])


def wait_stream(fixed):
    # The readback runs on a side stream; the default stream waits for it (an event and a stream wait), and the
    # host synchronizes the default stream: ordered through the chain.
    side = torch.cuda.Stream()
    d = torch.ones(N, device="cuda")
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        h = d.to("cpu", non_blocking=True)
    if fixed:
        torch.cuda.current_stream().wait_stream(side)
    torch.cuda.current_stream().synchronize()
    return float(h[9])


def function_scoped_pin_memory(fixed):
    # The pattern counted in open-source projects: the pinned tensor goes out of scope at once. PyTorch's
    # caching host allocator keeps the block until an event says the copy is done.
    def load():
        return torch.ones(N).pin_memory().cuda(non_blocking=True)
    out = [load() for _ in range(8)]
    torch.cuda.synchronize()
    return out


CASES = {
    "pinned-mutated-after-upload": pinned_mutated_after_upload,
    "readback-read-early": readback_read_early,
    "copy-into-pinned-read-early": copy_into_pinned_read_early,
    "event-synchronize": event_synchronize,
    "side-stream": side_stream_wait_stream,
    "wait-stream": wait_stream,
    "function-scoped-pin-memory": function_scoped_pin_memory,
}

if __name__ == "__main__":
    if len(sys.argv) == 2 and sys.argv[1] == "--list":
        for name in CASES:
            print(name)
        sys.exit(0)
    if len(sys.argv) != 3 or sys.argv[1] not in CASES or sys.argv[2] not in ("unsafe", "fixed"):
        print("usage: tutorial_hazards.py CASE unsafe|fixed (--list shows the cases)", file=sys.stderr)
        sys.exit(2)
    CASES[sys.argv[1]](sys.argv[2] == "fixed")
    print(sys.argv[1], sys.argv[2], "ran")
