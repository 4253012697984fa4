"""Where a program's framework (PyTorch, CuPy, numpy, ...) is not installed: one line naming the module this
interpreter cannot import, and exit 77, the status this project's tests read as "cannot run here" (a skip, as a
GPU test where there is no GPU), never an ImportError's traceback."""
import sys

CANNOT_RUN_HERE = 77


def run_or_say_missing(prog: str, run):
    """Returns run()'s result, or CANNOT_RUN_HERE after one line on stderr when a module it imports is missing."""
    try:
        return run()
    except ModuleNotFoundError as e:
        if not e.name:
            raise
        print(f"{prog}: cannot run here: this interpreter ({sys.executable}) cannot import the Python module "
              f"'{e.name}' it needs (install it, or run it with an interpreter that has it)", file=sys.stderr)
        return CANNOT_RUN_HERE
