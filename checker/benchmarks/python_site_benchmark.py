#!/usr/bin/env python3
"""What naming a call site's Python frames costs, at a few stack depths: as text (CPython's traceback writer into a
pipe, a write per token: what every watched copy and every launch on a multi-stream program paid) and as a key read
through the C API while the GIL is held (what they pay now, the text taken only for a site seen the first time).
Prints microseconds per capture; a benchmark, it asserts nothing about time.

  python_site_benchmark.py PROBE_LIBRARY   (the python-stack-probe library of checker/tests)
"""
import ctypes
import sys


def at_depth(depth, call):
    return at_depth(depth - 1, call) if depth > 0 else call()


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    probe = ctypes.PyDLL(sys.argv[1])
    probe.ns_per_python_capture.restype = ctypes.c_double
    probe.ns_per_python_capture.argtypes = [ctypes.c_int, ctypes.c_int]
    print("frames  text_us  key_us  text/key")
    for depth in (5, 20, 40):
        text = at_depth(depth, lambda: probe.ns_per_python_capture(0, 2000)) / 1000
        key = at_depth(depth, lambda: probe.ns_per_python_capture(1, 20000)) / 1000
        print(f"{depth + 3:6d}  {text:7.2f}  {key:6.2f}  {text / key:8.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
