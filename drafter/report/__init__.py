"""The sabotage-survival report: one RunReport, written as report.json (a contract) and report.md (for reviewers)."""

from __future__ import annotations

from pathlib import Path

from drafter.report.markdown import render_markdown
from drafter.report.model import RunReport, build_report
from drafter.runfolder import write_json, write_text


def write_reports(report: RunReport, run_dir: Path) -> tuple[Path, Path]:
    json_path, md_path = run_dir / "report.json", run_dir / "report.md"
    write_json(json_path, report)
    write_text(md_path, render_markdown(report))
    return json_path, md_path


__all__ = ["RunReport", "build_report", "write_reports"]
