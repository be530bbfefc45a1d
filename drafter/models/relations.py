"""Relations between calls: round trips across a module's functions found by name, a class's text form and its
parser, comparison contracts, commutativity of binary operations on one type."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from drafter.data import Target
from drafter.models.strategies import Guess, annotation_head, class_builds, param_guess, same_annotation

if TYPE_CHECKING:
    from drafter.models.heuristic import Call

INVERSE_VERBS = (
    ("encode", "decode"), ("dumps", "loads"), ("dump", "load"), ("serialize", "deserialize"),
    ("serialise", "deserialise"), ("serialize", "parse"), ("serialise", "parse"), ("to_text", "parse"),
    ("to_string", "parse"), ("to_str", "parse"), ("format", "parse"), ("render", "parse"), ("escape", "unescape"),
    ("quote", "unquote"), ("quote", "split"), ("compress", "decompress"), ("encrypt", "decrypt"), ("pack", "unpack"),
    ("to_json", "from_json"), ("to_dict", "from_dict"), ("marshal", "unmarshal"), ("wrap", "unwrap"),
)
LOSSY_WORDS = ("drop", "dropped", "omit", "omitted", "never serialised", "never serialized", "without", "ignored", "skip")
PARSER_NAMES = ("parse", "from_string", "from_str", "from_text", "loads", "fromstring")
COMPARE_NAMES = ("compare", "cmp", "compare_to", "compareto")
COMMUTATIVE_WORDS = ("add", "plus", "sum", "mul", "multiply", "times", "union", "intersect", "intersection", "merge",
                     "gcd", "lcm", "max", "min", "combine", "distance", "overlap", "equal", "equals", "same", "join_sets")


class Relations:
    """Mixin of the heuristic's Drafter: families that relate two calls."""

    def _round_trips(self, call: Call) -> None:
        enc_v, dec_v = self.var("encoded"), self.var("decoded")
        for sibling, role in self._inverse_partners():
            encoder, decoder = (self.t, sibling) if role == "encoder" else (sibling, self.t)
            lossy = any(w in (encoder.docstring or "").lower() for w in LOSSY_WORDS)
            enc_call = self._single_arg_call(encoder)
            dec_call = self._single_arg_call(decoder)
            if enc_call is None or dec_call is None:
                continue
            if role == "encoder":
                safe, _ = self._call(replace(self.ctx, safe_text=True))
                if safe is None:
                    continue
                (value,) = [n for n in safe.inputs][:1] or [None]
                if value is None:
                    continue
                encode = safe.text
                decode = dec_call(enc_v)
                if lossy:
                    body = (f"{enc_v} = {encode}\n" + self._guarded(f"{dec_v} = {decode}") +
                            f"\nassert {enc_call(dec_v)} == {enc_v}")
                    self._add(f"{decoder.name}_then_{self.t.name}_is_stable", "round_trip", safe, body,
                              "an encoder or decoder that alters or loses what the text form carries",
                              f"{self.t.name} and {decoder.name} are an inverse pair; the docstring says the encoding "
                              f"is lossy, so only the encoded form must survive a round trip", safe.inputs)
                else:
                    close = self._equal(dec_v, value, safe.kinds.get(value))
                    body = f"{enc_v} = {encode}\n" + self._guarded(f"{dec_v} = {decode}") + f"\nassert {close}"
                    self._add(f"{decoder.name}_inverts_{self.t.name}", "round_trip", safe, body,
                              "an encoder or decoder that alters or drops part of the value",
                              f"{self.t.name} and {decoder.name} are an inverse pair in {self.t.module}", safe.inputs)
                    if self.guard:
                        # Also strict: an encoder that writes text its decoder rejects fails the assertion.
                        strict = (f"{enc_v} = {encode}\ntry:\n    {dec_v} = {decode}\nexcept {self.guard} as error:\n"
                                  f"    raise AssertionError('the decoder rejects what the encoder wrote') from error\n"
                                  f"assert {close}")
                        self._add(f"{decoder.name}_accepts_and_inverts_{self.t.name}", "round_trip", safe, strict,
                                  "an encoder that writes text its decoder rejects, or a pair that alters the value",
                                  f"{self.t.name} and {decoder.name} are an inverse pair in {self.t.module}; every "
                                  f"generated value must survive the round trip without a decoding error", safe.inputs)
            else:
                value_strategy = self._encoded_strategy(encoder)
                if value_strategy is None or len(call.inputs) != 1:
                    continue
                (text,) = call.inputs
                body = self._guarded(f"{dec_v} = {call.text}") + f"\nassert {enc_call(dec_v)} == {text}"
                self._add(f"{self.t.name}_then_{encoder.name}_is_stable", "round_trip", call, body,
                          "a decoder that misreads what the encoder wrote",
                          f"{text} is generated by {encoder.name}, so decoding and encoding again must give it back",
                          {text: value_strategy})

    def _inverse_partners(self) -> list[tuple[Target, str]]:
        partners = []
        mine = _verb_subject(self.t)
        for sibling in sorted(self.siblings, key=lambda s: s.id):
            theirs = _verb_subject(sibling)
            for enc, dec in INVERSE_VERBS:
                for (my_verb, my_subj), (their_verb, their_subj) in ((m, s) for m in mine for s in theirs):
                    if not _subjects_match(my_subj, their_subj, self.t, sibling):
                        continue
                    if my_verb == enc and their_verb == dec:
                        partners.append((sibling, "encoder"))
                    elif my_verb == dec and their_verb == enc:
                        partners.append((sibling, "decoder"))
            mx, sx = _x_to_y(self.t.name), _x_to_y(sibling.name)
            if mx and sx and mx == (sx[1], sx[0]):
                partners.append((sibling, "encoder" if self.t.name < sibling.name else "decoder"))
        seen, unique = set(), []
        for sibling, role in partners:
            if sibling.id not in seen:
                seen.add(sibling.id)
                unique.append((sibling, role))
        return unique

    def _single_arg_call(self, target: Target) -> Callable[[str], str] | None:
        """`f(x)` / `x.method()` for a target taking exactly one required value."""
        params = [p for p in target.params if p.kind not in ("var_positional", "var_keyword")]
        if target.owner and params and params[0].name == "self":
            rest = [p for p in params[1:] if p.default is None]
            if rest or target.owner not in self.names:
                return None
            return lambda v, name=target.name: f"{v}.{name}()"
        required = [p for p in params if p.default is None]
        if len(required) != 1 or target.owner or target.name not in self.names:
            return None
        return lambda v, name=target.name: f"{name}({v})"

    def _encoded_strategy(self, encoder: Target) -> str | None:
        """A strategy for the decoder's input: whatever the encoder produces from generated values."""
        safe = replace(self.ctx, safe_text=True, nonneg=frozenset())
        params = [p for p in encoder.params if p.kind not in ("var_positional", "var_keyword")]
        if encoder.owner and params and params[0].name == "self":
            info = self.classes.get(encoder.owner)
            built = class_builds(info, safe) if info else None
            return f"st.builds({encoder.owner}.{encoder.name}, {built.expr})" if built else None
        required = [p for p in params if p.default is None]
        if len(required) != 1:
            return None
        guess = param_guess(required[0], replace(safe, docstring=encoder.docstring or ""))
        return f"st.builds({encoder.name}, {guess.expr})" if guess else None

    def _class_text_round_trip(self, call: Call) -> None:
        """`Cls.parse(str(value)) == value` when the class has a `__str__` and a parser classmethod."""
        t = self.t
        if not t.owner or t.name not in PARSER_NAMES or t.owner not in self.names:
            return
        info = self.classes.get(t.owner)
        if info is None or "__str__" not in self.facts.owner_methods:
            return
        built = class_builds(info, replace(self.ctx, safe_text=True, nonneg=frozenset()))
        if built is None:
            return
        value = self.var("value")
        again = self.var("again")
        body = self._guarded(f"{again} = {t.owner}.{t.name}(str({value}))") + f"\nassert {again} == {value}"
        self._add(f"{t.name}_reads_back_str", "round_trip", call, body,
                  f"a {t.name} or __str__ that alters or drops a field",
                  f"{t.owner} defines __str__ and the parser {t.name}: parsing the text form must give the value back",
                  {value: built.expr})

    def _compare_contracts(self, call: Call) -> None:
        """A comparison by name (`compare(a, b)`): antisymmetric in sign, zero on equal arguments."""
        if self.t.name.lower() not in COMPARE_NAMES:
            return
        pair = self._same_type_pair(call)
        if pair is None:
            return
        a, b, strategy = pair
        swapped = self._swapped(call, a, b)
        one, two = self.var("forward"), self.var("backward")
        sign = "(({0} > 0) - ({0} < 0))"
        body = (self._guarded(f"{one} = {call.text}") + "\n" + self._guarded(f"{two} = {swapped}") +
                f"\nassert {sign.format(one)} == -{sign.format(two)}")
        self._add("comparison_is_antisymmetric", "metamorphic", call, body,
                  "a comparison that answers the same for both argument orders",
                  f"{self.t.name} compares two values of one type by name: swapping them flips the sign",
                  {**call.inputs, a: strategy, b: strategy})
        same = self.var("same")
        itself = f"self.{self.t.name}(self)" if a == "self" else self._call_with(call, {b: a})
        body = self._guarded(f"{same} = {itself}") + f"\nassert {same} == 0"
        self._add("comparison_of_equal_values_is_zero", "metamorphic", call, body,
                  "a comparison that orders a value before itself",
                  f"{self.t.name} compares two values of one type by name: a value compares equal to itself",
                  {n: s for n, s in {**call.inputs, a: strategy}.items() if n != b})

    def _commutative(self, call: Call) -> None:
        words = set(re.split(r"_+", self.t.name.lower()))
        if not words & set(COMMUTATIVE_WORDS):
            return
        pair = self._same_type_pair(call)
        if pair is None:
            return
        a, b, strategy = pair
        if self.t.returns and annotation_head(self._returns()) in ("", "None"):
            return
        one, two = self.var("forward"), self.var("backward")
        body = (self._guarded(f"{one} = {call.text}") + "\n" + self._guarded(f"{two} = {self._swapped(call, a, b)}") +
                "\n" + f"assert {self._equal(one, two, call.kinds.get(a))}")
        self._add(f"{self.t.name}_is_commutative", "commutative", call, body,
                  "an operation that treats its two operands differently",
                  f"{self.t.name} names a symmetric operation on two values of one type", {**call.inputs, a: strategy, b: strategy})

    def _same_type_pair(self, call: Call) -> tuple[str, str, str] | None:
        """The two operands of a binary operation on one type: (first, second, one strategy for both).

        For a method `self.op(other)` the pair is ("self", other) when `other` is annotated as the owner class
        (or a union naming it) or is unannotated and called `other`: both drawn as instances."""
        names = call.values
        params = {p.name: p for p in self.t.params}
        if "self" in call.inputs:
            if len(names) != 1 or call.args is None:
                return None
            other = params[names[0]]
            mentioned = re.findall(r"\w+", self._expanded(other.annotation or ""))
            if self.t.owner in mentioned or (not other.annotation and other.name == "other"):
                return "self", other.name, call.inputs["self"]
            return None
        required = [n for n in names if params[n].default is None]
        if len(required) != 2:
            return None
        a, b = required
        pa, pb = params[a], params[b]
        ga, gb = call.kinds.get(a), call.kinds.get(b)
        if ga is None or gb is None or (ga.expr != gb.expr and not same_annotation(pa.annotation, pb.annotation)):
            return None
        if ga.kind in ("any", "union", "none"):
            return None
        return a, b, ga.expr

    def _expanded(self, annotation: str) -> str:
        """An annotation with the module's aliases written out once (Comparable -> Union[Version, dict, ...])."""
        return " ".join([annotation, *(self.ctx.aliases.get(w, "") for w in re.findall(r"\w+", annotation))])

    def _swapped(self, call: Call, a: str, b: str) -> str:
        if a == "self":
            return f"{b}.{self.t.name}(self)"
        return self._call_with(call, {a: b, b: a})

    def _call_with(self, call: Call, replaced: dict[str, str]) -> str:
        return call.with_args(**replaced)

    def _equal(self, left: str, right: str, guess: Guess | None) -> str:
        if guess is not None and guess.kind == "float":
            return f"math.isclose({left}, {right}, rel_tol=1e-9, abs_tol=1e-9)"
        return f"{left} == {right}"


def _verb_subject(target: Target) -> list[tuple[str, str]]:
    """(verb, subject) readings of a name: serialize_envelope -> ("serialize", "envelope"), b64encode -> ("encode", "b64")."""
    name = target.name.lower()
    readings = []
    verbs = sorted({v for pair in INVERSE_VERBS for v in pair}, key=len, reverse=True)
    for verb in verbs:
        if name == verb or name.startswith(verb + "_"):
            readings.append((verb, name[len(verb):].strip("_")))
        elif name.endswith(verb):
            readings.append((verb, name[: -len(verb)].strip("_")))
    owner = (target.owner or "").lower()
    return [(v, s or owner) for v, s in readings]


def _subjects_match(a: str, b: str, t1: Target, t2: Target) -> bool:
    if a == b or not a or not b:
        return True
    return a in ((t2.owner or "").lower(),) or b in ((t1.owner or "").lower(),)


def _x_to_y(name: str) -> tuple[str, str] | None:
    match = re.fullmatch(r"([a-z0-9]+)_to_([a-z0-9]+)", name.lower())
    return (match.group(1), match.group(2)) if match else None
