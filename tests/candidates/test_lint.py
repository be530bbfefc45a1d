"""Every lint rule rejects its bad shape with its reason code while a good sibling of the same reply is kept."""

import pytest

from drafter.lint import REASONS

TAX = "shop.billing:apply_tax"
AMOUNT = "st.decimals(min_value=Decimal('0'), max_value=Decimal('1000'), places=2)"
RATE = "st.decimals(min_value=Decimal('0'), max_value=Decimal('0.25'), places=4)"
ENVELOPE = "st.builds(Envelope, status=st.sampled_from([200, 204, 404]), fields=st.dictionaries(st.text(max_size=5), st.text(max_size=5), max_size=3))"
HUNK = "st.builds(Hunk, old_start=st.integers(min_value=1, max_value=9), lines=st.lists(st.tuples(st.sampled_from(TAGS), st.text(max_size=5)), max_size=4).map(tuple))"


def item(name, body, inputs=None, assume=()):
    return {
        "name": name,
        "kind": "invariant",
        "inputs": inputs or {"amount": AMOUNT, "rate": RATE},
        "assume": list(assume),
        "body": body,
        "counterexample": "a sign error",
    }


GOOD = {
    TAX: item("good_tax_bound", "out = apply_tax(amount, rate)\nassert out >= amount\nassert out == out.quantize(CENT)"),
    "shop.envelope:Envelope.to_dict": item(
        "good_no_forbidden", "d = self.to_dict()\nassert not set(d['fields']) & FORBIDDEN_FIELDS", {"self": ENVELOPE}
    ),
    "shop.hunks:Hunk.old_lines": item(
        "good_old_lines", "assert len(self.old_lines) <= len(self.lines)", {"self": HUNK}
    ),
    "shop.billing:normalize_currency": item(
        "good_idempotent", "once = normalize_currency(code)\nassert normalize_currency(once) == once",
        {"code": "st.text(max_size=10)"},
    ),
}

T = TAX
BAD = [
    # syntax
    (T, item("bad", "out = apply_tax(amount, rate\nassert out"), "syntax", "body"),
    (T, item("bad", "assert apply_tax(amount, rate)", {"amount": "st.decimals(", "rate": RATE}), "syntax", "inputs['amount']"),
    (T, item("bad", "assert apply_tax(amount, rate) >= amount", assume=["amount >"]), "syntax", "assume[0]"),
    # no_assertion
    (T, item("bad", "out = apply_tax(amount, rate)\nprint(out)"), "no_assertion", "no assert"),
    # tautology
    (T, item("bad", "out = apply_tax(amount, rate)\nassert True"), "tautology", "always true"),
    (T, item("bad", "out = apply_tax(amount, rate)\nassert out == out"), "tautology", "itself"),
    (T, item("bad", "assert amount + rate >= amount"), "tautology", "never calls"),
    (T, item("bad", "x = apply_tax(amount, rate)\nassert isinstance(x, object)"), "tautology", "every value"),
    ("shop.hunks:Hunk.old_lines", item("bad", "n = len(self.lines)\nassert n >= 0", {"self": HUNK}), "tautology",
     "never calls"),
    (T, item("bad", "raised = False\ntry:\n    Decimal(amount)\nexcept ValueError:\n    raised = True\nassert not raised"),
     "tautology", "never calls"),
    # literal_expected
    (T, item("bad", "assert apply_tax(amount, rate) != Decimal('12.50')"), "literal_expected", "Decimal('12.50')"),
    (T, item("bad", "out = apply_tax(amount, rate)\ntotal = out * 2\nassert total == 240"), "literal_expected", "240"),
    (T, item("bad", "out = str(apply_tax(amount, rate))\nassert out == '120.00' or amount > 0"), "literal_expected", "'120.00'"),
    ("shop.envelope:Envelope.to_dict", item("bad", "assert self.to_dict()['fields'] == {'name': 'x'}", {"self": ENVELOPE}),
     "literal_expected", "{'name': 'x'}"),
    # golden
    (T, item("bad", "data = open('expected.txt').read()\nassert str(apply_tax(amount, rate)) in data"), "golden", "'open'"),
    (T, item("bad", "p = Path('x')\nassert apply_tax(amount, rate) >= amount"), "golden", "'Path'"),
    (T, item("bad", "exp = json.loads(s)\nassert apply_tax(amount, rate) >= exp"), "golden", "json.loads"),
    (T, item("bad", "t = os.environ\nassert apply_tax(amount, rate) >= amount"), "golden", "'os'"),
    (T, item("bad", "t = thing.read_text()\nassert apply_tax(amount, rate) >= amount"), "golden", ".read_text"),
    (T, item("bad", "assert apply_tax(amount, rate) >= amount or 'invoice_basic.json'"), "golden", "invoice_basic.json"),
    (T, item("bad", "assert apply_tax(amount, rate) >= amount\nassert tmp_path.exists()"), "golden", "fixtures"),
    # forbidden_name
    (T, item("bad", "assert eval('apply_tax(amount, rate)') >= amount"), "forbidden_name", "'eval'"),
    (T, item("bad", "import math\nassert apply_tax(amount, rate) >= amount"), "forbidden_name", "import"),
    (T, item("bad", "m = __import__('math')\nassert apply_tax(amount, rate) >= amount"), "forbidden_name", "__import__"),
    (T, item("bad", "assert apply_tax(amount, rate).__class__ is Decimal"), "forbidden_name", "__class__"),
    (T, item("bad", "assert apply_tax(amount, rate) >= amount", {"amount": "st.decimalz()", "rate": RATE}),
     "forbidden_name", "st.decimalz"),
    (T, item("bad", "sys.setrecursionlimit(10)\nassert apply_tax(amount, rate) >= amount"), "forbidden_name", "'sys'"),
    (T, item("bad", "r = random.random()\nassert apply_tax(amount, rate) >= amount"), "forbidden_name", "'random'"),
    (T, item("bad", "f = getattr(apply_tax, '__globals__')\nassert apply_tax(amount, rate) >= amount"), "forbidden_name",
     "dunder"),
    (T, item("bad", "pytest.skip('later')\nassert apply_tax(amount, rate) >= amount"), "forbidden_name", "pytest.skip"),
    # unbounded
    (T, item("bad", "assert apply_tax(amount, rate) >= amount", {"amount": "st.lists(st.integers()).map(len).map(Decimal)",
     "rate": RATE}), "unbounded", "st.lists"),
    (T, item("bad", "assert apply_tax(amount, rate) >= amount", {"amount": "st.text(max_size=5000).map(len).map(Decimal)",
     "rate": RATE}), "unbounded", "5000"),
    (T, item("bad", "assert apply_tax(amount, rate) >= amount", {"amount": "st.from_regex('[0-9]+').map(Decimal)",
     "rate": RATE}), "unbounded", "fullmatch"),
    (T, item("bad", "assert apply_tax(amount, rate) >= amount", {"amount": "st.from_regex('[0-9]+', fullmatch=True).map(Decimal)",
     "rate": RATE}), "unbounded", "longer than"),
    (T, item("bad", "assert apply_tax(amount, rate) >= amount", {"amount": "st.recursive(st.just(Decimal(1)), lambda s: s)",
     "rate": RATE}), "unbounded", "max_leaves"),
    # unknown_name: inputs may have any name, but a name bound and allowed nowhere is an error
    (T, item("bad", "assert apply_tax(amount, rate) >= base"), "unknown_name", "'base'"),
    (T, item("bad", "assert apply_tax(amount, rate) >= amount", assume=["cap > amount"]), "unknown_name", "'cap'"),
    (T, item("bad", "assert apply_tax(amount, rate) >= amount", {"amount": "st.just(rate)", "rate": RATE}),
     "unknown_name", "'rate'"),
    (T, item("bad", "assert apply_tax(amount, rate) >= amount\nassert parse_hunk('') is None"), "unknown_name", "parse_hunk"),
    # shadowing: an input that hides a name the candidate needs
    (T, item("bad", "assert apply_tax(amount, st) >= amount\nassert st.just(1) is not None", {"amount": AMOUNT, "st": RATE}),
     "shadowing", "'st'"),
    (T, item("bad", "assert apply_tax(amount, rate) >= amount", {"amount": AMOUNT, "rate": RATE, "assume": RATE},
             assume=["rate > 0"]), "shadowing", "'assume'"),
    (T, item("bad", "assert apply_tax(amount, apply_tax) >= amount", {"amount": AMOUNT, "apply_tax": RATE}),
     "shadowing", "target"),
    (T, item("bad", "assert apply_tax(amount, max) >= max(amount, 0)", {"amount": AMOUNT, "max": RATE}),
     "shadowing", "also calls"),
    (T, item("bad", "assert math.isclose(apply_tax(amount, math), amount)", {"amount": AMOUNT, "math": RATE}),
     "shadowing", "module 'math'"),
    # swallowed
    (T, item("bad", "try:\n    assert apply_tax(amount, rate) >= amount\nexcept:\n    pass"), "swallowed", "bare"),
    (T, item("bad", "try:\n    assert apply_tax(amount, rate) >= amount\nexcept (ValueError, Exception):\n    pass"),
     "swallowed", "Exception"),
    (T, item("bad", "try:\n    assert apply_tax(amount, rate) >= amount\nexcept AssertionError:\n    pass"),
     "swallowed", "AssertionError"),
    (T, item("bad", "with pytest.raises(BaseException):\n    apply_tax(amount, -rate - 1)"), "swallowed", "BaseException"),
    # placeholder
    (T, item("bad", "assert apply_tax(amount, rate) >= amount", {"amount": "st.nothing()", "rate": RATE}),
     "placeholder", "st.nothing"),
    (T, item("bad", "..."), "placeholder", "..."),
    (T, item("bad", "pass"), "placeholder", "pass"),
    (T, item("bad", "out = apply_tax(amount, rate)  # TODO: assert something\nassert out >= amount"), "placeholder", "TODO"),
    (T, item("bad", "assert apply_tax(amount, rate) >= amount", {"amount": "st.just('FIXME')", "rate": RATE}),
     "placeholder", "FIXME"),
    # duplicate (same inputs and body as the good sibling, formatting differs)
    (T, item("bad", "out = apply_tax( amount,rate )\nassert out >= amount\n\nassert out == out.quantize(CENT)"),
     "duplicate", "same inputs"),
    ("shop.billing:normalize_currency", item("bad", "once = normalize_currency(code)\nassert normalize_currency(once) == once",
     {"code": "st.text(max_size = 10)"}), "duplicate", "earlier candidate"),
]


@pytest.mark.parametrize("target, bad, reason, words", BAD, ids=[f"{r}-{i}" for i, (_, _, r, _) in enumerate(BAD)])
def test_rule_rejects_bad_shape_and_keeps_good_sibling(checked, target, bad, reason, words):
    results = checked(target, GOOD[target], bad)
    good = results[GOOD[target]["name"]]
    assert (good.verdict.stage, good.verdict.accepted, good.verdict.reason) == ("lint", True, None)
    verdict = results["bad"].verdict
    assert (verdict.stage, verdict.accepted, verdict.reason) == ("lint", False, reason), verdict.detail
    assert words in verdict.detail


def test_every_reason_code_has_a_bad_shape():
    assert {reason for _, _, reason, _ in BAD} == set(REASONS)


GOOD_SHAPES = [
    (T, item("ok", "try:\n    apply_tax(amount, -rate - Decimal('0.01'))\nexcept ValueError:\n    pass\n"
                   "else:\n    raise AssertionError('accepted a negative rate')")),
    (T, item("ok", "with pytest.raises(ValueError):\n    apply_tax(-amount - 1, rate)")),
    (T, item("ok", "raised = False\ntry:\n    apply_tax(-amount - 1, rate)\nexcept ValueError:\n    raised = True\n"
                   "assert raised")),
    (T, item("ok", "outs = []\nfor r in (rate, rate * 2):\n    outs.append(apply_tax(amount, r))\nassert outs[0] <= outs[1]")),
    (T, item("ok", "assert apply_tax(amount, Decimal('0')) == amount\nassert apply_tax(Decimal(0), rate) == 0")),
    (T, item("ok", "out = apply_tax(amount, rate)\nassert math.isclose(out, amount * (1 + rate), abs_tol=0.01)")),
    (T, item("ok", "assert (lambda a: apply_tax(a, rate))(amount) == apply_tax(amount, rate)",
             {"amount": "st.integers(min_value=0, max_value=10).map(Decimal)", "rate": RATE})),
    (T, item("ok", "assert apply_tax(amount, rate) >= amount", {"amount": "st.text(alphabet=digits, min_size=1, max_size=5)"
             ".map(Decimal)", "rate": "st.from_regex('0\\\\.[0-9]{2}', fullmatch=True).map(Decimal)"})),
    ("shop.envelope:Envelope.to_dict", item("ok", "assert self.to_dict()['status'] == self.status", {"self": ENVELOPE})),
    ("shop.hunks:Hunk.old_lines", item("ok", "assert all(line in self.old_lines for t, line in self.lines if t == '-')",
                                       {"self": HUNK})),
    # free names, unused extra inputs and a name like a builtin that is only a value
    (T, item("ok", "assert apply_tax(a, r) >= a", {"a": AMOUNT, "r": RATE})),
    (T, item("ok", "assert apply_tax(amount, rate) >= amount", {"amount": AMOUNT, "rate": RATE, "discount": RATE})),
    (T, item("ok", "assert apply_tax(max, rate) >= max", {"max": AMOUNT, "rate": RATE})),
    # Hypothesis supplies every input, so an input named like a pytest fixture is just a name
    (T, item("ok", "assert apply_tax(request, rate) >= request", {"request": AMOUNT, "rate": RATE})),
    # a strategy may use the module an input is named after: strategies are evaluated outside the test function
    ("shop.billing:normalize_currency", item("ok", "assert normalize_currency(string) == normalize_currency(string.upper())",
     {"string": "st.text(alphabet=string.ascii_letters, max_size=5)"})),
    # a shape check beside a relation; a literal compared with something the target does not touch
    (T, item("ok", "out = apply_tax(amount, rate)\nassert len(str(out).split('.')) == 2\nassert out >= amount")),
    (T, item("ok", "assert apply_tax(amount, rate) >= amount\nassert CENT == Decimal('0.01')")),
    # the target is called, but no assertion visibly depends on it: sabotage decides, not lint
    (T, item("ok", "out = apply_tax(amount, rate)\nassert amount + rate >= amount")),
]


@pytest.mark.parametrize("target, good", GOOD_SHAPES, ids=[str(i) for i in range(len(GOOD_SHAPES))])
def test_sound_shapes_pass_every_rule(checked, target, good):
    results = checked(target, good)
    assert results["ok"].verdict.accepted, results["ok"].verdict


def test_rejected_items_pass_through_lint_unchanged(checked):
    results = checked(TAX, GOOD[TAX], dict(GOOD[TAX], name="broken", kind="nope"))
    assert results["broken"].verdict.stage == "parse" and results["broken"].verdict.reason == "bad_schema"
    assert results["good_tax_bound"].verdict.stage == "lint"


def test_duplicate_is_judged_against_accepted_candidates_only(checked):
    rejected_first = item("first", "out = apply_tax(amount, rate)\nassert True")
    same_body_valid = item("second", "out = apply_tax(amount, rate)\nassert out >= amount")
    third = item("third", "out = apply_tax(amount, rate)\nassert out >= amount")
    results = checked(TAX, rejected_first, same_body_valid, third)
    assert results["first"].verdict.reason == "tautology"
    assert results["second"].verdict.accepted
    assert results["third"].verdict.reason == "duplicate"
