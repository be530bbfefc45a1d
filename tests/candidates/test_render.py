"""render: a parseable, deterministic test file with exactly the imports its code needs."""

import ast
import sys

import libcst as cst
import pytest

from drafter.data import Candidate
from drafter.render import RenderError, render

TAX = "shop.billing:apply_tax"
AMOUNT = "st.decimals(min_value=Decimal('0'), max_value=Decimal('1000'), places=2)"
RATE = "st.decimals(min_value=Decimal('0'), max_value=Decimal('0.25'), places=4)"


def make(body, inputs=None, assume=(), target=TAX, name="prop"):
    return Candidate(target, name, "bound", inputs or {"amount": AMOUNT, "rate": RATE}, body, "a sign error", tuple(assume))


def imports_of(source):
    """Every imported (module, name) pair of a file."""
    pairs = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.Import):
            pairs |= {(a.name, None) for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            pairs |= {(node.module, a.asname or a.name) for a in node.names}
    return pairs


def rendered(extraction, candidate, max_examples=25):
    return render(candidate, extraction.target(candidate.target), extraction, max_examples=max_examples)


def test_file_shape_and_exact_imports(shop_extraction):
    candidate = make("out = apply_tax(amount, rate)\nassert out == out.quantize(CENT, rounding=ROUND_HALF_EVEN)",
                     assume=["amount > rate"])
    result = rendered(shop_extraction, candidate)
    assert result.path == "staged/shop.billing.apply_tax/test_prop.py"
    assert result.test_name == "test_prop" and result.candidate_id == f"{TAX}::prop" and result.target == TAX
    assert imports_of(result.source) == {
        ("decimal", "Decimal"), ("decimal", "ROUND_HALF_EVEN"),
        ("hypothesis", "assume"), ("hypothesis", "given"), ("hypothesis", "settings"), ("hypothesis", "st"),
        ("shop.billing", "CENT"), ("shop.billing", "apply_tax"),
    }
    assert result.source.startswith('"""Draft property for shop.billing:apply_tax (kind: bound). Not an oracle')
    assert "@settings(max_examples=25, deadline=None, database=None)" in result.source
    assert "def test_prop(amount, rate):\n    assume(amount > rate)\n    out = apply_tax(amount, rate)\n" in result.source
    cst.parse_module(result.source)


def test_only_used_names_are_imported(shop_extraction):
    candidate = make("assert apply_tax(amount, rate) >= amount",
                     {"amount": "st.integers(min_value=0, max_value=9).map(Decimal)", "rate": "st.just(Decimal(0))"})
    pairs = imports_of(rendered(shop_extraction, candidate).source)
    assert ("hypothesis", "assume") not in pairs
    assert ("shop.billing", "apply_tax") in pairs and ("shop.billing", "CENT") not in pairs
    assert not any(module == "math" for module, _ in pairs)


def test_stdlib_modules_bare_names_and_pytest(shop_extraction):
    body = (
        "import_free = math.floor(1.5)\n"
        "when = datetime.date(2020, 1, 1) + timedelta(days=1)\n"
        "counts = Counter(string.digits)\n"
        "with pytest.raises(ValueError):\n"
        "    apply_tax(-amount - 1, rate)"
    )
    source = rendered(shop_extraction, make(body)).source
    pairs = imports_of(source)
    assert {("math", None), ("datetime", None), ("string", None), ("pytest", None)} <= pairs
    assert {("datetime", "timedelta"), ("collections", "Counter")} <= pairs
    # stdlib block first, then third party, then the target module, with one blank line between blocks
    assert source.index("import datetime") < source.index("import pytest") < source.index("from shop.billing")
    assert "\nimport math\nimport string\nfrom collections import Counter\n" in source


def test_datetime_class_used_bare_is_imported_from_datetime(shop_extraction):
    body = "stamp = datetime(2020, 1, 1)\nassert apply_tax(amount, rate) >= amount or stamp.year == 2020"
    assert ("datetime", "datetime") in imports_of(rendered(shop_extraction, make(body)).source)


def test_method_target_imports_its_class_only(shop_extraction):
    candidate = make("d = self.to_dict()\nassert not set(d['fields']) & FORBIDDEN_FIELDS",
                     {"self": "st.builds(Envelope, status=st.just(200))"}, target="shop.envelope:Envelope.to_dict")
    result = rendered(shop_extraction, candidate)
    assert result.path == "staged/shop.envelope.Envelope.to_dict/test_prop.py"
    assert {p for p in imports_of(result.source) if p[0] == "shop.envelope"} == {
        ("shop.envelope", "Envelope"), ("shop.envelope", "FORBIDDEN_FIELDS")}


def test_rendering_is_deterministic_and_ignores_formatting(shop_extraction):
    plain = make("out = apply_tax(amount, rate)\nassert out >= amount", {"amount": AMOUNT, "rate": RATE})
    messy = make("    out = apply_tax( amount,rate )\n\n\n    assert (out >= amount)\n",
                 {"amount": AMOUNT.replace(", ", ",  "), "rate": RATE})
    first = rendered(shop_extraction, plain).source
    assert first == rendered(shop_extraction, plain).source
    assert first == rendered(shop_extraction, messy).source
    assert "\n\n\n\n" not in first and first.endswith("amount\n")


def test_long_given_goes_one_input_per_line(shop_extraction):
    source = rendered(shop_extraction, make("assert apply_tax(amount, rate) >= amount")).source
    assert f"@given(\n    amount={AMOUNT},\n    rate={RATE},\n)\ndef test_prop(amount, rate):" in source
    short = rendered(shop_extraction, make("assert apply_tax(amount, rate) >= amount",
                                           {"amount": "st.just(Decimal(1))", "rate": "st.just(Decimal(0))"})).source
    assert "@given(amount=st.just(Decimal(1)), rate=st.just(Decimal(0)))\n" in short


@pytest.mark.parametrize(
    "body, words",
    [
        ("out = await apply_tax(amount, rate)\nassert out >= amount", "does not parse"),
        ("assert apply_tax(amount, rate) >= mystery", "'mystery'"),
        ("out = apply_tax(amount, rate\nassert out", "does not parse"),
    ],
)
def test_render_failure_is_a_render_rejection(shop_extraction, body, words):
    good = rendered(shop_extraction, make("assert apply_tax(amount, rate) >= amount"))
    with pytest.raises(RenderError) as caught:
        rendered(shop_extraction, make(body))
    verdict = caught.value.verdict
    assert (verdict.stage, verdict.accepted, verdict.reason) == ("render", False, "render_error")
    assert words in verdict.detail and f"{TAX}::prop" in str(caught.value)
    assert good.source  # the sibling renders fine


def test_rendered_file_runs_against_the_example(shop_extraction, shop_dir, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    monkeypatch.syspath_prepend(str(shop_dir))
    candidate = make("out = apply_tax(amount, rate)\nassert out >= amount", assume=["amount > 0"])
    namespace = {"__name__": "rendered_prop"}
    exec(compile(rendered(shop_extraction, candidate, max_examples=10).source, "rendered_prop.py", "exec"), namespace)
    namespace["test_prop"]()  # passes on the clean example

    wrong = make("out = apply_tax(amount, rate)\nassert out < amount", assume=["amount > 0"])
    namespace = {"__name__": "rendered_wrong"}
    exec(compile(rendered(shop_extraction, wrong, max_examples=10).source, "rendered_wrong.py", "exec"), namespace)
    with pytest.raises(AssertionError):
        namespace["test_prop"]()


def test_free_names_reads_every_scope_and_keeps_a_builtin_only_when_the_module_defines_it() -> None:
    from drafter.render import free_names

    source = (
        "import math\n"
        "LIMIT = 3\n"
        "def test_x(xs):\n"
        "    ys = [clamp(x, LIMIT) for x in xs if pred(x)]\n"
        "    key = lambda y: weight(y)\n"
        "    class Local:\n"
        "        size = len(ys)\n"
        "    assert sorted(ys, key=key) == format(ys) and math.pi and Local.size >= 0\n"
    )
    assert free_names(source) == {"clamp", "pred", "weight"}  # not math, LIMIT, xs, y, builtins
    assert free_names(source, frozenset({"format", "clamp"})) == {"clamp", "pred", "weight", "format"}
