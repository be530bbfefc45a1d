"""Sealed fixture manifest: `{"version": 1, "fixtures": [{"id", "path", "sha256", ...}]}`.

Paths are relative to the manifest's folder. Every file in that folder must be sealed by a row; extra keys on a
row (e.g. `must_remain`) are kept and handed to properties through `SealedFixture.extra`.
"""

import hashlib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from gate.check import Check, GateError, read_json, sha256_file, stable_json, write_atomic
from gate.lock import hash_tree

MANIFEST_VERSION = 1
REQUIRED_KEYS = ("id", "path", "sha256")


@dataclass(frozen=True)
class SealedFixture:
    id: str
    path: str
    sha256: str
    folder: Path
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def file(self) -> Path:
        return self.folder / self.path

    def read_bytes(self) -> bytes:
        """The fixture's bytes, only if they still match the seal."""
        try:
            data = self.file.read_bytes()
        except OSError as exc:
            raise GateError(f"sealed fixture {self.id!r}: cannot read {self.file}: {exc.strerror}") from None
        if hashlib.sha256(data).hexdigest() != self.sha256:
            raise GateError(f"sealed fixture {self.id!r}: {self.file} does not match its sha256 seal")
        return data

    def read_text(self) -> str:
        return self.read_bytes().decode("utf-8")


@dataclass(frozen=True)
class Manifest:
    path: Path
    fixtures: tuple[SealedFixture, ...]

    def fixture(self, fixture_id: str) -> SealedFixture:
        for row in self.fixtures:
            if row.id == fixture_id:
                return row
        raise GateError(f"manifest {self.path} has no fixture with id {fixture_id!r}")


def _row(manifest: Path, index: int, row: Any) -> SealedFixture:
    where = f"manifest {manifest}: fixtures[{index}]"
    if not isinstance(row, dict):
        raise GateError(f"{where} must be an object")
    for key in REQUIRED_KEYS:
        if not isinstance(row.get(key), str) or not row[key]:
            raise GateError(f"{where} needs a non-empty string {key!r}")
    rel = PurePosixPath(row["path"])
    if rel.is_absolute() or ".." in rel.parts or "\\" in row["path"]:
        raise GateError(f"{where}: path {row['path']!r} must stay inside {manifest.parent}")
    digest = row["sha256"].lower()
    if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
        raise GateError(f"{where}: sha256 {row['sha256']!r} is not a hex sha256 digest")
    extra = {k: v for k, v in row.items() if k not in REQUIRED_KEYS}
    return SealedFixture(row["id"], rel.as_posix(), digest, manifest.parent, extra)


def load_manifest(path: Path) -> Manifest:
    """Parse and validate the manifest's shape (not the bytes it seals); GateError naming the key otherwise."""
    path = Path(path)
    data = read_json(path, "manifest")
    if not isinstance(data, dict) or data.get("version") != MANIFEST_VERSION:
        raise GateError(f"manifest {path}: expected an object with \"version\": {MANIFEST_VERSION}")
    rows = data.get("fixtures")
    if not isinstance(rows, list):
        raise GateError(f"manifest {path}: key \"fixtures\" must be a list")
    fixtures = tuple(_row(path, i, row) for i, row in enumerate(rows))
    for key in ("id", "path"):
        values = [getattr(f, key) for f in fixtures]
        dupes = sorted({v for v in values if values.count(v) > 1})
        if dupes:
            raise GateError(f"manifest {path}: duplicate {key} {', '.join(dupes)}")
    return Manifest(path, fixtures)


def verify_manifest(path: Path) -> Check:
    """Every row's bytes match its seal and every file in the fixtures folder is sealed."""
    manifest = load_manifest(path)
    present = hash_tree(manifest.path.parent, exclude=(manifest.path,))
    findings = []
    for row in manifest.fixtures:
        if row.path not in present:
            findings.append(f"missing: {row.path} (fixture {row.id!r})")
        elif present[row.path] != row.sha256:
            findings.append(f"changed: {row.path} (fixture {row.id!r}): sha256 mismatch")
    sealed = {row.path for row in manifest.fixtures}
    findings += [f"unsealed: {p}" for p in present if p not in sealed]
    return Check("seal", not findings, tuple(findings) or (f"{len(sealed)} sealed fixtures match {path}",),
                 {"findings": findings, "fixtures": {f.id: {"path": f.path, **f.extra} for f in manifest.fixtures}})


def seal_row(folder: Path, fixture_id: str, rel_path: str, **extra: Any) -> dict[str, Any]:
    """A manifest row for a file (used by oracle owners and tests to write manifests)."""
    return {"id": fixture_id, "path": rel_path, "sha256": sha256_file(Path(folder) / rel_path), **extra}


def add_row(manifest: Path, fixture_id: str, rel_path: str, extra: dict[str, Any]) -> Check:
    """Oracle-owner command: seal (or re-seal) one fixture file; creates the manifest if needed."""
    manifest = Path(manifest)
    rows = [] if not manifest.exists() else [
        {"id": f.id, "path": f.path, "sha256": f.sha256, **f.extra} for f in load_manifest(manifest).fixtures]
    if not (manifest.parent / rel_path).is_file():
        raise GateError(f"fixture {manifest.parent / rel_path} does not exist")
    row = seal_row(manifest.parent, fixture_id, PurePosixPath(rel_path).as_posix(), **extra)
    rows = [r for r in rows if r["id"] != fixture_id and r["path"] != row["path"]] + [row]
    write_atomic(manifest, stable_json({"version": MANIFEST_VERSION, "fixtures": rows}))
    load_manifest(manifest)
    return Check("seal", True, (f"sealed {row['path']} as {fixture_id!r} ({row['sha256'][:12]}...)",), {"row": row})


DRAFTED_LOCK = "drafted.lock.json"


def verify_drafted_lock(lock: Path) -> list[str]:
    """`missing:` and `changed:` lines for the promoted property files a `drafted.lock.json` records.

    `drafter promote` writes the lock (sha256, run, target, fingerprint per file, names relative to its folder);
    hand-written properties beside them are not in it and are not checked here."""
    lock = Path(lock)
    data = read_json(lock, "drafted lock")
    files = data.get("files") if isinstance(data, dict) and data.get("version") == 1 else None
    if not isinstance(files, dict):
        raise GateError(f"drafted lock {lock}: expected an object with \"version\": 1 and \"files\"")
    findings = []
    for name, entry in sorted(files.items()):
        digest = entry.get("sha256") if isinstance(entry, dict) else None
        rel = PurePosixPath(name)
        if not isinstance(digest, str) or rel.is_absolute() or ".." in rel.parts:
            raise GateError(f"drafted lock {lock}: entry {name!r} needs a relative name and a \"sha256\"")
        path = lock.parent / rel
        if not path.is_file():
            findings.append(f"missing: {path} (promoted from run {entry.get('run')}, recorded in {lock})")
        elif sha256_file(path) != digest.lower():
            findings.append(f"changed: {path} differs from what was promoted (run {entry.get('run')}); "
                            f"promote again or fix {lock}")
    return findings


def has_drafted_lock(*oracle_dirs: Path) -> bool:
    """Whether any of the folders holds a `drafted.lock.json` (only then does the gate run the drafted-lock check)."""
    return any(Path(d).is_dir() and next(Path(d).rglob(DRAFTED_LOCK), None) is not None for d in oracle_dirs)


def verify_drafted_locks(oracle_dir: Path, base_oracle_dir: Path | None = None) -> Check:
    """Every `drafted.lock.json` under the oracle folder matches the files it records; none at all passes.

    With `base_oracle_dir` (the base checkout's oracle), a lock the patched tree lacks, adds or rewrites fails too."""
    oracle_dir = Path(oracle_dir)

    def locks_under(folder: Path | None) -> dict[str, Path]:
        if folder is None or not Path(folder).is_dir():
            return {}
        return {p.relative_to(folder).as_posix(): p for p in sorted(Path(folder).rglob(DRAFTED_LOCK))}

    locks, base_locks = locks_under(oracle_dir), locks_under(base_oracle_dir)
    findings = []
    if base_oracle_dir is not None:
        for rel in sorted(set(locks) | set(base_locks)):
            if rel not in locks or rel not in base_locks or locks[rel].read_bytes() != base_locks[rel].read_bytes():
                findings.append(f"changed: {rel} under {oracle_dir} differs from the base's (the patch rewrote a lock)")
    findings += [line for lock in locks.values() for line in verify_drafted_lock(lock)]
    summary = f"promoted files match {len(locks)} {DRAFTED_LOCK}" if locks else f"no {DRAFTED_LOCK} under {oracle_dir}"
    return Check("drafted-lock", not findings, tuple(findings) or (summary,), {"findings": findings})
