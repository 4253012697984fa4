"""What the checker's own `hazardlab devices` says of this machine's GPUs: how many are usable, and the first's
compute capability (the architecture the corpora are built for)."""
import json
import subprocess


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
