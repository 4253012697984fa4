"""The --work folder the harness builds and runs in: a new folder, an empty one, or one it made before, proven by
its marker (.check-corpus-work, holding the folder's own real path; a copied or moved folder does not pass). Any
other folder may hold a user's files under the names the harness writes (force-architecture.cmake, a build log,
plain.out, hazardlab-check.json): it is refused, before anything is built or run."""
import os

from corpus_documents import BadInput

MARKER = ".check-corpus-work"


def refuse_a_folder_not_ours(work):
    """BadInput unless `work` is missing, empty, or marked as the harness's own."""
    if not os.path.isdir(work) or not os.listdir(work):
        return
    try:
        with open(os.path.join(work, MARKER), encoding="utf-8") as f:
            said = f.read().strip()
    except (OSError, ValueError):
        said = None
    if said != os.path.realpath(work):
        raise BadInput(f"--work {work!r} holds files this harness did not put there (no {MARKER} naming this "
                       "folder): give a new or empty folder, or one an earlier run made")


def refuse_outputs_inside_a_corpus(corpora, outputs):
    """An output (option, path) inside a corpus checkout could replace one of its programs (--json at its
    test_a.py): refused, before anything is written."""
    for option, path in outputs:
        if path is None:
            continue
        for kind, checkout in corpora:
            if _inside(path, checkout):
                raise BadInput(f"{option} {path!r} is inside --corpus {kind}={checkout!r}: what the harness writes "
                               "goes outside the corpus checkouts")


def _inside(path, folder):
    real, top = os.path.realpath(path), os.path.realpath(folder)
    return real == top or real.startswith(top.rstrip(os.sep) + os.sep)


def refuse_what_work_would_replace(work, json_path, corpora):
    """What the harness writes under --work (builds, runs, logs) replaces what is there: a corpus inside it would
    have its programs written over, and a --json inside it (its marker, a run's output) would be written over by
    the runs or would write over what they made. Refused, before anything is written."""
    if json_path is not None and _inside(json_path, work):
        raise BadInput(f"--json {json_path!r} is inside --work {work!r} (or is it): the harness writes there; "
                       "give a file outside the work folder")
    for kind, checkout in corpora:
        if _inside(checkout, work):
            raise BadInput(f"--corpus {kind}={checkout!r} is inside --work {work!r}: the harness writes builds and "
                           "runs there and would replace its files; give a corpus outside the work folder")


def make_work_folder(work):
    """Makes the folder (where missing) and marks it as the harness's own."""
    existed = os.path.isdir(work)
    try:
        os.makedirs(work, exist_ok=True)
        marker = os.path.join(work, MARKER)
        if not os.path.exists(marker):
            with open(marker, "w", encoding="utf-8") as f:
                f.write(os.path.realpath(work) + "\n")
    except OSError as err:
        # A folder that is there but takes no file (its owner's, read-only) is not one that "cannot be made".
        raise BadInput(f"--work {work!r}: " + ("cannot be written" if existed else "cannot be made") +
                       f" ({err.strerror})") from None
