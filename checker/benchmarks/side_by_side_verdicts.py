"""What each tool's run says of a program's forms (found, clean, error), read as the tool writes it: compute-sanitizer's
summaries and error blocks, PyTorch's CUDA Sanitizer's message, hazardlab check's JSON report, and the program
alone. A lesson's findings are told to its half (`unsafe`, `fixed`) by the functions in their stacks."""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "programs"))
from checked_report import frames  # noqa: E402  (a stack's functions, an inlined one named by its line)

CSAN = "CSAN detected a possible data race"
SUMMARY = re.compile(r"(?:ERROR SUMMARY: (\d+) error|RACECHECK SUMMARY: (\d+) hazard)")
ERROR_BLOCK = re.compile(r"^========= \S", re.M)  # a report's first line; its details are indented


class Run:
    """One process: a program (both halves of a lesson, or one form of a PyTorch program) under one tool."""

    def __init__(self, program: str, forms: tuple[str, ...], argv: list[str], tool: str):
        self.program, self.forms, self.argv, self.tool = program, forms, argv, tool
        self.results = {form: ("not run", "") for form in forms}  # form -> (result, why)
        self.wall = None


def halves_of(texts: list[str], forms: tuple[str, ...]) -> dict[str, tuple[str, str]]:
    """Which forms the findings (each given as the text of its stacks) belong to: one form, every finding is its;
    a lesson's halves, by the function `unsafe` or `fixed` in a finding's stacks, a finding naming neither
    found in both ("half not told")."""
    if len(forms) == 1:
        return {forms[0]: ("found", f"{len(texts)} finding(s)")}
    results = {form: ("clean", "") for form in forms}
    for text in texts:
        named = [form for form in forms if re.search(rf"\b{form}\b", text)]
        for form in named or forms:
            results[form] = ("found", "" if named else "half not told")
    return results


def judge_sanitizer(run: Run, rc, output: str) -> None:
    counts = [int(a or b) for a, b in SUMMARY.findall(output)]
    if not counts:
        last = next((line for line in reversed(output.splitlines()) if line.strip()), "no output")
        run.results = {f: ("error", f"no summary from compute-sanitizer (exit {rc}): {last[-200:]}") for f in run.forms}
    elif max(counts) == 0:
        run.results = {f: ("clean", "") for f in run.forms}
    else:
        starts = [m.start() for m in ERROR_BLOCK.finditer(output)] + [len(output)]
        blocks = [output[a:b] for a, b in zip(starts, starts[1:]) if "Host Frame" in output[a:b]]
        run.results = halves_of(blocks or [output], run.forms)


def judge_torch_sanitizer(run: Run, rc, output: str) -> None:
    form = run.forms[0]
    if CSAN in output:
        run.results = {form: ("found", "")}
    elif rc == 0:
        run.results = {form: ("clean", "")}
    else:
        last = next((line for line in reversed(output.splitlines()) if line.strip()), "no output")
        run.results = {form: ("error", f"exit {rc}: {last[-200:]}")}


def judge_hazardlab(run: Run, rc, output: str, report_path: str) -> None:
    try:
        with open(report_path) as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        run.results = {f: ("error", f"no report (exit {rc}, {e}): {output.strip()[-200:]}") for f in run.forms}
        return
    verdict = report.get("verdict")
    if verdict == "found":
        texts = []
        for p in report.get("processes", []):
            for f in p.get("findings", []):
                python = " | ".join(fr.get("function", "") for fr in f.get("copy_python", []) + f.get("access_python", []))
                texts.append(f"{f['finding'].get('hazard')}: {frames(f.get('copy_stack', []))} || "
                             f"{frames(f.get('access_stack', []))} || {python}")
        run.results = halves_of(texts, run.forms)
        hazards = sorted({t.split(":")[0] for t in texts})
        run.results = {form: (r, ", ".join(hazards) if r == "found" else why) for form, (r, why) in run.results.items()}
    elif verdict in ("clean", "sampled"):
        run.results = {f: ("clean", "") for f in run.forms}
    else:
        reasons = [p.get("not_watching_because", "") for p in report.get("processes", [])]
        run.results = {f: ("error", f"verdict {verdict}: {'; '.join(r for r in reasons if r)}") for f in run.forms}


def judge_alone(run: Run, rc, output: str) -> None:
    lesson = run.program.startswith("lesson-")
    if rc == 0 or (lesson and rc == 1):  # a lesson exits 1 when its unsafe half did not go wrong every time
        # What the program said of the form: a lesson's line for its half, a PyTorch program's line of its result.
        said = {f: " ".join(line.split()) for f in run.forms for line in output.splitlines()
                if line.startswith(f"{f}:" if lesson else f"{run.program} {f}:")}
        run.results = {f: ("ran", said.get(f, "")) for f in run.forms}
    else:
        run.results = {f: ("error", f"exit {rc}: {output.strip()[-200:]}") for f in run.forms}
