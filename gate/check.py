"""The one result type every gate part returns, and the gate's own error."""

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import readback

EXIT_PASS = 0
EXIT_BLOCKED = 2
EXIT_USAGE = 3


class GateError(Exception):
    """A file, key or revision the gate cannot use. Always turns into a failed check (exit 3 on its own)."""


@dataclass(frozen=True)
class Check:
    """One gate part's answer: ok or not, the reasons a human reads, and data for --json."""

    name: str
    ok: bool
    reasons: tuple[str, ...] = ()
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"check": self.name, "ok": self.ok, "reasons": list(self.reasons), **self.data}


def failed(name: str, error: Exception | str) -> Check:
    """A check that could not run: fail closed with the error as the reason."""
    return Check(name, False, (f"error: {error}",), {"error": str(error)})


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 16), b""):
            digest.update(block)
    return digest.hexdigest()


def read_json(path: Path, what: str) -> Any:
    """Parse a JSON file (through the project's one loader: regular file, size, depth) or raise GateError naming
    the file."""
    try:
        return readback.load(path)
    except readback.UnreadableJSON as exc:
        raise GateError(f"{what} {exc.path} {exc.problem}") from None


def stable_json(data: Any) -> str:
    return json.dumps(data, indent=2, sort_keys=True) + "\n"


def write_atomic(path: Path, text: str) -> None:
    """Write via a temporary file in the same folder and rename, so readers never see half a file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
