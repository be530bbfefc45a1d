from pathlib import Path

import pytest

from drafter.config import load_settings
from drafter.errors import ConfigError


def test_defaults_without_any_file(tmp_path: Path):
    settings = load_settings(tmp_path)
    assert settings.model == "heuristic"
    assert settings.seeds == 5


def test_pyproject_table_then_cli_overrides(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.drafter]\nmodel = "replay:r.json"\nmax-examples = 30\ncorpus = ["data"]\n'
    )
    settings = load_settings(tmp_path, max_examples=7, model=None)
    assert settings.model == "replay:r.json"  # None override leaves the file's value
    assert settings.max_examples == 7
    assert settings.corpus == (tmp_path / "data",)


def test_drafter_toml_wins_over_pyproject(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text('[tool.drafter]\nmodel = "replay:a.json"\n')
    (tmp_path / "drafter.toml").write_text('model = "openai:gpt-x"\n')
    assert load_settings(tmp_path).model == "openai:gpt-x"


def test_unknown_key_names_the_key_and_file(tmp_path: Path):
    (tmp_path / "drafter.toml").write_text("modle = 'heuristic'\n")
    with pytest.raises(ConfigError, match=r"drafter\.toml.*'modle'"):
        load_settings(tmp_path)


def test_bad_value_names_the_key(tmp_path: Path):
    (tmp_path / "drafter.toml").write_text("jobs = 0\n")
    with pytest.raises(ConfigError, match="'jobs'"):
        load_settings(tmp_path)


def test_unparseable_toml_names_the_file(tmp_path: Path):
    (tmp_path / "drafter.toml").write_text("model = \n")
    with pytest.raises(ConfigError, match="drafter.toml"):
        load_settings(tmp_path)
