"""The mutant cache: a rerun or a refresh reuses the mutants of a function whose module did not change.

One JSON file per target under workspace/cache/mutants/, named by the sha256 of what the mutants depend on: the
module's text, where the target is, the operator set and the generator's own source (editing an operator
invalidates what it made). An entry stores each mutant without its whole-module source, only the part that
differs from the module (the function's new text), so entries stay small; reading it back splices it in again.
Writes are atomic; an unreadable entry is regenerated with a warning.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path

from drafter.data import Mutant, MutantSet, Target
from drafter.jsonfile import UnreadableJSON, load, matches, shape_of
from drafter.runfolder import write_json_atomic
from sabotage.mutants import mutants_for, read_text
from sabotage.operator import Operator
from sabotage.operators import ALL

CACHE_VERSION = 1
MUTANT_FIELDS = {f.name for f in dataclasses.fields(Mutant)} - {"source"}
ROW_SHAPE = {**{k: v for k, v in shape_of(Mutant).items() if k != "source"}, "splice": list}
ENTRY_SHAPE = {"target": str, "mutants": [ROW_SHAPE], "dropped_equivalent": int, "dropped_duplicate": int}


@functools.lru_cache(maxsize=1)
def generator_version() -> str:
    """sha256 of every source file of the sabotage package."""
    digest = hashlib.sha256()
    root = Path(__file__).resolve().parent
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


class MutantCache:
    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self.hits: set[str] = set()  # targets whose mutants came from the cache
        self.warnings: list[str] = []

    def key(self, target: Target, text: str, operators: Sequence[Operator]) -> str:
        fields = [CACHE_VERSION, generator_version(), hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest(),
                  target.id, target.module, target.file, target.qualname, target.line, [op.name for op in operators]]
        return hashlib.sha256(json.dumps(fields).encode()).hexdigest()

    def mutants_for(self, target: Target, src: Path, operators: Sequence[Operator] | None = None) -> MutantSet:
        """Like sabotage.mutants_for, answered from the cache when the same module text was mutated before."""
        found = self.get(target, src, operators)
        if found is not None:
            return found
        made = mutants_for(target, src, operators)
        self.put(target, src, made, operators)
        return made

    def _path(self, target: Target, src: Path, operators: Sequence[Operator] | None) -> tuple[Path, str]:
        _, text = read_text(src, target.file)
        digest = self.key(target, text, ALL if operators is None else tuple(operators))
        return self.folder / digest[:2] / f"{digest}.json", text

    def get(self, target: Target, src: Path, operators: Sequence[Operator] | None = None) -> MutantSet | None:
        path, text = self._path(target, src, operators)
        if not path.exists() and not path.is_symlink():
            return None
        try:
            found = _loaded(load(path, ENTRY_SHAPE), text, path)
        except UnreadableJSON as exc:
            self.warnings.append(f"mutant cache entry {exc}; ignored, its mutants are made again")
            return None
        self.hits.add(target.id)
        return found

    def put(self, target: Target, src: Path, made: MutantSet, operators: Sequence[Operator] | None = None) -> None:
        path, text = self._path(target, src, operators)
        entry = _entry(made, text)
        try:
            write_json_atomic(path, entry)
        except (OSError, UnicodeEncodeError) as exc:
            self.warnings.append(f"mutant cache: cannot store {path.name} ({exc})")


def _entry(made: MutantSet, text: str) -> dict:
    rows = []
    for mutant in made.mutants:
        row = dataclasses.asdict(mutant)
        source = row.pop("source")
        head = len(os.path.commonprefix([text, source]))
        limit = min(len(text), len(source)) - head
        tail = len(os.path.commonprefix([text[::-1][:limit], source[::-1][:limit]]))
        row["splice"] = [head, len(text) - tail, source[head:len(source) - tail]]
        rows.append(row)
    return {"target": made.target, "mutants": rows, "dropped_equivalent": made.dropped_equivalent,
            "dropped_duplicate": made.dropped_duplicate}


def _loaded(entry: dict, text: str, path: Path) -> MutantSet:
    mutants = []
    for i, row in enumerate(entry["mutants"]):
        splice = row.pop("splice")
        if not (len(splice) == 3 and matches(splice[:2], [int]) and isinstance(splice[2], str)
                and 0 <= splice[0] <= splice[1] <= len(text)):
            raise UnreadableJSON(path, "expected [start, end, text] within the module", f"mutants[{i}].splice")
        start, end, middle = splice
        row["reach"] = tuple(row.get("reach", ()))
        mutants.append(Mutant(**{k: v for k, v in row.items() if k in MUTANT_FIELDS}, source=text[:start] + middle + text[end:]))
    return MutantSet(entry["target"], tuple(mutants), int(entry["dropped_equivalent"]), int(entry["dropped_duplicate"]))
