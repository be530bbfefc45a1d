"""Soundness classification and the pinned Hypothesis run settings."""

from __future__ import annotations

import pytest

from drafter.onerun import RunSpec, configure, load_test, run_test
from drafter.soundness import check_soundness


def test_each_status_is_told_apart(kit, pkg, tmp_path):
    source, name = pkg
    run = tmp_path / "run"
    before = kit.tree_hash(source)
    items = [
        kit.rendered(run, name, "double", "even", "assert double(x) % 2 == 0"),
        kit.rendered(run, name, "double", "small", "assert double(x) < 100"),
        kit.rendered(run, name, "double", "undefined", "assert nope(x)"),
        kit.rendered(run, name, "double", "bad_strategy", "assert double(x) == 2 * x",
                 given="x=st.integers(min_value=5, max_value=1)"),
        kit.rendered(run, name, "double", "never", "assume(False)\nassert double(x)"),
        # Fails on the third run in this process whatever the seed: seeds disagree.
        kit.rendered(run, name, "double", "counter", "pass", imports="RUNS = []\n"),
        kit.rendered(run, name, "double", "slow", "while True:\n    pass"),
        # Asleep: no CPU used, ended by the wall-clock backstop (10 x the budget + 5 s), a timeout too.
        kit.rendered(run, name, "double", "asleep", "import time\ntime.sleep(600)"),
        # Code that turns the interruption into an error of its own (as Hypothesis does when the budget
        # interrupts it while it records a test case) is still over the budget, not a failure.
        kit.rendered(run, name, "double", "wraps_interrupt",
                     "if not NAPS:\n    NAPS.append(x)\n    try:\n        while True:\n            pass\n"
                     "    except BaseException as exc:\n        raise ValueError('wrapped') from exc",
                     imports="NAPS = []\n"),
    ]
    counter = run / items[5].path
    counter.write_text(counter.read_text().replace(
        "    pass\n", "    RUNS.append(x)\n    assert len({id(RUNS)}) and len(RUNS) < 120\n"))
    results = check_soundness(items, run, source, seeds=5, max_examples=50, jobs=2, budget_seconds=1.0)
    status = {r.candidate_id.split("::")[1]: r for r in results}
    assert [r.candidate_id for r in results] == [i.candidate_id for i in items]
    assert status["even"].status == "sound" and status["even"].seconds > 0
    assert status["small"].status == "unsound"
    assert "AssertionError" in status["small"].detail
    assert status["small"].counterexample == "Failing test case: test_small(\n    x=50,\n)"  # shrunk to the edge
    assert status["undefined"].status == "error" and "nope" in status["undefined"].detail
    assert status["bad_strategy"].status == "error" and "InvalidArgument" in status["bad_strategy"].detail
    assert status["never"].status == "error"
    assert status["counter"].status == "flaky", status["counter"]
    assert "seeds disagree" in status["counter"].detail
    assert status["slow"].status == "timeout" and "CPU" in status["slow"].detail
    assert status["asleep"].status == "timeout"
    assert status["wraps_interrupt"].status == "timeout", status["wraps_interrupt"]
    assert kit.tree_hash(source) == before
    assert not list(source.rglob("__pycache__"))


def test_soundness_is_deterministic_across_job_counts(kit, pkg, tmp_path):
    source, name = pkg
    run = tmp_path / "run"
    items = [kit.rendered(run, name, "absolute", "non_negative", "assert absolute(x) >= 0"),
             kit.rendered(run, name, "absolute", "identity", "assert absolute(x) == x"),
             kit.rendered(run, name, "absolute", "undefined", "assert nope(x)"),
             kit.rendered(run, name, "double", "even", "assert double(x) % 2 == 0")]
    finished: dict[int, list[int]] = {1: [], 2: []}

    def strip(results):  # all but the CPU seconds
        return [(r.candidate_id, r.status, r.detail, r.counterexample, r.lines, r.traced_examples, r.examples)
                for r in results]

    one = strip(check_soundness(items, run, source, seeds=3, max_examples=30, jobs=1,
                                on_result=lambda index, _r: finished[1].append(index)))
    two = strip(check_soundness(items, run, source, seeds=3, max_examples=30, jobs=2,
                                on_result=lambda index, _r: finished[2].append(index)))
    assert one == two
    assert [r[1] for r in one] == ["sound", "unsound", "error", "sound"]
    assert one[1][3] == "Failing test case: test_identity(\n    x=-1,\n)"
    assert one[0][4] and one[0][6]  # the seed-0 run's lines and inputs, for the kill matrix
    assert sorted(finished[1]) == sorted(finished[2]) == [0, 1, 2, 3]  # each verdict told once


def test_settings_override_fixes_seed_budget_and_stops_at_first_failure(kit, tmp_path):
    path = kit.write(tmp_path / "t.py", """
        from hypothesis import given, settings, strategies as st
        CALLS = []

        @settings(max_examples=500, deadline=None)
        @given(x=st.integers(0, 10**6))
        def test_fails_often(x):
            CALLS.append(x)
            assert x < 1000

        @settings(max_examples=500, deadline=None)
        @given(x=st.integers())
        def test_passes(x):
            CALLS.append(x)
    """)
    elsewhere = tmp_path / "source"  # the test file is not target code
    elsewhere.mkdir()
    calls = load_test(path, "test_passes").hypothesis.inner_test.__globals__["CALLS"]
    passing = run_test(load_test(path, "test_passes"), RunSpec(str(path), "test_passes", 0, 20, False, 10), elsewhere)
    assert passing.status == "passed" and len(calls) == 20  # max_examples overridden (file says 500)

    def failing_run(seed: int, shrink: bool):
        calls.clear()
        out = run_test(load_test(path, "test_fails_often"), RunSpec(str(path), "x", seed, 100, shrink, 10), elsewhere)
        return out, list(calls)

    first, first_calls = failing_run(3, shrink=False)
    again, again_calls = failing_run(3, shrink=False)
    assert first.status == "failed" and not first.in_source
    assert first_calls == again_calls  # the seed fixes the examples
    # Without shrinking: generation stops at the first failing example, which is then replayed once.
    assert first_calls[-1] == first_calls[-2] and all(x < 1000 for x in first_calls[:-2])
    shrunk, shrunk_calls = failing_run(3, shrink=True)
    assert "x=1000" in shrunk.counterexample and len(shrunk_calls) > len(first_calls)
    test = configure(load_test(path, "test_passes"), seed=1, max_examples=7, shrink=False)
    assert test.hypothesis.inner_test is not None  # still an ordinary Hypothesis test


def test_a_test_file_that_does_not_import_is_an_error_beside_a_sound_one(kit, pkg, tmp_path):
    source, name = pkg
    run = tmp_path / "run"
    good = kit.rendered(run, name, "double", "even", "assert double(x) % 2 == 0")
    bad = kit.rendered(run, name, "double", "missing", "assert double(x) % 2 == 0", imports="from nowhere import thing")
    results = check_soundness([bad, good], run, source, seeds=2, max_examples=10, jobs=1)
    assert [r.status for r in results] == ["error", "sound"]
    assert "nowhere" in results[0].detail


@pytest.mark.parametrize("jobs", [1])
def test_empty_input_gives_empty_output(pkg, tmp_path, jobs):
    source, _ = pkg
    assert check_soundness([], tmp_path, source, jobs=jobs) == []


def test_drawing_inputs_that_raises_is_an_error_while_the_same_raise_in_the_body_is_unsound(kit, pkg, tmp_path):
    source, name = pkg
    run = tmp_path / "run"
    items = [
        kit.rendered(run, name, "Counter.bump", "bad_builds", "assert c.bump(1).value == c.value + 1",
                     given="c=st.builds(Counter, wrong_field=st.integers())"),
        kit.rendered(run, name, "Counter.bump", "bad_map", "assert x >= 0",
                     given="x=st.integers(0, 9).map(lambda v: Counter(wrong_field=v))"),
        kit.rendered(run, name, "Counter.bump", "good_builds", "assert c.bump(1).value == c.value + 1",
                     given="c=st.builds(Counter, start=st.integers())"),
        kit.rendered(run, name, "Counter.bump", "bad_call_in_body", "assert Counter(wrong_field=x).bump(1)"),
    ]
    results = {r.candidate_id.split("::")[1]: r for r in check_soundness(items, run, source, seeds=5,
                                                                          max_examples=20, jobs=2)}
    for bad in ("bad_builds", "bad_map"):
        assert results[bad].status == "error", results[bad]
        assert "before the test body ran" in results[bad].detail and "wrong_field" in results[bad].detail
        assert "while generating" in results[bad].detail
    assert results["good_builds"].status == "sound"
    # The same TypeError raised by the property itself is a failing property, with its counterexample.
    assert results["bad_call_in_body"].status == "unsound"
    assert "x=0" in results["bad_call_in_body"].counterexample


def test_hypothesis_flaky_and_state_dependent_results_are_flaky_not_sound(kit, pkg, tmp_path):
    source, name = pkg
    run = tmp_path / "run"
    items = [
        # Fails on every odd call: Hypothesis's replay of the failing example passes, so it raises Flaky.
        kit.rendered(run, name, "double", "alternates", "CALLS.append(x)\nassert len(CALLS) % 2 == 0",
                     imports="CALLS = []\n"),
        # Depends on state left by earlier runs, not on its input: the first seed passes, later seeds fail.
        kit.rendered(run, name, "double", "stateful", "SEEN.append(x)\nassert len(SEEN) < 50",
                     imports="SEEN = []\n"),
        kit.rendered(run, name, "double", "even", "assert double(x) % 2 == 0"),
    ]
    results = check_soundness(items, run, source, seeds=5, max_examples=40, jobs=2)
    assert [r.status for r in results] == ["flaky", "flaky", "sound"], results
    assert "FlakyFailure" in results[0].detail or "Flaky" in results[0].detail
    assert "seed 0: passed" in results[1].detail and "seed 4: failed" in results[1].detail


def test_body_time_is_the_time_inside_bodies_and_the_recorded_lines_are_the_traced_functions(kit, tmp_path):
    source = tmp_path / "source"
    kit.write(source / "timed_mod.py", """
        import time


        def nap(x):
            if x < 0:
                return -1
            start = time.process_time()
            while time.process_time() - start < 0.002:
                pass
            return x
    """)
    path = kit.write(tmp_path / "t.py", """
        from hypothesis import given, settings, strategies as st
        from timed_mod import nap

        @settings(max_examples=500, deadline=None)
        @given(x=st.integers(0, 10**6))
        def test_naps(x):
            assert nap(x) == x
    """)
    import sys
    sys.path.insert(0, str(source))
    try:
        spec = RunSpec(str(path), "test_naps", 0, 20, False, 30, trace="timed_mod:nap", time_body=True)
        out = run_test(load_test(path, "test_naps"), spec, source)
        plain = run_test(load_test(path, "test_naps"), RunSpec(str(path), "test_naps", 0, 20, False, 30), source)
    finally:
        sys.path.remove(str(source))
        sys.modules.pop("timed_mod", None)
    assert out.status == "passed" and 20 * 0.002 <= out.body_seconds <= out.seconds
    assert out.lines == (6, 8, 9, 10, 11)  # never line 7: no negative x is drawn
    assert plain.lines is None and plain.body_seconds == -1.0
    assert load_test(path, "test_naps").hypothesis.inner_test.__name__ == "test_naps"  # the wrapper is gone again


def test_a_candidate_goes_through_all_its_phases_while_a_slower_ones_seed_0_still_runs(kit, pkg, tmp_path):
    """No phase waits for every candidate: `waits` cannot finish its seed 0 before the two others have finished
    their whole check (all seeds, and the shrink of the unsound one), since the parent lets it go only then."""
    source, name = pkg
    run = tmp_path / "run"
    released = run / "released"
    waits = kit.rendered(run, name, "double", "waits",
                         f"while not os.path.exists({str(released)!r}):\n    time.sleep(0.01)\nassert double(x) % 2 == 0",
                         imports="import os\nimport time\n")
    items = [waits, kit.rendered(run, name, "double", "even", "assert double(x) % 2 == 0"),
             kit.rendered(run, name, "double", "small", "assert double(x) < 100")]
    heard: list[tuple[str, str]] = []

    def on_result(index: int, result) -> None:
        heard.append((items[index].test_name, result.status))
        if len(heard) == 2:
            released.write_text("")

    results = check_soundness(items, run, source, seeds=3, max_examples=10, jobs=2, budget_seconds=5.0,
                              on_result=on_result)
    assert sorted(heard[:2]) == [("test_even", "sound"), ("test_small", "unsound")]
    assert heard[2] == ("test_waits", "sound")  # released, not ended by a budget
    assert [r.status for r in results] == ["sound", "sound", "unsound"]  # input order, whatever the finishing order
    assert results[2].counterexample == "Failing test case: test_small(\n    x=50,\n)"  # its shrink ran


def test_the_pool_never_waits_on_no_worker_once_the_work_is_done(kit, pkg, tmp_path, monkeypatch):
    """A stream's last follow-up once looped into select() on no worker, a second of idle wall clock per pool.run
    call (the kill matrix makes many: 3 s -> 21 s of wall on smartypants). Counted, not timed."""
    import select as select_module

    import drafter.execute as execute

    idle_waits = []
    real_select = select_module.select

    def watched(readers, writers, errors, timeout=None):
        if not readers:
            idle_waits.append(timeout)
        return real_select(readers, writers, errors, timeout)

    monkeypatch.setattr(execute.select, "select", watched)
    source, name = pkg
    run = tmp_path / "run"
    items = [kit.rendered(run, name, "double", "even", "assert double(x) % 2 == 0"),
             kit.rendered(run, name, "double", "small", "assert double(x) < 100")]
    results = check_soundness(items, run, source, seeds=2, max_examples=20, jobs=2)
    assert [r.status for r in results] == ["sound", "unsound"]
    assert idle_waits == []
