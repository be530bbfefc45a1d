"""The parts of a feedback round: short diffs, the order of survivors, the size budget, renames and duplicates
across rounds, replay by (target, round), the call budget, the `rounds` settings."""

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from drafter.config import load_settings
from drafter.data import Drafted, KillMatrix, KillResult, Prompt, Reply, TokenUsage, Verdict
from drafter.errors import ConfigError, ModelError
from drafter.extract import extract
from drafter.models import load_backend
from drafter.rounds import Budget, feedback_environment, gather_evidence, informative_order, parse_round, render_feedback, short_diff
from sabotage.mutants import mutants_for

SHOP = Path(__file__).resolve().parents[2] / "examples" / "shop"
EXTRACTION = extract(SHOP)


def _mutants(target_id: str):
    return list(mutants_for(EXTRACTION.target(target_id), SHOP).mutants)


def test_short_diff_keeps_the_change_and_one_line_around_it():
    mutant = next(m for m in _mutants("shop.billing:clamp_discount") if m.id.endswith("perturb_constant-1"))
    short = short_diff(mutant.diff)
    assert short.splitlines()[1:4] == ['     """Clamp a discount percentage into [0, ceiling]."""',
                                       "-    if percent < 0:", "+    if percent < 1:"]
    assert "--- a/" not in short and "+++ b/" not in short and short.startswith("@@")
    assert len(short.splitlines()) < len(mutant.diff.splitlines())  # the full diff has three lines of context
    assert len(short_diff(mutant.diff, limit=2).splitlines()) == 3  # two lines and the note that it was cut


def test_survivors_come_one_per_distinct_line_first():
    mutants = _mutants("shop.hunks:parse_hunk")
    lines = {m.line for m in mutants}
    assert len(mutants) > len(lines)  # several mutants share lines: the case the order is for
    order = informative_order(mutants)
    assert sorted(m.id for m in order) == sorted(m.id for m in mutants)
    assert len({m.line for m in order[: len(lines)]}) == len(lines)
    assert {m.line for m in mutants[: len(lines)]} != lines  # generation order alone would not give this


def _outcome(target_id: str, drafted=(), results=(), soundness=None):
    mutants = _mutants(target_id)
    met = results or tuple(KillResult("x::weak", m.id, "survived") for m in mutants)
    return SimpleNamespace(drafted=tuple(drafted), mutants=tuple(mutants), matrix=KillMatrix(met),
                           soundness=soundness or {}), mutants


def test_evidence_stays_within_its_size_budget_and_says_what_it_left_out():
    outcome, mutants = _outcome("shop.hunks:parse_hunk")
    roomy = gather_evidence(outcome, "shop.hunks:parse_hunk", 1)
    tight = gather_evidence(outcome, "shop.hunks:parse_hunk", 1, budget_chars=1500)
    assert roomy.survivors_total == tight.survivors_total == len(mutants)
    assert 12 == len(roomy.survivors) > len(tight.survivors) >= 1
    assert sum(len(m.diff) + len(m.description) for m in tight.survivors) <= 1500
    text = render_feedback(feedback_environment(None), tight, EXTRACTION.target("shop.hunks:parse_hunk"), seeds=5)
    assert f"({len(mutants)} on {tight.survivor_lines} distinct lines; {len(tight.survivors)} shown" in text
    assert all(m.id in text for m in tight.survivors)


def test_a_mutant_caught_by_a_kept_candidate_is_no_survivor_and_one_never_run_is_not_evaluated():
    target = "shop.billing:clamp_discount"
    mutants = _mutants(target)
    kept = Drafted(f"{target}::k", target, 0, {}, None, Verdict("kept", True))
    results = (KillResult(kept.id, mutants[0].id, "assertion"), KillResult(kept.id, mutants[1].id, "survived"))
    outcome, _ = _outcome(target, [kept], results)
    feedback = gather_evidence(outcome, target, 1)
    assert [m.id for m in feedback.survivors] == [mutants[1].id]
    assert feedback.unevaluated == len(mutants) - 2


def _drafted_from(reply_items, round_number, earlier=()):
    target = EXTRACTION.target("shop.billing:clamp_discount")
    reply = Reply(target.id, json.dumps({"candidates": reply_items}), round=round_number)
    return parse_round(reply, target, EXTRACTION, list(earlier), round_number)


ITEM = {"name": "in_range", "kind": "bound", "inputs": {"p": "st.integers(min_value=-9, max_value=9)"},
        "assume": [], "body": "assert 0 <= clamp_discount(p) <= 50", "counterexample": "escapes the range"}


def test_a_reused_name_is_renamed_and_a_repeated_candidate_is_a_duplicate():
    (first,) = _drafted_from([ITEM], 1)
    earlier = [Drafted(first.id, first.target, 0, first.raw, first.candidate, Verdict("kept", True))]
    other = {**ITEM, "body": "assert clamp_discount(p) >= 0"}
    same_body = {**ITEM, "name": "in_range_again"}
    renamed, duplicate = _drafted_from([other, same_body], 2, earlier)
    assert renamed.id.endswith("::in_range_r2") and renamed.candidate.name == "in_range_r2"
    assert renamed.verdict.accepted and renamed.round == 2
    assert (duplicate.verdict.stage, duplicate.verdict.reason) == ("lint", "duplicate")
    (broken,) = _drafted_from(["not an object"], 2, earlier)
    assert broken.id.endswith("@round2") and broken.verdict.reason == "bad_schema"


def test_replay_answers_by_target_and_round(tmp_path):
    path = tmp_path / "replies.json"
    path.write_text(json.dumps({"shop.billing:clamp_discount": "one",
                                "rounds": {"2": {"shop.billing:clamp_discount": "two"}}}))
    backend = load_backend(f"replay:{path}")
    prompts = [Prompt("shop.billing:clamp_discount", "s", "u"), Prompt("shop.billing:clamp_discount", "s", "f", round=2),
               Prompt("shop.billing:clamp_discount", "s", "g", round=3)]
    one, two, three = backend.propose(prompts, EXTRACTION)
    assert (one.text, two.text, three.text) == ("one", "two", None)
    assert three.error == f"no reply for this target in round 3 of {path}"
    assert backend.unknown_targets == ()
    path.write_text(json.dumps({"rounds": {"1b": {}}}))
    with pytest.raises(ModelError, match="\"rounds\" key '1b' must be a round number"):
        load_backend(f"replay:{path}")


def test_budget_asks_until_the_cap_and_marks_the_rest_not_asked():
    sent = []

    def propose(batch):
        sent.extend(p.target for p in batch)
        return [Reply(p.target, "{}", usage=TokenUsage(10, 5, 15), round=p.round) for p in batch]

    prompts = [Prompt(f"m:f{i}", "s", "u", round=2) for i in range(5)]
    budget = Budget(max_calls=3)
    replies = budget.ask(propose, prompts, chunk=2)
    assert sent == ["m:f0", "m:f1", "m:f2"] and [r.text for r in replies[:3]] == ["{}"] * 3
    assert [r.error for r in replies[3:]] == ["not asked: --max-calls 3 reached (3 calls made)"] * 2
    assert budget.not_asked == {("m:f3", 2), ("m:f4", 2)} and budget.tokens == 45
    tokens = Budget(max_tokens=20)
    assert [r.text for r in tokens.ask(propose, prompts, chunk=1)] == ["{}", "{}", None, None, None]
    assert Budget().ask(propose, prompts, chunk=1)[-1].text == "{}"  # no cap: everything is asked


def test_rounds_and_budgets_are_config_keys(tmp_path):
    (tmp_path / "drafter.toml").write_text("rounds = 3\nmax-calls = 40\nmax-tokens = 100000\n")
    settings = load_settings(tmp_path)
    assert (settings.rounds, settings.max_calls, settings.max_tokens) == (3, 40, 100000)
    assert load_settings(tmp_path, rounds=1).rounds == 1
    (tmp_path / "drafter.toml").write_text("rounds = 0\n")
    with pytest.raises(ConfigError, match="'rounds' has a bad value 0"):
        load_settings(tmp_path)


def test_replay_of_a_run_folder_answers_its_feedback_rounds_too(tmp_path):
    replies = tmp_path / "run" / "replies"
    (replies / "round2").mkdir(parents=True)
    (replies / "shop.billing.clamp_discount.txt").write_text("first")
    (replies / "round2" / "shop.billing.clamp_discount.txt").write_text("second")
    (replies / "round2" / "shop.billing.apply_tax.txt").write_text("# no reply: HTTP 500\n")
    backend = load_backend(f"replay:{tmp_path / 'run'}")
    one, two, failed = backend.propose([Prompt("shop.billing:clamp_discount", "s", "u"),
                                        Prompt("shop.billing:clamp_discount", "s", "f", round=2),
                                        Prompt("shop.billing:apply_tax", "s", "f", round=2)], EXTRACTION)
    assert (one.text, two.text, failed.text) == ("first", "second", None)
