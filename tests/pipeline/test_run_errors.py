"""Environment problems in SRC: one unimportable module is a warning, an SRC where nothing imports is an error."""

from dataclasses import replace
from pathlib import Path

import pytest

from drafter.config import Settings
from drafter.errors import SourceError
from drafter.pipeline import run

GOOD_MODULE = '''
def double(x: int) -> int:
    """Twice x."""
    return x * 2
'''
BROKEN_MODULE = '''
import a_package_that_is_not_installed

def triple(x: int) -> int:
    return x * 3
'''


def make_src(tmp_path: Path, **modules: str) -> Path:
    package = tmp_path / "src" / "pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    for name, text in modules.items():
        (package / f"{name}.py").write_text(text)
    return tmp_path / "src"


def settings(tmp_path: Path) -> Settings:
    return Settings(workspace=tmp_path / "ws", jobs=1, max_examples=20, seeds=2)


def test_one_unimportable_module_is_a_warning_and_the_rest_runs(tmp_path):
    src = make_src(tmp_path, good=GOOD_MODULE, broken=BROKEN_MODULE)
    result = run(src, settings(tmp_path))
    assert any("pkg.broken does not import" in w and "a_package_that_is_not_installed" in w for w in result.warnings)
    statuses = {c.target: set() for c in result.report.candidates}
    for c in result.report.candidates:
        statuses[c.target].add(c.reason)
    assert statuses["pkg.broken:triple"] == {"error"}  # its candidates could not run
    assert any(c.status == "kept" for c in result.report.candidates if c.target == "pkg.good:double")


def test_src_where_nothing_imports_is_an_environment_error(tmp_path):
    src = make_src(tmp_path, broken=BROKEN_MODULE)
    with pytest.raises(SourceError, match=r"pkg\.broken: ModuleNotFoundError.*Install SRC's dependencies"):
        run(src, settings(tmp_path))


def test_relative_workspace_works_from_the_working_directory(tmp_path, monkeypatch):
    make_src(tmp_path, good=GOOD_MODULE)
    monkeypatch.chdir(tmp_path)
    result = run(Path("src"), Settings(workspace=Path("ws"), jobs=1, max_examples=20, seeds=2))
    assert not result.warnings
    assert result.run_dir.is_absolute() and result.run_dir.is_relative_to(tmp_path / "ws")
    assert any(c.status == "kept" for c in result.report.candidates)


@pytest.mark.parametrize("modules, select, message", [
    ({"private": "X = 1\n\ndef _helper():\n    return X\n"}, (), r"no public function or method"),
    ({"good": GOOD_MODULE}, ("pkg.nothing:*",), r"--select pkg\.nothing:\*: matches no target"),
])
def test_nothing_to_draft_is_an_error_that_says_why_and_writes_no_run(tmp_path, modules, select, message):
    src = make_src(tmp_path, **modules)
    with pytest.raises(SourceError, match=message):
        run(src, replace(settings(tmp_path), select=select))
    assert not (tmp_path / "ws" / "runs").exists()


def test_src_without_any_module_says_so(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "notes.txt").write_text("not Python")
    with pytest.raises(SourceError, match="no Python module found"):
        run(tmp_path / "src", settings(tmp_path))


def test_a_selection_that_matches_runs(tmp_path):
    src = make_src(tmp_path, good=GOOD_MODULE)
    result = run(src, replace(settings(tmp_path), select=("pkg.good:*",)))
    assert {c.target for c in result.report.candidates} == {"pkg.good:double"}
