"""The mutation-testing-report-schema view of a RunReport (the JSON of Stryker's mutation-testing-elements, which
Stryker, PIT's plugin and Infection write too): files with their source, every mutant with its location, mutator
and status, and the kept candidates as the tests that kill or cover it.

Statuses map so that the viewer's score is drafter's: killed -> Killed, a repeated timeout -> Timeout,
survived -> Survived, not reached (no kept candidate executes the changed lines) -> NoCoverage, all four in the
score; not evaluated (no sound candidate met it) -> Ignored and invalid -> CompileError, both outside it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from drafter import __version__
from drafter.report.entries import CandidateEntry, MutantEntry, RunReport

SCHEMA_VERSION = "2"
STATUS = {"killed": "Killed", "timeout": "Timeout", "survived": "Survived", "not_reached": "NoCoverage",
          "not_evaluated": "Ignored", "invalid": "CompileError"}
WHY = {
    "timeout": "killed only by timeouts that repeated (a single timeout is not a kill)",
    "not_reached": "not reached: no kept candidate's clean run executes the changed lines, so none was run on it",
    "not_evaluated": "not evaluated: no candidate of this target held on the clean code, so nothing met this mutant",
    "invalid": "invalid: the mutated module does not compile or import",
}
THRESHOLDS = {"high": 80, "low": 60}


@dataclass(frozen=True)
class Change:
    """Where a unified diff changes its old file: 1-based line and column, end exclusive, and the new text."""

    path: str | None
    start: tuple[int, int]
    end: tuple[int, int]
    replacement: str
    changes: int  # separate changes in the diff; the location is the first one


def _position(text: str, offset: int, first_line: int) -> tuple[int, int]:
    before = text[:offset]
    return first_line + before.count("\n"), offset - (before.rfind("\n") + 1) + 1


def _word(char: str) -> bool:
    return char.isalnum() or char == "_"


def _balanced(text: str) -> bool:
    return all(text.count(a) == text.count(b) for a, b in ("()", "[]", "{}"))


def _trim(old: str, new: str) -> tuple[int, int]:
    """Common prefix and suffix lengths of old and new, cut at word boundaries and never leaving a bracket of the
    changed text unmatched, so the range reads as code (`len(` -> `` would not)."""
    prefix = 0
    while prefix < min(len(old), len(new)) and old[prefix] == new[prefix]:
        prefix += 1
    while 0 < prefix < len(old) and _word(old[prefix - 1]) and _word(old[prefix]):
        prefix -= 1
    suffix = 0
    while suffix < min(len(old), len(new)) - prefix and old[-1 - suffix] == new[-1 - suffix]:
        suffix += 1
    if old and prefix + suffix >= len(old):  # keep at least one character of the old text in the range
        suffix = max(0, len(old) - prefix - 1)
        prefix = min(prefix, len(old) - 1)
    while 0 < suffix < len(old) - prefix and _word(old[-suffix]) and _word(old[-suffix - 1]):
        suffix -= 1
    if not _balanced(old[prefix:len(old) - suffix]) or not _balanced(new[prefix:len(new) - suffix]):
        suffix = 0
        if not _balanced(old[prefix:]) or not _balanced(new[prefix:]):
            prefix = 0
    return prefix, suffix


def parse_change(diff: str) -> Change | None:
    """The first change of a diff as a location in the old file; None when the diff has no hunk."""
    path, blocks, old_line, in_block = None, 0, 0, False
    removed: list[str] = []
    added: list[str] = []
    first: int | None = None
    following: str | None = None  # the old line after a pure insertion: the range the insertion replaces
    for line in diff.splitlines():
        if line.startswith("--- ") and blocks == 0 and not old_line:
            name = line[4:].split("\t")[0].strip()
            path = name[2:] if name.startswith("a/") else name
        elif line.startswith("@@"):
            in_block = False
            if not old_line:
                match = re.match(r"@@ -(\d+)", line)
                if match is None:
                    return None
                old_line = int(match.group(1))
        elif not old_line or line.startswith("\\"):
            continue
        elif line.startswith(("-", "+")):
            if not in_block:
                blocks, in_block = blocks + 1, True
            if blocks > 1:
                continue
            if first is None:
                first = old_line
            if line.startswith("-"):
                removed.append(line[1:])
                old_line += 1
            else:
                added.append(line[1:])
        else:
            if blocks == 1 and in_block and not removed and following is None:
                following = line[1:]
            in_block = False
            if blocks == 0:
                old_line += 1
    if first is None:
        return None
    if not removed:  # a pure insertion replaces the start of the line it goes before
        removed, added = [following or ""], added + [following or ""]
    old, new = "\n".join(removed), "\n".join(added)
    prefix, suffix = _trim(old, new)
    return Change(path, _position(old, prefix, first), _position(old, len(old) - suffix, first),
                  new[prefix:len(new) - suffix], blocks)


def _covered_by(mutant: MutantEntry, kept: list[CandidateEntry]) -> list[str]:
    """Kept candidates of the mutant's target that ran on it (a not-reached pair never ran)."""
    return sorted(c.id for c in kept if c.outcomes.get(mutant.id) not in (None, "not_reached"))


def _mutant(m: MutantEntry, change: Change, kept: list[CandidateEntry]) -> dict:
    row = {
        "id": m.id,
        "mutatorName": m.operator,
        "description": m.description + (f" (and {change.changes - 1} more changes)" if change.changes > 1 else ""),
        "replacement": change.replacement,
        "location": {"start": {"line": change.start[0], "column": change.start[1]},
                     "end": {"line": change.end[0], "column": change.end[1]}},
        "status": STATUS.get(m.status, "Ignored"),
    }
    reasons = [WHY[m.status]] if m.status in WHY else []
    if m.status not in STATUS:
        reasons.append(f"drafter status {m.status!r} has no counterpart in the schema")
    triage = getattr(m, "triage", None)  # a surviving mutant's differential search, when the run recorded one
    if triage:
        reasons.append(f"triage: {triage if isinstance(triage, str) else json.dumps(triage, sort_keys=True)}")
    if m.caught_in_round is not None and m.caught_in_round > 1:
        reasons.append(f"caught in feedback round {m.caught_in_round}")
    if reasons:
        row["statusReason"] = "; ".join(reasons)
    if m.killed_by:
        row["killedBy"] = list(m.killed_by)
    covered = _covered_by(m, kept)
    if covered or m.status in ("killed", "survived", "timeout"):
        row["coveredBy"] = sorted(set(covered) | set(m.killed_by))
    return row


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def build_mutation_testing(report: RunReport, run_dir: Path | None = None) -> tuple[dict, list[str]]:
    """The schema's report and what could not go in it (a source file that is gone, a diff without a hunk)."""
    src = Path(report.source.get("path", "."))
    target_file = {t.id: t.file for t in report.targets}
    kept = [c for c in report.candidates if c.status == "kept"]
    kept_by_target: dict[str, list[CandidateEntry]] = {}
    for c in kept:
        kept_by_target.setdefault(c.target, []).append(c)
    files: dict[str, dict] = {}
    left_out: list[str] = []
    sources: dict[str, str | None] = {}
    for m in sorted(report.mutants, key=lambda m: m.id):
        change = parse_change(m.diff)
        if change is None:
            left_out.append(f"{m.id}: its diff has no hunk")
            continue
        name = target_file.get(m.target) or change.path
        if name not in sources:
            sources[name] = _read(src / name) if name else None
        if sources[name] is None:
            left_out.append(f"{m.id}: source {src / str(name)} is not readable")
            continue
        entry = files.setdefault(name, {"language": "python", "source": sources[name], "mutants": []})
        entry["mutants"].append(_mutant(m, change, kept_by_target.get(m.target, [])))
    test_files: dict[str, dict] = {}
    for c in sorted(kept, key=lambda c: c.id):
        key = c.file or c.id
        entry = test_files.setdefault(key, {"tests": []})
        code = _read(run_dir / c.file) if run_dir is not None and c.file else None
        if code is not None:
            entry["source"] = code
        entry["tests"].append({"id": c.id, "name": f"{c.target} :: {c.name or c.id}"})
    result = {
        "$schema": "https://git.io/mutation-testing-schema",
        "schemaVersion": SCHEMA_VERSION,
        "thresholds": THRESHOLDS,
        "projectRoot": str(src),
        "files": dict(sorted(files.items())),
        "testFiles": test_files,
        "framework": {"name": "drafter", "version": __version__},
        "config": {"run_id": report.run_id, "model": report.model, "settings": report.settings,
                   "left_out": left_out},
    }
    return result, left_out


def render_mutation_testing(report: RunReport, run_dir: Path | None = None) -> str:
    return json.dumps(build_mutation_testing(report, run_dir)[0], indent=2, sort_keys=False) + "\n"
