"""The verdict as JUnit XML (junitparser): one suite for the gate's checks, one for the property results."""

from pathlib import Path

from junitparser import Failure, JUnitXml, Skipped, TestCase, TestSuite

from gate.verdict import GateVerdict, one_line


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
    if verdict.sandbox():
        checks.add_property("sandbox", verdict.sandbox())
    properties = TestSuite("oracle-properties")
    failures = {f["test"]: f for f in verdict.failures()}
    for result in verdict.summary().get("results", []):
        case = TestCase(result["test"], classname=result["lane"])
        if result["outcome"] in ("fail", "timeout"):
            failure = failures.get(result["test"])
            examples = failure["falsifying_examples"] if failure else []
            case.result = [Failure(f"{result['outcome']} ({result['lane']})"
                                   + (f": {one_line(examples[0])}" if examples else ""))]
            if failure:
                case.result[0].text = "\n".join([failure["error"] or "", *examples,
                                                 f"reproduce: oracle-gate run with --seed {failure['seed']}"])
        elif result["outcome"] in ("skip", "xfail"):
            case.result = [Skipped(result["outcome"])]
        properties.add_testcase(case)
    xml = JUnitXml()
    xml.add_testsuite(checks)
    xml.add_testsuite(properties)
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    xml.write(str(out), pretty=True)
