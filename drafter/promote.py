"""`drafter promote`: copy reviewed kept candidates into an oracle folder under stable names, with a lock.

The only command that writes into an oracle folder, and only because a human names what to promote. Each file
gets a unique name (`test_<module>_<function>__<name>.py`), a header saying where it came from instead of
"draft", and loses its per-file `@settings` so the oracle's Hypothesis profile governs it (unless asked to keep
them). `DIR/drafted.lock.json` records sha256, run, target and fingerprint of every promoted file; `oracle-gate`
verifies it. Never runs git.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import libcst as cst

from drafter.errors import ConfigError
from drafter.jsonfile import MapOf, inside, read_json
from drafter.report.shape import report_shape
from drafter.runfolder import INCOMPLETE_SUFFIX, RUN_META, run_id

LOCK_NAME = "drafted.lock.json"
LOCK_VERSION = 1


@dataclass(frozen=True)
class Promoted:
    candidate_id: str
    file: str  # name inside the oracle folder
    status: str  # written | unchanged (the same candidate of the same run was promoted before)


@dataclass(frozen=True)
class PromoteResult:
    promoted: tuple[Promoted, ...]
    refused: tuple[str, ...]  # one message per candidate id that was not promoted, saying why
    lock: Path


def promoted_name(target_id: str, name: str) -> str:
    """`shop.billing:apply_tax` + `zero_rate_is_identity` -> `test_shop_billing_apply_tax__zero_rate_is_identity.py`."""
    module, _, qualname = target_id.partition(":")
    return f"test_{module.replace('.', '_')}_{qualname.replace('.', '_')}__{name}.py"


def _load_run(run_dir: Path) -> tuple[Path, dict]:
    run_dir = Path(run_dir).resolve()
    if run_dir.name.endswith(INCOMPLETE_SUFFIX) or not (run_dir / RUN_META).is_file():
        raise ConfigError(f"run {run_dir}: not a complete run folder (no {RUN_META}); only finished runs can be promoted")
    return run_dir, read_json(run_dir / "report.json", report_shape(), hint="only finished runs can be promoted")


LOCK_SHAPE = {"version": int, "files": MapOf({"sha256": str})}


def read_lock(lock: Path) -> dict[str, dict]:
    """The entries of an existing drafted.lock.json (file name -> entry); {} when there is none."""
    if not lock.exists() and not lock.is_symlink():
        return {}
    data = read_json(lock, LOCK_SHAPE, hint="fix or remove it before promoting")
    if data["version"] != LOCK_VERSION:
        raise ConfigError(f"{lock}: key 'version': {data['version']} is not {LOCK_VERSION}; fix or remove it before promoting")
    return data["files"]


def _check_into(into: Path) -> None:
    """--into is a folder or can become one: nothing on the way is a file."""
    for folder in (into, *into.parents):
        if folder.exists():
            if not folder.is_dir():
                raise ConfigError(f"--into {into}: {folder} is {'a file' if folder == into else 'a file, not a folder'}; "
                                  "give a folder")
            return


def _write_atomic(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _is_settings(decorator: cst.Decorator) -> bool:
    node = decorator.decorator
    node = node.func if isinstance(node, cst.Call) else node
    return (isinstance(node, cst.Name) and node.value == "settings") or (
        isinstance(node, cst.Attribute) and node.attr.value == "settings")


class _DropSettings(cst.CSTTransformer):
    """Remove `@settings(...)` from test functions; the `settings` import goes too once nothing uses it."""

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        return updated.with_changes(decorators=[d for d in updated.decorators if not _is_settings(d)])


class _UsesName(cst.CSTVisitor):
    def __init__(self, name: str):
        self.name, self.used = name, False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False  # the import itself is not a use

    def visit_Name(self, node: cst.Name) -> None:
        self.used = self.used or node.value == self.name


class _DropImport(cst.CSTTransformer):
    def __init__(self, module: str, name: str):
        self.module, self.name = module, name

    def leave_ImportFrom(self, original: cst.ImportFrom, updated: cst.ImportFrom):
        if not isinstance(updated.names, Sequence) or updated.module is None:
            return updated
        if cst.Module([]).code_for_node(updated.module) != self.module:
            return updated
        names = [a for a in updated.names if not (isinstance(a.name, cst.Name) and a.name.value == self.name
                                                   and a.asname is None)]
        if not names:
            return cst.RemoveFromParent()
        names[-1] = names[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return updated.with_changes(names=names)


def _docstring(text: str) -> cst.SimpleStatementLine:
    safe = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    return cst.SimpleStatementLine([cst.Expr(cst.SimpleString(f'"""{safe}"""'))])


def promoted_source(source: str, header: str, keep_settings: bool) -> str:
    """The kept file with `header` as its module docstring and, unless kept, no per-file @settings."""
    module = cst.parse_module(source)
    body = list(module.body)
    first = body[0] if body else None
    has_docstring = (isinstance(first, cst.SimpleStatementLine) and len(first.body) == 1
                     and isinstance(first.body[0], cst.Expr) and isinstance(first.body[0].value, cst.SimpleString))
    body[0:1 if has_docstring else 0] = [_docstring(header)]
    module = module.with_changes(body=body)
    if not keep_settings:
        module = module.visit(_DropSettings())
        uses = _UsesName("settings")
        module.visit(uses)
        if not uses.used:
            module = module.visit(_DropImport("hypothesis", "settings"))
    return module.code


def header_text(candidate: dict, target: dict, run: str, today: str) -> str:
    return (f"Property for {candidate['target']} (kind: {candidate.get('kind') or 'unknown'}), promoted into the "
            f"oracle by a human.\n\nFrom drafter run {run}, candidate {candidate['id']}; target fingerprint "
            f"{target.get('fingerprint', 'unknown')}; promoted {today}. Recorded in {LOCK_NAME}.\n")


def promote(run_dir: Path, candidate_ids: Sequence[str], into: Path, *, all_kept: bool = False,
            keep_settings: bool = False, today: str | None = None) -> PromoteResult:
    """Promote the named kept candidates (or every kept one) of a complete run into `into`.

    A candidate that is not kept, not in the run, or whose file name is taken by a different file is refused
    (with the reason) and the others still go in."""
    run_dir, report = _load_run(run_dir)
    run = report.get("run_id") or run_id(run_dir)
    today = today or time.strftime("%Y-%m-%d", time.gmtime())
    into = Path(into)
    _check_into(into)
    lock_path = into / LOCK_NAME
    lock = read_lock(lock_path)
    by_id = {c["id"]: c for c in report["candidates"]}
    targets = {t["id"]: t for t in report["targets"]}
    chosen = [c["id"] for c in report["candidates"] if c["status"] == "kept"] if all_kept else list(candidate_ids)
    if not chosen:
        raise ConfigError(f"run {run_dir}: nothing to promote" + (" (it kept no candidate)" if all_kept else
                                                                  " (name candidate ids or give --all-kept RUN)"))
    promoted: list[Promoted] = []
    refused: list[str] = []
    names: dict[str, str] = {}  # file name -> candidate id, within this call
    for cid in dict.fromkeys(chosen):
        candidate = by_id.get(cid)
        if candidate is None:
            refused.append(f"{cid}: not a candidate of run {run} (its report.json lists them)")
            continue
        if candidate["status"] != "kept":
            refused.append(f"{cid}: not kept (rejected at {candidate.get('stage')}: {candidate.get('reason')}); "
                           "only kept candidates can be promoted")
            continue
        if not candidate.get("file"):
            refused.append(f"{cid}: report.json names no kept file for it")
            continue
        try:
            source_file = inside(run_dir, candidate["file"], "its kept file")
            name = inside(into, promoted_name(candidate["target"], candidate["name"] or ""), "its file name").name
        except ConfigError as exc:
            refused.append(f"{cid}: {exc} (report.json is not as drafter wrote it)")
            continue
        if not source_file.is_file():
            refused.append(f"{cid}: its kept file {source_file} is missing from the run folder")
            continue
        if name != promoted_name(candidate["target"], candidate["name"]):
            refused.append(f"{cid}: its name {candidate['name']!r} is not a plain file name; refused")
            continue
        if names.get(name, cid) != cid:
            refused.append(f"{cid}: file name {name} is already taken by {names[name]}")
            continue
        names[name] = cid
        try:
            text = promoted_source(source_file.read_text(encoding="utf-8"),
                                   header_text(candidate, targets.get(candidate["target"], {}), run, today),
                                   keep_settings)
        except (OSError, UnicodeDecodeError, cst.ParserSyntaxError) as exc:
            refused.append(f"{cid}: cannot read {source_file} as Python ({exc})")
            continue
        destination = into / name
        entry = lock.get(name, {})
        if destination.exists() and not destination.is_file():
            refused.append(f"{cid}: {destination} exists and is not a file; not overwritten (move it away first)")
            continue
        if destination.exists():
            current = destination.read_bytes()
            # The same promotion again, or of a candidate a refresh carried forward unchanged from that run.
            same_candidate = entry.get("candidate") == cid and entry.get("run") in (run, candidate.get("carried_from"))
            if current == text.encode() or (same_candidate and hashlib.sha256(current).hexdigest() == entry["sha256"]):
                promoted.append(Promoted(cid, name, "unchanged"))
                continue
            refused.append(f"{cid}: {destination} exists and is a different file; not overwritten (remove it "
                           "first if the new draft should replace it)")
            continue
        try:
            into.mkdir(parents=True, exist_ok=True)
            _write_atomic(destination, text)
        except OSError as exc:
            refused.append(f"{cid}: cannot write {destination} ({exc.strerror or exc})")
            continue
        lock[name] = {"sha256": hashlib.sha256(text.encode()).hexdigest(), "run": run, "candidate": cid,
                      "target": candidate["target"], "fingerprint": targets.get(candidate["target"], {}).get("fingerprint"),
                      "promoted": today}
        promoted.append(Promoted(cid, name, "written"))
    if any(p.status == "written" for p in promoted):
        try:
            _write_atomic(lock_path, json.dumps({"version": LOCK_VERSION, "files": lock}, indent=2, sort_keys=True) + "\n")
        except OSError as exc:
            raise ConfigError(f"{lock_path}: cannot write the lock ({exc.strerror or exc}); the files written are "
                              "not recorded: remove them or promote again") from None
    return PromoteResult(tuple(promoted), tuple(refused), lock_path)
