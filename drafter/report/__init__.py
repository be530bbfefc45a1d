"""The sabotage-survival report: one RunReport, written as report.json (a contract), report.md (for reviewers) and
report.html (everything, one self-contained file); JUnit XML and the mutation-testing-report-schema JSON (the format
of Stryker's viewer and its ecosystem) on demand (`drafter report RUN --format junit|mutation-testing`)."""

from __future__ import annotations

import json
from pathlib import Path

from drafter.data import to_jsonable
from drafter.report.html import render_html
from drafter.report.junit import render_junit
from drafter.report.markdown import render_markdown
from drafter.report.mutation_testing import render_mutation_testing
from drafter.report.entries import RunReport
from drafter.report.model import build_report, load_report
from drafter.runfolder import write_json, write_text

FORMATS = ("md", "html", "json", "junit", "mutation-testing")
FILE_NAMES = {"md": "report.md", "html": "report.html", "json": "report.json", "junit": "report.junit.xml",
              "mutation-testing": "mutation-testing.json"}


def render(report: RunReport, fmt: str, run_dir: Path | None = None) -> str:
    """One report in one format; run_dir lets the HTML show the kept files' code."""
    if fmt == "md":
        return render_markdown(report)
    if fmt == "html":
        return render_html(report, run_dir)
    if fmt == "json":
        return json.dumps(to_jsonable(report), indent=2) + "\n"
    if fmt == "junit":
        return render_junit(report)
    if fmt == "mutation-testing":
        return render_mutation_testing(report, run_dir)
    raise ValueError(f"unknown report format {fmt!r}; choose one of {', '.join(FORMATS)}")


def write_reports(report: RunReport, run_dir: Path) -> tuple[Path, Path, Path]:
    json_path, md_path, html_path = (run_dir / FILE_NAMES[f] for f in ("json", "md", "html"))
    write_json(json_path, report)
    write_text(md_path, render_markdown(report))
    write_text(html_path, render_html(report, run_dir))
    return json_path, md_path, html_path


__all__ = ["FORMATS", "RunReport", "build_report", "load_report", "render", "write_reports"]
