"""Run settings: defaults, then `[tool.drafter]` in pyproject.toml or drafter.toml, then CLI options."""

from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from drafter.errors import ConfigError
from drafter.execute import default_jobs


@dataclass(frozen=True)
class Settings:
    model: str = "heuristic"
    workspace: Path = Path("workspace")
    corpus: tuple[Path, ...] = ()
    select: tuple[str, ...] = ()
    include_private: bool = False  # also draft what private modules define and no public module re-exports
    prompts: Path | None = None
    known_bad: Path | None = None
    changed_since: Path | None = None  # an earlier run folder (or its targets.json): draft only changed targets
    jobs: int = field(default_factory=default_jobs)  # the cores this process may use
    max_examples: int = 100
    seeds: int = 5
    budget: float = 30.0  # seconds: the cap on a candidate's first clean run; its later runs scale from that run
    base_url: str | None = None
    concurrency: int = 4
    temperature: float = 0.2
    timeout: float = 60.0
    retries: int = 3
    cache: bool = True  # reuse stored replies of remote models for identical prompts
    rounds: int = 1  # feedback rounds: after each, targets with survivors or rejections are asked again
    max_calls: int | None = None  # model calls of the whole run (every round); None: no cap
    max_tokens: int | None = None  # model tokens (prompt + completion) of the whole run; None: no cap
    triage_examples: int = 100  # examples of the differential search per surviving mutant; 0: no triage
    triage_run_examples: int = 5_000  # the same over the whole run: mutants past it are not_triaged


PATH_KEYS = {"workspace", "prompts", "known_bad", "changed_since"}
PATH_LIST_KEYS = {"corpus"}
STR_LIST_KEYS = {"select"}
# key -> (smallest, largest) allowed value
INT_RANGES = {"jobs": (1, 256), "max_examples": (1, 100_000), "seeds": (1, 1_000), "concurrency": (1, 256),
              "retries": (0, 100), "rounds": (1, 20), "max_calls": (1, 10_000_000), "max_tokens": (1, 10**12),
              "triage_examples": (0, 100_000), "triage_run_examples": (0, 10**9)}
FLOAT_RANGES = {"temperature": (0.0, 2.0), "timeout": (0.001, 86_400.0), "budget": (0.1, 86_400.0)}
BOOL_KEYS = {"cache", "include_private"}


def _path_text(value) -> str:
    """A path as the file or the option wrote it: text, not empty, no NUL byte (checked even when an option
    overrides the key, so a bad file is found before it matters)."""
    if not isinstance(value, (str, Path)) or not str(value) or "\0" in str(value):
        raise ValueError
    return str(value)


def _expected(key: str) -> str:
    if key in INT_RANGES:
        return "a whole number from {} to {}".format(*INT_RANGES[key])
    if key in FLOAT_RANGES:
        return "a number from {} to {}".format(*FLOAT_RANGES[key])
    if key in BOOL_KEYS:
        return "true or false"
    if key in PATH_KEYS:
        return "a path as a non-empty string"
    if key in PATH_LIST_KEYS:
        return "a path or a list of paths, as strings"
    return str(Settings.__dataclass_fields__[key].type)


def _coerce(key: str, value, base: Path, origin: str, written: str | None = None):
    try:
        if key in PATH_KEYS:
            return base / _path_text(value)
        if key in PATH_LIST_KEYS:
            return tuple(base / _path_text(v) for v in ([value] if isinstance(value, (str, Path)) else value))
        if key in STR_LIST_KEYS:
            return (value,) if isinstance(value, str) else tuple(str(v) for v in value)
        if key in INT_RANGES:
            low, high = INT_RANGES[key]
            if isinstance(value, bool) or not (low <= float(value) <= high) or int(value) != value:
                raise ValueError
            return int(value)
        if key in FLOAT_RANGES:
            low, high = FLOAT_RANGES[key]
            if isinstance(value, bool) or not (low <= float(value) <= high):  # NaN fails both comparisons
                raise ValueError
            return float(value)
        if key in BOOL_KEYS:
            if not isinstance(value, bool):
                raise ValueError
            return value
        if not isinstance(value, str):
            raise ValueError
        return value
    except (TypeError, ValueError, OverflowError):
        raise ConfigError(
            f"{origin}: key {(written or key)!r} has a bad value {value!r} (expected {_expected(key)})"
        ) from None


def read_file_settings(directory: Path) -> tuple[dict, str | None]:
    """The [tool.drafter] table of pyproject.toml, or drafter.toml, in `directory`."""
    for name, table_path in (("drafter.toml", ()), ("pyproject.toml", ("tool", "drafter"))):
        path = directory / name
        if not path.is_file():
            continue
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"{path}: cannot read settings: {exc}") from exc
        for part in table_path:
            data = data.get(part, {}) if isinstance(data, dict) else {}
        if data:
            if not isinstance(data, dict):
                raise ConfigError(f"{path}: [tool.drafter] must be a table")
            return data, str(path)
    return {}, None


def load_settings(directory: Path | None = None, **overrides) -> Settings:
    """Settings for a run started in `directory` (default: the working directory); None overrides are ignored."""
    directory = directory or Path.cwd()
    values, origin = read_file_settings(directory)
    known = {f.name for f in dataclasses.fields(Settings)}
    merged: dict = {}
    for written, value in values.items():
        key = written.replace("-", "_")
        if key not in known:
            known_keys = ", ".join(sorted(k.replace("_", "-") for k in known))
            raise ConfigError(f"{origin}: unknown key {written!r} (known keys: {known_keys})")
        merged[key] = _coerce(key, value, directory, origin or "settings", written)
    for key, value in overrides.items():
        if key not in known:
            raise ConfigError(f"unknown setting {key!r}")
        if value is None or value == ():
            continue
        merged[key] = _coerce(key, value, Path.cwd(), f"option --{key.replace('_', '-')}")
    return Settings(**merged)
