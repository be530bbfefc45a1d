"""`drafter show ID`: one candidate, mutant or target of a finished run; an unknown id is a clear error (exit 2)."""

import subprocess
import sys

from drafter.report import load_report


def _show(run_dir, item_id):
    return subprocess.run([sys.executable, "-m", "drafter.cli", "show", item_id, "--run", str(run_dir)],
                          capture_output=True, text=True)


def test_a_kept_candidate_shows_code_verdict_and_outcome_by_mutant(billing_run):
    report = load_report(billing_run.run_dir)
    kept = next(c for c in report.candidates if c.status == "kept" and c.outcomes)
    done = _show(billing_run.run_dir, kept.id)
    assert done.returncode == 0, done.stderr
    assert f"candidate {kept.id}" in done.stdout and "verdict: kept" in done.stdout
    assert f"def test_{kept.name}" in done.stdout  # its code, read from the run folder
    for mutant_id, outcome in kept.outcomes.items():
        assert any(line.split()[:2] == [outcome, mutant_id] for line in done.stdout.splitlines()), mutant_id


def test_a_rejected_candidate_shows_why_and_its_counterexample(billing_run):
    report = load_report(billing_run.run_dir)
    unsound = next(c for c in report.candidates if c.counterexample)
    done = _show(billing_run.run_dir, unsound.id)
    assert done.returncode == 0, done.stderr
    assert f"rejected at {unsound.stage}: {unsound.reason}" in done.stdout
    assert unsound.counterexample.strip().splitlines()[0] in done.stdout


def test_a_mutant_shows_diff_status_killers_and_round(billing_run):
    report = load_report(billing_run.run_dir)
    killed = next(m for m in report.mutants if m.status == "killed")
    done = _show(billing_run.run_dir, killed.id)
    assert done.returncode == 0, done.stderr
    assert "status: killed" in done.stdout and f"caught in round: {killed.caught_in_round}" in done.stdout
    assert all(k in done.stdout for k in killed.killed_by)
    assert [line for line in killed.diff.splitlines() if line.startswith("+") and not line.startswith("+++")][0] in done.stdout
    survived = next(m for m in report.mutants if m.status == "survived")
    out = _show(billing_run.run_dir, survived.id).stdout
    assert "status: survived" in out and "killed by (kept candidates): none" in out


def test_a_target_lists_its_candidates_and_mutants(billing_run):
    report = load_report(billing_run.run_dir)
    target = next(t for t in report.targets if t.kept)
    done = _show(billing_run.run_dir, target.id)
    assert done.returncode == 0, done.stderr
    assert f"mutation score: {target.killed}/{target.mutants}" in done.stdout
    own = [c.id for c in report.candidates if c.target == target.id] + [m.id for m in report.mutants if m.target == target.id]
    assert own and all(item in done.stdout for item in own)


def test_an_unknown_id_is_a_clear_error_with_the_closest_ids(billing_run):
    report = load_report(billing_run.run_dir)
    target = report.targets[0].id
    done = _show(billing_run.run_dir, target[:-1])
    assert done.returncode == 2 and done.stdout == ""
    assert f"'{target[:-1]}' is no candidate, mutant or target of run" in done.stderr and target in done.stderr
    nothing = _show(billing_run.run_dir, "zzz")
    assert nothing.returncode == 2 and "takes a candidate, mutant or target id" in nothing.stderr
