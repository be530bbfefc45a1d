"""pytest plugin: `-p gate.pytest_plugin --gate-ledger FILE --gate-results FILE`.

Frozen/quarantined tests still run; their outcomes are witness results and never change pytest's exit status.
Voting is not built on xfail (with `xfail_strict = true` a passing quarantined test would fail the run and so vote).
The run fails closed when fewer voting tests ran to a result than were collected (deselected tests count as
collected), when a test module fails to import or is skipped whole at collection, when no test votes, and when a
test carries a marker the configuration does not register.
"""

import re
import sys
from pathlib import Path

import pytest

from gate.check import GateError, stable_json, write_atomic
from gate.ledger import Ledger, load_ledger, state_of

RESULT_OUTCOMES = ("pass", "fail", "timeout")
EXAMPLES = re.compile(r"(\d+) passing, (\d+) failing")  # a phase's line in Hypothesis's describe_statistics
# How Hypothesis introduces the input that failed (6.170 says "Failing test case", older versions "Falsifying").
EXAMPLE = ("Failing test case", "Failing explicit example", "Falsifying example", "Falsifying explicit example")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("oracle-gate")
    group.addoption("--gate-ledger", default=None, help="flake ledger deciding which tests vote")
    group.addoption("--gate-results", default=None, help="write the gate's JSON run summary here")
    group.addoption("--gate-merge-job", action="store_true", default=False,
                    help="this run gates a merge (fail_closed_until_reproducer: quarantined tests block)")
    group.addoption("--gate-skips-reported", action="store_true", default=False,
                    help="list skipped voting tests in the summary instead of blocking on them (oracle-gate run "
                         "compares them with the base)")


def pytest_configure(config: pytest.Config) -> None:
    ledger = None
    path = config.getoption("--gate-ledger")
    if path:
        try:
            ledger = load_ledger(Path(path))
        except GateError as exc:
            raise pytest.UsageError(f"oracle-gate: {exc}") from None
    out = config.getoption("--gate-results")
    if out:
        # A summary left by an earlier run must never stand in for a run that dies before writing its own.
        Path(out).unlink(missing_ok=True)
    config.pluginmanager.register(GateRun(config, ledger), "oracle-gate-run")


def _outcome(report: pytest.TestReport) -> str:
    if hasattr(report, "wasxfail"):
        return "xfail"
    if report.failed:
        return "timeout" if "Timeout" in report.longreprtext.split("\n", 1)[0] + report.longreprtext[-200:] \
            else "fail"
    return "skip" if report.skipped else "pass"


def falsifying_examples(exc: BaseException) -> list[str]:
    """Hypothesis's falsifying examples, from the notes it attaches to the error (one per distinct failure)."""
    found = [note for note in getattr(exc, "__notes__", ()) if isinstance(note, str) and note.startswith(EXAMPLE)]
    for inner in getattr(exc, "exceptions", ()):  # an ExceptionGroup when Hypothesis found several bugs
        found += falsifying_examples(inner)
    return found


class GateRun:
    def __init__(self, config: pytest.Config, ledger: Ledger | None) -> None:
        self.config, self.ledger = config, ledger
        self.lanes: dict[str, str] = {}
        self.outcomes: dict[str, str] = {}
        self.deselected: set[str] = set()
        self.run_problems: list[str] = []  # the run cannot be trusted: markers, collection, missing results
        self.ledger_problems: list[str] = []  # red or merge-blocked quarantined tests
        self.examples: dict[str, int] = {}  # test cases Hypothesis ran, per property
        self.failures: dict[str, dict] = {}  # test -> its error and falsifying examples, for the verdict

    def lane(self, nodeid: str) -> str:
        if self.ledger is None:
            return "vote"
        state = state_of(self.ledger, nodeid, Path(self.config.rootpath))
        file_state = state_of(self.ledger, nodeid.split("::", 1)[0], Path(self.config.rootpath))
        if state.status == "red" or file_state.status == "red":
            self.ledger_problems.append(
                f"red: {nodeid}: {state.reason if state.status == 'red' else file_state.reason}")
        if self.config.getoption("--gate-merge-job") and self.ledger.policy == "fail_closed_until_reproducer" \
                and "quarantined" in (state.status, file_state.status):
            self.ledger_problems.append(f"merge job: quarantined test {nodeid} cannot green a merge job")
        return "vote" if state.votes and file_state.votes else "quarantine"

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        # Tests in a module that fails to import or skips itself whole are never collected, so the count of
        # collected voting tests cannot see them: the collector's own report is the only trace.
        if report.failed:
            self.run_problems.append(f"collection error in {report.nodeid or 'the session'}")
        elif report.skipped:
            self.run_problems.append(f"{report.nodeid or 'the session'} was skipped whole at collection")

    def pytest_deselected(self, items) -> None:
        for item in items:
            self.lanes[item.nodeid] = self.lane(item.nodeid)
            self.deselected.add(item.nodeid)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        registered = {line.split(":", 1)[0].split("(", 1)[0].strip() for line in self.config.getini("markers")}
        for item in session.items:
            self.lanes[item.nodeid] = self.lane(item.nodeid)
            unknown = sorted({m.name for m in item.iter_markers()} - registered)
            if unknown:
                self.run_problems.append(f"unregistered marker {', '.join(unknown)} on {item.nodeid}")
            if getattr(getattr(getattr(item, "obj", None), "_hypothesis_internal_use_settings", None),
                       "derandomize", False):
                self.run_problems.append(f"{item.nodeid} is derandomized (Hypothesis derandomize=True): every seed "
                                         "draws the same inputs, so a break that dodges them would pass every run")

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_teardown(self, item) -> None:
        statistics = getattr(item, "hypothesis_statistics", None)  # Hypothesis's own account of the run
        if type(statistics) is str:
            self.examples[item.nodeid] = sum(int(passing) + int(failing) for passing, failing in EXAMPLES.findall(
                statistics))

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        yield
        if call.excinfo is not None and call.when == "call" and item.nodeid not in self.failures:
            exc = call.excinfo.value
            error = f"{type(exc).__name__}: {exc}".strip().splitlines()
            # Hypothesis's pytest plugin keeps what it reported (the falsifying example among it) on the item.
            reported = getattr(item, "hypothesis_report_information", "")
            examples = [block for block in reported.split("\n\n") if block.startswith(EXAMPLE)] \
                if isinstance(reported, str) else []
            self.failures[item.nodeid] = {"error": error[0][:500] if error else type(exc).__name__,
                                          "falsifying_examples": list(dict.fromkeys(examples + falsifying_examples(exc)))}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        outcome = _outcome(report)
        if self.outcomes.get(report.nodeid) in ("fail", "timeout"):
            return  # a failure in any phase sticks
        if report.when == "call" or outcome != "pass":
            self.outcomes[report.nodeid] = outcome

    def summary(self) -> dict:
        """The run as the gate sees it: `run` problems (incomplete, collection, markers, no votes), `regressions`
        (voting failures) and `ledger` problems (red or merge-blocked quarantined tests)."""
        voting = [t for t, lane in self.lanes.items() if lane == "vote"]
        ran = [t for t in voting if self.outcomes.get(t) in RESULT_OUTCOMES]
        skipped = [t for t in voting if self.outcomes.get(t) == "skip" and t not in self.deselected] \
            if self.config.getoption("--gate-skips-reported") else []
        proxy = sys.modules.get("gate.proxy")  # loaded by oracle-gate run unless --trust-patch-code
        run = list(dict.fromkeys(self.run_problems + [f"sandbox: {v}" for v in (proxy.violations() if proxy else [])]))
        if len(ran) + len(skipped) < len(voting):
            missing = next(t for t in voting if t not in ran and t not in skipped)
            why = "deselected" if missing in self.deselected else self.outcomes.get(missing, "no outcome")
            run.append(f"only {len(ran)} of {len(voting)} collected voting tests ran to a result "
                       f"(first without one: {missing}: {why})")
        if not voting:
            run.append("zero voting tests were collected")
        regressions = [f"{t} ({self.outcomes[t]})" for t in ran if self.outcomes[t] != "pass"]
        ledger = list(dict.fromkeys(self.ledger_problems))
        results = [{"test": t, "outcome": self.outcomes.get(t, "skip"),
                    "lane": lane if lane == "quarantine" or t in ran else "witness"}
                   for t, lane in self.lanes.items()]
        witness_failures = [r["test"] for r in results if r["lane"] != "vote" and r["outcome"] in ("fail", "timeout")]
        return {"complete": True, "collected": len(self.lanes), "voting_collected": len(voting),
                "voting_ran": len(ran), "skipped": skipped, "problems": {"run": run, "regressions": regressions, "ledger": ledger},
                "blocked": bool(run or regressions or ledger), "witness_failures": witness_failures,
                "results": results, "examples": dict(sorted(self.examples.items())),
                "failures": {t: self.failures[t] for t in ran if self.outcomes[t] != "pass" and t in self.failures},
                "sandbox": proxy.stats() if proxy else {"started": False, "in_process": True}}

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        summary = self.summary()
        summary["pytest_exitstatus"] = int(exitstatus)
        # Witness failures never change the status; anything the gate blocks on always does.
        if summary["blocked"]:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        elif exitstatus == pytest.ExitCode.TESTS_FAILED:
            session.exitstatus = pytest.ExitCode.OK
        out = self.config.getoption("--gate-results")
        if out:
            write_atomic(Path(out), stable_json(summary))
        self.final = summary

    def pytest_terminal_summary(self, terminalreporter) -> None:
        summary = getattr(self, "final", None) or self.summary()
        terminalreporter.section("oracle-gate")
        terminalreporter.line(f"voting: {summary['voting_ran']}/{summary['voting_collected']} ran to a result; "
                              f"witness: {summary['collected'] - summary['voting_collected']}")
        for kind, reasons in summary["problems"].items():
            for reason in reasons:
                terminalreporter.line(f"blocked ({kind}): {reason}")
        for test in summary["witness_failures"]:
            terminalreporter.line(f"witness failure (does not vote): {test}")
