"""The bundled replay file: every candidate gets the parse/lint verdict replies.expected.json says."""

import json

import libcst as cst
import pytest

from drafter.candidates import parse_reply
from drafter.data import STAGES, Reply
from drafter.lint import REASONS, lint
from drafter.render import render

FRONT = ("parse", "lint")


@pytest.fixture(scope="module")
def replay(shop_dir, shop_extraction):
    replies = json.loads((shop_dir / "replies.json").read_text())
    expected = json.loads((shop_dir / "replies.expected.json").read_text())
    expected = {k: v for k, v in expected.items() if not k.startswith("#")}  # "#notes" say why a row changed
    drafted = {}
    for target_id, reply in replies.items():
        target = shop_extraction.target(target_id)
        text = reply if isinstance(reply, str) else json.dumps(reply)
        for d in lint(parse_reply(Reply(target_id, text), target), target, shop_extraction):
            drafted[d.id] = d
    return replies, expected, drafted


def test_replay_covers_every_target(replay, shop_extraction):
    replies, _, _ = replay
    assert set(replies) == {t.id for t in shop_extraction.targets}
    assert any(isinstance(r, str) for r in replies.values()) and any(isinstance(r, dict) for r in replies.values())


def test_every_candidate_has_an_expected_row_and_back(replay):
    _, expected, drafted = replay
    assert set(drafted) == set(expected)
    assert all(stage in STAGES for stage, _ in expected.values())


def test_front_half_verdicts_match_expected(replay):
    _, expected, drafted = replay
    for candidate_id, (stage, reason) in expected.items():
        verdict = drafted[candidate_id].verdict
        if stage in FRONT:
            assert (verdict.stage, verdict.accepted, verdict.reason) == (stage, False, reason), (candidate_id, verdict)
        else:
            assert (verdict.stage, verdict.accepted) == ("lint", True), (candidate_id, verdict)


def test_replay_exercises_every_reason(replay):
    _, expected, _ = replay
    reasons = {tuple(row) for row in expected.values()}
    assert {("lint", r) for r in REASONS} <= reasons
    assert {("parse", "bad_json"), ("parse", "bad_schema")} <= reasons
    assert {("sound", "unsound"), ("sound", "error"), ("sabotage", "survives_sabotage"),
            ("sabotage", "only_crash_kills"), ("kept", None)} <= reasons


def test_every_accepted_replay_candidate_renders(replay, shop_extraction):
    _, _, drafted = replay
    accepted = [d for d in drafted.values() if d.verdict.accepted]
    assert len(accepted) >= 15
    for d in accepted:
        result = render(d.candidate, shop_extraction.target(d.target), shop_extraction, max_examples=10)
        cst.parse_module(result.source)
