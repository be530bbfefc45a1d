"""A whole run writes into its workspace only: not into SRC, the cwd or HOME, whichever the cwd is (HOME's one
exception is drafter's own user cache folder, ~/.cache/drafter, where Hypothesis's Unicode tables are shared)."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

AWKWARD = Path(__file__).resolve().parents[2] / "examples" / "awkward"


def listing(root: Path) -> dict[str, int]:
    return {str(p.relative_to(root)): p.stat().st_size for p in sorted(root.rglob("*"))}


def outside_user_cache(home: Path) -> dict[str, int]:
    return {path: size for path, size in listing(home).items()
            if path not in (".cache", ".cache/drafter") and not path.startswith(".cache/drafter/")}


@pytest.mark.parametrize("cwd_kind", ["inside-src", "elsewhere", "read-only"])
def test_a_run_leaves_src_cwd_and_home_as_they_were(tmp_path, monkeypatch, cwd_kind):
    src = tmp_path / "src"
    shutil.copytree(AWKWARD, src, ignore=shutil.ignore_patterns("__pycache__"))
    cwd = src / "awkward" if cwd_kind == "inside-src" else tmp_path / "cwd"
    cwd.mkdir(exist_ok=True)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("DRAFTER_CACHE_DIR", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.chdir(cwd)
    before = {"src": listing(src), "cwd": listing(cwd), "home": listing(home)}
    if cwd_kind == "read-only":
        # As root the mode does not stop a write: the listings below are what proves none happened.
        cwd.chmod(0o555)

    try:
        # A process of its own: Hypothesis fixes its default folder from the cwd at import.
        result = subprocess.run(
            [sys.executable, "-c", "from drafter.cli import app; app()", "run", str(src),
             "--model", f"replay:{src / 'replies.json'}", "--workspace", str(tmp_path / "ws"),
             "--select", "awkward.tools:format", "--max-examples", "20", "--jobs", "1"],
            capture_output=True, text=True, timeout=300,
        )
    finally:
        cwd.chmod(0o755)

    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads((tmp_path / "ws" / "latest" / "report.json").read_text())
    assert any(c["stage"] == "kept" for c in report["candidates"])  # Hypothesis really ran
    assert {"src": listing(src), "cwd": listing(cwd), "home": outside_user_cache(home)} == before
    assert any(path.startswith(".cache/drafter/unicode_data/") for path in listing(home))  # the one exception
    assert os.access(tmp_path / "ws" / "latest" / "hypothesis", os.F_OK)  # its folder went to the run instead
