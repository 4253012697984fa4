"""What the checker's own `hazardlab devices` says of this machine's GPUs: how many are usable, and the first's
compute capability (the architecture the corpora are built for); and the hazards `hazardlab list` names."""
import json
import subprocess

from corpus_documents import BadInput, expected_hazards


def refuse_unknown_hazards(hazardlab, expectations, path):
    """Every finding the expectations list names a hazard of hazardlab's: a misspelt one would only show after
    the runs, as a difference in every program that has it."""
    listed = subprocess.run([hazardlab, "list"], capture_output=True, text=True)
    if listed.returncode != 0:
        raise BadInput(f"--hazardlab {hazardlab!r}: `hazardlab list` could not name the hazards (exit "
                       f"{listed.returncode})")
    hazards = {line.split(":")[0] for line in listed.stdout.splitlines() if line and not line.startswith(" ")}
    for where, hazard in expected_hazards(expectations):
        if hazard not in hazards:
            raise BadInput(f"--expectations {path!r}: {where}: hazard {hazard!r:.60} is not one `hazardlab list` "
                           f"names ({', '.join(sorted(hazards))})")


def gpus_usable(hazardlab):
    """How many GPUs the checker's own `hazardlab devices` lists here (0 where it cannot say)."""
    out = subprocess.run([hazardlab, "devices", "--json"], capture_output=True, text=True)
    try:
        return len(json.loads(out.stdout).get("devices", [])) if out.returncode == 0 else 0
    except json.JSONDecodeError:
        return 0


def compute_capability(hazardlab):
    out = subprocess.run([hazardlab, "devices", "--json"], capture_output=True, text=True)
    try:
        device = json.loads(out.stdout)["devices"][0]
        return str(device.get("compute_capability", "90")).replace(".", "")
    except (json.JSONDecodeError, KeyError, IndexError):
        return "90"
