"""How every Python driver of the checker reads its command line: one parser, with the types the drivers share.

Bad input ends the driver with exit 2 and one line that names the option, the value given and what is allowed,
before any work is done: numbers are ASCII decimals within their range, a list names each item once, a file to
write is checked (not a folder, in a folder that takes a new file, not the same file, by inode, as another output or
an input) when the command line is read, never after the runs; --hazardlab is hazardlab (hazardlab_program). An
option given twice is refused (the first would be lost without a word), unless it is one that collects its values
(action="append").

    parser = DriverParser("overhead_benchmark.py", description=...)
    parser.add_argument("--rounds", type=whole_number(1, 100), default=5)
    parser.add_argument("--sizes", type=listed((4096, 65536), int), default="4096,65536")
    parser.add_argument("--json", type=output_file)
    args = parser.parse(outputs=("--json", "--markdown"))
"""
import argparse
import math
import os
import re

# The types of files, folders and programs, in a module of their own (the words of a refusal with them).
from driver_paths import (_refused, existing_folder, hazardlab_program, input_file, output_file,  # noqa: F401
                          output_not_ours, runnable_file, shortened, work_folder, write_output, written_by_a_driver)


class DriverParser(argparse.ArgumentParser):
    """argparse's parser (its errors already exit 2, naming the option), with every plain option taken once."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)  # `--hazard` taken for `--hazardlab`, `--mark` for `--markdown`
        super().__init__(*args, **kwargs)

    def add_argument(self, *names, **options):
        if names and names[0].startswith("-") and options.get("action", "store") == "store":
            options["action"] = _Once
        return super().add_argument(*names, **options)

    def refuse(self, text: str):
        """Bad input found after parsing (two options that do not go together): exit 2, naming it."""
        self.exit(2, f"{self.prog}: {text}\n")

    def parse(self, argv=None, outputs=(), inputs=()):
        """The arguments, with the files to write (`outputs`, option names) distinct from each other and from
        the files read (`inputs`, option names)."""
        args = self.parse_args(argv)
        self.outputs = outputs
        seen = {}
        for option in inputs + outputs:
            value = getattr(args, _attribute(option), None)
            if value is None:
                continue
            for path in value if isinstance(value, list) else [value]:
                key = _file_identity(path)
                if key in seen and (option in outputs or seen[key] in outputs):
                    self.refuse(f"{option} '{path}' is the same file as {seen[key]}; each file written must be "
                                "a file of its own, never one read or written by another option")
                seen.setdefault(key, option)
        return args

    def refuse_outputs_not_ours(self, args) -> None:
        """Last of a driver's checks, before any work: no output is a user's file or a link (output_not_ours)."""
        for option in getattr(self, "outputs", ()):
            path = getattr(args, _attribute(option), None)
            why = path and output_not_ours(path)
            if why:
                self.refuse(f"{option} '{path}' {why}")


def _file_identity(path: str):
    """What makes two names one file: its device and inode where it exists (two hard links to one file have two
    real paths and one inode), else the real path it would be made at."""
    try:
        status = os.stat(path)
        return ("inode", status.st_dev, status.st_ino)
    except OSError:
        return ("path", os.path.realpath(path))


def _attribute(option: str) -> str:
    return option.lstrip("-").replace("-", "_")


class _Once(argparse.Action):
    """Stores the option's value, and refuses a second one: `--json a --json b` would write one of them only."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = namespace.__dict__.setdefault("_given_once", set())
        if self.dest in given:
            parser.error(f"argument {option_string}: given twice; give it once")
        given.add(self.dest)
        setattr(namespace, self.dest, values)


DECIMAL_DIGITS = re.compile(r"[0-9]+")  # ASCII only: str.isdigit() and int() take other scripts' digits too
DECIMAL_NUMBER = re.compile(r"[0-9]+(\.[0-9]*)?|\.[0-9]+")  # float() takes '1_0', ' 1', 'inf' and '1e3' too


def _decimal_value(text: str):
    """The value of ASCII decimal digits, or None: int() refuses more than 4300 digits, and any number that long
    is past every range here anyway."""
    if not DECIMAL_DIGITS.fullmatch(text):
        return None
    digits = text.lstrip("0") or "0"
    return int(digits, 10) if len(digits) <= 100 else math.inf


def whole_number(low: int, high: int):
    """A whole number in decimal digits alone (as hazardlab reads numbers: "077" is 77), from low to high."""
    expected = f"a whole number from {low} to {high}"

    def read(text: str) -> int:
        value = _decimal_value(text)
        if value is None or not low <= value <= high:
            raise _refused(text, expected + " (digits only: no sign, space, point or unit)")
        return value
    read.__name__ = "whole number"
    return read


def seconds(low: float, high: float, zero_means: str = ""):
    """A finite number of seconds from low to high (never nan or inf); 0 allowed besides when zero_means says
    what 0 means."""
    expected = f"a number of seconds from {low:g} to {high:g}" + (f", or 0 ({zero_means})" if zero_means else "")

    def read(text: str) -> float:
        if not DECIMAL_NUMBER.fullmatch(text):
            raise _refused(text, expected + " (decimal digits and one point only)")
        value = float(text)
        if not math.isfinite(value) or not (low <= value <= high or (zero_means and value == 0)):
            raise _refused(text, expected)
        return value
    read.__name__ = "seconds"
    return read


def listed(allowed, convert=str):
    """A comma-separated list of items of `allowed`, each once (a repeated item would be run twice and shown as
    one): returns the items in the order given."""
    shown = ", ".join(map(str, allowed))

    def read(text: str) -> list:
        items = [item.strip() for item in text.split(",")]
        if not text.strip() or any(not item for item in items):
            raise _refused(text, f"a comma-separated list of {shown}, with no empty item")
        out = []
        for item in items:
            try:
                value = convert(item) if convert is not int else _decimal_value(item)  # ASCII decimal digits only
            except ValueError:
                value = None
            if value not in allowed:
                raise _refused(text, f"each item one of {shown} ('{item}' is not)")
            if value in out:
                raise _refused(text, f"each item once ('{item}' is given twice)")
            out.append(value)
        return out
    read.__name__ = "list"
    return read
