#!/usr/bin/env python3
"""Command lines a person types, with the real tools and no GPU: numbers are read in decimal everywhere, the words
after the program are the program's, and the checker's settings are judged by their declarations.

  test_command_line.py HAZARDLAB

Each check is one command and what it must end with; exit 0 when every one held."""
import os
import subprocess
import sys
import tempfile

failures = []


def expect(condition, what):
    print(("ok   " if condition else "FAIL ") + what)
    if not condition:
        failures.append(what)


def run(command, env=None):
    done = subprocess.run([str(c) for c in command], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(env or {})})
    return done.returncode, done.stdout + done.stderr


def main(tool):
    with tempfile.TemporaryDirectory() as work:
        # A program that says what it was given: its arguments and the checker's setting it inherited.
        said = os.path.join(work, "said")
        program = os.path.join(work, "program")
        with open(program, "w") as f:
            f.write(f'#!/bin/sh\nprintf "%s|" "$@" > {said}\necho "sample=$HL_CHECK_SAMPLE" >> {said}\n')
        os.chmod(program, 0o755)

        def program_saw():
            with open(said) as f:
                return f.read().strip()

        # Numbers: decimal, whatever CLI11's own conversion would make of a leading zero. Without a GPU nothing is
        # watched, so the check ends with --unchecked-exitcode.
        rc, out = run([tool, "check", "--unchecked-exitcode", "077", "--", "true"])
        expect(rc == 77, f"--unchecked-exitcode 077 exits 77, not octal 63 (exited {rc})")
        rc, out = run([tool, "check", "--error-exitcode", "011", "--unchecked-exitcode", "010", "true"])
        expect(rc == 10, f"--unchecked-exitcode 010 exits 10 (exited {rc})")
        rc, out = run([tool, "check", "--sample", "010", "--", program])
        expect(program_saw() == "|sample=10", f"--sample 010 watches one copy in 10: the program saw {program_saw()!r}")
        for bad in ("0x10", "1e1", "+8", "8 ", "0"):
            rc, out = run([tool, "check", "--sample", bad, "--", "true"])
            expect(rc == 2 and f"'{bad}' is not allowed" in out, f"--sample {bad!r} is refused with exit 2 ({rc})")

        # Options after the program are the program's; before it (or before --), the checker's.
        rc, out = run([tool, "check", program, "--sample", "5"])
        expect(program_saw() == "--sample|5|sample=", f"PROGRAM --sample 5 gives --sample 5 to the program: "
                                                      f"{program_saw()!r}")
        rc, out = run([tool, "check", "--sample", "5", program, "--", "--json"])
        expect(program_saw() == "--|--json|sample=5", f"--sample 5 PROGRAM -- --json: {program_saw()!r}")
        rc, out = run([tool, "check", "--", program, "--unchecked-exitcode", "9"])
        expect(rc == 67 and program_saw() == "--unchecked-exitcode|9|sample=", f"-- PROGRAM OPTIONS ({rc})")
        rc, out = run([tool, "check", "--smaple", "5", program])
        expect(rc == 2 and "'--smaple' is not an option of hazardlab check" in out,
               f"a mistyped option before the program is refused, never run as the program ({rc}): {out}")
        for command in ([tool, "check"], [tool, "check", "--"], [tool, "check", "--sample", "5"]):
            rc, out = run(command)
            expect(rc == 2 and "no program to check" in out, f"{command[1:]} names no program: exit 2 ({rc})")

        # A flag given on the command line, either way, wins over the HL_CHECK_* setting the program would inherit (as
        # --protection does): off, the setting is not handed over at all (its default); not given, the environment's
        # stands.
        flags = os.path.join(work, "flags")
        with open(flags, "w") as f:
            f.write(f'#!/bin/sh\necho "$HL_CHECK_EVERY_OCCURRENCE $HL_CHECK_KERNELS_OWN_MAPPED_MEMORY" > {said}\n')
        os.chmod(flags, 0o755)
        both_on = {"HL_CHECK_EVERY_OCCURRENCE": "1", "HL_CHECK_KERNELS_OWN_MAPPED_MEMORY": "1"}
        run([tool, "check", "--every-occurrence=false", "--kernels-own-mapped-memory=false", "--", flags], both_on)
        expect(program_saw() == "", f"--every-occurrence=false and --kernels-own-mapped-memory=false win over the "
                                       f"environment's 1: the program saw {program_saw()!r}")
        run([tool, "check", "--", flags], both_on)
        expect(program_saw() == "1 1", f"not given, the environment's settings stand: {program_saw()!r}")
        run([tool, "check", "--every-occurrence", "--", flags])
        expect(program_saw() == "1", f"--every-occurrence alone: {program_saw()!r}")
        # A flag's value is true or false (1 or 0): CLI11 alone would take any number as true.
        for word in ("--every-occurrence=2", "--kernels-own-mapped-memory=maybe", "--every-occurrence=TRUE"):
            value = word.split("=")[1]
            rc, out = run([tool, "check", word, "--", "true"])
            expect(rc == 2 and f"'{value}' is not allowed; expected true or false" in out,
                   f"{word} is refused with exit 2 ({rc}): {out.strip()[-200:]}")
        # --source-root says where SARIF's paths start: without --sarif it would do nothing.
        for root in (work, os.path.join(work, "missing")):
            rc, out = run([tool, "check", "--source-root", root, "--", "true"])
            expect(rc == 2 and "--source-root" in out and "without --sarif" in out,
                   f"--source-root {root} without --sarif is refused ({rc}): {out.strip()[-200:]}")

        # The checker's settings, judged as every setting is: by `hazardlab settings`, under HAZARDLAB_STRICT=1,
        # and by `hazardlab check` before the program runs.
        rc, out = run([tool, "settings"], {"HL_CHECK_PROTECTION": "bogus"})
        expect(rc == 2 and "HL_CHECK_PROTECTION='bogus'" in out, f"settings with HL_CHECK_PROTECTION=bogus ({rc})")
        rc, out = run([tool, "settings"], {"HL_CHECK_SAMPLE": "010"})
        expect(rc == 0, f"settings with HL_CHECK_SAMPLE=010 ({rc}): {out}")
        rc, out = run([tool, "settings"], {"HL_CHECK_SAMPLE": "0x10"})
        expect(rc == 2 and "HL_CHECK_SAMPLE='0x10'" in out, f"settings with HL_CHECK_SAMPLE=0x10 ({rc})")
        rc, out = run([tool, "settings"], {"HL_CHECK_SAMPEL": "8"})
        expect(rc == 0 and "did you mean HL_CHECK_SAMPLE" in out, f"a misspelt checker setting is a warning ({rc})")
        rc, out = run([tool, "settings"], {"HL_CHECK_SAMPEL": "8", "HAZARDLAB_STRICT": "1"})
        expect(rc == 2 and "HL_CHECK_SAMPEL" in out, f"...and an error under HAZARDLAB_STRICT=1 ({rc})")
        rc, out = run([tool, "check", "--", program], {"HL_CHECK_SAMPEL": "8"})
        expect(rc == 2 and "did you mean HL_CHECK_SAMPLE" in out, f"check refuses a misspelt checker setting ({rc})")
        # `hazardlab findings`: anything but a process log is refused with exit 2, naming the file and the line;
        # a FIFO or a device before anything is read (a FIFO would block for ever), and one log given twice.
        log = os.path.join(work, "process-5.jsonl")
        header = '{"type":"process","pid":5,"parent":1,"program":"p","watching":true,"not_watching_because":""}\n'
        with open(log, "w") as f:
            f.write(header)
        fifo = os.path.join(work, "fifo")
        os.mkfifo(fifo)
        for name, content, says in (("empty", "", "is empty: no process header"),
                                    ("random", "\x00\x17garbage\n", "line 1: not a JSON object"),
                                    ("noheader", '{"type":"note","text":"x"}\n', "line 1: a \"note\" record before"),
                                    ("twice", header + header, "line 2: a second process header"),
                                    ("badvalue", header + '{"type":"progress","driver_calls":"x"}\n',
                                     "line 2: driver_calls: expected a whole number")):
            path = os.path.join(work, name)
            with open(path, "w") as f:
                f.write(content)
            rc, out = run([tool, "findings", path])
            expect(rc == 2 and f"{path}: {says}" in out, f"findings refuses {name} with exit 2 ({rc}): {out.strip()}")
        for path, says in ((fifo, "is a FIFO"), ("/dev/zero", "is a character device"), (work, "is a folder")):
            rc, out = run([tool, "findings", path])
            expect(rc == 2 and says in out, f"findings refuses {path} before reading it ({rc}): {out.strip()}")
        rc, out = run([tool, "findings", log, os.path.join(work, ".", "process-5.jsonl")])
        expect(rc == 2 and "the same file as" in out, f"findings refuses one log given twice ({rc}): {out.strip()}")
        rc, out = run([tool, "findings", log])
        expect(rc == 0 and '"pid":5' in out, f"findings reads a log ({rc}): {out.strip()}")
        rc, out = run([tool, "findings", ""])
        expect(rc == 2 and "path is empty" in out, f"findings refuses an empty path, saying so ({rc}): {out.strip()}")
        # session-start: a run id whose folder is there already is refused (exit 2) before the lock is touched, a
        # stale one included; a run id of a hidden folder never names a run.
        root = os.path.join(work, "results")
        start = [tool, "session-start", "--results-root", root, "--run-id", "r-1", "--owner-pid", "999999999"]

        def lock_text():
            path = os.path.join(root, "lock")
            return open(path).read() if os.path.exists(path) else None

        rc, out = run(start)
        lock = lock_text()
        rc, out = run(start[:-1] + ["999999998"])
        expect(rc == 2 and "exists already" in out and lock is not None and lock_text() == lock,
               f"session-start refuses a run id whose folder exists, its lock untouched ({rc}): {out.strip()}")
        rc, out = run([tool, "session-start", "--results-root", root, "--run-id", ".hidden", "--owner-pid", "1"])
        expect(rc == 2 and "--run-id '.hidden'" in out and not os.path.exists(os.path.join(root, "runs", ".hidden")),
               f"session-start refuses a run id starting with '.' ({rc}): {out.strip()}")
        # A race of two reads, or of one item with itself, is no finding the checker writes: refused, naming the line.
        work_item = '{"api":"cuLaunchKernel","stream":85,"stream_kind":"non-blocking","work":"kernel","access":"%s","kernel":"k","source":"pointed-element"}'
        race = ('{"type":"finding","finding":{"kind":"device-work-race","copy":{"id":1,"api":"cuLaunchKernel","stream":85,'
                '"stream_kind":"non-blocking","host_end":"source","host_begin":0,"bytes":4,"memory":"pinned",'
                '"graph_node":false,"site":%d},"address":0,"offset":0,"access_site":7,"thread":1,"relies_on":[],'
                '"race":{"earlier":%s,"later":%s,"python":false}},"copy_stack":[],"access_stack":[]}\n')
        for name, line, says in (("reads", race % (3, work_item % "read", work_item % "read"), "two reads do not race"),
                                 ("itself", race % (7, work_item % "write", work_item % "write"),
                                  "work does not race with itself")):
            path = os.path.join(work, f"race-{name}.jsonl")
            with open(path, "w") as f:
                f.write(header + line)
            rc, out = run([tool, "findings", path])
            expect(rc == 2 and f"{path}: line 2" in out and says in out,
                   f"findings refuses a race of {name} ({rc}): {out.strip()[-300:]}")
        # A value left out: the next word is an option (or --), never taken for a file or folder name.
        report_tool = os.path.join(os.path.dirname(tool), "hazardlab-report")
        for command, says in (([tool, "check", "--json", "--", "true"], "--json '--'"),
                              ([tool, "check", "--json", "--markdown", "m2.md", "--", "true"], "--json '--markdown'"),
                              ([report_tool, "--run", work, "--out", "--"], "--out '--'")):
            rc, out = run(command)
            expect(rc == 2 and says in out and "is not allowed" in out and not os.path.exists("--"),
                   f"{' '.join(command[1:])} is refused naming the option ({rc}): {out.strip()[-300:]}")
        # A flag given twice is a slip of one or the other, as a valued option given twice is.
        for command, flag in (([tool, "check", "--ptx-footprints=true", "--ptx-footprints=false", "--", "true"],
                               "--ptx-footprints"),
                              ([tool, "check", "--ptx-footprints", "--ptx-footprints", "--", "true"], "--ptx-footprints"),
                              ([tool, "gpu-test", "--all-gpus", "--all-gpus", "--", "true"], "--all-gpus"),
                              ([tool, "devices", "--json", "--json"], "--json")):
            rc, out = run(command)
            expect(rc == 2 and f"{flag} is given 2 times" in out,
                   f"{' '.join(command[1:])} is refused ({rc}): {out.strip()[-300:]}")
        # A bad setting is judged even where an option overrides it.
        for command in ([tool, "report"], [report_tool]):
            rc, out = run(command + ["--run", work, "--out", os.path.join(work, "x"), "--prometheus", work],
                          {"HAZARDLAB_PROMETHEUS_DIR": "/nonexist"})
            expect(rc == 2 and "HAZARDLAB_PROMETHEUS_DIR='/nonexist' is not a folder" in out,
                   f"{os.path.basename(command[0])} refuses a bad HAZARDLAB_PROMETHEUS_DIR beside --prometheus ({rc})")
        # The soak's settings are judged against the profile where a profile is run, and left alone elsewhere.
        rc, out = run([tool, "run", "--results-root", os.path.join(work, "r"), "--reports-dir", os.path.join(work, "p")],
                      {"HAZARDLAB_SOAK_INJECT_FAULT": "1"})
        expect(rc == 2 and "HAZARDLAB_SOAK_INJECT_FAULT='1' applies only to the soak or health profile" in out
               and not os.path.exists(os.path.join(work, "r")), f"run refuses an injected fault under validation ({rc})")
        rc, out = run([tool, "list"], {"HAZARDLAB_SOAK_DURATION": "10m"})
        expect(rc == 0, f"list, which runs no profile, takes HAZARDLAB_SOAK_DURATION as check and report do ({rc})")
        # The run folder is the run's own to hand its cases: one set by hand is refused, never replaced.
        rc, out = run([tool, "run", "--results-root", os.path.join(work, "r"), "--reports-dir", os.path.join(work, "p")],
                      {"HAZARDLAB_RUN_DIR": os.path.join(work, "mine")})
        expect(rc == 2 and "HAZARDLAB_RUN_DIR=" in out and not os.path.exists(os.path.join(work, "r")),
               f"run refuses a hand-set HAZARDLAB_RUN_DIR ({rc})")
        rc, out = run([tool, "--version"])
        expect(rc == 0 and out.strip() and out.split()[0][0].isdigit(), f"--version prints the version ({rc}): {out!r}")
    print(f"{len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
