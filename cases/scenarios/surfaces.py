"""Every surface a user meets, in one table that the file-system model (test_file_system_model.py) and the refusal
rules (test_refusal_rules.py) enumerate: each command of hazardlab's command table, each program and script under
tools/, and each Python driver a README documents. The lint cases/lint/test_surfaces.py fails on a surface that is
not here, so a new one joins the model and the rules or the tree does not pass.

For each surface:
  writes    what it writes where a user keeps things;
  model     the file-system model's command kind that runs it among a user's entries (MODEL_KINDS), or None when
            it writes nothing of its own choosing (nothing at all, or only the files a user names, which the user
            asked for), said in `writes`;
  refusals  bad inputs, each refused with its exit status (2 unless said), a message holding every text of
            `says`, and nothing changed among the user's entries.

Placeholders in a refusal's argv and environment: {hazardlab}, {report_tool}, {interference} (the built programs),
{source} (the checkout), {python} (this interpreter), {file} (a user's file), {folder} (a user's folder),
{missing} (a path in a folder that does not exist), {scratch} (the case's folder of the user's entries)."""
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Refusal:
    argv: tuple
    says: tuple
    env: dict = field(default_factory=dict)
    status: int = 2
    entries: dict = field(default_factory=dict)  # more of the user's entries, by name in {scratch}: text, or None
                                                 # for a folder


@dataclass(frozen=True)
class Surface:
    name: str
    writes: str
    model: str | None
    refusals: tuple


# The file-system model's command kinds (test_file_system_model.py runs each among a user's entries).
MODEL_KINDS = ("report", "report-keep", "report-prometheus", "merge", "session-start", "check", "ctest-manifest",
               "health-check", "health-check-prometheus", "nhc", "sbatch", "stage-unpacked")

H = "{hazardlab}"
NOTHING = "nothing"
NAMED = "only the files a user names (--json and the like), checked before any work"


def command(name, writes, model, *refusals):
    return Surface(f"hazardlab {name}", writes, model, refusals)


def script(path, writes, model, *refusals):
    return Surface(f"tools/{path}", writes, model, refusals)


def driver(path, writes, *refusals):
    return Surface(path, writes, None, refusals)


def py(path, *argv):
    return ("{python}", f"{{source}}/{path}", *argv)


SURFACES = (
    command("list", NOTHING, None,
            Refusal((H, "list", "--bogus"), ("--bogus",)),
            Refusal((H, "list"), ("HAZARDLAB_TRIALS", "-3"), {"HAZARDLAB_TRIALS": "-3"})),
    command("explain", NOTHING, None,
            Refusal((H, "explain", "no-such-hazard"), ("no-such-hazard",))),
    command("devices", NOTHING, None,
            Refusal((H, "devices", "--jsno"), ("--jsno",)),
            Refusal((H, "devices", "--json", "--json"), ("--json is given 2 times",))),
    command("settings", NOTHING, None,
            Refusal((H, "settings"), ("HL_CHECK_PROTECTION='bogus'",), {"HL_CHECK_PROTECTION": "bogus"}),
            Refusal((H, "settings"), ("HL_FOOTPRINT_MODE='bogus'",), {"HL_FOOTPRINT_MODE": "bogus"}),
            Refusal((H, "settings"), ("HAZARDLAB_SOAK_DURATION='5m'", "soak"), {"HAZARDLAB_SOAK_DURATION": "5m"})),
    command("run", "a results root and a report folder of its own (marked), never a user's", "session-start",
            Refusal((H, "run", "--reports-dir", "{folder}"), ("{folder}",)),
            Refusal((H, "run", "--results-root", "{file}", "--reports-dir", "{scratch}/p"), ("{file}", "is not a folder")),
            Refusal((H, "run", "--profile", "nope"), ("--profile", "nope")),
            Refusal((H, "run", "--profile", "health"), ("HAZARDLAB_SOAK_DURATION",), {"HAZARDLAB_SOAK_DURATION": "9m"}),
            Refusal((H, "run"), ("HAZARDLAB_SOAK_INJECT_FAULT='1'", "soak or health"), {"HAZARDLAB_SOAK_INJECT_FAULT": "1"}),
            Refusal((H, "run"), ("HAZARDLAB_RUN_DIR='{folder}' is set",), {"HAZARDLAB_RUN_DIR": "{folder}"})),
    command("ctest-manifest", "ctest's resource spec files (marked) in --resource-spec-dir; prunes only its own",
            "ctest-manifest",
            Refusal((H, "ctest-manifest", "--default-results-root", "{scratch}/r", "--default-reports-dir",
                     "{scratch}/p", "--resource-spec-dir", "{file}"), ("--resource-spec-dir", "is not a folder")),
            Refusal((H, "ctest-manifest", "--default-results-root", "{file}", "--default-reports-dir", "{scratch}/p",
                     "--resource-spec-dir", "{scratch}/s"), ("results root (--default-results-root) {file}",))),
    command("session-start", "a run folder (marked) and the lock in a results root of its own", "session-start",
            Refusal((H, "session-start", "--results-root", "{scratch}/r", "--run-id", "../x", "--owner-pid", "1"),
                    ("--run-id", "../x")),
            Refusal((H, "session-start", "--results-root", "{scratch}/r", "--run-id", ".hidden", "--owner-pid", "1"),
                    ("--run-id '.hidden'", "cannot start with '.'"))),
    command("report", "a report folder of its own (marked)", "report",
            Refusal((H, "report", "--run", "{folder}", "--out", "{scratch}/out", "--keep", "0x1"), ("--keep", "0x1")),
            Refusal((H, "report", "--run", "{folder}", "--out", "{folder}"), ("{folder}",)),
            Refusal((H, "report", "--run", "{folder}", "--out", "{scratch}/out"), ("HAZARDLAB_PROMETHEUS_DIR='{file}'",),
                    {"HAZARDLAB_PROMETHEUS_DIR": "{file}"}),
            Refusal((H, "report", "--run", "{folder}", "--out", "{scratch}/out", "--prometheus", "{scratch}/res/runs"),
                    ("--prometheus '{scratch}/res/runs'", "is inside a results root"),
                    entries={"res": None, "res/.hazardlab-results": "a results root\n", "res/runs": None}),
            Refusal((H, "report", "--run", "{folder}", "--out", "{scratch}/out", "--prometheus", "{folder}"),
                    ("HAZARDLAB_PROMETHEUS_DIR='{missing}'",), {"HAZARDLAB_PROMETHEUS_DIR": "{missing}"})),
    command("merge", "a fleet report folder of its own (marked), outside every input's results root", "merge",
            Refusal((H, "merge", "--out", "{file}", "{folder}"), ("{file}", "is not a folder"))),
    command("check", "the process logs in a folder of its own; the reports a user names", "check",
            Refusal((H, "check", "--source-root", "{folder}", "--", "true"), ("--source-root", "without --sarif")),
            Refusal((H, "check", "--sample", "0x10", "--", "true"), ("'0x10' is not allowed",)),
            Refusal((H, "check", "--kernels-own-mapped-memory=2", "--", "true"), ("'2' is not allowed",)),
            Refusal((H, "check", "--managed-memory=maybe", "--", "true"), ("--managed-memory", "'maybe' is not allowed")),
            Refusal((H, "check", "--graph-nodes=2", "--", "true"), ("--graph-nodes", "'2' is not allowed")),
            Refusal((H, "check", "--ptx-footprints=yes", "--", "true"), ("--ptx-footprints", "'yes' is not allowed")),
            Refusal((H, "check", "--error-exitcode", "70", "--unchecked-exitcode", "70", "--", "true"),
                    ("--error-exitcode and --unchecked-exitcode are both 70",)),
            Refusal((H, "check", "--sample", "5", "--sample", "6", "--", "true"), ("--sample is given more than once",)),
            Refusal((H, "check", "--json", "-", "--", "true"), ("is '-'", "not standard output")),
            Refusal((H, "--version", "run"), ("--version is given alone", "'run' after it")),
            Refusal((H, "check", "--json", "{file}", "--", "true"), ("--json {file}", "did not write")),
            Refusal((H, "check", "--json", "--", "true"), ("--json '--'", "value was left out")),
            Refusal((H, "check", "--json", "{scratch}/data.txt", "--", "cat", "{scratch}/data.txt"),
                    ("--json {scratch}/data.txt", "the program's argument")),
            Refusal((H, "check", "--json", "/proc/x.json", "--", "true"), ("--json /proc/x.json", "new file")),
            Refusal((H, "check", "--", "true"), ("HAZARDLAB_TRAILS",), {"HAZARDLAB_TRAILS": "5", "HAZARDLAB_STRICT": "1"}),
            Refusal((H, "check", "--", "true"), ("HL_CHECK_LOG_FOLDER", "{folder}"), {"HL_CHECK_LOG_FOLDER": "{folder}"})),
    command("findings", NOTHING, None,
            Refusal((H, "findings", "{folder}"), ("{folder}", "is a folder")),
            Refusal((H, "findings", ""), ("path is empty",))),
    command("gpu-test", NOTHING, None,
            Refusal((H, "gpu-test"), ("no program",)),
            Refusal((H, "gpu-test", "--", "true"), ("CTEST_RESOURCE_GROUP_0_GPUS", "more than one GPU"),
                    {"CTEST_RESOURCE_GROUP_COUNT": "1", "CTEST_RESOURCE_GROUP_0": "gpus",
                     "CTEST_RESOURCE_GROUP_0_GPUS": "id:0,slots:1;id:1,slots:1"}),
            Refusal((H, "gpu-test", "--", "true"), ("CTEST_RESOURCE_GROUP_0 is not",), {"CTEST_RESOURCE_GROUP_COUNT": "2"}),
            Refusal((H, "gpu-test", "--", "{file}"), ("{file}", "not an executable file")),
            Refusal((H, "gpu-test", "--", "true"), ("HAZARDLAB_TRIALS='abc'",), {"HAZARDLAB_TRIALS": "abc"})),
    Surface("hazardlab-report", "report and fleet folders of its own (as hazardlab report and merge)", "report",
            (Refusal(("{report_tool}", "--run", "{folder}", "--out", "{scratch}/out", "--keep", "+1"), ("--keep",)),
             Refusal(("{report_tool}", "merge", "--out", "{file}", "{folder}"), ("{file}", "is not a folder")),
             Refusal(("{report_tool}", "--run", "{folder}", "--out", "{scratch}/out"),
                     ("HAZARDLAB_PROMETHEUS_DIR='{file}'",), {"HAZARDLAB_PROMETHEUS_DIR": "{file}"}),
             Refusal(("{report_tool}", "--run", "{folder}", "--out", "{scratch}/out", "--prometheus", "{folder}"),
                     ("HAZARDLAB_PROMETHEUS_DIR='{missing}'",), {"HAZARDLAB_PROMETHEUS_DIR": "{missing}"}),
             Refusal(("{report_tool}", "--run", "{folder}", "--out", "{scratch}/out"), ("HAZARDLAB_KEEP_RUNS='abc'",),
                     {"HAZARDLAB_KEEP_RUNS": "abc"}),
             Refusal(("{report_tool}", "--run", "{folder}", "--out", "{scratch}/out"), ("HAZARDLAB_REQUIRE_GPU='maybe'",),
                     {"HAZARDLAB_REQUIRE_GPU": "maybe"}),
             Refusal(("{report_tool}", "--run", "{folder}", "--out", "{scratch}/out"), ("HAZARDLAB_TRAILS",),
                     {"HAZARDLAB_TRAILS": "5", "HAZARDLAB_STRICT": "1"}))),
    Surface("hazardlab-host-interference", NAMED, None,
            (Refusal(("{interference}", "--json", "{folder}"), ("--json", "{folder}", "it is a folder")),
             Refusal(("{interference}", "--json", ""), ("--json", "not a blank")),
             Refusal(("{interference}", "--json", "{file}"), ("--json", "{file}", "did not write")),
             Refusal(("{interference}", "--json", "{missing}"), ("'{missing}' is not allowed: the folder",
                                                               "does not exist")),
             Refusal(("{interference}",), ("HAZARDLAB_TRAILS",), {"HAZARDLAB_TRAILS": "5", "HAZARDLAB_STRICT": "1"}),
             Refusal(("{interference}",), ("HAZARDLAB_TIMED_TURNS", "socket"), {"HAZARDLAB_TIMED_TURNS": "socket"}))),
    script("deps/stage-deps", "libunwind's archive in PREFIX/src/ (never over a file that is not the pinned one: "
           "test_staging.py, since it needs the network), and with --with-packages the packages' files through "
           "stage-unpacked, which the model runs", "stage-unpacked",
           Refusal(("bash", "{source}/tools/deps/stage-deps", "--bogus"), ("'--bogus'",)),
           Refusal(("bash", "{source}/tools/deps/stage-deps", "--prefix", "{file}"), ("{file}", "not a folder")),
           Refusal(("bash", "{source}/tools/deps/stage-deps", "--prefix", "{folder}", "--prefix", "{scratch}/p"),
                   ("--prefix is given twice", "{folder}", "{scratch}/p")),
           Refusal(("bash", "{source}/tools/deps/stage-deps", "--prefix", "{scratch}/p"),
                   ("{scratch}/p/src", "a link or a file where a folder goes"), entries={"p": None, "p/src": "mine\n"}),
           Refusal(("bash", "{source}/tools/deps/stage-deps", "--prefix", "{scratch}/p"), ("TMPDIR", "{missing}"),
                   {"TMPDIR": "{missing}"}),
           Refusal(("bash", "{source}/tools/deps/stage-deps", "--prefix", "--with-packages"),
                   ("--prefix '--with-packages'", "begins with '-'")),
           Refusal(("bash", "{source}/tools/deps/stage-deps", "--prefix", "{source}/tools/x"),
                   ("inside the checkout", "{source}/tools/x"))),
    script("deps/stage-unpacked", "the packages' files into PREFIX, over none it did not stage (.stage-deps-files)",
           "stage-unpacked",
           Refusal(("bash", "{source}/tools/deps/stage-unpacked", "{missing}", "{folder}"),
                   ("UNPACKED_USR", "{missing}")),
           Refusal(("bash", "{source}/tools/deps/stage-unpacked", "{folder}", "{file}"), ("PREFIX", "{file}")),
           Refusal(("bash", "{source}/tools/deps/stage-unpacked", "--check", "--check", "{folder}", "{scratch}/p"),
                   ("--check is given twice",)),
           Refusal(("bash", "{source}/tools/deps/stage-unpacked", "{scratch}/usr", "{scratch}/p"),
                   ("{scratch}/p/.stage-deps-files, line 2", "'garbage'"),
                   entries={"usr": None, "usr/include": None, "p": None, "p/.stage-deps-files":
                            "# files staged by tools/deps/stage-deps: SHA256 and path under the prefix\ngarbage\n"}),
           Refusal(("bash", "{source}/tools/deps/stage-unpacked", "{scratch}/usr", "{scratch}/usr/include"),
                   ("PREFIX '{scratch}/usr/include' is UNPACKED_USR",), entries={"usr": None, "usr/include": None})),
    script("deps/staging-checks.sh", "nothing: the checks of the prefix and the one way of writing a file that "
           "stage-deps and stage-unpacked share (sourced by them)", None,
           Refusal(("bash", "{source}/tools/deps/stage-unpacked", "{folder}", "/"), ("PREFIX '/'",
                   "the system's own folders")),
           Refusal(("bash", "{source}/tools/deps/stage-unpacked", "{folder}", "{file}/sub"),
                   ("PREFIX '{file}/sub' cannot be made", "{file}", "is not a folder"))),
    script("health/hazardlab-health-check", "its health folder (marked) and hazardlab.prom", "health-check",
           Refusal(("bash", "{source}/tools/health/hazardlab-health-check", "now"), ("takes no arguments",)),
           Refusal(("bash", "{source}/tools/health/hazardlab-health-check"), ("HAZARDLAB_HEALTH_CONFIG",
                   "set but empty"), {"HAZARDLAB_HEALTH_CONFIG": "", "SCONTROL": "true"}, status=1),
           Refusal(("bash", "{source}/tools/health/hazardlab-health-check"), ("SLURMD_NODENAME", "set but empty"),
                   {"SLURMD_NODENAME": "", "SCONTROL": "true"}),
           Refusal(("bash", "{source}/tools/health/hazardlab-health-check"), ("could not drain", "false exited 1",
                   "HAZARDLAB_HEALTH_CONFIG is set but empty"), {"HAZARDLAB_HEALTH_CONFIG": "", "SCONTROL": "false"}),
           Refusal(("bash", "{source}/tools/health/hazardlab-health-check"), ("SCONTROL='no-such-scontrol'",
                   "is not a command that can be run"), {"SCONTROL": "no-such-scontrol"})),
    script("health/hazardlab-health.default", "nothing: the health check's configuration, read and never run",
           None,
           Refusal(("bash", "{source}/tools/health/hazardlab-health-check"), ("HAZARDLAB_HEALTH_TIMOUT",
                   "is not a setting"), {"HAZARDLAB_HEALTH_CONFIG": "{scratch}/health.conf", "SCONTROL": "true"}, status=1,
                   entries={"health.conf": "HAZARDLAB_HEALTH_TIMOUT=30\n"}),
           Refusal(("bash", "{source}/tools/health/hazardlab-health-check"), ("health.conf line 2",
                   "HAZARDLAB_HEALTH_TIMEOUT='99999999999999999999'", "1 to 3600"),
                   {"HAZARDLAB_HEALTH_CONFIG": "{scratch}/health.conf", "SCONTROL": "true"}, status=1,
                   entries={"health.conf": "# a comment\nHAZARDLAB_HEALTH_TIMEOUT=99999999999999999999\n"}),
           Refusal(("bash", "{source}/tools/health/hazardlab-health-check"), ("health.conf line 1",
                   "HAZARDLAB_HEALTH_DIR='hd/12'", "expected an absolute path"),
                   {"HAZARDLAB_HEALTH_CONFIG": "{scratch}/health.conf", "SCONTROL": "true"}, status=1,
                   entries={"health.conf": "HAZARDLAB_HEALTH_DIR=hd/12\n"}),
           Refusal(("bash", "{source}/tools/health/hazardlab-health-check"), ("begins with a blank",),
                   {"HAZARDLAB_HEALTH_CONFIG": "{scratch}/health.conf", "SCONTROL": "true"}, status=1,
                   entries={"health.conf": "  HAZARDLAB_HEALTH_DIR=/no-such-health-folder\n"}),
           Refusal(("bash", "{source}/tools/health/hazardlab-health-check"), ("the environment gives "
                   "HAZARDLAB_HEALTH_DIR='{folder}'", "give it in one place"),
                   {"HAZARDLAB_HEALTH_CONFIG": "{scratch}/health.conf", "SCONTROL": "true", "HAZARDLAB_HEALTH_DIR":
                    "{folder}"}, status=1, entries={"health.conf": "HAZARDLAB_HEALTH_DIR=/no-such-health-folder\n"}),
           Refusal(("bash", "{source}/tools/health/hazardlab-health-check"), ("HAZARDLAB_PROMETHEUS_DIR",
                   "is not a folder that exists"), {"HAZARDLAB_HEALTH_CONFIG": "{scratch}/health.conf",
                   "SCONTROL": "true"}, status=1, entries={"health.conf": "HAZARDLAB_PROMETHEUS_DIR=/no-such-prom\n"}),
           Refusal(("bash", "{source}/tools/health/hazardlab-health-check"), ("HAZARDLAB_HEALTH_TIMEOUT='060'",
                   "without a leading zero"), {"HAZARDLAB_HEALTH_CONFIG": "{scratch}/health.conf", "SCONTROL": "true"},
                   status=1, entries={"health.conf": "HAZARDLAB_HEALTH_TIMEOUT=060\n"})),
    script("health/hazardlab.nhc", "its health folder (marked), as the health check", "nhc",
           Refusal(("bash", "-c", 'die() { echo "die $*"; exit 1; }; . {source}/tools/health/hazardlab.nhc; '
                    "check_hazardlab now"), ("takes no arguments",), status=1),
           Refusal(("bash", "-c", 'unset ${!HAZARDLAB_@}; die() { echo "die $*"; exit 1; }; '
                    ". {source}/tools/health/hazardlab.nhc; HAZARDLAB_BIN=/bin/true HAZARDLAB_PROMETEUS_DIR=/x "
                    "check_hazardlab"), ("HAZARDLAB_PROMETEUS_DIR is not a setting", "HAZARDLAB_PROMETHEUS_DIR"),
                   status=1),
           Refusal(("bash", "-c", 'unset ${!HAZARDLAB_@}; die() { echo "die $*"; exit 1; }; '
                    ". {source}/tools/health/hazardlab.nhc; HAZARDLAB_BIN={file} HAZARDLAB_HEALTH_DIR={scratch}/h "
                    "check_hazardlab"), ("HAZARDLAB_BIN={file} is not an executable file",), status=1),
           Refusal(("bash", "-c", 'unset ${!HAZARDLAB_@}; die() { echo "die $*"; exit 1; }; '
                    ". {source}/tools/health/hazardlab.nhc; HAZARDLAB_BIN=/bin/true HAZARDLAB_HEALTH_DIR={folder} "
                    "HAZARDLAB_PROMETHEUS_DIR={folder} check_hazardlab"), ("is the health folder ({folder})",),
                   status=1)),
    script("slurm/hazardlab-fleet.sbatch", "a new job folder in the shared folder, never an existing one", "sbatch",
           Refusal(("bash", "{source}/tools/slurm/hazardlab-fleet.sbatch"), ("takes one argument",)),
           Refusal(("bash", "{source}/tools/slurm/hazardlab-fleet.sbatch", "{scratch}"), ("exists already",),
                   {"SLURM_JOB_ID": "x", "HAZARDLAB_BIN": "{hazardlab}"}, entries={"x": None}),
           Refusal(("bash", "{source}/tools/slurm/hazardlab-fleet.sbatch", "{folder}"), ("SLURM_JOB_ID='../x'",
                   "is not a job id"), {"SLURM_JOB_ID": "../x", "HAZARDLAB_BIN": "{hazardlab}"}),
           Refusal(("bash", "{source}/tools/slurm/hazardlab-fleet.sbatch", "{scratch}/shared"), ("SLURM_JOB_ID=''",
                   "is not a job id"), {"SLURM_JOB_ID": "", "HAZARDLAB_BIN": "{hazardlab}"}),
           Refusal(("bash", "{source}/tools/slurm/hazardlab-fleet.sbatch", "{file}"), ("{file}", "is not a folder"),
                   {"SLURM_JOB_ID": "7", "HAZARDLAB_BIN": "{hazardlab}"}),
           Refusal(("bash", "{source}/tools/slurm/hazardlab-fleet.sbatch", "{scratch}/shared"),
                   ("HAZARDLAB_BIN={file}", "not an executable file"), {"SLURM_JOB_ID": "7", "HAZARDLAB_BIN": "{file}"}),
           Refusal(("bash", "{source}/tools/slurm/hazardlab-fleet.sbatch", "{scratch}/shared"),
                   ("HAZARDLAB_BIN is set but empty",), {"SLURM_JOB_ID": "7", "HAZARDLAB_BIN": ""}),
           Refusal(("bash", "{source}/tools/slurm/hazardlab-fleet.sbatch", "{scratch}/shared"),
                   ("HAZARDLAB_TRAILS is not a hazardlab setting",),
                   {"SLURM_JOB_ID": "7", "HAZARDLAB_BIN": "{hazardlab}", "HAZARDLAB_TRAILS": "5"}),
           Refusal(("bash", "{source}/tools/slurm/hazardlab-fleet.sbatch", "{scratch}/shared"),
                   ("HAZARDLAB_REQUIRE_GPU='maybe'",),
                   {"SLURM_JOB_ID": "7", "HAZARDLAB_BIN": "{hazardlab}", "HAZARDLAB_REQUIRE_GPU": "maybe"})),
    driver("checker/corpus/check_corpus.py", "builds and runs in --work (new, empty or marked as its own), and the "
           "--json a user names",
           Refusal(py("checker/corpus/check_corpus.py", "--hazardlab", H, "--work", "{scratch}/w", "--corpus",
                      "pytest=", "--json", "{file}"), ("--json", "is a file these drivers did not write")),
           Refusal(py("checker/corpus/check_corpus.py", "--hazardlab", H, "--work", "{file}", "--corpus", "pytest="),
                   ("argument --work", "it is a file")),
           Refusal(py("checker/corpus/check_corpus.py", "--hazardlab", H, "--work", "{scratch}/w", "--corpus",
                      "pytest=", "--json", "{folder}"), ("argument --json", "it is a folder")),
           Refusal(py("checker/corpus/check_corpus.py", "--hazardlab", "/bin/true", "--work", "{scratch}/w",
                      "--corpus", "pytest="), ("argument --hazardlab", "does not describe hazardlab check")),
           Refusal(py("checker/corpus/check_corpus.py", "--hazardlab", H, "--work", "{folder}", "--corpus", "pytest="),
                   ("--work", "holds files this harness did not put there")),
           Refusal(py("checker/corpus/check_corpus.py", "--hazardlab", H, "--work", "{scratch}/w", "--corpus",
                      "pytest={folder}", "--json", "{folder}/kept.txt"), ("--json", "inside --corpus pytest=")),
           Refusal(py("checker/corpus/check_corpus.py", "--hazardlab", H, "--work", "{scratch}/w", "--corpus",
                      "pytest={file}"), ("expected a folder", "is a file")),
           Refusal(py("checker/corpus/check_corpus.py", "--hazardlab", H, "--work", "{scratch}/w", "--corpus",
                      "pytest=", "--expectations", "{scratch}/e.json"), ("unknown key(s) 'extra'",),
                   entries={"e.json": '{"schema": "hazardlab.corpus-expectations", "corpora": {}, "extra": 1}'}),
           Refusal(py("checker/corpus/check_corpus.py", "--hazardlab", H, "--work", "{scratch}/w", "--corpus",
                      "pytest=", "--expectations", "{scratch}/e.json"), ("the key 'corpora' is given twice",),
                   entries={"e.json": '{"schema": "hazardlab.corpus-expectations", "corpora": {}, "corpora": {}}'}),
           Refusal(py("checker/corpus/check_corpus.py", "--hazardlab", H, "--work", "{scratch}/w", "--corpus",
                      "pytest={scratch}/t", "--only", "tset_"), ("--only 'tset_' matches no program",),
                   entries={"t": None, "t/test_cuda.py": "def test_a():\n    pass\n"}),
           Refusal(py("checker/corpus/check_corpus.py", "--hazardlab", H, "--work", "{scratch}/w", "--corpus",
                      "pytest=", "--json", "{scratch}/w"), ("--json", "is inside --work")),
           Refusal(py("checker/corpus/check_corpus.py", "--hazardlab", H, "--work", "{scratch}/w", "--corpus",
                      "pytest=", "--expectations", "{scratch}/e.json"), ("hazard 'h2d-pinned-mutat' is not one",),
                   entries={"e.json": '{"schema": "hazardlab.corpus-expectations", "corpora": {"pytest": {"programs": '
                                      '{"test_a.py": {"findings": [{"hazard": "h2d-pinned-mutat", "why": "w", '
                                      '"lines": ["l"]}]}}}}}'}),
           Refusal(py("checker/corpus/check_corpus.py", "--hazardlab", H, "--work", "{scratch}/w", "--corpus",
                      "pytest={scratch}/a", "--corpus", "pytest={scratch}/b"), ("both hold 'test_a.py'",),
                   entries={"a": None, "a/test_a.py": "def test_a():\n    pass\n", "b": None,
                            "b/test_a.py": "def test_a():\n    pass\n"}),
           Refusal(py("checker/corpus/check_corpus.py", "--hazardlab", H, "--work", "{scratch}/w", "--corpus",
                      "pytest=", "--expectations", "{scratch}/e.json"), ("'select' 'pinned or ('",
                                                                        "not pytest's -k expression"),
                   entries={"e.json": '{"schema": "hazardlab.corpus-expectations", "corpora": {"pytest": {"programs": '
                                      '{"test_a.py": {"select": "pinned or ("}}}}}'}),
           Refusal(py("checker/corpus/check_corpus.py", "--hazardlab", H, "--work", "{scratch}/w", "--corpus",
                      "pytest=", "--expectations", "{scratch}/e.json"), ("'args'", "control character"),
                   entries={"e.json": '{"schema": "hazardlab.corpus-expectations", "corpora": {"cuda-samples": '
                                      '{"programs": {"vectorAdd": {"args": ["\\u0000"]}}}}}'})),
    driver("checker/benchmarks/overhead_benchmark.py", NAMED,
           Refusal(py("checker/benchmarks/overhead_benchmark.py", "--hazardlab", H, "--program", H, "--sizes",
                      "4096,4096"), ("'4096' is given twice",)),
           Refusal(py("checker/benchmarks/overhead_benchmark.py", "--hazardlab", H, "--program", H, "--json",
                      "{missing}"), ("argument --json", "in a folder that exists")),
           Refusal(py("checker/benchmarks/overhead_benchmark.py", "--hazardlab", H, "--program", H, "--epochs", "9"),
                   ("--epochs '9' is for the train workload",)),
           Refusal(py("checker/benchmarks/overhead_benchmark.py", "--hazardlab", H, "--training-loop", "{folder}/kept.txt",
                      "--python", "{file}", "--json", "{file}"), ("--json", "is the same file as --python")),
           Refusal(py("checker/benchmarks/overhead_benchmark.py", "--hazardlab", H, "--program", H, "--workloads",
                      "launch", "--launch-program", H), ("--program", "is for the copy workload",)),
           Refusal(py("checker/benchmarks/overhead_benchmark.py", "--hazardlab", H, "--program", H, "--json",
                      "/dev/null"), ("argument --json", "it is not a plain file")),
           Refusal(py("checker/benchmarks/overhead_benchmark.py", "--hazardlab", H, "--program", H, "--configs",
                      "plain,sanitizer", "--compute-sanitizer", "/bin/true"),
                   ("--compute-sanitizer '/bin/true' is not compute-sanitizer",))),
    driver("checker/benchmarks/side_by_side.py", NAMED,
           Refusal(py("checker/benchmarks/side_by_side.py", "--hazardlab", H, "--build-dir", "{folder}",
                      "--markdown", "{folder}"), ("argument --markdown", "it is a folder")),
           Refusal(py("checker/benchmarks/side_by_side.py", "--hazardlab", H, "--build-dir", "{folder}",
                      "--python", "/no/such"), ("argument --python", "/no/such")),
           Refusal(py("checker/benchmarks/side_by_side.py", "--hazardlab", H, "--build-dir", "{folder}"),
                   ("--build-dir '{folder}'", "lesson-legacy-stream-nonblocking-consumer is not a runnable file")),
           Refusal(py("checker/benchmarks/side_by_side.py", "--hazardlab", H, "--build-dir", "{folder}",
                      "--budget-s", "0.5"), ("argument --budget-s", "'0.5'")),
           Refusal(py("checker/benchmarks/side_by_side.py", "--hazardlab", H, "--build-dir", "{folder}", "--programs",
                      "torch-wait-stream", "--markdown", "{scratch}/helpers.py"), ("--markdown", "is a program this runs"),
                   entries={"helpers.py": "import os\n"}),
           Refusal(py("checker/benchmarks/side_by_side.py", "--hazardlab", H, "--build-dir", "{folder}",
                      "--compute-sanitizer", ""), ("--compute-sanitizer ''", "is blank"))),
    driver("checker/benchmarks/python_site_benchmark.py", NOTHING,
           Refusal(py("checker/benchmarks/python_site_benchmark.py", "{missing}"), ("probe_library", "a file that exists")),
           Refusal(py("checker/benchmarks/python_site_benchmark.py", "{file}", "--captures", "0"), ("--captures", "'0'")),
           Refusal(py("checker/benchmarks/python_site_benchmark.py", "{file}"),
                   ("probe_library '{file}' cannot be loaded",)),
           # A shared library without the probe's function: this interpreter's own _ctypes module.
           Refusal(py("checker/benchmarks/python_site_benchmark.py", __import__("_ctypes").__file__),
                   ("has no function ns_per_python_capture",))),
    driver("checker/programs/expect_check.py", NOTHING,
           Refusal(py("checker/programs/expect_check.py", H, "clean", "--needs-gpus", "two", "--", "true"),
                   ("--needs-gpus", "'two'")),
           Refusal(py("checker/programs/expect_check.py", "{python}", "clean", "--", "true"),
                   ("HAZARDLAB '{python}' is not hazardlab",)),
           Refusal(py("checker/programs/expect_check.py", H, "clean", "--", "{missing}"),
                   ("the program '{missing}' is not a runnable file",)),
           Refusal(py("checker/programs/expect_check.py", H, "clean", "--copy-in", "unsafe", "--", "true"),
                   ("--copy-in 'unsafe'", "clean would ignore it")),
           Refusal(py("checker/programs/expect_check.py", H, "clean", "--needs-python-module",
                      "os; open('notes.txt', 'w')", "--", "true"), ("--needs-python-module", "is not a module name")),
           Refusal(py("checker/programs/expect_check.py", H, "clean", "--", "true"),
                   ("EXPECT_CHECK_OPTIONS", "'--smaple'"), {"EXPECT_CHECK_OPTIONS": "--smaple 5"}),
           Refusal(py("checker/programs/expect_check.py", H, "clean", "--", "true"),
                   ("EXPECT_CHECK_OPTIONS='--sample 0' is refused by hazardlab check",),
                   {"EXPECT_CHECK_OPTIONS": "--sample 0"}),
           Refusal(py("checker/programs/expect_check.py", H, "clean", "--", "true"),
                   ("EXPECT_CHECK_OPTIONS='--source-root /x'", "--source-root is not passed on"),
                   {"EXPECT_CHECK_OPTIONS": "--source-root /x"}),
           Refusal(py("checker/programs/expect_check.py", H, "found", "--hazard", "h2d-pinned-mutat", "--", "true"),
                   ("--hazard 'h2d-pinned-mutat' is not a hazard",))),
    driver("checker/pytest/hazardlab_pytest.py", "the reports a user names (--hazardlab-json and the like)",
           Refusal(("{python}", "-m", "pytest", "-p", "hazardlab_pytest", "--hazardlab", "--hazardlab-program",
                    "/bin/true", "{folder}"), ("is not hazardlab",), {"PYTHONPATH": "{source}/checker/pytest"}),
           Refusal(("{python}", "-m", "pytest", "-p", "hazardlab_pytest", "--hazardlab", "{folder}"),
                   ("HL_CHECK_LOG_FOLDER", "not run by hazardlab check"),
                   {"PYTHONPATH": "{source}/checker/pytest", "HL_CHECK_LOG_FOLDER": "{folder}"}),
           Refusal(("{python}", "-m", "pytest", "-p", "hazardlab_pytest", "--hazardlab", f"--hazardlab-program={H}",
                    "--hazardlab-option=--sample=8", "--hazardlab-option=--sample=9", "{folder}"),
                   ("--sample is given twice",), {"PYTHONPATH": "{source}/checker/pytest"}),
           Refusal(("{python}", "-m", "pytest", "-p", "hazardlab_pytest", "--hazardlab", f"--hazardlab-program={H}",
                    "--hazardlab-json={scratch}/test_mine.py", "{scratch}/test_mine.py"),
                   ("'{scratch}/test_mine.py' is a file of the session's own",),
                   {"PYTHONPATH": "{source}/checker/pytest"}, entries={"test_mine.py": "def test_mine():\n    pass\n"}),
           Refusal(("{python}", "-m", "pytest", "-p", "hazardlab_pytest", "--hazardlab", "--hazardlab-program=",
                    "{folder}"), ("--hazardlab-program was given a blank value",),
                   {"PYTHONPATH": "{source}/checker/pytest"}),
           # A misspelt option is pytest's usage error, with pytest's own status for it (4).
           Refusal(("{python}", "-m", "pytest", "-p", "hazardlab_pytest", "--hazardlab", f"--hazardlab-program={H}",
                    "--hazardlab-js=r.json", "{folder}"), ("unrecognized arguments: --hazardlab-js=r.json",),
                   {"PYTHONPATH": "{source}/checker/pytest"}, 4)),
    # A framework not installed (played by a module of its name that fails as a missing one does, first on the
    # path): the program says which and exits 77, "cannot run here" (a skip).
    driver("checker/python/frameworks.py", NOTHING,
           Refusal(py("checker/python/frameworks.py", "bogus"), ("invalid choice: 'bogus'",)),
           Refusal(py("checker/python/frameworks.py", "--list", "cupy"), ("--list takes no other arguments",)),
           Refusal(py("checker/python/frameworks.py", "--list=1"), ("--list takes no value",)),
           Refusal(py("checker/python/frameworks.py", "ddp"), ("ddp runs under torchrun", "LOCAL_RANK is 'x'"),
                   {"LOCAL_RANK": "x"}),
           Refusal(py("checker/python/frameworks.py", "cupy"), ("cannot run here", "'numpy'"),
                   {"PYTHONPATH": "{scratch}", "PYTHONDONTWRITEBYTECODE": "1"}, 77,
                   {"numpy.py": "raise ModuleNotFoundError(name='numpy')"})),
    driver("checker/python/stream_races.py", NOTHING,
           Refusal(py("checker/python/stream_races.py", "torch-wait-stream", "racy"), ("invalid choice: 'racy'",)),
           Refusal(py("checker/python/stream_races.py", "torch-wait-stream", "unsafe"), ("cannot run here", "'torch'"),
                   {"PYTHONPATH": "{scratch}", "PYTHONDONTWRITEBYTECODE": "1"}, 77,
                   {"torch.py": "raise ModuleNotFoundError(name='torch')"})),
    driver("checker/python/training_loop.py", NOTHING,
           Refusal(py("checker/python/training_loop.py", "train", "--epochs", "-1"), ("--epochs", "'-1'")),
           Refusal(py("checker/python/training_loop.py", "staging-unsafe", "--workers", "9"),
                   ("--workers", "'9'", "staging-unsafe")),
           Refusal(py("checker/python/training_loop.py", "train", "--epochs", "1"), ("cannot run here", "'torch'"),
                   {"PYTHONPATH": "{scratch}", "PYTHONDONTWRITEBYTECODE": "1"}, 77,
                   {"torch.py": "raise ModuleNotFoundError(name='torch')"})),
)
