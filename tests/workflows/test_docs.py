"""The docs: `mkdocs build --strict` passes (a broken link or a page missing from the nav fails it), the README keeps
its two commands and links only to files that exist."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def test_mkdocs_builds_strict(tmp_path):
    pytest.importorskip("mkdocs", reason="mkdocs is in the test extra: pip install -e '.[test]'")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          cwd=REPO, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stderr[-3000:]
    pages = {p.relative_to(tmp_path / "site").as_posix() for p in (tmp_path / "site").rglob("index.html")}
    assert {"reviewer/index.html", "ci-gate/index.html", "reference/exit-codes/index.html"} <= pages


def test_a_broken_link_fails_the_strict_build(tmp_path):
    pytest.importorskip("mkdocs")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# x\n\nSee [the missing page](nowhere.md).\n")
    (tmp_path / "mkdocs.yml").write_text("site_name: x\nnav:\n  - Home: index.md\n")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode != 0 and "nowhere.md" in done.stderr


def test_readme_keeps_the_two_commands_and_its_links_resolve():
    readme = (REPO / "README.md").read_text()
    quick = readme.split("## Quick start", 1)[1].split("```", 2)[1]
    assert quick.strip() == "make demo\nmake test"
    links = re.findall(r"\]\(([^)#]+)\)", readme)
    assert links and all((REPO / link).is_file() for link in links), [l for l in links if not (REPO / l).is_file()]
    assert len(readme.splitlines()) < 100
