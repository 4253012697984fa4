"""The two documents the corpus harness is given, read and checked before anything is built or run: the
expectations (which findings a program has, and why; which programs are excluded, masked or not watchable) and the
library-examples listing (each program's files, build and arguments). Every error names the option, the file, the
program and what the schema expects there: a document of the right schema but the wrong shapes (a list where an
object goes, a string where a list goes) is bad input, never a traceback."""
import json
import os
import re

from corpus_words import control_character, path_problem, pytest_file_problem, selection_problem

KINDS = ("cuda-samples", "pytest", "library-examples")
SCHEMA_VERSION = 1  # the version of both documents this reader knows ("schema_version", 1 where not given)


class BadInput(Exception):
    pass


def load_document(option, path, schema):
    """A JSON file the harness is given (`option` names it in every error), with the schema it must declare."""
    try:
        with open(path, encoding="utf-8") as f:
            document = json.load(f, object_pairs_hook=_keys_once)
    except OSError as err:
        raise BadInput(f"{option} {path!r}: cannot be read ({err.strerror})")
    except _KeyTwice as twice:
        raise BadInput(f"{option} {path!r}: the key {str(twice)[:60]!r} is given twice in one object; give each "
                       "once (JSON keeps the last without a word)") from None
    except UnicodeDecodeError as err:
        raise BadInput(f"{option} {path!r}: not JSON (not UTF-8 text: byte {err.start})") from None
    except json.JSONDecodeError as err:
        raise BadInput(f"{option} {path!r}: not JSON ({err})")
    except ValueError:  # json reads numbers with int(), which refuses more than 4300 digits
        raise BadInput(f"{option} {path!r}: not JSON this reader takes (a number of more than 4300 digits)") from None
    except RecursionError:
        raise BadInput(f"{option} {path!r}: not JSON this reader takes (lists or objects nested too deep)") from None
    if not isinstance(document, dict) or document.get("schema") != schema:
        found = document.get("schema") if isinstance(document, dict) else None
        raise BadInput(f"{option} {path!r}: schema is {found!r}, expected {schema!r}")
    version = document.get("schema_version", SCHEMA_VERSION)
    if type(version) is not int or version != SCHEMA_VERSION:
        raise BadInput(f"{option} {path!r}: schema_version {version!r:.40}; this reader knows version {SCHEMA_VERSION}")
    return document


class _KeyTwice(Exception):
    pass


def _keys_once(pairs):
    """An object of the document, with each key once: two entries of one program would lose the first."""
    seen = set()
    for key, _ in pairs:
        if key in seen:
            raise _KeyTwice(key)
        seen.add(key)
    return dict(pairs)


def _known_keys(value, allowed, where):
    """A key the schema does not have is refused (a misspelt 'exclude' or 'args' would be ignored without a word)."""
    unknown = sorted(set(value) - set(allowed))
    if unknown:
        raise BadInput(f"{where}: unknown key(s) {', '.join(repr(k)[:60] for k in unknown)}; the keys allowed "
                       f"are {', '.join(allowed)}")


def _strings(value, where):
    """A list of strings (a program's arguments): another item (a number, null, an object) is refused, never
    turned into text or handed to the program as it is; so is a control character in one."""
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise BadInput(f"{where}: expected a list of strings, found {value!r:.60}")
    for item in value:
        if control_character(item):
            raise BadInput(f"{where}: {item!r:.60} {control_character(item)}")
    return value


def _text(program, key, where):
    """A reason the schema asks for (an exclusion's, a mask's): a string that is not blank."""
    if not isinstance(program[key], str) or not program[key].strip():
        raise BadInput(f"{where}: {key!r} needs its reason (a string that is not blank), found {program[key]!r:.60}")


def _object(value, where):
    """`value` where the schema puts an object (name -> ...), else BadInput naming `where`."""
    if not isinstance(value, dict):
        raise BadInput(f"{where}: expected an object (name -> ...), found {type(value).__name__} {value!r:.60}")
    return value


def _list(value, where):
    if not isinstance(value, list):
        raise BadInput(f"{where}: expected a list, found {type(value).__name__} {value!r:.60}")
    return value


def load_expectations(path):
    e = load_document("--expectations", path, "hazardlab.corpus-expectations")
    at = f"--expectations {path!r}"
    _known_keys(e, ("schema", "schema_version", "corpora"), at)
    for kind, corpus in _object(e.get("corpora", {}), f"{at}: 'corpora'").items():
        if kind not in KINDS:
            raise BadInput(f"{at}: corpus {kind!r} is not one of {', '.join(KINDS)}")
        _object(corpus, f"{at}: corpus {kind!r}")
        _known_keys(corpus, ("mask", "programs"), f"{at}: corpus {kind!r}")
        for mask in _list(corpus.get("mask", []), f"{at}: {kind} 'mask'"):
            _pattern(mask, f"{at}: {kind} 'mask'")
        for name, program in _object(corpus.get("programs", {}), f"{at}: {kind} 'programs'").items():
            where = f"{at}: {kind} program {name!r}"
            if kind == "pytest" and pytest_file_problem(name):
                raise BadInput(f"{where}: {pytest_file_problem(name)}")
            _object(program, where)
            _known_keys(program, PROGRAM_KEYS, where)
            for mask in _list(program.get("mask", []), f"{where}: 'mask'"):
                _pattern(mask, f"{where}: 'mask'")
            _strings(program.get("args", []), f"{where}: 'args'")
            # "" is pytest's -k selecting every test of the file; spaces alone would be a slip of the same look.
            select = program.get("select", "")
            if not isinstance(select, str) or (select and not select.strip()):
                raise BadInput(f"{where}: 'select' {select!r:.60}: expected pytest's -k expression (a string; \"\" "
                               "for every test of the file), not spaces alone")
            if control_character(select) or selection_problem(select):
                raise BadInput(f"{where}: 'select' {select!r:.60}: not pytest's -k expression (words, and/or/not, "
                               f"parentheses that close): {control_character(select) or selection_problem(select)}")
            if not isinstance(program.get("unordered", False), bool):
                raise BadInput(f"{where}: 'unordered' {program['unordered']!r:.60}: expected true or false")
            if "findings" in program and "verdict" in program:
                raise BadInput(f"{where}: both 'findings' and 'verdict'; give one (a verdict is compared alone, "
                               "its findings never)")
            timeout = program.get("timeout", 1)
            if not isinstance(timeout, int) or isinstance(timeout, bool) or not 1 <= timeout <= 3600:
                raise BadInput(f"{where}: timeout {timeout!r}: expected a whole number of seconds from 1 to 3600")
            for finding in _list(program.get("findings", []), f"{where}: 'findings'"):
                _object(finding, f"{where}: a finding")
                _known_keys(finding, ("hazard", "why", "lines", "needs_gpus"), f"{where}: a finding")
                for key in ("hazard", "why", "lines"):
                    if not finding.get(key):
                        raise BadInput(f"--expectations {path!r}: {kind} program {name!r}: a finding without {key!r}")
                if not isinstance(finding["hazard"], str):
                    raise BadInput(f"{where}: a finding's 'hazard' {finding['hazard']!r:.60}: expected the name of a "
                                   "hazard `hazardlab list` names (a string)")
                needs = finding.get("needs_gpus", 1)
                if not isinstance(needs, int) or isinstance(needs, bool) or not 1 <= needs <= 64:
                    raise BadInput(f"--expectations {path!r}: {kind} program {name!r}: needs_gpus {needs!r}: "
                                   "expected a whole number of GPUs from 1 to 64")
            for key in ("exclude", "why_masked", "why_unordered"):
                if key in program:
                    _text(program, key, where)
            if program.get("mask") and not program.get("why_masked"):
                raise BadInput(f"--expectations {path!r}: {kind} program {name!r}: a mask without 'why_masked'")
            if "why_masked" in program and not program.get("mask"):
                raise BadInput(f"{where}: 'why_masked' without a mask: give the program's 'mask' patterns, or leave "
                               "the reason out")
            if program.get("unordered") and not program.get("why_unordered"):
                raise BadInput(f"--expectations {path!r}: {kind} program {name!r}: 'unordered' without 'why_unordered'")
            verdict = program.get("verdict")
            if verdict is not None and (not isinstance(verdict, dict) or set(verdict) != {"is", "why"}
                                        or verdict["is"] not in ("not-checked", "found")
                                        or not isinstance(verdict["why"], str) or not verdict["why"].strip()):
                raise BadInput(f"{where}: a verdict needs 'is' (not-checked or found) and 'why' (its reason), and no "
                               f"other key; found {verdict!r:.80}")
    return e


def expected_hazards(expectations):
    """(where, hazard) for every finding the expectations list: each must be a hazard `hazardlab list` names."""
    for kind, corpus in expectations.get("corpora", {}).items():
        for name, program in corpus.get("programs", {}).items():
            for finding in program.get("findings", []):
                yield f"{kind} program {name!r}", finding["hazard"]


PROGRAM_KEYS = ("args", "select", "timeout", "findings", "verdict", "exclude", "mask", "why_masked", "unordered",
                "why_unordered")


def _pattern(text, where):
    import re
    if not isinstance(text, str):
        raise BadInput(f"{where}: {text!r} is not a regular expression (a string)")
    try:
        re.compile(text)
    except re.error as err:
        raise BadInput(f"{where}: {text!r} is not a regular expression ({err})") from None


# The staged folder holds only the examples' files, with no runner of its own (the samples have their CMake and
# test_args.json): which programs, how each builds and with which arguments is this list, beside the harness.
def load_library_examples(path):
    """The programs of the library-examples corpus: name -> {folder, files, build, args, streams}."""
    listing = load_document("--library-examples", path, "hazardlab.library-examples")
    _known_keys(listing, ("schema", "schema_version", "about", "repositories", "programs"),
                f"--library-examples {path!r}")
    programs = listing.get("programs")
    if not isinstance(programs, dict) or not programs:
        raise BadInput(f"--library-examples {path!r}: no program listed (expected 'programs', an object of programs)")
    for name, program in programs.items():
        def refuse(why):
            raise BadInput(f"--library-examples {path!r}: program {name!r}: {why}")
        if not isinstance(program, dict):
            refuse(f"expected an object (folder, files, build, args, streams), found {type(program).__name__}")
        # Its name is a file's and a folder's in --work (the build, its log, its run): one plain part of a path,
        # short enough for any file system.
        if not re.fullmatch(r"[A-Za-z0-9_.-]{1,100}", name) or name in (".", ".."):
            refuse("a name that is not one plain part of a path (letters, digits, '-', '_' and '.', at most 100 of "
                   "them; not '.' or '..')")
        _known_keys(program, ("folder", "files", "build", "args", "streams"), f"--library-examples {path!r}: "
                    f"program {name!r}")
        if not isinstance(program.get("folder"), str) or not program["folder"]:
            refuse("no 'folder'")
        files = program.get("files")
        if not isinstance(files, list) or not files or not all(isinstance(f, str) and f for f in files):
            refuse("no 'files' (the paths it needs under the staged folder)")
        for path_given in [program["folder"]] + files:
            if path_problem(path_given):
                refuse(f"{path_given!r:.80}: {path_problem(path_given)}")
        if len(set(files)) != len(files):
            refuse(f"'files' names {next(f for f in files if files.count(f) > 1)!r:.80} twice; name each file once")
        build = program.get("build", {})
        if not isinstance(build, dict):
            refuse(f"'build' is {type(build).__name__} {build!r:.60}; expected an object with 'cmake_target' or 'nvcc'")
        _known_keys(build, ("cmake_target", "nvcc", "as"), f"--library-examples {path!r}: program {name!r}: 'build'")
        if ("cmake_target" in build) == ("nvcc" in build):
            refuse("'build' needs exactly one of 'cmake_target' (the example's own CMake) and 'nvcc' (a line)")
        if "cmake_target" in build and (not isinstance(build["cmake_target"], str) or not build["cmake_target"]
                                        or control_character(build["cmake_target"])):
            refuse("'cmake_target' must name the example's CMake target (a string, no control character)")
        if "nvcc" in build and (not isinstance(build["nvcc"], list) or not isinstance(build.get("as"), str)
                                or not build["as"].strip() or not all(isinstance(a, str) for a in build["nvcc"])):
            refuse("an nvcc build needs its arguments as a list and 'as' (where the line comes from and why)")
        if "nvcc" in build:
            _strings(build["nvcc"], f"--library-examples {path!r}: program {name!r}: 'nvcc'")
            if not build["nvcc"]:
                refuse("'nvcc' is empty: expected the compiler's arguments, its input files among them")
        _strings(program.get("args", []), f"--library-examples {path!r}: program {name!r}: 'args'")
        if not isinstance(program.get("streams"), str) or not program["streams"].strip():
            refuse(f"'streams' {program.get('streams')!r:.60}: expected a text (the streams and asynchronous work "
                   "that make it worth running)")
    return programs
