"""Scheduled refreshes: --changed-since drafts only targets whose signature or docstring changed."""

from pathlib import Path

import pytest

from drafter.config import Settings
from drafter.errors import ConfigError
from drafter.pipeline import draft

MODULE = '''
def double(x: int) -> int:
    """Twice x."""
    return x * 2


def halve(x: int) -> int:
    """Half of x, rounded down."""
    return x // 2


def negate(x: int) -> int:
    """Minus x."""
    return -x
'''


def test_only_new_and_changed_signatures_are_drafted_again(tmp_path: Path):
    src = tmp_path / "src" / "pkg"
    src.mkdir(parents=True)
    (src / "__init__.py").write_text("")
    (src / "calc.py").write_text(MODULE)
    settings = Settings(workspace=tmp_path / "ws")
    first = draft(tmp_path / "src", settings)
    assert {t.id for t in first.extraction.targets} == {"pkg.calc:double", "pkg.calc:halve", "pkg.calc:negate"}

    changed = (MODULE.replace("return x * 2", "return x + x")  # body only: not a change of contract
               .replace('"""Half of x, rounded down."""', '"""Half of x, rounded toward zero."""')
               + '\n\ndef triple(x: int) -> int:\n    """Three times x."""\n    return 3 * x\n')
    (src / "calc.py").write_text(changed)
    second = draft(tmp_path / "src", Settings(workspace=tmp_path / "ws", changed_since=first.run_dir))
    assert {t.id for t in second.extraction.targets} == {"pkg.calc:halve", "pkg.calc:triple"}
    assert {d.target for d in second.drafted} == {"pkg.calc:halve", "pkg.calc:triple"}
    assert any("2 of 4 targets unchanged" in w for w in second.warnings)


def test_changed_since_something_that_is_not_a_run_is_named(tmp_path: Path):
    (tmp_path / "src").mkdir()
    bogus = tmp_path / "not-a-run"
    bogus.mkdir()
    with pytest.raises(ConfigError, match="not-a-run"):
        draft(tmp_path / "src", Settings(workspace=tmp_path / "ws", changed_since=bogus))
    assert not (tmp_path / "ws").exists()
