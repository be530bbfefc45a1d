"""How the offline proposer calls a target with its quantified inputs (shared by its family modules)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from drafter.models.strategies import Guess

MATERIALISED = 200  # items of a lazy result compared: enough to see a difference, finite for infinite iterators


@dataclass(frozen=True)
class Call:
    """How to call the target with its quantified inputs."""

    inputs: dict[str, str]  # name -> strategy
    bases: tuple[str, ...]  # "name: basis" per input, for rationale
    kinds: dict[str, Guess]
    callee: str  # "apply_tax", "self.to_text", "Hunk.parse"
    args: tuple[tuple[str, bool], ...] | None  # (parameter, passed by keyword); None for a property read
    lazy: bool = False  # the result is an iterator: listed (up to MATERIALISED items) wherever it is used

    @property
    def text(self) -> str:
        """e.g. "apply_tax(amount, rate)" or "self.to_text()"."""
        return self.with_args()

    def without(self, names: set[str]) -> Call:
        """The call with some parameters left to their defaults (those after them passed by keyword)."""
        if self.args is None or not names & set(self.inputs):
            return self
        args, dropped = [], False
        for name, keyword in self.args:
            dropped = dropped or name in names
            if name not in names:
                args.append((name, keyword or dropped))
        kept = {n: v for n, v in self.inputs.items() if n not in names}
        bases = tuple(b for b in self.bases if b.split(":", 1)[0] not in names)
        return replace(self, inputs=kept, bases=bases, kinds={n: g for n, g in self.kinds.items() if n in kept},
                       args=tuple(args))

    def with_args(self, **replaced: str) -> str:
        """The call with some arguments replaced by other expressions."""
        if self.args is None:
            return self.callee
        parts = [f"{name}={replaced.get(name, name)}" if keyword else replaced.get(name, name) for name, keyword in self.args]
        called = f"{self.callee}({', '.join(parts)})"
        return f"list(itertools.islice({called}, {MATERIALISED}))" if self.lazy else called
