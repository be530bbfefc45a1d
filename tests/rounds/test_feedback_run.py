"""Feedback rounds through a real OpenAI-compatible server on 127.0.0.1 that answers like a model would."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from drafter.cli import app

SHOP = Path(__file__).resolve().parents[2] / "examples" / "shop"
CLAMP, CURRENCY = "shop.billing:clamp_discount", "shop.billing:normalize_currency"
runner = CliRunner()

INTS = {"percent": "st.integers(min_value=-1000, max_value=1000)", "ceiling": "st.integers(min_value=0, max_value=100)"}


def candidate(name, kind, inputs, body, counterexample="a wrong clamp"):
    return {"name": name, "kind": kind, "inputs": inputs, "assume": [], "body": body,
            "counterexample": counterexample, "rationale": ""}


ROUND_1 = {
    CLAMP: [
        # Kept, but integers never tell `percent < 0` from `percent < 1`: that mutant survives round 1.
        candidate("clamped_into_zero_and_ceiling", "bound", INTS,
                  "out = clamp_discount(percent, ceiling)\nassert 0 <= out <= ceiling\n"
                  "assert out == min(max(percent, 0), ceiling)"),
        # Unsound: a negative percent is clamped to 0.
        candidate("clamp_returns_its_input", "invariant", INTS,
                  "out = clamp_discount(percent, ceiling)\nassert out == percent"),
    ],
    CURRENCY: [
        candidate("result_is_stripped_upper_case", "invariant",
                  {"code": "st.text(alphabet=string.ascii_letters + ' \\t', max_size=12)"},
                  "out = normalize_currency(code)\nassert out == out.strip()\nassert out == out.upper()\n"
                  "assert out.lower() == code.strip().lower()"),
    ],
}
ROUND_2 = {
    CLAMP: [
        # What a model writes after seeing `percent < 0` → `percent < 1` survive: fractions in (0, 1) stay as they are.
        candidate("fractions_below_one_are_kept", "invariant",
                  {"percent": "st.floats(min_value=0.01, max_value=0.99)",
                   "ceiling": "st.integers(min_value=1, max_value=100)"},
                  "assert clamp_discount(percent, ceiling) == percent", "treats fractions of a percent as zero"),
    ],
}


def _target_and_round(request: dict) -> tuple[str, int]:
    messages = request["messages"]
    target = messages[1]["content"].splitlines()[0].removeprefix("Target: ").split()[0]
    return target, (len(messages) - 2) // 2 + 1


@pytest.fixture
def model(openai_server, oa, monkeypatch):
    def answer(request: dict):
        target, number = _target_and_round(request)
        replies = ROUND_1 if number == 1 else ROUND_2
        return oa.Scripted(200, oa.completion(json.dumps({"candidates": replies.get(target, [])}), usage=(100, 40, 140)))

    openai_server.responder = answer
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    return openai_server


def _run(server, workspace: Path, *extra: str):
    return runner.invoke(app, [
        "run", str(SHOP), "--model", "openai:local-test", "--base-url", server.base_url, "--select", CLAMP,
        "--select", CURRENCY, "--workspace", str(workspace), "--jobs", "1", "--max-examples", "30", "--seeds", "2",
        "--concurrency", "1", *extra,
    ])


def test_second_round_feeds_back_survivors_and_counterexamples_and_catches_more(model, tmp_path):
    result = _run(model, tmp_path / "ws", "--rounds", "3")
    assert result.exit_code == 0, result.output
    run_dir = tmp_path / "ws" / "latest"
    report = json.loads((run_dir / "report.json").read_text())

    asked = [_target_and_round(r) for r in model.requests]
    # normalize_currency's kept candidate catches all its mutants: it is never asked again.
    assert sorted(asked) == sorted([(CLAMP, 1), (CURRENCY, 1), (CLAMP, 2), (CLAMP, 3)])
    second = next(r for r in model.requests if _target_and_round(r) == (CLAMP, 2))
    system, first_user, first_reply, feedback = second["messages"]
    assert [m["role"] for m in second["messages"]] == ["system", "user", "assistant", "user"]
    assert system["content"] == model.requests[0]["messages"][0]["content"]
    assert "clamp_returns_its_input" in first_reply["content"] and "def clamp_discount" in first_user["content"]
    content = feedback["content"]
    # the surviving mutant's diff, the unsound candidate's shrunk counterexample and its failing assertion
    assert "shop.billing:clamp_discount#perturb_constant-1" in content
    assert "-    if percent < 0:\n+    if percent < 1:" in content
    assert "clamp_returns_its_input (invariant): sound / unsound" in content
    assert "percent=1,\n" in content and "ceiling=0,\n" in content and "(failing line: assert out == percent)" in content
    assert "- clamped_into_zero_and_ceiling (bound)" in content  # kept so far: not to be repeated

    by_id = {c["id"]: c for c in report["candidates"]}
    new = by_id[f"{CLAMP}::fractions_below_one_are_kept"]
    assert (new["status"], new["round"]) == ("kept", 2)
    assert by_id[f"{CLAMP}::clamped_into_zero_and_ceiling"]["round"] == 1
    mutant = next(m for m in report["mutants"] if m["id"] == f"{CLAMP}#perturb_constant-1")
    assert (mutant["status"], mutant["caught_in_round"]) == ("killed", 2)
    assert mutant["killed_by"] == [new["id"]]

    rounds = report["summary"]["rounds"]
    assert [r["round"] for r in rounds] == [1, 2, 3]
    assert rounds[1]["newly_caught"] >= 1 and rounds[1]["kept"] == 1
    clamp_scores = [r["by_target"][CLAMP]["killed"] for r in rounds]
    assert clamp_scores[1] > clamp_scores[0]
    assert rounds[-1]["by_target"][CLAMP]["killed"] == report["targets"][[t["id"] for t in report["targets"]].index(CLAMP)]["killed"]
    assert "nothing survives" in rounds[0]["stopped"][CURRENCY]
    # round 3: the round-2 reply is replayed by the server (no candidate is new), so the run stops for CLAMP
    assert rounds[2]["candidates"] == 1 and rounds[2]["kept"] == 0
    assert by_id[f"{CLAMP}::fractions_below_one_are_kept_r3"]["reason"] == "duplicate"

    # incremental: round 2 ran only its new sound candidate against clamp's mutants; round 1's results are reused
    counted = {t["id"]: t["mutants"] for t in report["targets"]}
    pairs = report["summary"]["matrix"]["evaluations"] + report["summary"]["matrix"]["not_reached_pairs"]
    assert pairs == 2 * counted[CLAMP] + counted[CURRENCY]  # pairs decided not reached were decided, not run

    calls = json.loads((run_dir / "model_calls.json").read_text())
    assert sorted((c["target"], c["round"]) for c in calls) == sorted(asked)
    assert all(c["usage"]["total_tokens"] == 140 for c in calls)
    assert report["summary"]["tokens"]["total_tokens"] == 140 * len(asked)
    markdown = (run_dir / "report.md").read_text()
    assert "`fractions_below_one_are_kept` (invariant, round 2)" in markdown
    assert "## Rounds" in markdown and "after round 2" in markdown
    assert (run_dir / "prompts" / "round2" / "shop.billing.clamp_discount.txt").is_file()
    assert not (run_dir / "prompts" / "round2" / "shop.billing.normalize_currency.txt").exists()


@pytest.mark.parametrize("cap", [["--max-calls", "2"], ["--max-tokens", "250"]])
def test_a_budget_stops_the_run_with_a_clear_note(model, tmp_path, cap):
    result = _run(model, tmp_path / "ws", "--rounds", "2", *cap)
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "ws" / "latest" / "report.json").read_text())
    assert sorted(_target_and_round(r) for r in model.requests) == sorted([(CLAMP, 1), (CURRENCY, 1)])
    note = next(w for w in report["warnings"] if w.startswith(cap[0]))
    assert "reached" in note and f"{CLAMP} round 2" in note and "not sent" in note
    assert report["summary"]["rounds"][1]["not_asked"] == [CLAMP]
    calls = json.loads((tmp_path / "ws" / "latest" / "model_calls.json").read_text())
    assert len(calls) == 2


def test_the_heuristic_does_not_answer_feedback_rounds_and_says_so(tmp_path):
    result = runner.invoke(app, ["run", str(SHOP), "--select", CURRENCY, "--workspace", str(tmp_path / "ws"),
                                 "--jobs", "1", "--max-examples", "20", "--seeds", "1", "--rounds", "2"])
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "ws" / "latest" / "report.json").read_text())
    assert "heuristic does not answer feedback rounds: --rounds 2 ran round 1 only" in report["warnings"]
    assert [r["round"] for r in report["summary"]["rounds"]] == [1]
    assert not (tmp_path / "ws" / "latest" / "prompts" / "round2").exists()
