"""A candidate stuck in C code, where the soft timer's signal handler never runs, costs its own budget: the
worker kills its child once the child's CPU clock passes the budget, the candidate ends as `timeout`, and the candidates beside it keep their verdicts."""

from __future__ import annotations

import resource

from drafter.soundness import check_soundness

STUCK = {
    # The regex engine checks for signals now and then: the soft timer ends it.
    "catastrophic_regex": "import re\nre.match('(a*)*b', 'a' * 40)\nassert double(x) == 2 * x",
    # pbkdf2_hmac runs about 500 s without returning to Python: only the hard kill ends it.
    "pbkdf2_in_c": "import hashlib\nhashlib.pbkdf2_hmac('sha256', b'x', b'y', 10**9)\nassert double(x) == 2 * x",
}


def test_a_candidate_stuck_in_c_times_out_and_the_others_keep_their_verdicts(kit, pkg, tmp_path):
    source, name = pkg
    run = tmp_path / "run"
    items = [kit.rendered(run, name, "double", "good", "assert double(x) == 2 * x"),
             kit.rendered(run, name, "double", "wrong", "assert double(x) == 3 * x")]
    items += [kit.rendered(run, name, "double", stuck, body) for stuck, body in STUCK.items()]

    cpu_before = _children_cpu()
    results = {r.candidate_id.split("::")[1]: r for r in
               check_soundness(items, run, source, seeds=2, max_examples=10, jobs=2, budget_seconds=2.0)}
    spent = _children_cpu() - cpu_before

    assert results["good"].status == "sound"
    assert results["wrong"].status == "unsound"
    for stuck in STUCK:
        assert results[stuck].status == "timeout", (stuck, results[stuck])
    assert "ended by its CPU limit" in results["pbkdf2_in_c"].detail  # the worker's hard kill, not the soft timer
    # CPU seconds, not wall: the 500 s loop cost its budget plus the grace, whatever the machine's load.
    assert spent < 30, spent


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime
