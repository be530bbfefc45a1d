"""The verdict as JUnit XML (junitparser): one suite for the gate's checks, one for the property results."""

from pathlib import Path

from junitparser import Failure, JUnitXml, Skipped, TestCase, TestSuite

from gate.verdict import GateVerdict


def write_junit(verdict: GateVerdict, out: Path) -> None:
    checks = TestSuite("oracle-gate")
    for check in verdict.checks:
        case = TestCase(check.name, classname="oracle-gate")
        if not check.ok:
            case.result = [Failure("\n".join(check.reasons[:1]) or "blocked")]
        case.system_out = "\n".join(check.reasons)
        checks.add_testcase(case)
    for stage in verdict.required:
        if stage not in {c.name for c in verdict.checks}:
            case = TestCase(stage, classname="oracle-gate")
            case.result = [Failure("did not run: the gate stopped at an earlier check")]
            checks.add_testcase(case)
    checks.add_property("seed", str(verdict.seed))
    properties = TestSuite("oracle-properties")
    summary = next((c.data.get("pytest") for c in verdict.checks if c.name == "properties"), None) or {}
    for result in summary.get("results", []):
        case = TestCase(result["test"], classname=result["lane"])
        if result["outcome"] in ("fail", "timeout"):
            case.result = [Failure(f"{result['outcome']} ({result['lane']})")]
        elif result["outcome"] in ("skip", "xfail"):
            case.result = [Skipped(result["outcome"])]
        properties.add_testcase(case)
    xml = JUnitXml()
    xml.add_testsuite(checks)
    xml.add_testsuite(properties)
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    xml.write(str(out), pretty=True)
