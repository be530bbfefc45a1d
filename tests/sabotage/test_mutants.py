"""mutants_for on the bundled shop, pruning of trivially equivalent and duplicate mutants, errors."""

from __future__ import annotations

import ast
from decimal import Decimal

import libcst as cst
import pytest

from drafter.data import Param, Target, Usage
from sabotage import SabotageError, all_operators, mutants_for, select_operators
from sabotage.operator import Operator, Position


def _by_operator(result, operator: str) -> list:
    return [m for m in result.mutants if m.operator == operator]


def test_apply_tax_gets_the_hand_sabotages(shop, helpers) -> None:
    target = helpers.target_of(shop, "shop.billing:apply_tax")
    result = mutants_for(target, shop)

    negated = [m for m in _by_operator(result, "negate_param") if "rate = -rate" in m.description]
    assert len(negated) == 1
    assert '    """\n    rate = -rate\n    if amount < 0' in negated[0].source  # after the docstring

    returned = [m for m in _by_operator(result, "return_param") if m.description.endswith("`return amount`")]
    assert len(returned) == 1 and "\n+    return amount\n" in returned[0].diff

    unrounded = _by_operator(result, "drop_call")
    assert len(unrounded) == 1 and "\n+    return (amount + amount * rate)\n" in unrounded[0].diff
    clean = helpers.load((shop / "shop/billing.py").read_text())["apply_tax"]
    sabotaged = helpers.load(unrounded[0].source)["apply_tax"]
    assert clean(Decimal("1.005"), Decimal("0")) == Decimal("1.00")
    assert sabotaged(Decimal("1.005"), Decimal("0")) == Decimal("1.005")

    for mutant in result.mutants:
        ast.parse(mutant.source)
        assert mutant.diff.startswith("--- a/shop/billing.py\n+++ b/shop/billing.py\n@@")
        assert mutant.module == "shop.billing" and mutant.file == "shop/billing.py" and mutant.target == target.id
        assert mutant.id.startswith("shop.billing:apply_tax#") and "\n" not in mutant.description


def test_ids_and_order_are_deterministic(shop, helpers) -> None:
    target = helpers.target_of(shop, "shop.envelope:serialize_envelope")
    first = mutants_for(target, shop)
    second = mutants_for(target, shop)
    assert [m.id for m in first.mutants] == [m.id for m in second.mutants]
    assert first == second
    assert len({m.id for m in first.mutants}) == len(first.mutants)
    order = [op.name for op in all_operators()]
    ranks = [order.index(m.operator) for m in first.mutants]
    assert ranks == sorted(ranks)


def test_every_shop_target_gets_mutants(shop, shop_run) -> None:
    counts = {target_id: len(result.mutants) for target_id, result in shop_run.sets.items()}
    assert len(counts) == len(shop_run.targets) >= 10 and all(n > 0 for n in counts.values()), counts
    for result in shop_run.sets.values():
        for mutant in result.mutants:
            original = (shop / mutant.file).read_text(encoding="utf-8")
            assert ast.dump(ast.parse(mutant.source)) != ast.dump(ast.parse(original))
            assert mutant.diff.count("\n@@ ") == 1  # one-line sabotage: one hunk


def test_operators_can_be_narrowed(shop, helpers) -> None:
    target = helpers.target_of(shop, "shop.billing:apply_tax")
    only = mutants_for(target, shop, select_operators(["negate_param"]))
    assert [m.id for m in only.mutants] == ["shop.billing:apply_tax#negate_param-1", "shop.billing:apply_tax#negate_param-2"]


def test_method_target_is_found_by_qualname(shop, helpers) -> None:
    target = helpers.target_of(shop, "shop.envelope:Envelope.is_success")
    result = mutants_for(target, shop)
    assert any("return True" in m.description.split("→")[1] for m in result.mutants)
    assert all(m.line >= target.line for m in result.mutants)
    assert not any("self = -self" in m.source for m in result.mutants)


def test_duplicates_from_two_operators_are_dropped_and_counted(tmp_path, helpers) -> None:
    src = helpers.write_src(tmp_path, {"m.py": "def magnitude(x):\n    return abs(x)\n"})
    target = helpers.target_of(src, "m:magnitude")
    result = mutants_for(target, src, select_operators(["return_param", "drop_call", "return_empty"]))
    # return_param and drop_call both give `return x`; the earlier operator keeps it
    assert [m.id for m in result.mutants] == ["m:magnitude#return_param-1", "m:magnitude#return_empty-1"]
    assert result.dropped_duplicate == 1 and result.dropped_equivalent == 0


class Parenthesize(Operator):
    """A formatting-only 'mutation': the syntax tree does not change."""

    name = "parenthesize"

    def positions(self, function, target=None):
        returns = [s.body[0] for s in function.body.body if isinstance(s.body[0], cst.Return)]
        return [Position(r, r.with_changes(value=r.value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()]))) for r in returns]


def test_mutants_with_the_original_tree_are_dropped_and_counted(tmp_path, helpers) -> None:
    src = helpers.write_src(tmp_path, {"m.py": "def zero() -> int:\n    return 0\n\n\ndef one() -> int:\n    return 1\n"})
    zero, one = helpers.target_of(src, "m:zero"), helpers.target_of(src, "m:one")
    ops = (Parenthesize(), *select_operators(["return_empty"]))
    same = mutants_for(zero, src, ops)  # `(0)` and `return 0` (the empty int) are the original tree
    assert same.mutants == () and same.dropped_equivalent == 2
    kept = mutants_for(one, src, ops)  # beside it: `return 1` → `return 0` is a real change
    assert [m.id for m in kept.mutants] == ["m:one#return_empty-1"] and kept.dropped_equivalent == 1


def test_missing_function_and_broken_file_are_clear_errors(tmp_path, helpers) -> None:
    src = helpers.write_src(tmp_path, {"m.py": "def f(x):\n    return x + 1\n"})
    good = helpers.target_of(src, "m:f")
    (src / "bad.py").write_text("def g(:\n")
    assert mutants_for(good, src).mutants
    gone = good.__class__(**{**good.__dict__, "id": "m:nope", "qualname": "nope"})
    with pytest.raises(SabotageError, match=r"m\.py: no function 'nope' for target m:nope"):
        mutants_for(gone, src)
    broken = good.__class__(**{**good.__dict__, "id": "bad:g", "file": "bad.py", "qualname": "g"})
    with pytest.raises(SabotageError, match=r"bad\.py: does not parse"):
        mutants_for(broken, src)


def test_redefined_name_picks_the_def_at_the_target_line(tmp_path, helpers) -> None:
    text = "import sys\nif sys.version_info >= (3, 12):\n    def f(x):\n        return x + 1\nelse:\n    def f(x):\n        return x - 1\n"
    src = helpers.write_src(tmp_path, {"m.py": text})
    first = Target("m:f", "m", "f", "m.py", 3, 4, (), None, (), None, False, "f")
    second = Target("m:f", "m", "f", "m.py", 6, 7, (), None, (), None, False, "f")
    assert any("return x - 1\nelse" in m.source for m in mutants_for(first, src).mutants)
    assert any("return x + 1\n" in m.source.split("else")[1] for m in mutants_for(second, src).mutants)


def test_negate_param_uses_the_extracted_usage_when_there_is_no_annotation(tmp_path, helpers) -> None:
    src = helpers.write_src(tmp_path, {"m.py": "def scale(amount, label):\n    return f'{label}: {amount * 2}'\n"})
    bare = helpers.target_of(src, "m:scale")
    numeric = Param("amount", "positional_or_keyword", usage=(Usage("number", "multiplied by 2"),))
    textual = Param("label", "positional_or_keyword", usage=(Usage("text", "formatted"),))
    informed = Target(**{**bare.__dict__, "params": (numeric, textual)})
    negate = select_operators(["negate_param"])
    assert mutants_for(bare, src, negate).mutants == ()
    assert [m.description for m in mutants_for(informed, src, negate).mutants] == [
        "line 1: `amount = -amount` inserted at entry"
    ]


REACH = '''\
def pick(x):
    if x > 100:
        big = x * 2
        return big
    return x


def tally(x):
    if x > 100:
        found = 1
    return x


def numbers(n):
    if n > 100:
        yield n
    return None


class Box:
    def grow(self, x):
        if x > 100:
            return x * 2
        return x
'''


def test_reach_names_the_changed_statements_and_is_unknown_when_the_change_is_not_local(tmp_path, helpers) -> None:
    src = helpers.write_src(tmp_path, {"reach.py": REACH})
    targets = {t.qualname: t for t in helpers.targets_of(src)}
    statements = select_operators(["delete_statement", "swap_arithmetic"])
    pick = {m.description.split(": ", 1)[1]: m.reach for m in mutants_for(targets["pick"], src, statements).mutants}
    # `x * 2` on line 3 and the assignment holding it: only line 3 must run for the mutant to act.
    assert pick["`x * 2` → `x / 2`"] == (3,)
    assert pick["`big = x * 2` → `pass`"] == ()  # `big` would stop being a local: `return big` reads a global
    # Deleting the only assignment of a name, or the only `yield`, changes the function on every line: unknown.
    (tally,) = mutants_for(targets["tally"], src, statements).mutants
    assert "found = 1" in tally.diff and tally.reach == ()
    compare = select_operators(["swap_comparison"])
    numbers = [m for m in mutants_for(targets["numbers"], src, statements).mutants if "yield" in m.diff]
    assert numbers and all(m.reach == () for m in numbers)
    # A compound statement's header: changing the `if` test needs only its own line to run.
    (header, *_) = [m for m in mutants_for(targets["pick"], src, compare).mutants if "x > 100" in m.diff]
    assert header.reach == (2,)
    # Methods: lines are module lines, not the method's own.
    grow = [m for m in mutants_for(targets["Box.grow"], src, statements).mutants if "x * 2" in m.diff]
    assert grow and grow[0].reach == (23,)


def test_mutants_for_all_over_two_processes_equals_one_by_one_with_errors_in_place(shop, helpers) -> None:
    from dataclasses import replace

    from sabotage.mutants import mutants_for_all

    targets = helpers.targets_of(shop)[:4]
    missing = replace(targets[1], qualname="not_there", id="shop.billing:not_there")
    wanted = [targets[0], missing, *targets[2:]]
    spread = mutants_for_all(wanted, shop, jobs=2)
    assert isinstance(spread[1], SabotageError) and "not_there" in str(spread[1])
    assert [spread[0], *spread[2:]] == [mutants_for(t, shop) for t in [targets[0], *targets[2:]]]


class BumpIntegers(Operator):
    """Every integer literal of the def plus one, its parameters' defaults too (no shipped operator offers those)."""

    name = "bump_integers"

    def replacements(self, site, target):
        if isinstance(site.node, cst.Integer):
            yield cst.Integer(str(int(site.node.value) + 1))

    def positions(self, function, target=None):
        defaults = [p.default for p in function.params.params if isinstance(p.default, cst.Integer)]
        return [Position(d, cst.Integer(str(int(d.value) + 1))) for d in defaults] + super().positions(function, target)


def test_body_only_is_true_for_a_body_change_and_false_for_a_default_which_the_switch_then_refuses(
        tmp_path, helpers) -> None:
    import importlib.util

    from sabotage.switch import SwitchUnsafe, prepare_switch

    src = helpers.write_src(tmp_path, {"scaled.py": "class Box:\n    def scale(self, x, factor=3):\n"
                                                    "        return x * factor + 1\n"})
    target = helpers.target_of(src, "scaled:Box.scale")
    made = mutants_for(target, src, [BumpIntegers()]).mutants
    by_change = {m.description.split(": ", 1)[1]: m for m in made}
    assert set(by_change) == {"`3` → `4`", "`x * factor + 1` → `x * factor + 2`"}
    default, body = by_change["`3` → `4`"], by_change["`x * factor + 1` → `x * factor + 2`"]
    assert "def scale(self, x, factor=4):" in default.source and not default.body_only
    assert "return x * factor + 2" in body.source and body.body_only
    assert body.reach == (3,) and default.reach == ()

    spec = importlib.util.spec_from_file_location("scaled", src / "scaled.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(SwitchUnsafe, match="outside the body of Box.scale"):
        prepare_switch(module, "Box.scale", default.source, default.body_only)
    assert prepare_switch(module, "Box.scale", body.source, body.body_only).live is module.Box.scale


AWKWARD_LAYOUT = '''\
class Box:
\tdef pack(self, items, limit=3):  # tabs, comments, one-liners, elif, nested defs and semicolons
\t\t"""Pack."""
\t\ttotal = 0; count = 0
\t\tif not items: return []
\t\telif len(items) > limit:
\t\t\titems = items[:limit]  # trimmed

\t\t# a comment line before a loop
\t\tfor item in items:
\t\t\twhile total < 10 and item > 0:
\t\t\t\ttotal += item - 1
\t\t\t\tbreak
\t\t\telse:
\t\t\t\tcount += 1
\t\tdef inner(x):
\t\t\treturn x * 2 if x else -x
\t\ttry:
\t\t\treturn [inner(total), count]
\t\texcept (TypeError, ValueError):
\t\t\traise ValueError("bad") from None
'''


def test_a_mutant_generated_for_its_statement_alone_equals_generating_the_whole_function(tmp_path, helpers) -> None:
    from sabotage.mutants import FunctionSplice, locate

    src = helpers.write_src(tmp_path, {"m.py": AWKWARD_LAYOUT})
    target = helpers.target_of(src, "m:Box.pack")
    text, module, function, spans = locate(target, src)
    splice = FunctionSplice(text, module, function, spans[function].start.line)
    compared = 0
    for operator in all_operators():
        for position in operator.positions(function, target):
            whole = splice.code(operator.mutate(function, position))
            assert splice.mutated_code(operator, position) == whole, (operator.name, whole)
            compared += 1
    assert compared > 30 and len(set(splice._owners.values())) > 10  # the statement path was taken
    made = mutants_for(target, src).mutants
    assert any("if not items: pass" not in m.source and "\t\telif len(items) >= limit:" in m.source for m in made)
