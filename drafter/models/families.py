"""One function's own contracts, each proposed only where evidence supports it: idempotence of normalisers, what the
docstring promises (case, blanks, cents, sums, intervals, monotonicity), error contracts from the docstring and from
leading `if <condition>: raise E` guards, sortedness of sort-like results, bounds of counts and documented ranges."""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from drafter.models.strategies import NUMERIC, MONEY_NAMES, RATE_NAMES, annotation_head, annotation_names, same_annotation

if TYPE_CHECKING:
    from drafter.models.heuristic import Call

NORMALISER_WORDS = ("normalize", "normalise", "clean", "canonical", "canonicalize", "canonicalise", "sort", "sorted",
                    "dedupe", "dedup", "unique", "strip", "trim", "slugify", "format", "tidy", "sanitize", "sanitise",
                    "collapse", "simplify", "clamp", "lower", "upper", "casefold", "squash", "dedent", "slug",
                    "parameterize", "underscore", "dasherize")
IDEMPOTENT_PHRASES = ("idempotent", "changes nothing", "its own result", "no effect the second time")
MONOTONIC_PHRASES = ("non-decreasing", "nondecreasing", "monotonic", "increasing in", "grows with", "never decreases",
                     "the larger", "the more")
NUMBER_ANNOTATIONS = {"int": "int", "float": "float", "Decimal": "Decimal", "Fraction": "Fraction"}
SEQUENCE_HEADS = ("list", "List", "tuple", "Tuple", "Sequence")
NEGATIVE = {
    "int": "st.integers(min_value=-1000, max_value=-1)",
    "float": "st.floats(min_value=-1000000.0, max_value=-0.001)",
    "decimal": "st.decimals(min_value=Decimal('-1000000.00'), max_value=Decimal('-0.01'), places=2)",
    "fraction": "st.fractions(min_value=-1000, max_value=-0.001, max_denominator=1000)",
}
BUILTIN_ERRORS = {"ValueError", "TypeError", "KeyError", "IndexError", "ZeroDivisionError", "OverflowError",
                  "ArithmeticError", "LookupError", "RuntimeError", "NotImplementedError", "AttributeError"}


class Families:
    """Mixin of the heuristic's Drafter: properties of one call."""

    def _idempotence(self, call: Call) -> None:
        t = self.t
        words = set(re.split(r"_+", t.name.lower()))
        by_name = any(w in words or t.name.lower().startswith(w) for w in NORMALISER_WORDS)
        by_doc = any(p in self.doc.lower() for p in IDEMPOTENT_PHRASES)
        first = next(iter(call.values), None)
        if not (by_name or by_doc) or first is None or "self" in call.inputs or call.args is None:
            return
        param = next(p for p in t.params if p.name == first)
        returns = self._returns()
        if returns and annotation_head(returns) == "None" or first in self.facts.mutates:
            return  # works in place: there is no output to feed back
        if param.annotation and returns and not same_annotation(param.annotation, returns):
            return  # the output cannot be fed back in
        once = self.var("once")
        again = call.with_args(**{first: once})
        body = self._guarded(f"{once} = {call.text}") + f"\nassert {again} == {once}"
        reason = "the name marks a normaliser" if by_name else "the docstring says it is idempotent"
        self._add(f"{t.name}_is_idempotent", "idempotence", call, body,
                  "an implementation that keeps changing its own output", f"{reason}: applying it twice equals once")

    def _docstring_invariants(self, call: Call) -> None:
        prose = _prose(self.doc)
        doc = prose.lower()
        returns = self._returns()
        head = annotation_head(returns)
        out = self.var("out")
        got = self._guarded(f"{out} = {call.text}")
        text_result = head == "str" or (not returns and any(g.kind == "str" for n, g in call.kinds.items() if n != "self"))
        if text_result and not call.lazy:
            if re.search(r"upper[ -]?case", doc):
                self._add("result_is_upper_case", "invariant", call, got + f"\nassert {out} == {out}.upper()",
                          "a version that forgets to upper-case", "the docstring promises upper case")
            if re.search(r"lower[ -]?case", doc):
                self._add("result_is_lower_case", "invariant", call, got + f"\nassert {out} == {out}.lower()",
                          "a version that forgets to lower-case", "the docstring promises lower case")
            if re.search(r"blanks? removed|whitespace removed|stripped|surrounding (blanks|whitespace)", doc):
                self._add("result_has_no_surrounding_blanks", "invariant", call, got + f"\nassert {out} == {out}.strip()",
                          "a version that keeps leading or trailing blanks", "the docstring says blanks are removed")
            quoted = re.findall(r"'([^'\n]{1,20})'", prose)
            if head == "str" and len(quoted) >= 2 and re.search(r"\bor\b", doc):
                values = ", ".join(repr(q) for q in dict.fromkeys(quoted))
                self._add("result_is_a_documented_value", "invariant", call, got + f"\nassert {out} in ({values},)",
                          "a version that returns a value outside the documented set",
                          "the docstring lists the possible results")
        if "cent" in doc and "Decimal" in annotation_names(returns):
            if head in SEQUENCE_HEADS or call.lazy:
                check = f"assert all(x == x.quantize(Decimal('0.01')) for x in {out})"
            else:
                check = f"assert {out} == {out}.quantize(Decimal('0.01'))"
            self._add("result_is_rounded_to_cents", "invariant", call, got + "\n" + check,
                      "a version that skips the rounding to cents", "the docstring says results are in cents")
        numeric_items = head in SEQUENCE_HEADS and bool(annotation_names(returns) & set(NUMBER_ANNOTATIONS))
        for name in call.values:
            numeric_input = call.kinds[name].kind in NUMERIC
            if numeric_input and numeric_items and re.search(
                    rf"\bsums? to `?{re.escape(name)}\b|\badds? up to `?{re.escape(name)}\b", doc):
                self._add(f"parts_sum_to_{name}", "invariant", call, got + f"\nassert sum({out}) == {name}",
                          "a split that loses or invents some of the total", f"the docstring says the parts sum to {name}")
            if call.kinds[name].kind == "int" and (head in SEQUENCE_HEADS or call.lazy) and re.search(
                    rf"\binto `?{re.escape(name)}`?\b", doc):
                self._add(f"result_has_{name}_items", "invariant", call, got + f"\nassert len({out}) == {name}",
                          "a split into the wrong number of parts", f"the docstring says it splits into {name} parts")
        interval = re.search(r"\[\s*([\w.\-]+)\s*,\s*([\w.\-]+)\s*\]", prose)
        numeric_result = head in NUMBER_ANNOTATIONS or (not returns and call.kinds and all(
            g.kind in NUMERIC for n, g in call.kinds.items() if n != "self"))
        if interval and numeric_result and not call.lazy:
            low, high = interval.groups()
            numeric_bound = all(_is_number(v) or (v in call.inputs and call.kinds[v].kind in NUMERIC) for v in (low, high))
            if numeric_bound:
                self._add("result_within_documented_interval", "bound", call,
                          got + f"\nassert {low} <= {out} <= {high}",
                          "a clamp that lets values escape the interval",
                          f"the docstring gives the interval [{low}, {high}]",
                          assume=[f"{low} <= {high}"] if not (_is_number(low) and _is_number(high)) else None)
        plus = re.search(r"return (\w+) plus\b", doc)
        if plus and plus.group(1) in call.inputs and self.ctx.nonneg and numeric_result:
            self._add(f"result_not_below_{plus.group(1)}", "bound", call, got + f"\nassert {out} >= {plus.group(1)}",
                      "a sign error that subtracts instead of adding",
                      f"the docstring says it returns {plus.group(1)} plus something non-negative")

    def _rate_moves_result(self, call: Call) -> None:
        """A positive rate applied to a positive amount must change it (tax, fee, discount, interest...)."""
        numeric = {n: g for n, g in call.kinds.items() if g.kind in NUMERIC}
        rate = next((n for n in numeric if n in RATE_NAMES or n.endswith("_rate")), None)
        money = next((n for n in numeric if n in MONEY_NAMES or n.endswith(("_amount", "_price"))), None)
        if not rate or not money or annotation_head(self._returns()) not in ("", "Decimal", "float", "int"):
            return
        inputs = dict(call.inputs)
        if numeric[money].kind == "decimal" and numeric[rate].kind == "decimal":
            inputs[money] = "st.decimals(min_value=Decimal('1.00'), max_value=Decimal('1000000.00'), places=2)"
            inputs[rate] = "st.decimals(min_value=Decimal('0.01'), max_value=Decimal('1'), places=4)"
        elif numeric[money].kind == "float" and numeric[rate].kind == "float":
            inputs[money] = "st.floats(min_value=1.0, max_value=1000000.0)"
            inputs[rate] = "st.floats(min_value=0.01, max_value=1.0)"
        else:
            return
        out = self.var("out")
        body = self._guarded(f"{out} = {call.text}") + f"\nassert {out} != {money}"
        self._add(f"positive_{rate}_changes_{money}", "metamorphic", call, body,
                  f"a version that ignores {rate} and returns {money} unchanged",
                  f"{rate} and {money} are a rate and an amount by name; a rate of at least 1% on an amount of at least 1 "
                  f"must move the result", inputs)

    def _monotonic(self, call: Call) -> None:
        """Only where the docstring says the result grows with an input, and only in that input."""
        returns = self._returns()
        if returns and annotation_head(returns) not in NUMBER_ANNOTATIONS or call.lazy:
            return
        prose = _prose(self.doc).lower()
        for name, guess in call.kinds.items():
            if name == "self" or guess.kind not in NUMERIC:
                continue
            says = any(re.search(rf"{re.escape(p)}[^.]*\b{re.escape(name)}\b", prose) for p in MONOTONIC_PHRASES)
            says |= bool(re.search(rf"\b(the (larger|higher|more)|as)\s+`?{re.escape(name)}`?\s+(grows|increases)", prose))
            if not says:
                continue
            step = {"int": "1", "float": "1.0", "decimal": "Decimal(1)", "fraction": "Fraction(1)"}.get(guess.kind, "1")
            higher = call.with_args(**{name: f"{name} + {step}"})
            low, high = self.var("out_low"), self.var("out_high")
            body = (self._guarded(f"{low} = {call.text}") + "\n" + self._guarded(f"{high} = {higher}") +
                    f"\nassert {low} <= {high}")
            self._add(f"non_decreasing_in_{name}", "monotonic", call, body, f"a sign error on {name}",
                      f"the docstring says the result grows with {name}")

    def _error_contracts(self, call: Call) -> None:
        t = self.t
        for name in sorted(self.ctx.nonneg):
            guess = call.kinds.get(name)
            if guess is None or guess.kind not in NUMERIC:
                continue
            error = self.error if self.error else "ValueError"
            raised = self.var("raised")
            body = f"{raised} = False\ntry:\n    {call.text}\nexcept {error}:\n    {raised} = True\nassert {raised}"
            self._add(f"negative_{name}_is_rejected", "error_contract", call, body,
                      f"a version that silently accepts a negative {name}",
                      f"the docstring says {name} must not be negative", {**call.inputs, name: NEGATIVE[guess.kind]})
        if not self.error or self.error in ("TypeError", "KeyError") or call.lazy:
            return
        expected = _isinstance_target(self._returns(), self.names)
        if expected is None:
            return
        out = self.var("out")
        body = f"try:\n    {out} = {call.text}\nexcept {self.error}:\n    {out} = None\nassert {out} is None or isinstance({out}, {expected})"
        self._add(f"only_raises_{_snake(self.error)}", "error_contract", call, body,
                  "a version that crashes with another exception or returns the wrong type",
                  f"the docstring names {self.error} as the way {t.name} fails")

    def _guard_contracts(self, call: Call) -> None:
        """`if <condition on parameters>: raise E` at the top of the body: inputs in that region raise E."""
        earlier: list[str] = []
        for guard in self.facts.guards:
            known = guard.error in BUILTIN_ERRORS or guard.error in self.names
            region = self._region(call, guard.condition) if known and set(guard.names) <= set(call.inputs) else None
            if region is not None:
                inputs, assumptions = region
                raised = self.var("raised")
                body = (f"{raised} = False\ntry:\n    {call.text}\nexcept {guard.error}:\n    {raised} = True\n"
                        f"assert {raised}")
                self._add(f"raises_{_snake(guard.error)}_when_{_snake(guard.condition)[:40]}", "error_contract", call,
                          body, f"a version that stops rejecting inputs where {guard.condition}",
                          f"the body starts with `if {guard.condition}: raise {guard.error}`",
                          inputs, assumptions + [f"not ({c})" for c in earlier])
            earlier.append(guard.condition)

    def _region(self, call: Call, condition: str) -> tuple[dict[str, str], list[str]] | None:
        """Inputs that land in `condition`: a bounded strategy for `x < c`-like tests, else assume(condition)."""
        try:
            test = ast.parse(condition, mode="eval").body
        except SyntaxError:
            return None
        inputs = dict(call.inputs)
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Name):
            name, op, bound = test.left.id, test.ops[0], test.comparators[0]
            guess = call.kinds.get(name)
            value = _number(bound)
            if guess is not None and guess.kind in ("int", "float") and value is not None:
                strategy = _beyond(guess.kind, op, value)
                if strategy:
                    inputs[name] = strategy
                    return inputs, []
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Name) and \
                isinstance(test.comparators[0], ast.Name) and not isinstance(test.ops[0], (ast.Eq, ast.Is, ast.In)):
            kinds = [call.kinds.get(n.id) for n in (test.left, test.comparators[0])]
            if all(k is not None and k.kind in ("int", "float") for k in kinds):
                return inputs, [condition]  # two numbers in some order: about half the draws land in the region
        return None  # a region we could only reach by filtering blindly

    def _sorted_result(self, call: Call) -> None:
        words = set(re.split(r"_+", self.t.name.lower()))
        if not words & {"sort", "sorted", "ordered"} or call.args is None:
            return
        params = {p.name for p in self.t.params}
        if params & {"key", "reverse", "cmp", "descending"}:
            return  # the order depends on an argument
        returns = self._returns()
        if returns and annotation_head(returns) not in SEQUENCE_HEADS and not call.lazy:
            return
        first = next(iter(call.values), None)
        elem = call.kinds[first].elem if first else None
        if elem is None or elem.kind not in ("int", "str", "float", "decimal", "fraction"):
            return
        out = self.var("out")
        body = self._guarded(f"{out} = list({call.text})") + f"\nassert all(a <= b for a, b in zip({out}, {out}[1:]))"
        self._add("result_is_sorted", "invariant", call, body, "a sort that leaves some pair out of order",
                  f"the name {self.t.name} says its result is sorted")

    def _bounds(self, call: Call) -> None:
        returns = self._returns()
        out = self.var("out")
        got = self._guarded(f"{out} = {call.text}")
        name = self.t.name.lower()
        if call.lazy:
            return
        count_name = name.startswith(("count", "num_", "len", "size")) or name.endswith(("_count", "_len", "_size"))
        prose = _prose(self.doc).lower()
        says_nonneg = re.search(r"\breturns? (a |the )?(non-?negative|positive)\b", prose)
        if (count_name or says_nonneg) and annotation_head(returns) in ("", "int", "float"):
            self._add("result_is_non_negative", "bound", call, got + f"\nassert {out} >= 0",
                      "a count that goes negative",
                      "a count or size by name cannot be negative" if count_name else "the docstring says so")
        if re.search(r"between 0 and 1|in \[0, ?1\]|a probability|a ratio between", prose) and \
                annotation_head(returns) in ("", "float", "Decimal", "Fraction"):
            self._add("result_between_0_and_1", "bound", call, got + f"\nassert 0 <= {out} <= 1",
                      "a ratio that escapes [0, 1]", "the docstring says the result is between 0 and 1")


def _prose(doc: str) -> str:
    """The docstring without its `>>>` examples and their outputs: examples are inputs, never expected values."""
    kept, in_example = [], False
    for line in doc.splitlines():
        stripped = line.strip()
        if stripped.startswith((">>>", "...")):
            in_example = True
            continue
        if in_example and stripped:
            continue  # an example's output
        in_example = False
        kept.append(line)
    return "\n".join(kept)


def _number(node: ast.expr) -> float | int | None:
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _beyond(kind: str, op: ast.cmpop, value: float | int) -> str | None:
    """A bounded strategy of the values where `x <op> value` holds."""
    if kind == "int":
        if not float(value).is_integer():
            return None
        v = int(value)
        if isinstance(op, ast.Eq):
            return f"st.just({v})"
        ranges = {ast.Lt: (v - 1000, v - 1), ast.LtE: (v - 1000, v), ast.Gt: (v + 1, v + 1000), ast.GtE: (v, v + 1000)}
        bounds = ranges.get(type(op))
        return f"st.integers(min_value={bounds[0]}, max_value={bounds[1]})" if bounds else None
    if isinstance(op, ast.Eq):
        return f"st.just({float(value)!r})"
    span = 1e6
    ranges = {ast.Lt: (value - span, value, "exclude_max=True"), ast.LtE: (value - span, value, ""),
              ast.Gt: (value, value + span, "exclude_min=True"), ast.GtE: (value, value + span, "")}
    bounds = ranges.get(type(op))
    if bounds is None:
        return None
    low, high, exclude = bounds
    return f"st.floats(min_value={float(low)!r}, max_value={float(high)!r}{', ' + exclude if exclude else ''})"


def _is_number(text: str) -> bool:
    return re.fullmatch(r"-?\d+(\.\d+)?", text) is not None


def _snake(text: str) -> str:
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", text)
    return re.sub(r"[^a-z0-9]+", "_", words.lower()).strip("_") or "value"


def _isinstance_target(returns: str, names: frozenset[str]) -> str | None:
    """The class for isinstance() from a return annotation, when it is a plain nameable type."""
    head = annotation_head(returns)
    builtin = {"int": "int", "float": "(int, float)", "str": "str", "bytes": "bytes", "bool": "bool", "list": "list",
               "List": "list", "dict": "dict", "Dict": "dict", "tuple": "tuple", "Tuple": "tuple", "set": "set",
               "frozenset": "frozenset", "Decimal": "Decimal", "Fraction": "Fraction"}
    if head in builtin:
        return builtin[head]
    if head and head.isidentifier() and head in names and head[0].isupper():
        return head
    return None
