#!/usr/bin/env python3
"""A host access on a thread that never ran Python (a PyTorch intra-op worker) is named by the main thread's Python
line, taken once the main thread sleeps: here it runs 30 ms first, then joins the worker, as a parallel operation's
main thread runs its share and then waits. The frames must name this file's calling line, said to be the main
thread's. Without the wait for the main thread to sleep, the worker finds it running and takes nothing.

  test_python_stack_wait.py PROBE_LIBRARY
"""
import ctypes
import sys


def call_probe(probe, busy_ms):
    out = ctypes.create_string_buffer(16384)
    of_main = probe.take_stack_while_main_thread_is_busy(busy_ms, out, len(out))  # THE CALLING LINE
    return of_main, out.value.decode(errors="replace")


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    probe = ctypes.PyDLL(sys.argv[1])  # PyDLL: the GIL stays held during the call, as in a PyTorch operation
    probe.take_stack_while_main_thread_is_busy.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int]
    line = next(i for i, text in enumerate(open(__file__), 1) if "# THE CALLING LINE" in text and "probe." in text)
    failures = 0
    for busy_ms in (0, 30):
        of_main, frames = call_probe(probe, busy_ms)
        wanted = f'line {line} in call_probe'
        ok = of_main == 1 and wanted in frames
        print(f"{'ok' if ok else 'FAIL'} main thread busy {busy_ms} ms: said to be the main thread's: {bool(of_main)}; "
              f"frames name {wanted!r}: {wanted in frames}")
        if not ok:
            print(frames or "(no frames)")
            failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
