"""JUnit XML (junitparser) so CI systems show a run: one test case per candidate, kept = pass, rejected = failure."""

from __future__ import annotations

from collections import defaultdict

from junitparser import Failure, JUnitXml, TestCase, TestSuite

from drafter.report.entries import RunReport


def render_junit(report: RunReport) -> str:
    by_target = defaultdict(list)
    for c in report.candidates:
        by_target[c.target].append(c)
    xml = JUnitXml(f"drafter {report.run_id}")
    for target in report.targets:
        suite = TestSuite(target.id)
        suite.add_property("fingerprint", target.fingerprint)
        if target.carried_from:
            suite.add_property("carried_from", target.carried_from)
        for c in by_target[target.id]:
            case = TestCase(c.name or c.id.rsplit("::", 1)[-1], classname=c.target)
            if c.status != "kept":
                failure = Failure(f"{c.stage}: {c.reason or 'rejected'}", type_=c.reason or "rejected")
                failure.text = "\n".join(part for part in (c.detail, c.counterexample or "") if part) or None
                case.result = [failure]
            elif c.file:
                case.system_out = f"kept: {c.file}; kills {len(c.kills)} mutants"
            suite.add_testcase(case)
        xml.add_testsuite(suite)
    text = xml.tostring()
    return text.decode("utf-8") if isinstance(text, bytes) else text
