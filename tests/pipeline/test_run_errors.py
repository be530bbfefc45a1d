"""Environment problems in SRC: one unimportable module is a warning, an SRC where nothing imports is an error."""

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
    src = make_src(tmp_path, good=GOOD_MODULE)
    monkeypatch.chdir(tmp_path)
    result = run(Path("src"), Settings(workspace=Path("ws"), jobs=1, max_examples=20, seeds=2))
    assert not result.warnings
    assert result.run_dir.is_absolute() and result.run_dir.is_relative_to(tmp_path / "ws")
    assert any(c.status == "kept" for c in result.report.candidates)
