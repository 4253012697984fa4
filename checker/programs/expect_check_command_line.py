"""expect_check.py's command line and settings, each checked before anything runs (the GPU probe included): a
slip ends the driver with exit 2 and one line naming it, never a traceback, a skip or a FAIL after a run.

HAZARDLAB MODE [options] [OPERANDS] [-- PROGRAM ARGS]: HAZARDLAB must be the hazardlab program (it describes
`hazardlab check` when asked), MODE one of MODES, each option given once, non-blank and one MODE uses, the
operands and the program the mode needs present (a program on PATH or a runnable file; the suite's case runner
and hazard, the agreement's runner, count and seed), EXPECT_CHECK_OPTIONS options of `hazardlab check`, and
HL_CHECK_PROTECTION one of the protections."""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "drivers"))
from driver_options import DriverParser, whole_number  # noqa: E402

MODES = ("found", "clean", "clean-any-exit", "clean-as-alone", "as-alone", "not-checked", "under-nsys", "agreement",
         "suite")
# The options only some modes read: given to another, they would be ignored without a word.
MODE_OPTIONS = {"--hazard": ("found",), "--relies-on": ("found",), "--copy-in": ("found",),
                "--not-in": ("found",), "--because": ("not-checked",)}
PROTECTIONS = ("auto", "keys", "range-keys", "mprotect")
MODULE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
HELP_OPTION = re.compile(r"^\s+(?:-\w,)?(--[\w-]+)(?:\s+(\S+))?", re.M)


def refuse(text):
    print(f"expect_check.py: {text}", file=sys.stderr)
    sys.exit(2)


def runnable(path):
    return os.path.isfile(path) and os.access(path, os.X_OK)


def check_options_of(hazardlab):
    """The options `HAZARDLAB check --help` lists, each with whether it takes a value; refuses a program that does
    not describe hazardlab check (a wrong path would end in a skip, "no usable GPU", or a FAIL after the run)."""
    if not runnable(hazardlab):
        refuse(f"HAZARDLAB '{hazardlab}' is not a runnable file; expected the hazardlab program")
    try:
        said = subprocess.run([hazardlab, "check", "--help"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        refuse(f"HAZARDLAB '{hazardlab}' could not be asked what it is ({e}); expected the hazardlab program")
    if said.returncode != 0 or not said.stdout.startswith("hazardlab check"):
        refuse(f"HAZARDLAB '{hazardlab}' is not hazardlab (`{hazardlab} check --help` does not describe hazardlab "
               "check); expected the hazardlab program")
    return {name: bool(kind) and not kind.startswith(":BOOL") for name, kind in HELP_OPTION.findall(said.stdout)}


def check_settings(hazardlab, options):
    """EXPECT_CHECK_OPTIONS and HL_CHECK_PROTECTION, as hazardlab check would take them: else every test would end
    in "wrote no report" (or a skip) instead of naming the setting."""
    protection = os.environ.get("HL_CHECK_PROTECTION")
    if protection is not None and protection not in PROTECTIONS:
        refuse(f"the environment's HL_CHECK_PROTECTION='{protection}': expected {', '.join(PROTECTIONS)} (or unset it)")
    extra = os.environ.get("EXPECT_CHECK_OPTIONS")
    if extra is None:
        return
    words = extra.split()
    if not words:
        refuse(f"the environment's EXPECT_CHECK_OPTIONS='{extra}' is blank: expected hazardlab check options such as "
               "--sample 100 (or unset it)")
    value_next = False
    for word in words:
        if value_next:
            value_next = False
            continue
        name, has_value, _ = word.partition("=")
        if name not in options or name in ("--help", "--json"):
            refuse(f"the environment's EXPECT_CHECK_OPTIONS='{extra}': '{word}' is not an option of hazardlab check "
                   "this driver can pass on (`hazardlab check --help` lists them; --json is the driver's own)")
        value_next = options[name] and not has_value
    if value_next:
        refuse(f"the environment's EXPECT_CHECK_OPTIONS='{extra}': '{words[-1]}' needs a value")
    for word in words:
        name = word.partition("=")[0]
        if name in NOT_PASSED_ON:
            refuse(f"the environment's EXPECT_CHECK_OPTIONS='{extra}': {name} is not passed on: {NOT_PASSED_ON[name]}")
    judged_by_hazardlab(hazardlab, words, extra)


# The options of hazardlab check this driver cannot pass on, and why.
NOT_PASSED_ON = dict.fromkeys(("--error-exitcode", "--unchecked-exitcode"),
                              "this driver reads hazardlab's own exit statuses (66: found, 67: not checked)")
NOT_PASSED_ON.update(dict.fromkeys(("--markdown", "--sarif", "--html"), "each program's run would write its "
                                   "report over the one before (this driver reads the report it asks for itself)"))
NOT_PASSED_ON["--source-root"] = ("it sets the folder SARIF's paths are relative to, and this driver writes no SARIF "
                                  "(--sarif is not passed on either)")


def judged_by_hazardlab(hazardlab, words, extra):
    """The options' values, as hazardlab check itself judges them: it refuses a bad value (--sample 0, an option
    given twice, --protection=bogus) with exit 2 before it runs its program, here /bin/true (harmless, with or
    without a GPU), in a folder of its own: without this the GPU probe would come first and end in a skip."""
    with tempfile.TemporaryDirectory(prefix="expect-check-options-") as folder:
        try:
            said = subprocess.run([hazardlab, "check", *words, "--", "/bin/true"], capture_output=True, text=True,
                                  errors="replace", timeout=120, cwd=folder, stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired) as e:
            refuse(f"the environment's EXPECT_CHECK_OPTIONS='{extra}' could not be tried with hazardlab check ({e})")
    if said.returncode == 2:
        refuse(f"the environment's EXPECT_CHECK_OPTIONS='{extra}' is refused by hazardlab check: "
               f"{said.stderr.strip()[-500:]}")


def check_program(command):
    program = command[0]
    if "/" in program and not runnable(program):
        refuse(f"the program '{program}' is not a runnable file")
    if "/" not in program and shutil.which(program) is None:
        refuse(f"the program '{program}' is not found on PATH")


def refuse_unknown_hazard(hazardlab, hazard, what):
    listed = subprocess.run([hazardlab, "list"], capture_output=True, text=True, timeout=120)
    if listed.returncode != 0:
        refuse(f"{what}: `{hazardlab} list` could not name the hazards (exit {listed.returncode}): "
               f"{listed.stderr.strip()[-500:]}")
    hazards = [line.split(":")[0] for line in listed.stdout.splitlines() if line and not line.startswith(" ")]
    if hazard not in hazards:
        refuse(f"{what} '{hazard}' is not a hazard `hazardlab list` names")


def check_operands(hazardlab, mode, operands, hazard=None):
    if hazard is not None:  # found --hazard: a misspelt one would only fail after the run
        refuse_unknown_hazard(hazardlab, hazard, "--hazard")
    if mode == "suite":
        cases, hazard = operands
        if not runnable(cases):
            refuse(f"suite: CASES '{cases}' is not a runnable file (the suite's case runner, hazardlab-cases)")
        refuse_unknown_hazard(hazardlab, hazard, "suite: HAZARD")
    elif mode == "agreement":
        runner, programs, seed = operands
        if not runnable(runner):
            refuse(f"agreement: RUNNER '{runner}' is not a runnable file (check-agreement)")
        for name, text, read in (("PROGRAMS", programs, whole_number(1, 100000)),
                                 ("SEED", seed, whole_number(0, 2**64 - 1))):
            try:
                if text != "random" or name != "SEED":
                    read(text)
            except argparse.ArgumentTypeError as e:  # it says what is allowed
                refuse(f"agreement: {name} {e}" + (" (or random)" if name == "SEED" else ""))


def read_command_line(argv, usage):
    """HAZARDLAB MODE [options] [OPERANDS] [-- PROGRAM ARGS], each part checked (exit 2, naming it) before anything
    runs; --help (or -h) prints `usage` and exits 0."""
    if argv[:1] in (["--help"], ["-h"]) or argv[1:2] in (["--help"], ["-h"]):
        print(usage)
        sys.exit(0)
    if len(argv) < 2 or argv[1] not in MODES:
        refuse(f"expected HAZARDLAB MODE ...; MODE {argv[1] if len(argv) > 1 else ''!r} is not one of "
               + ", ".join(MODES) + " (--help describes them)")
    hazardlab, mode, rest = argv[0], argv[1], argv[2:]
    split = rest.index("--") if "--" in rest else len(rest)
    parser = DriverParser(prog=f"expect_check.py HAZARDLAB {mode}")
    parser.add_argument("--needs-python-module", action="append", default=[])
    parser.add_argument("--needs-gpus", type=whole_number(1, 64), default=1)
    for option in MODE_OPTIONS:
        parser.add_argument(option)
    parser.add_argument("operands", nargs="*")
    args = parser.parse_intermixed_args(rest[:split])
    args.hazardlab, args.mode, args.command = hazardlab, mode, rest[split + 1:]
    wanted = {"agreement": 3, "suite": 2}.get(mode, 0)
    if len(args.operands) != wanted:
        refuse(f"{mode} takes {wanted} operand(s) before any --, given {args.operands}")
    if mode not in ("agreement", "suite") and not args.command:
        refuse(f"{mode} needs the program after --: expect_check.py HAZARDLAB {mode} [options] -- PROGRAM ARGS")
    if mode in ("agreement", "suite") and split < len(rest):
        refuse(f"{mode} runs its own programs: nothing comes after --, given {args.command}")
    for option, modes in MODE_OPTIONS.items():
        value = getattr(args, option[2:].replace("-", "_"))
        if value is not None and not value.strip():
            refuse(f"{option} was given '{value}': expected a non-blank value (a blank one would check nothing)")
        if value is not None and mode not in modes:
            refuse(f"{option} '{value}' is read by {' and '.join(modes)} only; {mode} would ignore it")
    if mode == "not-checked" and not args.because:
        refuse("not-checked needs --because TEXT (what a process must say)")
    for module in args.needs_python_module:
        if not MODULE_NAME.fullmatch(module):
            refuse(f"--needs-python-module '{module}' is not a module name: expected identifiers separated by dots, "
                   "such as torch or torch.distributed")
    options = check_options_of(hazardlab)
    check_settings(hazardlab, options)
    if args.command:
        check_program(args.command)
    check_operands(hazardlab, mode, args.operands, args.hazard)
    return args
