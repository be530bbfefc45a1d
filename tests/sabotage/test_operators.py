"""Every operator's own examples, and operators on awkward code."""

from __future__ import annotations

import ast
import textwrap

import libcst as cst
import pytest

from sabotage import all_operators, mutants_for, select_operators
from sabotage.operator import Operator
from drafter.errors import ConfigError

EXAMPLES = [
    pytest.param(op, before, after, id=f"{op.name}-{i}")
    for op in all_operators()
    for i, (before, after) in enumerate(op.examples)
]


def produced(op: Operator, before: str) -> list[str]:
    module = cst.parse_module(before)
    function = next(n for n in module.body if isinstance(n, cst.FunctionDef))
    return [module.deep_replace(function, op.mutate(function, p)).code for p in op.positions(function)]


@pytest.mark.parametrize(("op", "before", "after"), EXAMPLES)
def test_operator_examples(op: Operator, before: str, after: str) -> None:
    mutants = produced(op, before)
    if after == before:
        assert mutants == [], f"{op.name} should find no position in:\n{before}"
        return
    assert after in mutants, f"{op.name} did not produce:\n{after}\nit produced:\n" + "\n---\n".join(mutants)
    for source in mutants:
        assert ast.dump(ast.parse(source)) != ast.dump(ast.parse(before))


def test_every_operator_documents_itself() -> None:
    names = [op.name for op in all_operators()]
    assert len(names) == len(set(names)) >= 10
    for op in all_operators():
        assert op.summary and "\n" not in op.summary
        assert any(before != after for before, after in op.examples), f"{op.name} has no example that mutates"
    required = {"negate_param", "return_param", "drop_call"}
    assert required <= set(names)


def test_select_operators_by_name() -> None:
    chosen = select_operators(["drop_call", "negate_param"])
    assert [op.name for op in chosen] == ["negate_param", "drop_call"]  # canonical order
    with pytest.raises(ConfigError, match="no_such_op"):
        select_operators(["drop_call", "no_such_op"])


AWKWARD = textwrap.dedent(
    '''\
    import functools


    def helper(x: int) -> int:
        return x + 1


    class Outer:
        LIMIT = 3

        def scaled(self, value: float, factor: float = 2.0) -> float:
            """Scaled value."""
            return value * factor

        class Inner:
            def check(self, n: int) -> bool:
                return n < Outer.LIMIT


    @functools.lru_cache(maxsize=128)
    def cached(n: int) -> int:
        """Cached square."""
        return n * n


    async def fetch(client, key: str) -> str:
        value = await client.get(key)
        return value.strip()


    def countdown(n: int):
        while n > 0:
            yield n
            n -= 1


    def make_adder(k: int):
        def add(x: int = 10) -> int:
            """Inner docstring."""
            return x + k

        return add


    def sorter(items: list) -> list:
        return sorted(items, key=lambda item: item % 2)
    '''
)


@pytest.fixture
def awkward(tmp_path, helpers):
    src = helpers.write_src(tmp_path, {"pkg/__init__.py": "", "pkg/awk.py": AWKWARD})
    return src, {t.id: t for t in helpers.targets_of(src)}


def _function_node(source: str, qualname: str) -> ast.FunctionDef | ast.AsyncFunctionDef:
    scope: list[ast.stmt] = ast.parse(source).body
    node = None
    for part in qualname.split("."):
        node = next(n for n in scope if getattr(n, "name", None) == part)
        scope = node.body
    return node


def _frame(node: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple:
    """What an operator must never change: decorators, signature with annotations, docstring."""
    return (
        [ast.dump(d) for d in node.decorator_list],
        ast.dump(node.args),
        ast.dump(node.returns) if node.returns else None,
        ast.get_docstring(node, clean=False),
    )


@pytest.mark.parametrize(
    "target_id",
    [
        "pkg.awk:Outer.scaled",
        "pkg.awk:Outer.Inner.check",
        "pkg.awk:cached",
        "pkg.awk:fetch",
        "pkg.awk:countdown",
        "pkg.awk:make_adder",
        "pkg.awk:sorter",
    ],
)
def test_awkward_targets_mutate_only_their_own_body(awkward, target_id: str) -> None:
    src, targets = awkward
    target = targets[target_id]
    original = ast.parse(AWKWARD)
    result = mutants_for(target, src)
    assert result.mutants, f"no mutants for {target_id}"
    for mutant in result.mutants:
        tree = ast.parse(mutant.source)  # every mutant parses
        assert mutant.id.startswith(f"{target_id}#") and mutant.diff.startswith("--- a/pkg/awk.py\n+++ b/pkg/awk.py\n")
        changed = [
            i for i, (a, b) in enumerate(zip(original.body, tree.body, strict=True)) if ast.dump(a) != ast.dump(b)
        ]
        top = target.qualname.split(".")[0]
        assert [original.body[i].name for i in changed] == [top], mutant.description
        before = _function_node(AWKWARD, target.qualname)
        after = _function_node(mutant.source, target.qualname)
        assert _frame(after) == _frame(before), f"{mutant.id} touched decorators/annotations/docstring"
        assert mutant.description.startswith(f"line {mutant.line}: ")
        assert target.line <= mutant.line <= target.end_line


def _operators_of(result) -> set[str]:
    return {m.operator for m in result.mutants}


def test_methods_never_negate_or_return_self(awkward) -> None:
    src, targets = awkward
    result = mutants_for(targets["pkg.awk:Outer.scaled"], src)
    sources = [m.source for m in result.mutants]
    assert any("factor = -factor" in s for s in sources) and any("value = -value" in s for s in sources)
    assert any("        return value\n" in s for s in sources)
    assert not any("self = -self" in s or "return self" in s for s in sources)


def test_closure_inner_body_is_mutated_but_not_its_docstring_or_annotations(awkward) -> None:
    src, targets = awkward
    result = mutants_for(targets["pkg.awk:make_adder"], src)
    inner_changes = [m for m in result.mutants if "return x - k" in m.source]
    assert inner_changes and inner_changes[0].operator == "swap_arithmetic"
    default_bumped = [m for m in result.mutants if "def add(x: int = 11)" in m.source]
    assert default_bumped, "the nested def's default is part of the target's body"
    assert all('"""Inner docstring."""' in m.source for m in result.mutants)
    # the nested function's own returns are emptied with its own annotation (int → 0)
    assert any("        return 0\n" in m.source and "return x + k" not in m.source for m in result.mutants)


def test_decorator_arguments_are_not_mutated(awkward) -> None:
    src, targets = awkward
    result = mutants_for(targets["pkg.awk:cached"], src)
    assert {"swap_arithmetic", "return_param", "negate_param"} <= _operators_of(result)
    assert all("@functools.lru_cache(maxsize=128)" in m.source for m in result.mutants)


def test_async_generator_and_lambda_bodies(awkward, helpers) -> None:
    src, targets = awkward
    fetch = mutants_for(targets["pkg.awk:fetch"], src)
    assert any("value = await client\n" in m.source for m in fetch.mutants)  # drop_call under await
    assert any("return value\n" in m.source and m.operator == "drop_call" for m in fetch.mutants)

    countdown = mutants_for(targets["pkg.awk:countdown"], src)
    generated = {m.operator: m for m in countdown.mutants}
    assert "n += 1" in generated["swap_arithmetic"].source
    assert list(helpers.load(AWKWARD)["countdown"](2)) == [2, 1]
    mutated_loop = [m for m in countdown.mutants if "while n >= 0" in m.source]
    assert list(helpers.load(mutated_loop[0].source)["countdown"](2)) == [2, 1, 0]

    sorter = mutants_for(targets["pkg.awk:sorter"], src)
    assert any("lambda item: item * 2" in m.source for m in sorter.mutants)
    assert any("sorted(items, key=lambda item: item % 3)" in m.source for m in sorter.mutants)
