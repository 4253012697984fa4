"""The drivers' types of files, folders and programs (driver_options.py reads them with the rest): what a driver
reads must be a plain file that exists, what it writes a new file or one a driver wrote before, in a folder that
takes a new file, never a folder, a pipe, a device or a link; --hazardlab must be hazardlab."""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def _refused(text: str, expected: str):
    return argparse.ArgumentTypeError(f"{shortened(text)} is not allowed; expected {expected}")


def shortened(text: str, keep: int = 40) -> str:
    """A value quoted as an error shows it: a long one (5000 digits) cut, with its length, so the line stays
    readable."""
    return f"'{text}'" if len(text) <= keep else f"'{text[:keep]}...' ({len(text)} characters)"


def output_file(text: str) -> str:
    """A file to write: not blank, not a folder, in a folder that exists (a new one, or one these drivers wrote: see
    output_not_ours)."""
    if not text.strip():
        raise _refused(text, "a file to write, not a blank")
    if os.path.isdir(text):
        raise _refused(text, "a file to write; it is a folder")
    if os.path.lexists(text) and not os.path.isfile(text):  # a pipe would hang the write, a device swallow it
        raise _refused(text, "a file to write; it is not a plain file (a pipe, a device or a link to nothing)")
    folder = os.path.dirname(text) or "."
    if not os.path.isdir(folder):
        raise _refused(text, f"a file to write in a folder that exists; {folder} does not")
    if not os.access(folder, os.W_OK) or (os.path.lexists(text) and not os.access(text, os.W_OK)):
        raise _refused(text, "a file this user may write")
    if not _takes_a_new_entry(folder, tempfile.mkstemp):
        raise _refused(text, f"a file in a folder that takes new files; {folder} does not")
    return text


def output_not_ours(path: str):
    """Why an output path may not be written although it passed output_file, or None: a file these drivers did not
    write (a user's), or a link (writing through it would replace what it points to). Judged last (refuse_outputs_
    not_ours), after each driver's own reasons, which say more (the same file as an input, a program it runs)."""
    if os.path.islink(path):
        return "is a link: a file to write is written where it is, never through a link"
    if os.path.exists(path) and not written_by_a_driver(path):
        return "is a file these drivers did not write: give a new file, or move it away"
    return None


def written_by_a_driver(path: str) -> bool:
    """Whether an existing file is one these drivers wrote, which a run may write again: check_corpus's rows,
    overhead_benchmark's or side_by_side's JSON, side_by_side's table. Anything else is a user's, never replaced."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read(64 << 20)
        lines = text.splitlines()
        if len(lines) > 2 and lines[0].startswith("GPU: ") and lines[2].startswith("| program | form | race |"):
            return True
        data = json.loads(text)
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return False
    if isinstance(data, dict):
        return set(data) == {"rows", "excluded", "not_built"}
    return isinstance(data, list) and bool(data) and all(
        isinstance(row, dict) and ({"workload", "variant", "config", "unit"} <= set(row) or
                                   {"program", "form", "tool", "result"} <= set(row)) for row in data)


def _takes_a_new_entry(folder: str, make) -> bool:
    """Whether a new file (make=tempfile.mkstemp) or folder (tempfile.mkdtemp) can be made in `folder`, proven by
    making one of a unique name and removing it: os.access says yes to root everywhere, /proc included, where the
    write would fail only after the work."""
    try:
        made = make(dir=folder, prefix=".hazardlab-writable-")
    except OSError:
        return False
    if isinstance(made, tuple):
        os.close(made[0])
        os.remove(made[1])
    else:
        os.rmdir(made)
    return True


def write_output(option: str, path: str, text: str) -> bool:
    """Writes a file an option named (checked when read, output_file), through a new file renamed over it, after
    judging it again: the work may have made a link or a user's file there since (output_not_ours), which is left as
    it is. A write that fails (a full disk, that) is said, naming the option and the file, and returns False: never a
    traceback after the work was done."""
    why = output_not_ours(path)
    if why:
        print(f"did not write {option} '{path}': since the command line was read, it {why}", file=sys.stderr)
        return False
    made = None
    try:
        handle, made = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)), prefix=".hazardlab-output-")
        with os.fdopen(handle, "w") as out:
            out.write(text)
        os.chmod(made, 0o644)
        os.replace(made, path)  # replaces the name: a link made meanwhile is replaced, never what it points to
        return True
    except OSError as e:
        if made is not None and os.path.lexists(made):
            os.remove(made)
        print(f"could not write {option} '{path}': {e.strerror}", file=sys.stderr)
        return False


def input_file(text: str) -> str:
    """A file to read: one that exists and is a plain file (never a folder, a pipe that may never end, a device)."""
    if not os.path.isfile(text):
        found = "a folder" if os.path.isdir(text) else "not a plain file (a pipe or a device)"
        raise _refused(text, "a file that exists" + (f"; it is {found}" if os.path.exists(text) else ""))
    return text


def runnable_file(text: str) -> str:
    """A program to run: an existing file this user may execute."""
    if not (os.path.isfile(text) and os.access(text, os.X_OK)):
        raise _refused(text, "a runnable file (one that exists and may be executed)")
    return text


def existing_folder(text: str) -> str:
    if not os.path.isdir(text):
        raise _refused(text, "a folder that exists")
    return text


def work_folder(text: str) -> str:
    """A folder to work in: one that exists, or none yet in a folder that exists (it is made); never a file."""
    if not text.strip():
        raise _refused(text, "a folder, not a blank")
    if os.path.lexists(text) and not os.path.isdir(text):
        raise _refused(text, "a folder (made when missing); it is a file")
    parent = os.path.dirname(os.path.abspath(text))
    if not os.path.isdir(text) and not os.path.isdir(parent):
        raise _refused(text, f"a folder (made when missing) in a folder that exists; {parent} does not")
    if not os.path.isdir(text) and not _takes_a_new_entry(parent, tempfile.mkdtemp):
        raise _refused(text, f"a folder (made when missing) in a folder that takes new folders; {parent} does not")
    return text


def hazardlab_program(text: str) -> str:
    """The hazardlab program: a runnable file that describes `hazardlab check` when asked (`PROGRAM check --help`).
    Another program (/bin/true) would fail every GPU probe and look like a machine without a GPU."""
    runnable_file(text)
    try:
        said = subprocess.run([text, "check", "--help"], capture_output=True, text=True, errors="replace",
                              timeout=60, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise _refused(text, f"the hazardlab program; it could not be asked what it is ({e})") from None
    if said.returncode != 0 or not said.stdout.startswith("hazardlab check"):
        raise _refused(text, "the hazardlab program; `PROGRAM check --help` does not describe hazardlab check")
    return text
