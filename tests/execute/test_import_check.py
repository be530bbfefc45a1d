"""The import check: boxed, a CPU budget per module, one bad module never costs the others."""

import os

from drafter.importcheck import import_failures

MODULES = {
    "pkg/__init__.py": "",
    "pkg/a_good.py": "print('chatter at import must not confuse the check')\nVALUE = 1\n",
    "pkg/b_burns.py": "while True:\n    pass\n",
    "pkg/b_sleeps.py": "import time\ntime.sleep(60)\n",
    "pkg/c_exits.py": "import os\nos._exit(3)\n",
    "pkg/d_raises.py": "raise ValueError('needs a config file')\n",
    "pkg/e_writes_home.py": "import os\nopen(os.path.expanduser('~/drafter-was-here'), 'w').write('x')\n",
    "pkg/f_reads_key.py": "import os\nassert 'OPENAI_API_KEY' not in os.environ, 'the key leaked'\n",
    "pkg/g_good.py": "VALUE = 2\n",
}


def test_each_module_is_judged_alone_within_its_budget(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    source = tmp_path / "run" / "source"
    for rel, text in MODULES.items():
        (source / rel).parent.mkdir(parents=True, exist_ok=True)
        (source / rel).write_text(text)
    modules = sorted(rel[:-3].replace("/", ".") for rel in MODULES if not rel.endswith("__init__.py"))
    log = tmp_path / "run" / "logs" / "import_check.log"

    failures = import_failures(source, modules, budget=0.5, log=log)

    assert set(failures) == {"pkg.b_burns", "pkg.b_sleeps", "pkg.c_exits", "pkg.d_raises", "pkg.e_writes_home"}
    assert failures["pkg.b_burns"] == "importing took longer than 0.5 s"  # its CPU budget
    # A sleep burns no CPU: the wall-clock backstop (10 x budget + 5 s) stops it long before its 60 s end.
    assert failures["pkg.b_sleeps"] == "importing took longer than 0.5 s (wall clock)"
    assert "exit code 3" in failures["pkg.c_exits"]
    assert failures["pkg.d_raises"] == "ValueError: needs a config file"
    assert "sandbox" in failures["pkg.e_writes_home"] and not (home / "drafter-was-here").exists()
    assert "Traceback" in log.read_text() and "needs a config file" in log.read_text()
    assert os.listdir(home) == []


def test_loud_modules_files_written_at_import_and_a_hypothesis_module_in_src(tmp_path):
    """Issue 20: 125 kB printed at import deadlocked the check (stderr was read only at the end); a module that
    writes a relative file at import failed (cwd was the run folder, not scratch); a hypothesis.py in SRC stood in
    for Hypothesis and every module failed. The quiet module beside them imports as before."""
    source = tmp_path / "run" / "source"
    files = {
        "loud.py": "import sys\nsys.stderr.write('x' * 125_000)\nprint('y' * 125_000)\nVALUE = 1\n",
        "writes_here.py": "open('made-at-import.txt', 'w').write('x')\n",
        "hypothesis.py": "raise RuntimeError('I am not Hypothesis')\n",
        "quiet.py": "import hypothesis\nassert hypothesis.__file__ and 'source' not in hypothesis.__file__\n",
    }
    for rel, text in files.items():
        (source / rel).parent.mkdir(parents=True, exist_ok=True)
        (source / rel).write_text(text)
    failures = import_failures(source, ["loud", "writes_here", "hypothesis", "quiet"], budget=20.0)
    assert set(failures) == {"hypothesis"}, failures
    assert "has the name of a package drafter runs on" in failures["hypothesis"]
    assert (tmp_path / "run" / "scratch" / "made-at-import.txt").is_file()
