"""Verdicts do not depend on machine load (issue 18): the same small run alone and beside a CPU hog (one busy
process per core) gives the same soundness verdicts and the same kill matrix, timings aside."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import asdict

import pytest

from drafter.killmatrix import build_kill_matrix
from drafter.soundness import check_soundness


def _verdicts(kit, pkg, run):
    source, name = pkg
    items = [kit.rendered(run, name, "double", "even", "assert double(x) % 2 == 0"),
             kit.rendered(run, name, "double", "small", "assert double(x) < 100"),
             # Some real work per example: wall-clock budgets timed this kind out under load.
             kit.rendered(run, name, "double", "busy", "assert sum(double(v) for v in range(2000)) % 2 == 0"),
             kit.rendered(run, name, "absolute", "non_negative", "assert absolute(x) >= 0")]
    checks = check_soundness(items, run, source, seeds=3, max_examples=30, jobs=2, budget_seconds=30.0)
    mutants = [kit.mutant(source, name, "double", "plus", "return x * SCALE", "return x + SCALE"),
               kit.mutant(source, name, "absolute", "neg", "return -x", "return x")]
    sound = [(item, check) for item, check in zip(items, checks) if check.status == "sound"]
    matrix = build_kill_matrix(sound, mutants, run, source, jobs=2, max_examples=30)
    untimed = lambda record: {k: v for k, v in asdict(record).items() if "seconds" not in k}  # noqa: E731
    return [untimed(c) for c in checks], [untimed(r) for r in matrix.results], matrix.invalid


@pytest.mark.slow
def test_the_same_run_beside_a_cpu_hog_gives_the_same_verdicts(kit, pkg, tmp_path):
    alone = _verdicts(kit, pkg, tmp_path / "alone")
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2 * (os.cpu_count() or 1))]
    try:
        loaded = _verdicts(kit, pkg, tmp_path / "loaded")
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    strip = lambda run: str(run).replace("/loaded/", "/alone/")  # noqa: E731
    assert strip(loaded) == strip(alone)
    statuses = [c["status"] for c in alone[0]]
    assert statuses == ["sound", "unsound", "sound", "sound"]
    assert {r["outcome"] for r in alone[1]} >= {"assertion"}
