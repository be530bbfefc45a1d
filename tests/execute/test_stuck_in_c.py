"""A candidate stuck in C code, where the soft timer's signal handler never runs, costs its own budget: the
pool kills its worker, the candidate ends as `timeout`, and the candidates beside it keep their verdicts."""

from __future__ import annotations

import time

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

    started = time.monotonic()
    results = {r.candidate_id.split("::")[1]: r for r in
               check_soundness(items, run, source, seeds=2, max_examples=10, jobs=2, budget_seconds=2.0)}
    elapsed = time.monotonic() - started

    assert results["good"].status == "sound"
    assert results["wrong"].status == "unsound"
    for stuck in STUCK:
        assert results[stuck].status == "timeout", (stuck, results[stuck])
    assert "killed after 2.0s" in results["pbkdf2_in_c"].detail  # the parent's hard kill, not the soft timer
    assert elapsed < 20, elapsed
