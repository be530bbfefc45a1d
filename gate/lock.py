"""Fixture lock: one sha256 per file under a folder, and sidecar digests (`x.json.sha256` beside `x.json`)."""

import hashlib
import os
from pathlib import Path

from gate.check import Check, GateError, read_json, sha256_file, stable_json, write_atomic

LOCK_VERSION = 1
SIDECAR_SUFFIX = ".sha256"
SKIPPED_DIRS = frozenset({".git"})


def hash_tree(root: Path, exclude: tuple[Path, ...] = ()) -> dict[str, str]:
    """sha256 of every file under root keyed by sorted POSIX relative path; a symlink is hashed by its target text."""
    root = Path(root)
    if not root.is_dir():
        raise GateError(f"{root} is not a folder")
    skip = {Path(p).resolve() for p in exclude}
    digests: dict[str, str] = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS)
        for name in files + [d for d in dirs if (Path(folder) / d).is_symlink()]:
            path = Path(folder) / name
            if path.resolve() in skip and not path.is_symlink():
                continue
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                digests[rel] = "symlink:" + hashlib.sha256(os.readlink(path).encode()).hexdigest()
            else:
                try:
                    digests[rel] = sha256_file(path)
                except OSError as exc:
                    raise GateError(f"cannot read {path}: {exc.strerror or exc}") from None
    return dict(sorted(digests.items()))


def compare_digests(expected: dict[str, str], actual: dict[str, str]) -> list[str]:
    """`missing:`, `changed:` and `untracked:` lines, one per file, sorted."""
    lines = [f"missing: {p}" for p in expected if p not in actual]
    lines += [f"changed: {p}" for p in expected if p in actual and actual[p] != expected[p]]
    lines += [f"untracked: {p}" for p in actual if p not in expected]
    return sorted(lines, key=lambda line: (line.split(": ", 1)[1], line))


def write_lock(root: Path, lock: Path) -> Check:
    files = hash_tree(root, exclude=(lock,))
    write_atomic(lock, stable_json({"version": LOCK_VERSION, "files": files}))
    return Check("lock", True, (f"locked {len(files)} files under {root}",), {"files": files})


def load_lock(lock: Path) -> dict[str, str]:
    data = read_json(lock, "lock file")
    if not isinstance(data, dict) or data.get("version") != LOCK_VERSION:
        raise GateError(f"lock file {lock}: expected an object with \"version\": {LOCK_VERSION}")
    files = data.get("files")
    if not isinstance(files, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in files.items()):
        raise GateError(f"lock file {lock}: key \"files\" must map relative paths to sha256 strings")
    return files


def verify_lock(root: Path, lock: Path) -> Check:
    findings = compare_digests(load_lock(lock), hash_tree(root, exclude=(lock,)))
    return Check("lock", not findings, tuple(findings) or (f"all files under {root} match {lock}",),
                 {"findings": findings})


def verify_sidecars(folder: Path) -> Check:
    """Every `x.sha256` must name the digest of `x` beside it; a sidecar without its file fails."""
    folder = Path(folder)
    if not folder.is_dir():
        raise GateError(f"{folder} is not a folder")
    findings, checked = [], 0
    for sidecar in sorted(folder.rglob(f"*{SIDECAR_SUFFIX}")):
        target = sidecar.with_name(sidecar.name[: -len(SIDECAR_SUFFIX)])
        rel = target.relative_to(folder).as_posix()
        try:
            # `sha256sum` style ("<hex>  name") and a bare digest are both accepted.
            words = sidecar.read_text(encoding="utf-8").split()
        except (OSError, UnicodeDecodeError) as exc:
            findings.append(f"unreadable: {sidecar.relative_to(folder).as_posix()} ({exc})")
            continue
        if not words or len(words[0]) != 64:
            findings.append(f"malformed: {sidecar.relative_to(folder).as_posix()} holds no sha256 digest")
        elif not target.is_file():
            findings.append(f"missing: {rel}")
        elif sha256_file(target) != words[0].lower():
            findings.append(f"changed: {rel}")
        else:
            checked += 1
    return Check("sidecars", not findings, tuple(findings) or (f"{checked} sidecar digests match",),
                 {"findings": findings, "checked": checked})


def require_sidecar(path: Path) -> bytes:
    """Read a corpus file only after its sidecar digest matches; GateError otherwise."""
    path = Path(path)
    sidecar = path.with_name(path.name + SIDECAR_SUFFIX)
    try:
        data = path.read_bytes()
        words = sidecar.read_text(encoding="utf-8").split()
    except OSError as exc:
        raise GateError(f"cannot read {exc.filename}: {exc.strerror}") from None
    if not words or hashlib.sha256(data).hexdigest() != words[0].lower():
        raise GateError(f"{path} does not match its sidecar digest {sidecar}")
    return data
