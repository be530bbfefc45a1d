"""`heuristic`: offline candidates from static evidence (signatures, docstrings, the body read with `ast`, names).

Proposes only what some evidence justifies, and says in each rationale what that evidence was. The families live in
`relations.py` (round trips, orderings between functions) and `families.py` (one function's own contracts); this
module builds the call under test and its inputs. Same targets in, byte-identical replies out.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from drafter.data import Extraction, Param, Prompt, Reply, Target
from drafter.models.evidence import Facts, facts_of, nonnegative_fields, type_aliases
from drafter.models.families import Families
from drafter.models.relations import Relations
from drafter.models.strategies import Context, Guess, class_builds, nonnegative_params, param_guess


class HeuristicBackend:
    name = "heuristic"

    def propose(
        self,
        prompts: Sequence[Prompt],
        extraction: Extraction,
        on_reply: Callable[[Reply], None] | None = None,
    ) -> list[Reply]:
        replies = []
        for prompt in prompts:
            started = time.perf_counter()
            try:
                target = extraction.target(prompt.target)
            except KeyError:
                reply = Reply(prompt.target, None, error="the heuristic has no extracted target of this id", model=self.name)
            else:
                text = draft_reply(target, extraction)
                reply = Reply(prompt.target, text, seconds=time.perf_counter() - started, model=self.name)
            replies.append(reply)
            if on_reply:
                on_reply(reply)
        return replies


def draft_reply(target: Target, extraction: Extraction) -> str:
    """The reply text for one target: `{"candidates": [...]}` plus a `note` when there are none."""
    candidates, note = Drafter(target, extraction).draft()
    reply: dict = {"candidates": candidates}
    if not candidates:
        reply["note"] = note or "no invariant the heuristic can justify from the evidence of this target"
    return json.dumps(reply, indent=2) + "\n"


@dataclass(frozen=True)
class Call:
    """How to call the target with its quantified inputs."""

    inputs: dict[str, str]  # name -> strategy
    bases: tuple[str, ...]  # "name: basis" per input, for rationale
    kinds: dict[str, Guess]
    callee: str  # "apply_tax", "self.to_text", "Hunk.parse"
    args: tuple[tuple[str, bool], ...] | None  # (parameter, passed by keyword); None for a property read
    lazy: bool = False  # the result is an iterator: materialised with list() so it can be compared

    @property
    def text(self) -> str:
        """e.g. "apply_tax(amount, rate)", "self.to_text()" or "list(chunks(items, n))"."""
        return self.with_args()

    def with_args(self, **replaced: str) -> str:
        """The call with some arguments replaced by other expressions."""
        if self.args is None:
            return self.callee
        parts = [f"{name}={replaced.get(name, name)}" if keyword else replaced.get(name, name) for name, keyword in self.args]
        call = f"{self.callee}({', '.join(parts)})"
        return f"list({call})" if self.lazy else call

    @property
    def values(self) -> list[str]:
        """The quantified inputs other than the instance."""
        return [n for n in self.inputs if n != "self"]


class Drafter(Relations, Families):
    def __init__(self, target: Target, extraction: Extraction):
        self.t = target
        self.x = extraction
        self.names = frozenset(extraction.module_names.get(target.module, ()))
        self.classes = {c.name: c for c in extraction.classes if c.module == target.module or c.name in self.names}
        self.doc = target.docstring or ""
        self.facts: Facts = facts_of(extraction, target)
        self.ctx = Context(self.names, self.classes, self.doc, nonneg=nonnegative_params(target.params, self.doc),
                           constants=extraction.constants.get(target.module, {}), aliases=type_aliases(extraction),
                           examples=_example_kinds(self.facts),
                           nonneg_fields={c.name: nonnegative_fields(extraction, c.module, c.name)
                                          for c in self.classes.values() if c.kind != "enum"})
        self.siblings = [t for t in extraction.targets if t.module == target.module and t.id != target.id]
        self.module_errors = sorted(n for n in self.names if n.endswith("Error"))
        self.error = self._documented_error()
        # Calls that may legitimately fail are guarded with the documented error, else the module's only one.
        self.guard = self.error or (self.module_errors[0] if len(self.module_errors) == 1 else None)
        self.taken = self.names | {p.name for p in target.params} | {target.name}
        self.out: list[dict] = []

    def draft(self) -> tuple[list[dict], str | None]:
        if self.t.is_async:
            return [], "async def: the heuristic does not drive event loops"
        call, why = self._call(self.ctx)
        if call is None:
            return [], why
        self._round_trips(call)
        self._class_text_round_trip(call)
        self._idempotence(call)
        self._docstring_invariants(call)
        self._rate_moves_result(call)
        self._monotonic(call)
        self._error_contracts(call)
        self._guard_contracts(call)
        self._compare_contracts(call)
        self._commutative(call)
        self._sorted_result(call)
        self._bounds(call)
        if not self.out:
            return [], "no property the evidence supports: " + self._what_was_seen(call)
        return self.out, None

    def var(self, name: str) -> str:
        """A local name for the body that hides nothing the body or the module needs (`first` of `first()`)."""
        while name in self.taken:
            name += "_"
        return name

    # -------------------------------------------------------------- calls and inputs

    def _call(self, ctx: Context, override: dict[str, str] | None = None) -> tuple[Call | None, str | None]:
        t = self.t
        override = override or {}
        inputs: dict[str, str] = {}
        bases: list[str] = []
        kinds: dict[str, Guess] = {}
        args: list[tuple[str, bool]] = []
        keyword_only_now = False
        params = list(t.params)
        owner = self.classes.get(t.owner) if t.owner else None
        decorators = {d.rsplit(".", 1)[-1] for d in t.decorators}
        is_static = "staticmethod" in decorators or "classmethod" in decorators
        if t.owner and params and not is_static and params[0].name in ("self", "cls"):
            params = params[1:]
            if owner is None or t.owner not in self.names:
                return None, f"method of {t.owner}: no constructor information to build instances"
            built = class_builds(owner, replace(ctx, nonneg=frozenset()))
            if built is None:
                return None, f"method of {t.owner}: cannot build instances from its fields"
            inputs["self"] = built.expr
            kinds["self"] = built
            bases.append(f"self: st.builds from the fields of {t.owner}" + (f" ({built.basis})" if built.basis else ""))
        elif t.owner and "classmethod" in decorators and params:
            params = params[1:]
        missing = []
        for param in params:
            if param.kind in ("var_positional", "var_keyword"):
                keyword_only_now = keyword_only_now or param.kind == "var_positional"
                continue
            if param.name in override:
                guess = Guess(override[param.name], "override", "chosen for this relation")
                kinds[param.name] = param_guess(param, ctx) or guess
            else:
                guess = param_guess(param, ctx)
                if guess is None:
                    if param.default is not None:
                        keyword_only_now = True
                        continue
                    missing.append(param)
                    continue
                kinds[param.name] = guess
            inputs[param.name] = guess.expr
            bases.append(f"{param.name}: {guess.basis}")
            args.append((param.name, param.kind == "keyword_only" or keyword_only_now))
        if missing:
            reasons = ", ".join(f"{p.name} ({_why_no_strategy(p)})" for p in missing)
            return None, f"no strategy for parameter(s) {reasons}"
        if not inputs:
            if any(p.kind in ("var_positional", "var_keyword") for p in t.params):
                return None, "only *args/**kwargs: nothing to quantify"
            return None, "no parameters: nothing to quantify"
        if "self" in inputs:
            callee = f"self.{t.name}"
        elif t.owner:
            callee = f"{t.owner}.{t.name}"
            if t.owner not in self.names:
                return None, f"{t.owner} is not a public name of {t.module}"
        else:
            callee = t.name
            if t.name not in self.names and self.names:
                return None, f"{t.name} is not among the public names of {t.module}"
        property_read = "self" in inputs and "property" in decorators
        return Call(inputs, tuple(bases), kinds, callee, None if property_read else tuple(args),
                    lazy=self.facts.lazy and not property_read), None

    def _documented_error(self) -> str | None:
        """The error class the docstring names, if any: the target's declared way to fail."""
        for name in self.module_errors + ["ValueError", "TypeError", "KeyError"]:
            if re.search(rf"\b{name}\b", self.doc):
                return name
        return None

    def _guarded(self, line: str, error: str | None = None) -> str:
        error = error or self.guard
        if not error:
            return line
        return f"try:\n    {line}\nexcept {error}:\n    assume(False)"

    def _add(self, name: str, kind: str, call: Call, body: str, counterexample: str, why: str,
             inputs: dict[str, str] | None = None, assume: list[str] | None = None) -> None:
        if any(c["name"] == name for c in self.out):
            return
        basis = "; ".join(call.bases)
        if call.lazy:
            basis += "; the result is an iterator, compared as a list"
        self.out.append({
            "name": name,
            "kind": kind,
            "inputs": dict(inputs if inputs is not None else call.inputs),
            "assume": list(assume or []),
            "body": body,
            "counterexample": counterexample,
            "rationale": f"{why}. Strategies: {basis}" if basis else why,
        })

    def _returns(self) -> str:
        return (self.t.returns or "").strip()

    def _what_was_seen(self, call: Call) -> str:
        seen = [f"inputs {', '.join(call.inputs)}"]
        if self._returns():
            seen.append(f"returns {self._returns()}")
        seen.append("no inverse sibling, normaliser name, raise guard or documented bound")
        return "; ".join(seen)


def _example_kinds(facts: Facts) -> dict[str, str]:
    """Parameter kinds from the literals the docstring's examples pass, when every example agrees."""
    kinds: dict[str, set[str]] = {}
    for call in facts.example_args:
        for name, value in call.items():
            kinds.setdefault(name, set()).add(_literal_kind(value))
    return {name: next(iter(k)) for name, k in sorted(kinds.items()) if len(k) == 1 and None not in k}


def _literal_kind(value: object) -> str | None:
    if isinstance(value, bool):
        return "bool"
    for kind, name in ((int, "int"), (float, "float"), (str, "str"), (bytes, "bytes"), (list, "list"),
                       (tuple, "list"), (dict, "dict")):
        if isinstance(value, kind):
            return name
    return None


def _why_no_strategy(param: Param) -> str:
    if param.annotation:
        return f"annotation {param.annotation} unknown"
    if any(u.kind == "callable" for u in param.usage):
        return "it is called: a callable's contract cannot be guessed"
    return "no annotation, usage evidence or docstring example"
