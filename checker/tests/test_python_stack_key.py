#!/usr/bin/env python3
"""A call site's Python frames are named by a key read through CPython's C API while the calling thread holds the
GIL (python_stack_identity): the same line called again has the same key, another line or another function another,
and a call that released the GIL (ctypes.CDLL) has none, so the checker takes the frames' text instead.

  test_python_stack_key.py PROBE_LIBRARY
"""
import ctypes
import sys


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    holding = ctypes.PyDLL(sys.argv[1])   # the GIL stays held, as in a PyTorch operation
    releasing = ctypes.CDLL(sys.argv[1])  # the GIL is released for the call
    for library in (holding, releasing):
        library.python_stack_key.restype = ctypes.c_ulonglong

    def here():
        return holding.python_stack_key()

    def elsewhere():
        return holding.python_stack_key()

    same = [here() for _ in range(3)]
    checks = [
        ("a key while the GIL is held", same[0] != 0),
        ("the same line three times, one key", len(set(same)) == 1),
        ("another function, another key", elsewhere() != same[0]),
        ("another line, another key", holding.python_stack_key() != same[0]),
        ("no key while the GIL is released", releasing.python_stack_key() == 0),
    ]
    for what, ok in checks:
        print(f"{'ok' if ok else 'FAIL'} {what}")
    return 0 if all(ok for _, ok in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
