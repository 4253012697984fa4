"""CuPy's pinned memory pool and streams under `hazardlab check`: one unsafe upload, one guarded.

  python3 cupy_hazards.py unsafe|fixed"""
import sys

import cupy
import numpy


def upload(fixed):
    n = 1 << 20
    pinned = cupy.cuda.alloc_pinned_memory(n * 4)  # from CuPy's pinned memory pool
    host = numpy.frombuffer(pinned, numpy.float32, n)
    host[:] = 1
    stream = cupy.cuda.Stream(non_blocking=True)
    device = cupy.empty(n, numpy.float32)
    device.set(host, stream=stream)  # an asynchronous upload from pinned memory
    if fixed:
        stream.synchronize()
    host[0] = 2  # the upload may not have read the buffer yet
    stream.synchronize()
    print("uploaded", float(device[1]))


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in ("unsafe", "fixed"):
        print("usage: cupy_hazards.py unsafe|fixed", file=sys.stderr)
        sys.exit(2)
    upload(sys.argv[1] == "fixed")
