"""The stand-ins the health scripts' tests share: a node whose scontrol logs what it was asked and whose hazardlab
prints a verdict."""
import os
import pathlib
import subprocess

HEALTH = pathlib.Path(__file__).resolve().parents[2] / "tools" / "health"


class Node:
    """A stand-in node: scontrol logs what it was asked; hazardlab prints `said` and exits `status`."""

    def __init__(self, tmp, said="hazardlab: PASS: 1 GPU", status=0):
        self.tmp = pathlib.Path(tmp)
        self.log = self.tmp / "scontrol.log"
        scontrol = self.tmp / "scontrol"
        scontrol.write_text(f'#!/bin/sh\necho "$*" >> {self.log}\n')
        scontrol.chmod(0o755)
        self.hazardlab = self.tmp / "hazardlab"
        self.hazardlab.write_text(f"#!/bin/sh\nprintf '%s\\n' '{said}'\nexit {status}\n")
        self.hazardlab.chmod(0o755)
        self.env = {"PATH": os.environ["PATH"], "SCONTROL": str(scontrol), "SLURMD_NODENAME": "n1",
                    "HAZARDLAB_HEALTH_CONFIG": str(self.config(""))}

    def config(self, text, name="health.conf"):
        path = self.tmp / name
        path.write_text(f"HAZARDLAB_BIN={self.hazardlab}\nHAZARDLAB_HEALTH_DIR={self.tmp / 'health'}\n" + text)
        return path

    def config_with(self, text, name="health-other.conf"):
        """A config of its own lines: the hazardlab to run, then `text`."""
        path = self.tmp / name
        path.write_text(f"HAZARDLAB_BIN={self.hazardlab}\n" + text)
        return path

    def check(self, *args, config=None, env_too=None):
        """Runs the check; `env_too` changes the environment (None takes a variable out)."""
        env = dict(self.env)
        if config is not None:
            env["HAZARDLAB_HEALTH_CONFIG"] = str(config)
        for name, value in (env_too or {}).items():
            if value is None:
                env.pop(name, None)
            else:
                env[name] = value
        run = subprocess.run(["bash", str(HEALTH / "hazardlab-health-check"), *args], env=env, capture_output=True,
                             text=True, timeout=60)
        return run.returncode, run.stdout + run.stderr, self.log.read_text() if self.log.exists() else ""

