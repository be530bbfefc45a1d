"""Run settings: defaults, then `[tool.drafter]` in pyproject.toml or drafter.toml, then CLI options."""

from __future__ import annotations

import dataclasses
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from drafter.errors import ConfigError


@dataclass(frozen=True)
class Settings:
    model: str = "heuristic"
    workspace: Path = Path("workspace")
    corpus: tuple[Path, ...] = ()
    select: tuple[str, ...] = ()
    prompts: Path | None = None
    known_bad: Path | None = None
    changed_since: Path | None = None  # an earlier run folder (or its targets.json): draft only changed targets
    jobs: int = field(default_factory=lambda: os.cpu_count() or 1)
    max_examples: int = 100
    seeds: int = 5
    base_url: str | None = None
    concurrency: int = 4
    temperature: float = 0.2
    timeout: float = 60.0
    retries: int = 3
    cache: bool = True  # reuse stored replies of remote models for identical prompts


PATH_KEYS = {"workspace", "prompts", "known_bad", "changed_since"}
PATH_LIST_KEYS = {"corpus"}
STR_LIST_KEYS = {"select"}
POSITIVE_INT_KEYS = {"jobs", "max_examples", "seeds", "concurrency"}
BOOL_KEYS = {"cache"}


def _coerce(key: str, value, base: Path, origin: str):
    expected = Settings.__dataclass_fields__[key].type
    try:
        if key in PATH_KEYS:
            return base / str(value)
        if key in PATH_LIST_KEYS:
            return tuple(base / str(v) for v in ([value] if isinstance(value, str) else value))
        if key in STR_LIST_KEYS:
            return (value,) if isinstance(value, str) else tuple(str(v) for v in value)
        if key in POSITIVE_INT_KEYS:
            if isinstance(value, bool) or int(value) != value or int(value) < 1:
                raise ValueError
            return int(value)
        if key in BOOL_KEYS:
            if not isinstance(value, bool):
                raise ValueError
            return value
        if key in ("temperature", "timeout"):
            return float(value)
        if key == "retries":
            if isinstance(value, bool) or int(value) != value or int(value) < 0:
                raise ValueError
            return int(value)
        if not isinstance(value, str):
            raise ValueError
        return value
    except (TypeError, ValueError):
        raise ConfigError(f"{origin}: key {key!r} has a bad value {value!r} (expected {expected})") from None


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
    for key, value in values.items():
        key = key.replace("-", "_")
        if key not in known:
            raise ConfigError(f"{origin}: unknown key {key!r} (known keys: {', '.join(sorted(known))})")
        merged[key] = _coerce(key, value, directory, origin or "settings")
    for key, value in overrides.items():
        if key not in known:
            raise ConfigError(f"unknown setting {key!r}")
        if value is None or value == ():
            continue
        merged[key] = _coerce(key, value, Path.cwd(), f"option --{key.replace('_', '-')}")
    return Settings(**merged)
