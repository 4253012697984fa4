#!/usr/bin/env python3
"""What naming a call site's Python frames costs, at a few stack depths: as text (CPython's traceback writer into a
pipe, a write per token: what every watched copy and every launch on a multi-stream program paid) and as a key read
through the C API while the GIL is held (what they pay now, the text taken only for a site seen the first time).
Prints microseconds per capture; a benchmark, it asserts nothing about time.

  python_site_benchmark.py PROBE_LIBRARY [--captures N]   (the python-stack-probe library of checker/tests)
"""
import ctypes
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "drivers"))
from driver_options import DriverParser, input_file, whole_number  # noqa: E402


def in_code(address):
    """Whether `address` lies in a mapping this process may execute (/proc/self/maps): a data symbol of the name,
    called, would crash the interpreter. Where there is no /proc (not Linux), it is taken as code."""
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                span, permissions = line.split()[:2]
                low, high = (int(end, 16) for end in span.split("-"))
                if low <= address < high:
                    return "x" in permissions
    except OSError:
        return True
    return False


def at_depth(depth, call):
    return at_depth(depth - 1, call) if depth > 0 else call()


def main():
    parser = DriverParser(prog="python_site_benchmark.py", description=__doc__.splitlines()[0])
    parser.add_argument("probe_library", type=input_file)
    parser.add_argument("--captures", type=whole_number(10, 1000000), default=2000)
    args = parser.parse_args()
    expected = "expected the python-stack-probe library of checker/tests (a shared library with ns_per_python_capture)"
    try:
        probe = ctypes.PyDLL(os.path.abspath(args.probe_library))  # a path: never a name the loader looks up
    except OSError as e:
        parser.refuse(f"probe_library '{args.probe_library}' cannot be loaded ({e}); {expected}")
    if not hasattr(probe, "ns_per_python_capture"):
        parser.refuse(f"probe_library '{args.probe_library}' has no function ns_per_python_capture; {expected}")
    if not in_code(ctypes.cast(probe.ns_per_python_capture, ctypes.c_void_p).value):
        parser.refuse(f"probe_library '{args.probe_library}': ns_per_python_capture is data, not a function (calling "
                      f"it would crash); {expected}")
    probe.ns_per_python_capture.restype = ctypes.c_double
    probe.ns_per_python_capture.argtypes = [ctypes.c_int, ctypes.c_int]
    rows = []  # printed once every figure is a time: a probe that gives none is refused before any row
    for depth in (5, 20, 40):
        text = at_depth(depth, lambda: probe.ns_per_python_capture(0, args.captures)) / 1000
        key = at_depth(depth, lambda: probe.ns_per_python_capture(1, 10 * args.captures)) / 1000
        if not all(math.isfinite(figure) and figure > 0 for figure in (text, key)):
            parser.refuse(f"probe_library '{args.probe_library}': ns_per_python_capture gave {text * 1000!r} and "
                          f"{key * 1000!r} ns at {depth + 3} frames, not a time (a positive, finite number); {expected}")
        rows.append(f"{depth + 3:6d}  {text:7.2f}  {key:6.2f}  {text / key:8.1f}")
    print("\n".join(["frames  text_us  key_us  text/key"] + rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
