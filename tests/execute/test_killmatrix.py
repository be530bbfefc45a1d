"""Kill outcomes, in-process switching with its fallbacks, the forced-fail proof, and worker failures."""

from __future__ import annotations

import asyncio

import pytest

from drafter.keep import decide
from drafter.killmatrix import build_kill_matrix
from sabotage.switch import MutantInvalid, SwitchUnsafe, prepare_forced_fail, prepare_switch, switched_in, SwitchProbe


def outcomes(matrix):
    return {(r.candidate_id.split("::")[1], r.mutant_id.split("#")[1]): r.outcome for r in matrix.results}


def test_outcomes_assertion_crash_timeout_survived_and_invalid(kit, pkg, tmp_path):
    source, name = pkg
    run = tmp_path / "run"
    before = kit.tree_hash(source)
    even = kit.rendered(run, name, "double", "even", "assert double(x) % 2 == 0")
    mutants = [
        kit.mutant(source, name, "double", "plus", "return x * SCALE", "return x + SCALE"),
        kit.mutant(source, name, "double", "raises", "return x * SCALE", "raise ValueError(x)"),
        kit.mutant(source, name, "double", "loops", "return x * SCALE", "while True:\n        pass"),
        kit.mutant(source, name, "double", "same", "return x * SCALE", "return SCALE * x"),
        kit.mutant(source, name, "double", "broken", "return x * SCALE", "return x *"),
    ]
    matrix = build_kill_matrix([kit.sound(even, 0.01)], mutants, run, source, jobs=2, max_examples=30,
                               budget_floor=0.5)
    assert outcomes(matrix) == {("even", "plus"): "assertion", ("even", "raises"): "crash",
                                ("even", "loops"): "timeout", ("even", "same"): "survived"}
    assert matrix.invalid == (f"{name}.core:double#broken",)
    assert matrix.fresh_process == {}
    assert 0 < matrix.test_seconds <= 2 * matrix.seconds  # summed over two workers
    assert kit.tree_hash(source) == before
    assert not list(source.rglob("__pycache__"))


def test_methods_decorated_cached_and_closure_targets_switch_in_process_and_restore(kit, pkg, tmp_path, imported):
    source, name = pkg
    core = imported
    cases = [
        ("Counter.bump", "return Counter(self.value + by)", "return Counter(self.value - by)",
         lambda: core.Counter(1).bump(2).value, 3, -1),
        ("Child.bump", "return super().bump(by * 1)", "return super().bump(by * 5)",
         lambda: core.Child(0).bump(1).value, 1, 5),
        ("triple", "return x * 3", "return x * 4", lambda: core.triple(2), 6, 8),
        ("square", "return x * x", "return x + x", lambda: core.square(3), 9, 6),
        ("Counter.zero", "return 0", "return 1", lambda: core.Counter.zero(), 0, 1),
        ("Counter.twice", "return self.value * 2", "return self.value * 3", lambda: core.Counter(2).twice, 4, 6),
        ("countdown", "n -= 1", "n -= 2", lambda: list(core.countdown(4)), [4, 3, 2, 1], [4, 2]),
        ("fetch", "return x + 1", "return x - 1", lambda: asyncio.run(core.fetch(1)), 2, 0),
        ("make_adder", "return x + k", "return x * k", lambda: core.make_adder(3)(2), 5, 6),
    ]
    for qualname, old, new, probe, clean, mutated in cases:
        m = kit.mutant(source, name, qualname, "m", old, new)
        assert probe() == clean  # also fills the lru_cache of square with the clean answer
        with switched_in(prepare_switch(core, qualname, m.source)):
            assert probe() == mutated, qualname
        assert probe() == clean, qualname
        with pytest.raises(SwitchProbe):
            with switched_in(prepare_forced_fail(core, qualname)):
                probe()
        assert probe() == clean, qualname


def test_unsafe_and_invalid_mutants_are_refused_in_process(kit, pkg, imported):
    source, name = pkg
    outside = kit.mutant(source, name, "double", "m", "SCALE = 2", "SCALE = 3")
    closure = kit.mutant(source, name, "Child.bump", "m", "return super().bump(by * 1)",
                         "return Counter.bump(self, by)")  # no super(): no __class__ cell
    default = kit.mutant(source, name, "Counter.__init__", "m", "start=0", "start=1")
    broken = kit.mutant(source, name, "double", "m", "return x * SCALE", "return x *")
    body = kit.mutant(source, name, "double", "m", "return x * SCALE", "return x - SCALE")
    with pytest.raises(SwitchUnsafe, match="outside the body of double"):
        prepare_switch(imported, "double", outside.source)
    with pytest.raises(SwitchUnsafe, match="closure mismatch"):
        prepare_switch(imported, "Child.bump", closure.source)
    with pytest.raises(SwitchUnsafe, match="outside the body"):
        prepare_switch(imported, "Counter.__init__", default.source)
    with pytest.raises(MutantInvalid):
        prepare_switch(imported, "double", broken.source)
    assert prepare_switch(imported, "double", body.source).live is imported.double


def test_fallback_to_a_fresh_process_is_recorded_with_its_reason(kit, pkg, tmp_path):
    source, name = pkg
    run = tmp_path / "run"
    even = kit.rendered(run, name, "double", "even", "assert double(x) % 2 == 0")
    child = kit.rendered(run, name, "Child.bump", "adds", "assert Child(0).bump(x).value == x")
    mutants = [
        kit.mutant(source, name, "double", "scale", "SCALE = 2", "SCALE = 3"),
        kit.mutant(source, name, "double", "import_fails", "SCALE = 2", "SCALE = undefined_name"),
        kit.mutant(source, name, "Child.bump", "no_super", "return super().bump(by * 1)",
                   "return Counter.bump(self, by + 1)"),
        kit.mutant(source, name, "double", "in_process", "return x * SCALE", "return x * SCALE + 1"),
    ]
    matrix = build_kill_matrix([kit.sound(even), kit.sound(child)], mutants, run, source, jobs=2, max_examples=20)
    ids = [m.id for m in mutants]
    assert outcomes(matrix) == {("even", "scale"): "assertion", ("adds", "no_super"): "assertion",
                                ("even", "in_process"): "assertion"}
    assert set(matrix.fresh_process) == {ids[0], ids[1], ids[2]}
    assert "outside the body of double" in matrix.fresh_process[ids[0]]
    assert "closure mismatch" in matrix.fresh_process[ids[2]]
    assert matrix.invalid == (ids[1],)


def test_forced_fail_proof_rejects_vacuous_candidates_and_keeps_the_good_one_beside_them(kit, pkg, tmp_path):
    source, name = pkg
    run = tmp_path / "run"
    calls = kit.rendered(run, name, "double", "even", "assert double(x) % 2 == 0")
    ignores = kit.rendered(run, name, "double", "ignores", "assert x * 2 == x + x")
    swallows = kit.rendered(run, name, "double", "swallows", "try:\n    double(x)\nexcept Exception:\n    pass")
    plus = kit.mutant(source, name, "double", "plus", "return x * SCALE", "return x + SCALE")
    matrix = build_kill_matrix([kit.sound(calls), kit.sound(ignores), kit.sound(swallows)], [plus], run, source,
                               jobs=1, max_examples=10)
    assert outcomes(matrix) == {("even", "plus"): "assertion"}  # the run went on; vacuous ones met no mutant
    assert set(matrix.vacuous) == {ignores.candidate_id, swallows.candidate_id}
    assert "never calls its target" in matrix.vacuous[ignores.candidate_id]
    assert "raised on every call" in matrix.vacuous[swallows.candidate_id]
    by_candidate = {r.candidate_id: [r] for r in matrix.results}
    verdicts = {c.candidate_id: decide(by_candidate.get(c.candidate_id, []), matrix.vacuous.get(c.candidate_id, ""))
                for c in (calls, ignores, swallows)}
    assert verdicts[calls.candidate_id].accepted
    assert [(v.stage, v.reason) for k, v in verdicts.items() if k != calls.candidate_id] == [("sabotage", "vacuous")] * 2
    assert not matrix.fresh_process


@pytest.fixture
def counted_children(monkeypatch):
    """How many children each kill matrix's pool forked (the pool itself, counting what the kernel reports)."""
    import drafter.killmatrix as killmatrix

    counts = []

    class CountingPool(killmatrix.WorkerPool):
        def __exit__(self, *exc):
            counts.append(self.children)
            return super().__exit__(*exc)

    monkeypatch.setattr(killmatrix, "WorkerPool", CountingPool)
    return counts


def test_a_candidate_s_proof_and_its_mutants_share_one_child(kit, pkg, tmp_path, counted_children):
    source, name = pkg
    run = tmp_path / "run"
    even = kit.rendered(run, name, "double", "even", "assert double(x) % 2 == 0")
    mutants = [kit.mutant(source, name, "double", "plus", "return x * SCALE", "return x + SCALE"),
               kit.mutant(source, name, "double", "raises", "return x * SCALE", "raise ValueError(x)")]
    matrix = build_kill_matrix([kit.sound(even, 0.01)], mutants, run, source, jobs=1, max_examples=20)
    assert outcomes(matrix) == {("even", "plus"): "assertion", ("even", "raises"): "crash"}
    assert not matrix.vacuous
    assert counted_children == [1]  # the forced-fail proof, then both mutants (the proof had a child of its own before)


def test_a_vacuous_candidate_sends_only_the_mutants_it_would_have_met_to_their_first_meeting_again(
        kit, pkg, tmp_path, counted_children):
    source, name = pkg
    run = tmp_path / "run"
    even = kit.rendered(run, name, "double", "even", "assert double(x) % 2 == 0")
    ignores = kit.rendered(run, name, "double", "ignores", "assert x * 2 == x + x")
    positive = kit.rendered(run, name, "absolute", "positive", "assert absolute(x) >= 0")
    mutants = [kit.mutant(source, name, "double", "plus", "return x * SCALE", "return x + SCALE"),
               kit.mutant(source, name, "absolute", "negated", "return -x", "return x")]
    matrix = build_kill_matrix([kit.sound(even), kit.sound(ignores), kit.sound(positive)], mutants, run, source,
                               jobs=1, max_examples=20)
    assert outcomes(matrix) == {("even", "plus"): "assertion", ("positive", "negated"): "assertion"}
    assert set(matrix.vacuous) == {ignores.candidate_id}
    # One child per candidate (its proof, then its first meetings), then one for `plus` alone, which had been
    # planned with `ignores` among its opponents; `negated` never faced it and is not run again.
    assert counted_children == [4]


def test_results_are_identical_for_one_and_two_jobs_and_across_runs(kit, pkg, tmp_path):
    from drafter.soundness import check_soundness

    source, name = pkg
    run = tmp_path / "run"
    rendered = [kit.rendered(run, name, "absolute", "non_negative", "assert absolute(x) >= 0"),
                kit.rendered(run, name, "absolute", "keeps_positive", "assume(x > 0)\nassert absolute(x) == x"),
                kit.rendered(run, name, "double", "even", "assert double(x) % 2 == 0")]
    # Real clean runs, so the recorded lines (and the pairs they decide unrun) are part of what must repeat.
    items = list(zip(rendered, check_soundness(rendered, run, source, seeds=2, max_examples=30, jobs=2)))
    mutants = [
        kit.mutant(source, name, "absolute", "flip", "if x < 0:", "if x > 0:"),
        kit.mutant(source, name, "absolute", "ret", "        return -x", "        return x"),
        kit.mutant(source, name, "absolute", "none", "    return x\n\n\ndef _traced", "    return None\n\n\ndef _traced"),
        kit.mutant(source, name, "double", "plus", "return x * SCALE", "return x + SCALE"),
    ]

    def strip(matrix):
        return [(r.candidate_id, r.mutant_id, r.outcome, r.detail) for r in matrix.results]

    one = build_kill_matrix(items, mutants, run, source, jobs=1, max_examples=30)
    two = build_kill_matrix(items, mutants, run, source, jobs=2, max_examples=30)
    again = build_kill_matrix(items, mutants, run, source, jobs=2, max_examples=30)
    assert strip(one) == strip(two) == strip(again)
    assert len(one.results) == 3 * 2 + 1
    assert ("keeps_positive", "ret") in {k for k, v in outcomes(one).items() if v == "survived"}


def test_a_hung_or_dead_worker_is_replaced_and_other_pairs_complete(kit, pkg, tmp_path):
    source, name = pkg
    run = tmp_path / "run"
    items = [kit.sound(kit.rendered(run, name, "double", "even", "assert double(x) % 2 == 0"), 0.01),
             kit.sound(kit.rendered(run, name, "double", "signed", "assert (double(x) < 0) == (x < 0)"), 0.01)]
    mutants = [
        # A C-level loop: the soft timer cannot interrupt it, so the parent must kill the worker.
        kit.mutant(source, name, "double", "hang", "return x * SCALE", "return sum(range(10**15))"),
        kit.mutant(source, name, "double", "exit", "return x * SCALE", "import os\n    os._exit(3)"),
        kit.mutant(source, name, "double", "plus", "return x * SCALE", "return x + SCALE"),
        kit.mutant(source, name, "double", "neg", "return x * SCALE", "return -x * SCALE"),
    ]
    matrix = build_kill_matrix(items, mutants, run, source, jobs=2, max_examples=20, budget_floor=0.3)
    got = outcomes(matrix)
    assert got[("even", "hang")] == got[("signed", "hang")] == "timeout"
    assert got[("even", "exit")] == got[("signed", "exit")] == "crash"
    assert got[("even", "plus")] == "assertion" and got[("signed", "plus")] == "survived"
    assert got[("even", "neg")] == "survived" and got[("signed", "neg")] == "assertion"
    assert "died" in next(r.detail for r in matrix.results if r.mutant_id.endswith("#exit"))


def test_a_kill_is_an_assertion_when_the_candidate_judged_and_a_crash_when_the_target_raised(kit, pkg, tmp_path):
    source, name = pkg
    run = tmp_path / "run"
    items = [
        # pytest.raises failing ("DID NOT RAISE") is the candidate's own judgement.
        kit.rendered(run, name, "double", "contract", "with pytest.raises(TypeError):\n    double(None)",
                     imports="import pytest\n"),
        # An exception caught and turned into the candidate's own AssertionError: the candidate judged it.
        kit.rendered(run, name, "double", "converts",
                     "try:\n    out = double(x)\nexcept ValueError as exc:\n"
                     "    raise AssertionError('double raised') from exc\nassert out % 2 == 0"),
        # Caught and re-raised unchanged: the exception still comes out of the target.
        kit.rendered(run, name, "double", "reraises",
                     "try:\n    out = double(x)\nexcept ValueError:\n    raise\nassert out % 2 == 0"),
        # Another function of the module choking on the target's output (a decoder in a round trip) is the
        # candidate noticing a wrong result, not the target crashing.
        kit.rendered(run, name, "double", "decodes", "assert absolute(double(x)) >= 0"),
    ]
    mutants = [
        kit.mutant(source, name, "double", "none_ok", "return x * SCALE", "return x if x is None else x * SCALE"),
        kit.mutant(source, name, "double", "value_error", "return x * SCALE", "raise ValueError(x)"),
        kit.mutant(source, name, "double", "returns_none", "return x * SCALE", "return None"),
    ]
    matrix = build_kill_matrix([kit.sound(i, 0.01) for i in items], mutants, run, source, jobs=2, max_examples=20)
    assert outcomes(matrix) == {
        ("contract", "none_ok"): "assertion",  # DID NOT RAISE
        ("contract", "value_error"): "crash",  # the wrong exception escaped pytest.raises from the target
        ("converts", "none_ok"): "survived",
        ("converts", "value_error"): "assertion",
        ("reraises", "none_ok"): "survived",
        ("reraises", "value_error"): "crash",
        ("decodes", "none_ok"): "survived",
        ("decodes", "value_error"): "crash",
        ("decodes", "returns_none"): "assertion",  # absolute(None) raised, not double
        ("contract", "returns_none"): "assertion",
        ("converts", "returns_none"): "assertion",  # `None % 2` raised in the candidate's own code
        ("reraises", "returns_none"): "assertion",
    }


def test_each_candidate_gets_its_own_budget_from_its_clean_time(kit, pkg, tmp_path):
    source, name = pkg
    run = tmp_path / "run"
    quick = kit.rendered(run, name, "double", "quick", "assert double(x) % 2 == 0")
    patient = kit.rendered(run, name, "double", "patient", "assert double(x) % 2 == 0")
    # About 1 CPU s per run: over the 0.3 s floor of the quick candidate, inside 10 x 0.4 s for the patient one.
    # CPU, not sleep: budgets are CPU seconds, which a loaded machine does not use up.
    slow = kit.mutant(source, name, "double", "slow", "return x * SCALE", "import time\n    start = time.process_time()\n"
                      "    while time.process_time() - start < 0.05:\n        pass\n    return x * SCALE")
    matrix = build_kill_matrix([kit.sound(quick, 0.01), kit.sound(patient, 0.4)], [slow], run, source, jobs=2,
                               max_examples=20, budget_multiplier=10.0, budget_floor=0.3)
    assert outcomes(matrix) == {("quick", "slow"): "timeout", ("patient", "slow"): "survived"}
    # A timeout counts only when the rerun alone, with twice the budget, times out again.
    detail = next(r.detail for r in matrix.results if "::quick" in r.candidate_id)
    assert "timed out twice" in detail and "0.6 CPU s" in detail


def test_a_fresh_interpreter_that_dies_costs_only_the_run_it_was_on(kit, pkg, tmp_path):
    source, name = pkg
    run = tmp_path / "run"
    seven = kit.rendered(run, name, "double", "seven", "assert double(7) == 14")
    even = kit.rendered(run, name, "double", "even", "assert double(x) % 2 == 0", given="x=st.integers(0, 5)")
    dies_on_seven = kit.mutant(
        source, name, "double", "exits", "SCALE = 2\n\n\ndef double(x):\n    return x * SCALE",
        "SCALE = 3\n\n\ndef double(x):\n    if x == 7:\n        import os\n        os._exit(3)\n    return x * SCALE")
    matrix = build_kill_matrix([kit.sound(seven), kit.sound(even)], [dies_on_seven], run, source, jobs=1,
                               max_examples=20)
    assert "outside the body of double" in matrix.fresh_process[dies_on_seven.id]
    assert outcomes(matrix) == {("seven", "exits"): "crash", ("even", "exits"): "assertion"}
    assert "exit code 3" in next(r.detail for r in matrix.results if "::seven" in r.candidate_id)


def test_a_timeout_that_does_not_repeat_is_not_a_kill(kit, pkg, tmp_path):
    source, name = pkg
    run = tmp_path / "run"
    even = kit.rendered(run, name, "double", "even", "assert double(x) % 2 == 0")
    # 0.07 CPU s a call, 10 examples: 0.7 s, over the 0.5 s budget while still moving through its examples (near
    # the budget's edge, not a hang), inside the rerun's 1.0 s.
    once = kit.mutant(source, name, "double", "once", "return x * SCALE",
                      "import time\n    start = time.process_time()\n    while time.process_time() - start < 0.07:\n"
                      "        pass\n    return x * SCALE")
    matrix = build_kill_matrix([kit.sound(even, 0.01)], [once], run, source, jobs=1, max_examples=10,
                               budget_floor=0.5)
    assert outcomes(matrix) == {("even", "once"): "survived"}, matrix.results
    # Twice over the budget is a kill.
    always = kit.mutant(source, name, "double", "always", "return x * SCALE",
                        "import time\n    start = time.process_time()\n    while time.process_time() - start < 1:\n"
                        "        pass\n    return x * SCALE")
    matrix = build_kill_matrix([kit.sound(even, 0.01)], [always], run, source, jobs=1, max_examples=10,
                               budget_floor=0.5)
    assert outcomes(matrix) == {("even", "always"): "timeout"}


def test_hypothesis_draws_no_constants_from_whatever_modules_a_worker_imported(tmp_path, monkeypatch):
    from hypothesis.internal.conjecture import providers

    from drafter.onerun import pin_hypothesis_constants

    local = tmp_path / "local_consts_mod.py"
    local.write_text("MAGIC = 'a-constant-only-this-module-has'\nNUMBER = 918273\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(providers, "_get_local_constants", providers._get_local_constants)
    pin_hypothesis_constants()
    __import__("local_consts_mod")
    pool = providers._get_local_constants()
    assert "a-constant-only-this-module-has" not in pool.strings and 918273 not in pool.integers
    assert len(pool) == 0


def test_a_pair_whose_changed_lines_the_clean_runs_never_ran_is_not_reached_and_running_it_would_not_kill(
        kit, pkg, tmp_path):
    from dataclasses import replace

    from drafter.extract import extract
    from drafter.soundness import check_soundness
    from sabotage.mutants import mutants_for

    source, name = pkg
    run = tmp_path / "run"
    positive = kit.rendered(run, name, "absolute", "positive", "assert absolute(x) == x", given="x=st.integers(0, 1000)")
    signed = kit.rendered(run, name, "absolute", "signed", "assert absolute(x) == abs(x)")
    checks = check_soundness([positive, signed], run, source, seeds=2, max_examples=30, jobs=1)
    assert [c.status for c in checks] == ["sound", "sound"]
    negative_branch = (source / name / "core.py").read_text().splitlines().index("        return -x") + 1
    assert negative_branch not in checks[0].lines and negative_branch in checks[1].lines
    target = next(t for t in extract(source, (), ()).targets if t.qualname == "absolute")
    mutants = list(mutants_for(target, source).mutants)
    sound = list(zip([positive, signed], checks))
    matrix = build_kill_matrix(sound, mutants, run, source, jobs=1, max_examples=30)
    skipped = {r.mutant_id for r in matrix.results if r.outcome == "not_reached"}
    assert skipped and all("::positive" in r.candidate_id for r in matrix.results if r.outcome == "not_reached")
    assert all(negative_branch in next(m for m in mutants if m.id == i).reach for i in skipped)
    assert f"line(s) {negative_branch} " in next(r.detail for r in matrix.results if r.outcome == "not_reached")
    # The same pairs run for real (lines unknown): each one the matrix skipped survives, while `signed` kills.
    unknown = [(item, replace(clean, lines=None)) for item, clean in sound]
    full = {(r.candidate_id, r.mutant_id): r.outcome for r in build_kill_matrix(unknown, mutants, run, source, jobs=1,
                                                                                  max_examples=30).results}
    assert {full[(positive.candidate_id, m)] for m in skipped} == {"survived"}
    assert any(full[(signed.candidate_id, m)] == "assertion" for m in skipped)


def test_replaying_recorded_inputs_gives_the_matrix_a_hypothesis_run_gives_and_is_refused_where_it_would_not(
        kit, pkg, tmp_path):
    from drafter.soundness import check_soundness

    source, name = pkg
    run = tmp_path / "run"
    rendered = [
        kit.rendered(run, name, "absolute", "signed", "assert absolute(x) == abs(x)"),
        # The body changes its input in place: each pair must still start from the drawn value.
        kit.rendered(run, name, "double", "in_place", "xs.append(1)\nassert double(sum(xs)) == 2 * sum(xs)",
                     given="xs=st.lists(st.integers(-5, 5), max_size=4)"),
        kit.rendered(run, name, "double", "random_aware", "import random\nassert double(x + random.randint(0, 3)) % 2 == 0"),
        # Drawing calls code under test: under a mutant the drawn values differ, so it must not replay.
        kit.rendered(run, name, "double", "drawn_by_target", "assert double(x) == 2 * x",
                     given="x=st.integers(-9, 9).map(absolute)"),
        kit.rendered(run, name, "absolute", "assumes", "assume(x % 3 == 0)\nassert absolute(x) >= 0"),
        kit.rendered(run, name, "absolute", "notes", "note(str(x))\nassert absolute(x) >= 0",
                     imports="from hypothesis import note"),
    ]
    checks = check_soundness(rendered, run, source, seeds=2, max_examples=30, jobs=1)
    assert [c.status for c in checks] == ["sound"] * 6
    recorded = {r.test_name: bool(c.examples) for r, c in zip(rendered, checks)}
    assert recorded == {"test_signed": True, "test_in_place": True, "test_random_aware": True,
                        "test_drawn_by_target": False, "test_assumes": False, "test_notes": True}
    mutants = [
        kit.mutant(source, name, "absolute", "flip", "if x < 0:", "if x > 0:"),
        kit.mutant(source, name, "absolute", "ret", "        return -x", "        return x"),
        kit.mutant(source, name, "absolute", "big", "if x < 0:", "if x < -500:"),
        kit.mutant(source, name, "double", "plus", "return x * SCALE", "return x + SCALE"),
        kit.mutant(source, name, "double", "odd_scale", "return x * SCALE", "return x * SCALE + (x == 7)"),
    ]

    def strip(matrix):
        return [(r.candidate_id, r.mutant_id, r.outcome) for r in matrix.results]

    items = list(zip(rendered, checks))
    replayed = build_kill_matrix(items, mutants, run, source, jobs=1, max_examples=30)
    drawn = build_kill_matrix(items, mutants, run, source, jobs=1, max_examples=30, replayed=False)
    assert strip(replayed) == strip(drawn)
    assert {"assertion", "survived"} <= {r.outcome for r in replayed.results}
    assert ("signed", "big") in {k for k, v in outcomes(replayed).items() if v == "assertion"}  # only x < -500 kills


def test_a_mutant_that_hangs_costs_the_full_budget_once_and_a_tight_one_for_the_other_candidates(kit, pkg, tmp_path):
    source, name = pkg
    run = tmp_path / "run"
    labels = ("one", "two", "three")
    items = [kit.sound(kit.rendered(run, name, "double", label, "assert double(x) % 2 == 0"), 0.01) for label in labels]
    mutants = [kit.mutant(source, name, "double", "loops", "return x * SCALE", "while True:\n        pass"),
               kit.mutant(source, name, "double", "plus", "return x * SCALE", "return x + SCALE")]

    def strip(matrix):
        return [(r.candidate_id, r.mutant_id, r.outcome, r.detail) for r in matrix.results]

    one = build_kill_matrix(items, mutants, run, source, jobs=1, max_examples=20, budget_floor=1.0)
    two = build_kill_matrix(items, mutants, run, source, jobs=2, max_examples=20, budget_floor=1.0)
    assert strip(one) == strip(two)
    got = outcomes(one)
    assert {got[(label, "loops")] for label in labels} == {"timeout"}
    looping = {r.candidate_id.split("::")[1]: r for r in one.results if r.mutant_id.endswith("#loops")}
    # One candidate met it with its full budget (1 s), its run cut once the looping example had used 0.55 s of
    # it, and confirmed the hang with the tight one (0.1 s, cut at 0.055 s); the others met it with the tight
    # budget only, once each.
    first = [label for label, r in looping.items() if "hung" not in r.detail]
    assert len(first) == 1 and "timed out twice" in looping[first[0]].detail
    for label in set(labels) - set(first):
        assert f"hung, as it did twice for {items[labels.index(first[0])][0].candidate_id}:" in looping[label].detail
        assert looping[label].seconds < 0.6
    # CPU in runs over budget: 0.55 + 3 x 0.055 s (the whole budget before the cut: 1 + 3 x 0.1 s; a rerun at
    # twice the budget for each would be 9 s).
    assert 0.55 <= one.timeout_seconds < 1.0
    # The hang decides nothing; the assertion kills beside it keep every candidate.
    for item, _ in items:
        verdict = decide([r for r in one.results if r.candidate_id == item.candidate_id])
        assert verdict.accepted and verdict.stage == "kept", verdict
