"""Contracts of a class's methods from what the class shows (its constructor, its methods, its names):

- a property named like a constructor field reads that field back;
- `to_tuple`/`to_dict` carry every field, so the constructor rebuilds an equal instance (the class defines __eq__);
- `bump_<field>`/`next_<field>` of an ordered class gives a larger instance whose int field grew by one;
- `compare`/`cmp` of one instance with another is antisymmetric and zero on itself;
- a `parse`-like classmethod reads back what `str()` of an instance writes, and a validator sibling accepts it.
"""

from __future__ import annotations

import re
from dataclasses import replace
from drafter.data import ClassInfo
from drafter.models.source_facts import class_methods
from drafter.models.annotations import annotation_head
from drafter.models.strategies import annotation_guess, param_guess
from drafter.models.call import Call


SIMPLE_KINDS = ("int", "float", "bool", "decimal", "fraction", "literal", "enum")
GROWING_WORDS = ("bump", "next", "increment", "incr", "advance")
PARSER_NAMES = ("parse", "from_string", "from_str", "fromstring", "loads")
VALIDATOR_NAMES = ("is_valid", "isvalid", "valid", "is_valid_string")
COMPARE_NAMES = ("compare", "cmp", "compare_to")
REBUILDERS = {"to_tuple": "*", "as_tuple": "*", "astuple": "*", "to_dict": "**", "as_dict": "**", "asdict": "**",
              "_asdict": "**"}


class MethodFamilies:
    """Mixin of the heuristic's drafter: needs its t, x, names, classes, ctx, siblings, _add and _guarded."""

    def _owner(self) -> ClassInfo | None:
        t = self.t
        info = self.classes.get(t.owner) if t.owner and t.owner in self.names else None
        return info if info is not None and info.kind != "enum" else None

    def _defines(self, info: ClassInfo) -> frozenset[str]:
        return class_methods(self.x.root, info.module, info.name)

    def _field_inputs(self, info: ClassInfo, extra: dict[str, str] | None = None) -> tuple[dict[str, str], str] | None:
        """Inputs for the constructor's simple fields (others keep their defaults) and `Cls(f=f, ...)` from them."""
        nonneg = frozenset(p.name for p in info.fields) if info.name in self.ctx.rejects_negative else frozenset()
        ctx = replace(self.ctx, nonneg=nonneg)
        inputs, args = {}, []
        for param in info.fields:
            if param.kind in ("var_positional", "var_keyword"):
                continue
            strategy = (extra or {}).get(param.name)
            if strategy is None:
                guess = param_guess(param, ctx)
                if guess is None or guess.kind not in SIMPLE_KINDS:
                    if param.default is None:
                        return None
                    continue
                strategy = guess.expr
            key = param.name if param.name not in self.names else f"{param.name}_value"
            inputs[key] = strategy
            args.append(f"{param.name}={key}")
        return (inputs, f"{info.name}({', '.join(args)})") if inputs else None

    def _method_families(self, call: Call) -> None:
        info = self._owner()
        if info is None:
            return
        self._field_read_back(call, info)
        if "self" in call.inputs:
            self._rebuilds_instance(call, info)
            self._grows(call, info)
            self._compare_laws(call, info)
        self._parser_reads_str(call, info)

    def _field_read_back(self, call: Call, info: ClassInfo) -> None:
        name = self.t.name
        decorators = {d.rsplit(".", 1)[-1] for d in self.t.decorators}
        if "property" not in decorators or name not in {p.name for p in info.fields}:
            return
        nonneg = frozenset({name}) if info.name in self.ctx.rejects_negative else frozenset()
        own = annotation_guess(self._returns(), name, replace(self.ctx, nonneg=nonneg)) if self._returns() else None
        made = self._field_inputs(info, {name: own.expr} if own else None)
        key = name if name not in self.names else f"{name}_value"
        if made is None or key not in made[0]:
            return
        inputs, build = made
        self._add(f"{name}_reads_back_its_field", "round_trip", call,
                  f"made = {build}\nassert made.{name} == {key}", f"a {name} property that returns another field",
                  f"{name} is a property named like the constructor field {name} of {info.name}; its value is drawn "
                  f"from the property's return annotation {self._returns() or '(none)'}", inputs)

    def _rebuilds_instance(self, call: Call, info: ClassInfo) -> None:
        star = REBUILDERS.get(self.t.name.lower())
        if star is None or call.args != () or "__eq__" not in self._defines(info):
            return
        self._add(f"{self.t.name}_rebuilds_an_equal_{info.name.lower()}", "round_trip", call,
                  f"again = {info.name}({star}{call.text})\nassert again == self",
                  f"a {self.t.name} that drops or alters a field",
                  f"{info.name} defines __eq__; {self.t.name} must carry every field its constructor takes")

    def _grows(self, call: Call, info: ClassInfo) -> None:
        words = re.split(r"_+", self.t.name.lower())
        ordered = {"__lt__", "__gt__"} & self._defines(info)
        if not set(words) & set(GROWING_WORDS) or call.args != () or annotation_head(self._returns()) != info.name:
            return
        if ordered:
            self._add(f"{self.t.name}_returns_a_larger_{info.name.lower()}", "monotonic", call,
                      self._guarded(f"grown = {call.text}") + "\nassert grown > self",
                      f"a {self.t.name} that leaves the value unchanged or lowers it",
                      f"{info.name} is ordered (it defines {', '.join(sorted(ordered))}) and {self.t.name} names a "
                      f"step forward")
        int_fields = {p.name for p in info.fields if annotation_head(p.annotation) in ("int", "SupportsInt")}
        stepped = [w for w in words if w in int_fields]
        if len(stepped) == 1:
            (part,) = stepped
            self._add(f"{self.t.name}_adds_one_to_{part}", "metamorphic", call,
                      self._guarded(f"grown = {call.text}") + f"\nassert grown.{part} == self.{part} + 1",
                      f"a {self.t.name} that steps another field or by another amount",
                      f"{self.t.name} names a step of the integer field {part} of {info.name}")

    def _compare_laws(self, call: Call, info: ClassInfo) -> None:
        if self.t.name.lower() not in COMPARE_NAMES or len(call.args or ()) != 1:
            return
        (other, _), = call.args
        inputs = {**call.inputs, other: call.inputs["self"]}  # both sides instances: the comparison is defined
        there = call.with_args(**{other: "self"}).replace(f"self.{self.t.name}", f"{other}.{self.t.name}", 1)
        self._add(f"{self.t.name}_is_antisymmetric", "commutative", call,
                  f"forward = {call.text}\nbackward = {there}\nassert (forward > 0) == (backward < 0)\n"
                  f"assert (forward == 0) == (backward == 0)",
                  "a comparison that orders some pair the same way both times",
                  f"{self.t.name} compares two instances of {info.name}: swapping them flips the sign", inputs)
        self._add(f"{self.t.name}_of_itself_is_zero", "invariant", call,
                  f"assert {call.with_args(**{other: 'self'})} == 0", "a comparison that finds a value unequal to itself",
                  f"{self.t.name} compares two instances of {info.name}: an instance equals itself",
                  {"self": call.inputs["self"]})

    def _parser_reads_str(self, call: Call, info: ClassInfo) -> None:
        t = self.t
        decorators = {d.rsplit(".", 1)[-1] for d in t.decorators}
        if not decorators & {"classmethod", "staticmethod"} or "__str__" not in self._defines(info):
            return
        params = [p for p in t.params if p.kind not in ("var_positional", "var_keyword")]
        params = params[1:] if "classmethod" in decorators else params
        if not params or any(p.default is None for p in params[1:]):
            return
        made = self._field_inputs(info)
        if made is None:
            return
        text = params[0].name
        fields = ", ".join(f"{k}={v}" for k, v in made[0].items())
        strategy = f"st.builds({info.name}, {fields}).map(str)"
        why = (f"{info.name} defines __str__; instances built from its simple constructor fields "
               f"({', '.join(made[0])}) are written with str()")
        if t.name.lower() in PARSER_NAMES:
            self._add(f"{t.name}_reads_what_str_writes", "round_trip", call,
                      f"parsed = {info.name}.{t.name}({text})\nassert str(parsed) == {text}",
                      f"a {t.name} that rejects or misreads the text form of a {info.name}",
                      f"{why}; {t.name} must read that text back", {text: strategy})
        elif t.name.lower() in VALIDATOR_NAMES:
            self._add(f"{t.name}_accepts_what_str_writes", "invariant", call,
                      f"assert {info.name}.{t.name}({text})", f"a {t.name} that rejects a valid {info.name} text",
                      f"{why}; such a text is valid", {text: strategy})
