"""`heuristic`: offline candidates from signatures, docstrings and names, in the spirit of Hypothesis's ghostwriter.

Generous by design: later stages throw out what does not hold or catches nothing. Every candidate says in its
rationale what its strategies were guessed from. Same targets in, byte-identical replies out.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import replace

from drafter.data import Extraction, Param, Prompt, Reply, Target
from drafter.models.annotations import (
    annotation_head,
    annotation_names,
    element_type,
    is_format_template,
    isinstance_target,
    same_annotation,
)
from drafter.models.strategies import (
    FAMILIES,
    NUMERIC,
    RATE_NAMES,
    MONEY_NAMES,
    Context,
    Guess,
    class_builds,
    nonnegative_params,
    param_guess,
)
from drafter.models.bodylaws import body_law_proposals
from drafter.models.call import Call
from drafter.models.evidence import result_kind, returned_kind, shown_arguments
from drafter.models.methods import MethodFamilies
from drafter.models.roundtrips import RoundTripFamilies
from drafter.models.source_facts import (compared_choices, constructor_rejects_negatives, indexed_params,
                                         looked_up_params, raised_in_body, returns_iterator, stub_signature,
                                         type_aliases, type_variables)
from drafter.models.textforms import prose, text_form_proposals

NORMALISER_WORDS = ("normalize", "normalise", "clean", "canonical", "canonicalize", "canonicalise", "sort", "sorted",
                    "dedupe", "dedup", "unique", "strip", "trim", "slugify", "format", "tidy", "sanitize", "sanitise",
                    "collapse", "simplify", "clamp", "lower", "upper", "casefold", "squash")
MONOTONE = re.compile(r"\b(?:non-?decreasing|monoton(?:e|ic|ically) (?:non-?decreasing|increasing))\b")
IDEMPOTENT_PHRASES = ("idempotent", "changes nothing", "its own result", "no effect the second time")
LAZY_ANNOTATIONS = ("Iterator", "Generator", "Iterable", "AsyncIterator", "AsyncGenerator")
# A result kind every `return` computes -> (isinstance target, the family's name).
RETURNED_TYPES = {"text": ("str", "str"), "number": ("(int, float)", "number")}
PART_OF_TEXT = re.compile(r"\b(?:first|initial|leading|each word|every word|letters? of)\b")


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
    candidates, note = _Drafter(target, extraction).draft()
    reply: dict = {"candidates": candidates}
    if not candidates:
        reply["note"] = note or "no invariant the heuristic knows applies to this signature"
    return json.dumps(reply, indent=2) + "\n"


class _Drafter(MethodFamilies, RoundTripFamilies):
    def __init__(self, target: Target, extraction: Extraction):
        stub = stub_signature(extraction.root, target.file, target.qualname)
        if stub is not None:  # the stub's annotations stand in for those the source leaves out
            target = replace(target, returns=target.returns or stub.returns, params=tuple(
                p if p.annotation else replace(p, annotation=stub.params.get(p.name)) for p in target.params))
        self.t = target
        self.stub_variables = stub.type_variables if stub else {}
        self.x = extraction
        self.names = frozenset(extraction.module_names.get(target.module, ()))
        self.classes = {c.name: c for c in extraction.classes if c.module == target.module or c.name in self.names}
        self.doc = target.docstring or ""
        rejects = frozenset(c.name for c in self.classes.values()
                            if c.kind != "enum" and constructor_rejects_negatives(extraction.root, c.module, c.name))
        self.ctx = Context(self.names, self.classes, self.doc, nonneg=nonnegative_params(target.params, self.doc),
                           aliases={**type_aliases(extraction.root), **self.stub_variables},
                           rejects_negative=rejects,
                           constants=extraction.constants.get(target.module, {}),
                           least=indexed_params(extraction.root, target.file, target.line),
                           shown=shown_arguments(target, extraction.root))
        # What the result is (a number, text...), from its annotation, doctest outputs or returns: a family about
        # results of one kind is proposed only with this evidence.
        self.result = result_kind(target, extraction.root)
        self.siblings = [t for t in extraction.targets if t.module == target.module and t.id != target.id]
        self.module_errors = sorted(n for n in self.names if n.endswith("Error"))
        self.error = self._documented_error()
        # Calls that may legitimately fail are guarded with the documented error (else the module's only one) and
        # the errors the body raises itself (SystemExit is a command line's, not a contract): a documented
        # ValueError beside a raised IndexError is guarded with both.
        raised = [e for e in raised_in_body(extraction.root, target.file, target.line) if e != "SystemExit"]
        declared = self.error or (self.module_errors[0] if len(self.module_errors) == 1 else None)
        errors = list(dict.fromkeys(([declared] if declared else []) + raised))
        self.guard = errors[0] if len(errors) == 1 else (f"({', '.join(errors)})" if errors else None)
        self.raises_undocumented = bool(set(raised) - {self.error})
        self.keys = looked_up_params(extraction.root, target.file, target.line)
        self.choices = compared_choices(extraction.root, target.file, target.line)
        # An iterator's result is compared as a list of its first items (never as the iterator object).
        self.lazy = annotation_head(self._returns()) in LAZY_ANNOTATIONS or \
            returns_iterator(extraction.root, target.file, target.line)
        self.out: list[dict] = []
        # isinstance() needs a class: a TypeVar result is the owner for a classmethod, else nothing checkable.
        typevars = type_variables(extraction.root)
        self.checkable = self.names - typevars
        if annotation_head(self._returns()) in typevars and "classmethod" in {
                d.rsplit(".", 1)[-1] for d in target.decorators} and target.owner in self.names:
            self.result_class: str | None = target.owner
        else:
            self.result_class = None

    # -------------------------------------------------------------- entry

    def draft(self) -> tuple[list[dict], str | None]:
        t = self.t
        if t.is_async:
            return [], "async def: the heuristic does not drive event loops"
        call, why = self._call(self.ctx)
        if call is None:
            return [], why
        self._round_trips(call)
        self._method_families(call)
        self._idempotence(call)
        self._text_forms_and_body_laws(call)
        self._docstring_invariants(call)
        self._rate_moves_result(call)
        self._monotonic(call)
        self._error_contracts(call)
        self._type_and_bounds(self._decoder_call(call))
        return self.out, None

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
                continue
            if param.name in override:
                guess = Guess(override[param.name], "override", "chosen for this relation")
                base_guess = param_guess(param, ctx)
                kinds[param.name] = base_guess or guess
            elif is_format_template(param):
                keyword_only_now = True  # a format template keeps its default: random text is not a template
                continue
            else:
                guess = self._member_guess(param) or param_guess(param, ctx)
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
        return Call(inputs, tuple(bases), kinds, callee, None if property_read else tuple(args), self.lazy), None

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
        self.out.append({
            "name": name,
            "kind": kind,
            "inputs": dict(inputs if inputs is not None else call.inputs),
            "assume": list(assume or []),
            "body": body,
            "counterexample": counterexample,
            "rationale": f"{why}. Strategies: {basis}" if basis else why,
        })

    def _text_to_text(self, call: Call) -> Target:
        """The target as `str -> str` where it has no annotations but the evidence says its first parameter and
        its result are text and doctests show the inputs it is meant for, so the text-form families read it as they
        read an annotated one. Without doctests, no: stringcase's `camelcase` is no fixed point on `'00 0 0'`."""
        t = self.t
        first = next((p for p in t.params if p.name in call.inputs), None)
        if t.returns or first is None or first.annotation or self.result != "text" or \
                FAMILIES.get(call.kinds[first.name].kind) != "text" or "doctest" not in \
                self.ctx.shown.get(first.name, ((), ""))[1]:
            return t
        return replace(t, returns="str", params=tuple(replace(p, annotation="str") if p is first else p
                                                      for p in t.params))

    def _usual_options(self, call: Call) -> Call:
        """The call with every defaulted parameter but the first at its default: a normaliser is idempotent, an
        encoder inverted, for its usual options, not for every separator or flag a strategy draws
        (`slugify(t, delim='0:')` feeds its own output digits and punctuation)."""
        first = next((n for n in call.inputs if n != "self"), None)
        return call.without({p.name for p in self.t.params if p.default is not None and p.name != first})

    def _returns(self) -> str:
        return (self.t.returns or "").strip()

    # -------------------------------------------------------------- relations

    def _idempotence(self, call: Call) -> None:
        t = self.t
        words = set(re.split(r"_+", t.name.lower()))
        by_name = any(w in words or t.name.lower().startswith(w) for w in NORMALISER_WORDS)
        by_doc = any(p in self.doc.lower() for p in IDEMPOTENT_PHRASES)
        first = next((n for n in call.inputs if n != "self"), None)
        if not (by_name or by_doc) or first is None or "self" in call.inputs:
            return
        param = next(p for p in t.params if p.name == first)
        returns = self._returns()
        # A lazy result is compared as a list, which any iterable parameter takes back.
        takes_a_list = self.lazy and annotation_head(param.annotation) in ("Iterable", "Sequence", "Collection")
        if param.annotation and returns and not same_annotation(param.annotation, returns) and not takes_a_list:
            return  # the output cannot be fed back in
        call = self._usual_options(call)
        again = call.with_args(**{first: "once"})
        body = self._guarded(f"once = {call.text}") + f"\nassert {again} == once"
        reason = "the name marks a normaliser" if by_name else "the docstring says it is idempotent"
        self._add(f"{t.name}_is_idempotent", "idempotence", call, body,
                  "an implementation that keeps changing its own output", f"{reason}: applying it twice equals once")

    def _text_forms_and_body_laws(self, call: Call) -> None:
        found = [] if "self" in call.inputs else \
            text_form_proposals(self._text_to_text(call), self.siblings, self.names, call.inputs, call.text,
                                self._guarded)
        found += body_law_proposals(self.t, self.x.root, call.inputs, {n: g.kind for n, g in call.kinds.items()},
                                    call.text, lambda name: call.with_args(**{name: f"-{name}"}), self._guarded)
        for p in found:
            self._add(p.name, p.kind, call, p.body, p.counterexample, p.why, p.inputs)

    def _docstring_invariants(self, call: Call) -> None:
        doc = self.doc.lower()
        returns = self._returns()
        head = annotation_head(returns)
        out = self._guarded(f"out = {call.text}")
        if self.result == "text":
            # Not inside an identifier: a parameter `uppercase_first_letter` promises nothing about the result.
            if _says_whole_result(r"(?<!\w)upper[ -]?case(?!\w)", doc):
                self._add("result_is_upper_case", "invariant", call, out + "\nassert out == out.upper()",
                          "a version that forgets to upper-case", "the docstring promises upper case")
            if _says_whole_result(r"(?<!\w)lower[ -]?case(?!\w)", doc):
                self._add("result_is_lower_case", "invariant", call, out + "\nassert out == out.lower()",
                          "a version that forgets to lower-case", "the docstring promises lower case")
            if re.search(r"blanks? removed|whitespace removed|stripped|surrounding (blanks|whitespace)", doc):
                self._add("result_has_no_surrounding_blanks", "invariant", call, out + "\nassert out == out.strip()",
                          "a version that keeps leading or trailing blanks", "the docstring says blanks are removed")
            # From the prose only (a doctest's outputs are examples of results, not the list of possible ones),
            # and only a sentence that says the result is one of them: "'inf' or 'nan'" elsewhere is about inputs.
            listed = re.search(r"\b(?:returns?|one of|either)\b[^.'\n]{0,40}((?:'[^'\n]{1,20}',? )+(?:or|and) "
                               r"'[^'\n]{1,20}')", prose(self.doc), re.IGNORECASE)
            quoted = re.findall(r"'([^'\n]{1,20})'", listed.group(1)) if listed else []
            if head == "str" and len(quoted) >= 2:
                values = ", ".join(repr(q) for q in dict.fromkeys(quoted))
                self._add("result_is_a_documented_value", "invariant", call, out + f"\nassert out in ({values},)",
                          "a version that returns a value outside the documented set",
                          "the docstring lists the possible results")
        if "cent" in doc and "Decimal" in annotation_names(returns):
            if head in ("list", "List", "tuple", "Sequence"):
                check = "assert all(x == x.quantize(Decimal('0.01')) for x in out)"
            else:
                check = "assert out == out.quantize(Decimal('0.01'))"
            self._add("result_is_rounded_to_cents", "invariant", call, out + "\n" + check,
                      "a version that skips the rounding to cents", "the docstring says results are in cents")
        for name in call.inputs:
            if re.search(rf"\bsums? to `?{re.escape(name)}\b|\badds? up to `?{re.escape(name)}\b", doc):
                self._add(f"parts_sum_to_{name}", "invariant", call, out + f"\nassert sum(out) == {name}",
                          "a split that loses or invents some of the total", f"the docstring says the parts sum to {name}")
            if head in ("list", "List", "tuple", "Sequence") and re.search(rf"\binto `?{re.escape(name)}`?\b", doc):
                self._add(f"result_has_{name}_items", "invariant", call, out + f"\nassert len(out) == {name}",
                          "a split into the wrong number of parts", f"the docstring says it splits into {name} parts")
        # Said of the result in prose ("a value in [0, 1]"), not a list literal of an example.
        interval = re.search(r"\b(?:in|within|range|interval)\s+\[\s*([\w.\-]+)\s*,\s*([\w.\-]+)\s*\]", prose(self.doc))
        if interval and self.result == "number" and not self.lazy:
            low, high = interval.groups()
            if all(_is_number(v) or v in call.inputs for v in (low, high)):
                self._add("result_within_documented_interval", "bound", call, out + f"\nassert {low} <= out <= {high}",
                          "a clamp that lets values escape the interval", f"the docstring gives the interval [{low}, {high}]")
        plus = re.search(r"return (\w+) plus\b", doc)
        if plus and plus.group(1) in call.inputs and self.ctx.nonneg and self.result == "number":
            self._add(f"result_not_below_{plus.group(1)}", "bound", call, out + f"\nassert out >= {plus.group(1)}",
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
        body = self._guarded(f"out = {call.text}") + f"\nassert out != {money}"
        self._add(f"positive_{rate}_changes_{money}", "metamorphic", call, body,
                  f"a version that ignores {rate} and returns {money} unchanged",
                  f"{rate} and {money} are a rate and an amount by name; a rate of at least 1% on an amount of at least 1 "
                  f"must move the result", inputs)

    def _monotonic(self, call: Call) -> None:
        """Only where the docstring says so: "non-decreasing in rate", or "monotonic" of a single numeric input."""
        if self.result != "number":
            return
        said = prose(self.doc)
        numeric = [n for n, g in call.kinds.items() if n != "self" and g.kind in NUMERIC]
        for name in numeric:
            named = re.search(rf"\b(?:non-?decreasing|increasing|grows?)\s+(?:in|with)\s+`*{re.escape(name)}\b", said)
            if not named and not (len(numeric) == 1 and MONOTONE.search(said)):
                continue
            # The contract quantifies only the target's parameters, so the second point is derived in the body.
            step = {"int": "1", "float": "1.0", "decimal": "Decimal(1)", "fraction": "Fraction(1)"}.get(
                call.kinds[name].kind, "1")
            higher = call.with_args(**{name: f"{name} + {step}"})
            body = (self._guarded(f"out_low = {call.text}") + "\n" + self._guarded(f"out_high = {higher}") +
                    "\nassert out_low <= out_high")
            self._add(f"non_decreasing_in_{name}", "monotonic", call, body, f"a sign error on {name}",
                      f"the docstring says the result does not decrease as {name} grows")

    def _error_contracts(self, call: Call) -> None:
        t = self.t
        for name in sorted(self.ctx.nonneg):
            guess = call.kinds.get(name)
            if guess is None or guess.kind not in NUMERIC:
                continue
            negative = {
                "int": "st.integers(min_value=-1000, max_value=-1)",
                "float": "st.floats(min_value=-1000000.0, max_value=-0.001)",
                "decimal": "st.decimals(min_value=Decimal('-1000000.00'), max_value=Decimal('-0.01'), places=2)",
                "fraction": "st.fractions(min_value=-1000, max_value=-0.001, max_denominator=1000)",
            }[guess.kind]
            error = self.error if self.error else "ValueError"
            body = f"raised = False\ntry:\n    {call.text}\nexcept {error}:\n    raised = True\nassert raised"
            self._add(f"negative_{name}_is_rejected", "error_contract", call, body,
                      f"a version that silently accepts a negative {name}",
                      f"the docstring says {name} must not be negative", {**call.inputs, name: negative})
        if not self.error or self.error in ("TypeError", "KeyError") or self.raises_undocumented:
            return
        returns = self._returns()
        expected = self.result_class or isinstance_target(returns, self.checkable)
        check = f"out is None or isinstance(out, {expected})" if expected else None
        if check is None:
            return
        body = f"try:\n    out = {call.text}\nexcept {self.error}:\n    out = None\nassert {check}"
        self._add(f"only_raises_{_snake(self.error)}", "error_contract", call, body,
                  "a version that crashes with another exception or returns the wrong type",
                  f"the docstring names {self.error} as the way {t.name} fails")

    def _member_guess(self, param: Param) -> Guess | None:
        """A parameter the body looks up in an enum of SRC (`Unit[unit.upper()]`) draws the members' names; one it
        compares with string literals in a function that raises draws those literals."""
        if param.name in self.choices:
            values = list(self.choices[param.name])
            return Guess(f"st.sampled_from({values!r})", "literal", f"the body tells {values} apart and raises otherwise")
        enum, case, per_element = self.keys.get(param.name, ("", "", False))
        info = self.classes.get(enum)
        if info is None or info.kind != "enum" or not info.members:
            return None
        names = sorted(m.lower() for m in info.members if getattr(str, case)(m) == m) if case else sorted(info.members)
        if not names:
            return None
        expr = f"st.sampled_from({names!r})"
        why = f"the body looks {'its items' if per_element else 'it'} up in {enum}" + (f" after .{case}()" if case else "")
        if per_element:
            if annotation_head(param.annotation) not in ("", "list", "List", "Iterable", "Sequence", "Collection"):
                return None
            return Guess(f"st.lists({expr}, max_size=3)", "list", why, elem=Guess(expr, "literal", why))
        return Guess(expr, "literal", why)

    def _type_and_bounds(self, call: Call) -> None:
        returns = self._returns()
        # A type variable the inputs bind (`Iterable[_T]` drawn as ints) is that type in the result too.
        concrete = returns
        for variable, stands_for in self.stub_variables.items():
            if any(re.search(rf"\b{variable}\b", p.annotation or "") for p in self.t.params):
                concrete = re.sub(rf"\b{variable}\b", stands_for, concrete)
        expected = None if self.lazy else self.result_class or isinstance_target(concrete, self.checkable)
        why = f"the return annotation is {returns}"
        computed = returned_kind(self.t, self.x.root) if not (returns or self.lazy) else None
        if computed in RETURNED_TYPES:  # no annotation: what every `return` computes (`.upper()`, `len()`, ...)
            expected, label = RETURNED_TYPES[computed]
            why = f"every return of {self.t.name} computes {computed} ({label} by its operations)"
        else:
            label = returns
        elem = element_type(concrete, self.checkable)
        out = self._guarded(f"out = {call.text}")
        if expected or (self.lazy and elem):
            checks = [f"assert isinstance(out, {expected})"] if expected else []
            if elem:
                checks.append(f"assert all(isinstance(x, {elem}) for x in out)")
            self._add(f"returns_{_snake(label)}", "invariant", call, out + "\n" + "\n".join(checks),
                      "a version that returns the wrong type", why)
        name = self.t.name.lower()
        if (name.startswith(("count", "num_", "len", "size")) or name.endswith(("_count", "_len", "_size"))) and \
                self.result == "number" and annotation_head(returns) in ("", "int"):
            self._add("result_is_non_negative", "bound", call, out + "\nassert out >= 0",
                      "a count that goes negative", "a count or size by name cannot be negative")


# ------------------------------------------------------------------ helpers


def _why_no_strategy(param: Param) -> str:
    if param.annotation:
        return f"annotation {param.annotation} unknown"
    if any(u.kind == "callable" for u in param.usage):
        return "it is called: a callable's contract cannot be guessed"
    return "no annotation and no usage evidence"


def _says_whole_result(pattern: str, doc: str) -> bool:
    """A sentence says it of the whole text: "first letters will be uppercase" promises nothing of the rest."""
    return any(re.search(pattern, sentence) and not PART_OF_TEXT.search(sentence)
               for sentence in re.split(r"(?<=[.;:])\s+|\n\s*\n", doc))


def _is_number(text: str) -> bool:
    return re.fullmatch(r"-?\d+(\.\d+)?", text) is not None


def _snake(text: str) -> str:
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", text)
    return re.sub(r"[^a-z0-9]+", "_", words.lower()).strip("_") or "value"
