"""Triage of surviving mutants: three planted survivors of one target, searched by the real engine (boxed workers,
the mutant switched in): one told apart only where len(text) == width (found, shrunk), one equivalent (no
difference found), one that raises another exception class (found); the feedback prompt that shows the input;
the same outcomes under --jobs 1 and 2."""

from __future__ import annotations

import ast
import difflib
import shutil
from pathlib import Path

import pytest

from drafter.data import (Candidate, Drafted, DraftOutcome, KillMatrix, KillResult, Mutant, RunOutcome, Soundness,
                          Triage, Verdict)
from drafter.extract import extract
from drafter.rounds import feedback_environment, gather_evidence, render_feedback
from sabotage.difference import same_value
from sabotage.triage import count_examples, input_sets, parse_difference, triage_survivors

PLANTED = '''\
def shorten(text: str, width: int) -> str:
    """Collapse runs of whitespace to one space; when longer than `width`, cut to `width` characters ending in
    "[...]". ValueError when width is below 5."""
    if width < 5:
        raise ValueError(f"width must be at least 5, not {width}")
    joined = " ".join(text.split())
    if len(joined) <= width:
        return joined
    return joined[: width - 5] + "[...]"
'''
TARGET = "planted:shorten"
# (name, original text, mutated text): each a survivor of the (weak) candidates below.
PLANTS = [
    ("narrow", "if len(joined) <= width:", "if len(joined) < width:"),  # differs only where len == width
    ("equivalent", "joined[: width - 5]", "joined[: max(width - 5, 0)]"),  # width >= 5 here: same slice
    ("exception", 'raise ValueError(f"width', 'raise TypeError(f"width'),  # another class, same inputs
]
CANDIDATES = [
    Candidate(TARGET, "short_text_is_kept", "invariant",
              {"text": "st.text(alphabet='ab ', max_size=30)", "width": "st.integers(min_value=0, max_value=40)"},
              "assert len(shorten(text, width=max(width, 5))) <= max(width, 5)", ""),
    Candidate(TARGET, "never_longer_than_width", "bound",
              {"text": "st.text(alphabet='ab ', max_size=30)", "width": "st.integers(min_value=5, max_value=12)"},
              "assert len(shorten(text, width)) <= width", ""),
]


def _outcome(tmp_path: Path, name: str = "run") -> RunOutcome:
    src = tmp_path / "src"
    src.mkdir(exist_ok=True)
    (src / "planted.py").write_text(PLANTED, encoding="utf-8")
    run_dir = tmp_path / name
    shutil.copytree(src, run_dir / "source")
    extraction = extract(src)
    mutants = []
    for index, (plant, before, after) in enumerate(PLANTS):
        assert PLANTED.count(before) == 1
        source = PLANTED.replace(before, after)
        diff = "".join(difflib.unified_diff(PLANTED.splitlines(True), source.splitlines(True), "a/planted.py", "b/planted.py"))
        mutants.append(Mutant(f"{TARGET}#{plant}-{index}", TARGET, plant, f"planted: {after}", diff, "planted",
                              "planted.py", source, line=1 + PLANTED[: PLANTED.index(before)].count("\n")))
    kept = Verdict("kept", True)
    drafted = tuple(Drafted(c.id, TARGET, i, {}, c, kept) for i, c in enumerate(CANDIDATES))
    draft = DraftOutcome(src, run_dir, extraction, "test", (), drafted, {}, (), {})
    return RunOutcome(draft=draft, drafted=drafted, rendered={},
                      soundness={c.id: Soundness(c.id, "sound", 0.01) for c in CANDIDATES},
                      mutants=tuple(mutants), dropped_mutants={},
                      matrix=KillMatrix(tuple(KillResult(c.id, m.id, "survived") for c in CANDIDATES for m in mutants)),
                      warnings=(), stage_seconds={}, settings={})


@pytest.fixture(scope="module")
def searched(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("triage")
    outcome = _outcome(tmp)
    return outcome, triage_survivors(outcome, per_mutant=150, per_run=10_000, jobs=1)


def test_a_survivor_told_apart_only_on_a_narrow_input_is_found_and_shrunk(searched):
    _, triage = searched
    found = triage[f"{TARGET}#narrow-0"]
    assert found.status == "distinguished", found
    assert found.difference == "result"
    # The inputs differ only where the collapsed text is exactly `width` long (the first input Hypothesis draws,
    # text '' at width 0, raises in both, so this one had to be searched for); shrunk, it is one repeated character.
    call = ast.parse(found.call, mode="eval").body
    text, width = (ast.literal_eval(k.value) for k in call.keywords)
    assert len(text) == width >= 5 and len(set(text)) == 1 and " " not in text
    assert (found.original, found.mutant) == (f"returns {text!r}", f"returns {text[: width - 5] + '[...]'!r}")


def test_an_equivalent_mutant_gets_no_difference_found_with_the_examples_tried(searched):
    _, triage = searched
    nothing = triage[f"{TARGET}#equivalent-1"]
    assert nothing.status == "no_difference_found", nothing
    assert nothing.examples_budget == 148 and 0 < nothing.examples <= 148  # 37 for each of the 4 input sets
    assert nothing.inputs.startswith("combined")


def test_a_mutant_that_raises_another_exception_class_is_found(searched):
    _, triage = searched
    found = triage[f"{TARGET}#exception-2"]
    assert found.status == "distinguished", found
    assert found.difference == "exception"
    assert found.original.startswith("raises ValueError: width must be at least 5")
    assert found.mutant.startswith("raises TypeError: width must be at least 5")


def test_the_feedback_prompt_shows_the_input_first_and_the_equivalent_last_marked(searched):
    outcome, triage = searched
    outcome = outcome.__class__(**{**outcome.__dict__, "triage": triage})
    feedback = gather_evidence(outcome, TARGET, 1)
    order = [m.id.rsplit("#", 1)[1] for m in feedback.survivors]
    assert order == ["exception-2", "narrow-0", "equivalent-1"]  # distinguished ones by line, the equivalent last
    text = render_feedback(feedback_environment(None), feedback, outcome.draft.extraction.target(TARGET), seeds=5)
    found = triage[f"{TARGET}#narrow-0"]
    assert f"Told apart on `{found.call}`: the real code {found.original}; this mutant {found.mutant}." in text
    equivalent_at = text.index(f"{TARGET}#equivalent-1 [NO DIFFERENCE FOUND")
    assert text.index(f"{TARGET}#exception-2") < text.index(f"{TARGET}#narrow-0") < equivalent_at
    assert text.index("Likely equivalent") < equivalent_at
    # Without triage the same survivors appear, unmarked and without inputs.
    bare = render_feedback(feedback_environment(None), gather_evidence(outcome.__class__(
        **{**outcome.__dict__, "triage": {}}), TARGET, 1), outcome.draft.extraction.target(TARGET), seeds=5)
    assert "Told apart" not in bare and "NO DIFFERENCE FOUND" not in bare and f"{TARGET}#equivalent-1" in bare
    # The order follows the outcomes, not the lines: with the outcomes of the first and the last line swapped,
    # the survivor of line 7 (no difference found, as if) goes last.
    swapped = {**triage, f"{TARGET}#narrow-0": Triage(f"{TARGET}#narrow-0", "no_difference_found", examples=9),
               f"{TARGET}#equivalent-1": triage[f"{TARGET}#narrow-0"]}
    feedback = gather_evidence(outcome.__class__(**{**outcome.__dict__, "triage": swapped}), TARGET, 1)
    assert [m.id.rsplit("#", 1)[1] for m in feedback.survivors] == ["exception-2", "equivalent-1", "narrow-0"]


def test_the_same_outcomes_under_one_and_two_jobs(searched, tmp_path):
    _, one_job = searched
    two_jobs = triage_survivors(_outcome(tmp_path), per_mutant=150, per_run=10_000, jobs=2)
    assert two_jobs == one_job


def test_the_run_budget_leaves_later_mutants_not_triaged_and_says_so(tmp_path):
    outcome = _outcome(tmp_path)
    triage = triage_survivors(outcome, per_mutant=40, per_run=80, jobs=1)  # room for two mutants, by id
    statuses = {m.split("#")[1]: t.status for m, t in triage.items()}
    assert statuses["narrow-0"] == "not_triaged" and "budget of 80 examples" in triage[f"{TARGET}#narrow-0"].detail
    assert statuses["equivalent-1"] != "not_triaged" and statuses["exception-2"] != "not_triaged"


def test_input_sets_combine_candidates_and_fall_back_on_the_signature(tmp_path):
    outcome = _outcome(tmp_path)
    target = outcome.draft.extraction.target(TARGET)
    sets, why = input_sets(target, CANDIDATES, outcome.draft.extraction)
    assert why == "" and [s.origin for s in sets] == ["combined", "candidate never_longer_than_width",
                                                      "candidate short_text_is_kept", "signature"]
    assert sets[0].strategies["width"].startswith("st.one_of(")
    # A candidate that does not draw `width` (required) cannot drive the search; the signature then does.
    partial = Candidate(TARGET, "text_only", "invariant", {"text": "st.text()"}, "assert True", "")
    sets, why = input_sets(target, [partial], outcome.draft.extraction)
    assert [s.origin for s in sets] == ["signature"] and set(sets[0].strategies) == {"text", "width"}


def test_same_value_treats_nan_as_equal_and_compares_plain_objects_by_attributes():
    class Box:
        def __init__(self, v):
            self.v = v

    assert same_value([float("nan"), {"a": (1.0, float("nan"))}], [float("nan"), {"a": (1.0, float("nan"))}])
    assert not same_value([float("nan")], [0.0])
    assert same_value(Box(1), Box(1)) and not same_value(Box(1), Box(2))
    assert same_value(1, 1.0)  # == decides, as the issue asks


def test_a_forged_or_broken_difference_report_is_not_believed():
    from drafter.onerun import RunOutcome as Run
    from sabotage.difference import MARK

    good = '{"call": "f(1)", "original": "returns 1", "mutant": "returns 2", "difference": "result"}'
    assert parse_difference(Run("failed", 0.1, error=f"Difference: {MARK}{good} (failing line: x)"))["call"] == "f(1)"
    assert parse_difference(Run("failed", 0.1, error=f"Difference: {MARK}{good[:-5]}")) is None  # cut short
    assert parse_difference(Run("failed", 0.1, error=f"{MARK}" + good.replace('"result"', '"anything"'))) is None
    assert parse_difference(Run("failed", 0.1, error="AssertionError: assert 1 == 2")) is None
    assert count_examples("not base64!") == -1 and count_examples("") == -1


@pytest.mark.slow
def test_a_whole_run_records_triage_on_every_survivor_and_the_reports_show_it(tmp_path):
    import json

    from drafter.config import Settings
    from drafter.pipeline import run

    src = tmp_path / "src"
    src.mkdir()
    (src / "planted.py").write_text(PLANTED, encoding="utf-8")
    weak = {k: v for k, v in CANDIDATES[1].__dict__.items() if k in ("name", "kind", "inputs", "body")}
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps({TARGET: json.dumps({"candidates": [
        {**weak, "assume": [], "counterexample": "a cut that runs past width", "rationale": ""}]})}), encoding="utf-8")
    settings = Settings(model=f"replay:{replies}", workspace=tmp_path / "ws", jobs=1, max_examples=30, seeds=1,
                        triage_examples=60)
    result = run(src, settings)
    report = json.loads((result.run_dir / "report.json").read_text(encoding="utf-8"))
    survivors = [m for m in report["mutants"] if m["status"] in ("survived", "not_reached")]
    assert survivors and all(m["triage"]["status"] in ("distinguished", "no_difference_found", "not_triaged")
                             for m in survivors)
    assert all(m["triage"] is None for m in report["mutants"] if m["status"] == "killed")
    distinguished = [m for m in survivors if m["triage"]["status"] == "distinguished"]
    assert distinguished, [m["triage"] for m in survivors]
    counts = report["summary"]["triage"]
    assert counts["distinguished"] == len(distinguished) and sum(
        counts[s] for s in ("distinguished", "no_difference_found", "not_triaged")) == len(survivors)
    target = report["targets"][0]
    told_apart = report["summary"]["mutation_score_without_no_difference"][TARGET]
    assert told_apart == round(target["killed"] / (target["mutants"] - target["no_difference_found"]), 3)
    markdown = (result.run_dir / "report.md").read_text(encoding="utf-8")
    first = distinguished[0]["triage"]
    assert f"On `{first['call']}` the original {first['original']}; the mutant {first['mutant']}" in markdown
    assert "over mutants not marked no difference found" in markdown
    html = (result.run_dir / "report.html").read_text(encoding="utf-8")
    assert "told apart on <code>" in html
