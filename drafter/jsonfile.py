"""drafter's side of the one JSON loader (`readback`): its failures as the user errors drafter reports."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from readback import Either, MapOf, OptionalKey, UnreadableJSON, load, matches, regular_file, shape_of
from drafter.errors import ConfigError, DrafterError

__all__ = ["Either", "MapOf", "OptionalKey", "UnreadableJSON", "inside", "load", "matches", "read_json", "regular_file", "shape_of"]


def read_json(path: Path, shape: Any = object, error: type[DrafterError] = ConfigError, hint: str = "") -> Any:
    """The checked JSON value of `path`, or `error` naming the file and key (and `hint`: what to do)."""
    try:
        return load(path, shape)
    except UnreadableJSON as exc:
        raise error(f"{exc}{'; ' + hint if hint else ''}") from None


def inside(folder: Path, name: str, what: str) -> Path:
    """folder/name, when it stays inside folder once resolved (no `..`, no absolute name, no link out);
    ConfigError naming `what` otherwise."""
    base = Path(folder).resolve()
    path = (base / name).resolve() if name and "\0" not in name else base
    if path == base or base not in path.parents:
        raise ConfigError(f"{what} {name!r} is not a name inside {folder}; refused")
    return path
