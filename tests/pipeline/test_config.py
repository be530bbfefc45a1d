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


@pytest.mark.parametrize("line, message", [
    ("jobs = inf", "key 'jobs' has a bad value inf (expected a whole number from 1 to 256)"),
    ("max-examples = 0", "key 'max-examples' has a bad value 0 (expected a whole number from 1 to 100000)"),
    ("timeout = -5", "key 'timeout' has a bad value -5 (expected a number from 0.001 to 86400.0)"),
    ("budget = -1", "key 'budget' has a bad value -1 (expected a number from 0.1 to 86400.0)"),
    ("temperature = nan", "key 'temperature' has a bad value nan (expected a number from 0.0 to 2.0)"),
    ("retries = 1.5", "key 'retries' has a bad value 1.5 (expected a whole number from 0 to 100)"),
])
def test_out_of_range_values_name_the_key_as_written_and_the_range(tmp_path: Path, line, message):
    (tmp_path / "drafter.toml").write_text(line + "\n")
    with pytest.raises(ConfigError) as caught:
        load_settings(tmp_path)
    assert str(caught.value) == f"{tmp_path / 'drafter.toml'}: {message}"


def test_an_in_range_value_beside_is_taken(tmp_path: Path):
    (tmp_path / "drafter.toml").write_text("jobs = 3\nmax-examples = 1\ntimeout = 0.5\n")
    settings = load_settings(tmp_path)
    assert (settings.jobs, settings.max_examples, settings.timeout) == (3, 1, 0.5)


def test_unknown_key_is_quoted_as_written(tmp_path: Path):
    (tmp_path / "drafter.toml").write_text("bogus-key = 1\n")
    with pytest.raises(ConfigError, match="unknown key 'bogus-key'"):
        load_settings(tmp_path)
