"""A workspace that cannot hold a run is refused before any work, by a message that names it; what is there
is never repaired or deleted. A disk that fills up mid-run ends in one line and an incomplete run."""

import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

SHOP = Path(__file__).resolve().parents[2] / "examples" / "shop"
ARGS = ["--select", "shop.billing:apply_tax", "--jobs", "1", "--max-examples", "5", "--seeds", "1"]


def drafter(*args, cwd: Path, preexec=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from drafter.cli import app; app()", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300, preexec_fn=preexec)


@pytest.mark.parametrize("shape, expected", [
    ("workspace_is_a_file", "is a file, not a folder"),
    ("runs_is_a_file", "runs is a file"),
    ("latest_is_a_folder", "latest is a folder"),
])
def test_a_workspace_of_the_wrong_shape_is_refused_by_name(tmp_path, shape, expected):
    workspace = tmp_path / "ws"
    if shape == "workspace_is_a_file":
        workspace.write_text("mine")
    else:
        workspace.mkdir()
        if shape == "runs_is_a_file":
            (workspace / "runs").write_text("mine")
        else:
            (workspace / "latest").mkdir()
            (workspace / "latest" / "notes.txt").write_text("mine")
    before = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*"))

    result = drafter("run", str(SHOP), "--workspace", str(workspace), *ARGS, cwd=tmp_path)

    assert result.returncode == 2, result.stderr
    assert expected in result.stderr and str(workspace) in result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")) == before  # nothing added or removed
    good = drafter("run", str(SHOP), "--workspace", str(tmp_path / "fresh"), *ARGS, cwd=tmp_path)
    assert good.returncode == 0, good.stderr  # the same run in a sound workspace is fine


def test_a_disk_that_fills_up_ends_in_one_line_and_an_incomplete_run(tmp_path):
    def small_files():  # every write past 64 KiB fails with EFBIG, as on a full disk (ENOSPC)
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, 64 * 1024))

    src = tmp_path / "src"
    (src / "big").mkdir(parents=True)
    (src / "big" / "__init__.py").write_text("")
    (src / "big" / "mod.py").write_text("def double(x: int) -> int:\n    return 2 * x\n" + "#" * 200_000 + "\n")
    result = drafter("run", str(src), "--workspace", str(tmp_path / "ws"), "--jobs", "1", "--max-examples", "5",
                     cwd=tmp_path, preexec=small_files)

    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    assert "File too large" in result.stderr and "incomplete" in result.stderr
    runs = os.listdir(tmp_path / "ws" / "runs")
    assert [r for r in runs if r.endswith(".incomplete")] and not (tmp_path / "ws" / "latest").exists()
