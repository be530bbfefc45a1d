"""What a CI log shows: tables one line per target with whole ids, counts named as they are, cache use in one line
at the start, and an estimate of the time left in progress lines."""

import dataclasses
import io
import json

from rich.console import Console

from drafter.cli import PlainReporter
from drafter.report.entries import TargetEntry
from drafter.report.terminal import print_run_summary, targets_line


def test_the_run_table_in_a_log_has_one_line_per_target_with_its_whole_id(billing_run):
    long_id = "pkg.with.a.rather.long.module.path.inside.a.real.project:SomeClass.a_method_with_a_long_descriptive_name"
    report = dataclasses.replace(billing_run.report, targets=billing_run.report.targets + (
        TargetEntry(long_id, "f" * 16, "pkg/x.py", 1, 0, 0, 0, 0, note="the model proposed no candidate"),))
    out = io.StringIO()
    print_run_summary(Console(file=out, width=80, force_terminal=False), report, [])
    lines = out.getvalue().splitlines()
    for target in report.targets:
        [row] = [line for line in lines if f" {target.id} " in line]  # exactly one line, the id whole on it
        assert row.startswith("│") and row.rstrip().endswith("│")
    assert max(len(line) for line in lines if long_id in line) > 80  # wider than the terminal default, not wrapped
    kept, none = sum(1 for t in report.targets if t.kept), len(report.summary["targets_without_candidates"])
    assert f"have a candidate that passed lint; {none} have none; {kept} have a kept candidate." in out.getvalue()
    assert all(len(line) > 80 for line in lines if line.startswith(f"{report.summary['kept']} kept"))  # one line


def test_counts_are_named_as_they_are():
    assert targets_line(38, {f"t{i}": "no candidate" for i in range(31)}, 0) == (
        "7 of 38 targets have a candidate that passed lint; 31 have none; 0 have a kept candidate.")


def test_progress_lines_estimate_the_time_left_once_there_is_a_pace():
    out = io.StringIO()
    reporter = PlainReporter(out=out, interval=0)
    reporter.stage("sabotage", total=4)
    reporter.advance(1)  # the first item carries the stage's start-up: no pace from it alone
    reporter.advance(1)
    reporter.advance(2)
    reporter.close()
    start, first, second, *rest = out.getvalue().splitlines()
    assert start.startswith("[drafter] sabotage: 0/4 done") and "left" not in start
    assert first.startswith("[drafter] sabotage: 1/4 done") and "left" not in first
    assert second.startswith("[drafter] sabotage: 2/4 done") and "s left in sabotage" in second
    assert all("left" not in line for line in rest) and rest[-1].startswith("[drafter] sabotage: 4/4 done")


def test_cache_use_is_one_line_at_the_start_not_a_warning(tmp_path):
    from typer.testing import CliRunner

    from drafter.cli import app

    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "pkg" / "__init__.py").write_text("")
    (tmp_path / "src" / "pkg" / "calc.py").write_text('def one(x: int) -> int:\n    """x."""\n    return x\n')
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps({"pkg.calc:one": {"candidates": []}}))
    args = ["draft", str(tmp_path / "src"), "--model", f"replay:{replies}", "--workspace", str(tmp_path / "ws")]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0].startswith(f"cache: on, {tmp_path / 'ws' / 'cache'} (0 stored replies")
    off = CliRunner().invoke(app, args + ["--no-cache"])
    assert off.output.splitlines()[0].startswith("cache: off (--no-cache)")
    assert "warning: reply cache" not in result.output + off.output


def test_progress_lines_in_a_log_come_at_most_every_ten_seconds_and_carry_the_stage_note():
    now = [100.0]
    out = io.StringIO()
    reporter = PlainReporter(out=out, clock=lambda: now[0])
    reporter.stage("soundness", total=394)
    for at, unsound in [(101, 0), (105, 1), (109.9, 1), (110.5, 2), (111, 3), (119, 3), (121, 3)]:
        now[0] = at
        reporter.advance(note=f"{unsound} unsound")
    lines = out.getvalue().splitlines()
    assert [line.split(", about")[0] for line in lines] == [
        "[drafter] soundness: 0/394 done, 0s elapsed",
        "[drafter] soundness: 4/394 done, 2 unsound, 10s elapsed",  # 10.5 s after the last line
        "[drafter] soundness: 7/394 done, 3 unsound, 21s elapsed",  # the advances between were held back
    ]
    assert "s left in soundness" in lines[-1]
    reporter.stage("mutants")  # closes soundness with its last count; the note is the stage's own
    *_, closing, started = out.getvalue().splitlines()
    assert closing.startswith("[drafter] soundness: 7/394 done, 3 unsound, 21s elapsed")
    assert started == "[drafter] mutants: 0 done, 21s elapsed"
