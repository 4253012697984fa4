#!/usr/bin/env python3
"""The health check's settings (its config file, and the environment beside it), read strictly: each bad line
drains the node with a reason that names the file, the line and what is wrong, before anything is made."""
import os
import pathlib
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from health_standins import Node  # noqa: E402


class HealthConfig(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def test_a_config_file_that_does_not_exist_drains_naming_it(self):
        node = Node(self.tmp.name)
        rc, out, scontrol = node.check(config=pathlib.Path(self.tmp.name) / "missing.conf")
        self.assertEqual(rc, 1, out)
        self.assertIn("missing.conf cannot be read", scontrol)

    def test_a_config_variable_set_but_empty_drains_naming_it(self):
        node = Node(self.tmp.name)
        rc, out, scontrol = node.check(config="")
        self.assertEqual(rc, 1, out)
        self.assertIn("HAZARDLAB_HEALTH_CONFIG is set but empty", scontrol)
        self.assertFalse((pathlib.Path(self.tmp.name) / "health").exists(), "the check ran")

    def test_a_setting_the_script_does_not_read_is_refused_by_name(self):
        node = Node(self.tmp.name)
        rc, out, scontrol = node.check(config=node.config("HAZARDLAB_HEALTH_TIMOUT=30\n"))
        self.assertEqual(rc, 1, out)
        self.assertIn("'HAZARDLAB_HEALTH_TIMOUT=30' is not a setting", scontrol)

    def test_a_timeout_of_zero_or_junk_never_turns_the_hang_limit_off(self):
        node = Node(self.tmp.name)
        for value in ("0", "abc", "-5", "99999", "", "99999999999999999999"):
            rc, out, scontrol = node.check(config=node.config(f"HAZARDLAB_HEALTH_TIMEOUT={value}\n"))
            self.assertEqual(rc, 1, out)
            self.assertIn(f"HAZARDLAB_HEALTH_TIMEOUT='{value}'" if value else "the value is empty", scontrol)
            self.assertNotIn("integer expression", out, "bash judged a number too long for it")

    def test_a_timeout_with_a_leading_zero_is_named_as_such(self):
        node = Node(self.tmp.name)
        for value, said in (("060", "without a leading zero"), ("0", "0 would turn the hang limit off"),
                            ("000", "0 would turn the hang limit off")):
            rc, out, scontrol = node.check(config=node.config(f"HAZARDLAB_HEALTH_TIMEOUT={value}\n"))
            self.assertEqual(rc, 1, out)
            self.assertIn(f"HAZARDLAB_HEALTH_TIMEOUT='{value}': expected whole seconds from 1 to 3600", scontrol)
            self.assertIn(said, scontrol)
            self.assertEqual(scontrol.count("0 would turn"), 0 if value == "060" else 1, scontrol)
            node.log.unlink()

    def test_a_byte_order_mark_is_named(self):
        node = Node(self.tmp.name)
        path = pathlib.Path(self.tmp.name) / "bom.conf"
        path.write_bytes(f"\ufeffHAZARDLAB_BIN={node.hazardlab}\n".encode())
        rc, out, scontrol = node.check(config=path)
        self.assertEqual(rc, 1, out)
        self.assertIn("bom.conf starts with a byte order mark", scontrol)

    def test_a_relative_config_or_hazardlab_path_drains_before_anything_is_made(self):
        node = Node(self.tmp.name)
        rc, out, scontrol = node.check(config="health.conf")
        self.assertEqual(rc, 1, out)
        self.assertIn("HAZARDLAB_HEALTH_CONFIG=health.conf is not an absolute path", scontrol)
        relative = node.tmp / "relative.conf"
        relative.write_text(f"HAZARDLAB_HEALTH_DIR={node.tmp / 'health'}\nHAZARDLAB_BIN=bin/hazardlab\n")
        for config, env in ((relative, {}), (node.config(""), {"HAZARDLAB_BIN": "bin/hazardlab"})):
            if env:
                config.write_text(f"HAZARDLAB_HEALTH_DIR={node.tmp / 'health'}\n")
            rc, out, scontrol = node.check(config=config, env_too=env)
            self.assertEqual(rc, 1, out)
            self.assertIn("HAZARDLAB_BIN='bin/hazardlab'", scontrol)
            self.assertIn("expected an absolute path, or a command name found on PATH", scontrol)
        self.assertFalse((node.tmp / "health").exists(), "the check ran")

    def test_a_prometheus_folder_in_the_health_folder_drains_before_anything_is_made(self):
        node = Node(self.tmp.name)
        for prom in ("health", "health/prom"):
            (node.tmp / prom).mkdir()
            rc, out, scontrol = node.check(config=node.config(f"HAZARDLAB_PROMETHEUS_DIR={node.tmp / prom}\n"))
            self.assertEqual(rc, 1, out)
            self.assertIn("is the health folder", scontrol)
            self.assertEqual(list((node.tmp / prom).iterdir()), [], "written into the health folder")

    def test_a_config_that_is_a_folder_drains_naming_it(self):
        node = Node(self.tmp.name)
        folder = pathlib.Path(self.tmp.name) / "config-folder"
        folder.mkdir()
        rc, out, scontrol = node.check(config=folder)
        self.assertEqual(rc, 1, out)
        self.assertIn("config-folder is not a file", scontrol)

    def test_a_config_line_is_read_never_run(self):
        node = Node(self.tmp.name)
        injected = pathlib.Path(self.tmp.name) / "INJECTED"
        rc, out, scontrol = node.check(config=node.config(f"HAZARDLAB_PROMETHEUS_DIR=/x; touch {injected}\n"))
        self.assertEqual(rc, 1, out)
        self.assertFalse(injected.exists(), "a line of the config was run")
        self.assertIn("a value is a path or a number, not a command", scontrol)

    def test_windows_line_ends_are_named(self):
        node = Node(self.tmp.name)
        path = pathlib.Path(self.tmp.name) / "crlf.conf"
        path.write_bytes(f"HAZARDLAB_BIN={node.hazardlab}\r\n".encode())
        rc, out, scontrol = node.check(config=path)
        self.assertEqual(rc, 1, out)
        self.assertIn("carriage return", scontrol)

    def test_config_lines_are_read_strictly(self):
        node = Node(self.tmp.name)
        prom = pathlib.Path(self.tmp.name) / "prom"
        cases = {
            f"HAZARDLAB_PROMETHEUS_DIR={prom} # the collector's folder\n": "a '#' in a value",
            f"HAZARDLAB_PROMETHEUS_DIR={prom}#old\n": "a '#' in a value",
            f"HAZARDLAB_PROMETHEUS_DIR={prom} \n": "a space in a value that is not quoted",
            f'HAZARDLAB_PROMETHEUS_DIR="{prom} "\n': "a space at an end of the value",
            f'HAZARDLAB_PROMETHEUS_DIR="{prom}\n': "an unmatched quote",
            f"HAZARDLAB_PROMETHEUS_DIR='{prom}\"'\n": "a quote inside a quoted value",
            "HAZARDLAB_PROMETHEUS_DIR=\n": "the value is empty",
            "HAZARDLAB_PROMETHEUS_DIR=''\n": "the value is empty",
            "HAZARDLAB_PROMETHEUS_DIR=prom\n": "expected an absolute path",
            f"HAZARDLAB_HEALTH_DIR={self.tmp.name}/other\n": "HAZARDLAB_HEALTH_DIR is given twice",
            f"  HAZARDLAB_PROMETHEUS_DIR={prom}\n": "begins with a blank",
            "HAZARDLAB_HEALTH_TIMEOUT=55\tx\n": "a space in a value that is not quoted",
        }
        for line, said in cases.items():
            rc, out, scontrol = node.check(config=node.config(line))
            self.assertEqual(rc, 1, f"{line!r}: {out}")
            self.assertIn(said, scontrol, line)
            self.assertFalse((pathlib.Path(self.tmp.name) / "health").exists(), f"{line!r}: the check ran")
        # Documented as allowed: comment lines, blank lines, one pair of quotes around a whole value.
        rc, out, scontrol = node.check(config=node.config(f"# a comment\n\n  # another\nHAZARDLAB_HEALTH_TIMEOUT='55'\n"))
        self.assertEqual(rc, 0, out)

    def test_a_bad_folder_in_the_config_names_the_file_and_its_line(self):
        node = Node(self.tmp.name)
        for name, value in (("HAZARDLAB_HEALTH_DIR", "hd/12"), ("HAZARDLAB_PROMETHEUS_DIR", "prom")):
            config = node.config_with(f"{name}={value}\n")
            rc, out, scontrol = node.check(config=config)
            self.assertEqual(rc, 1, out)
            self.assertIn(f"{config} line 2: {name}='{value}': expected an absolute path", scontrol)

    def test_a_prometheus_folder_that_does_not_exist_drains_before_anything_is_made(self):
        node = Node(self.tmp.name)
        rc, out, scontrol = node.check(config=node.config(f"HAZARDLAB_PROMETHEUS_DIR={self.tmp.name}/no-prom\n"))
        self.assertEqual(rc, 1, out)
        self.assertIn("no-prom': is not a folder that exists", scontrol)
        self.assertFalse((node.tmp / "health").exists(), "the health folder was made")
        self.assertFalse((node.tmp / "no-prom").exists())

    def test_a_setting_in_the_environment_and_the_config_that_disagree_drains(self):
        node = Node(self.tmp.name)
        other = str(node.tmp / "other")
        rc, out, scontrol = node.check(env_too={"HAZARDLAB_HEALTH_DIR": other})
        self.assertEqual(rc, 1, out)
        self.assertIn(f"the environment gives HAZARDLAB_HEALTH_DIR='{other}': give it in one place", scontrol)
        self.assertFalse((node.tmp / "health").exists() or (node.tmp / "other").exists(), "a folder was made")
        rc, out, scontrol = node.check(env_too={"HAZARDLAB_HEALTH_DIR": str(node.tmp / "health")})
        self.assertEqual(rc, 0, out)


if __name__ == "__main__":
    unittest.main()
