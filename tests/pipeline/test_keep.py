from drafter.data import KillResult
from drafter.keep import decide


def kill(outcome: str, mutant: str = "m1") -> KillResult:
    return KillResult(candidate_id="t::c", mutant_id=mutant, outcome=outcome)


def test_kept_when_its_own_assertion_kills_a_mutant():
    verdict = decide([kill("survived", "m1"), kill("assertion", "m2"), kill("crash", "m3")])
    assert verdict.accepted and verdict.stage == "kept"


def test_survivor_is_rejected():
    verdict = decide([kill("survived", "m1"), kill("survived", "m2")])
    assert (verdict.accepted, verdict.stage, verdict.reason) == (False, "sabotage", "survives_sabotage")


def test_no_mutants_at_all_is_survival_not_keep():
    assert decide([]).reason == "survives_sabotage"


def test_crashes_and_hangs_alone_do_not_keep():
    verdict = decide([kill("crash", "m1"), kill("timeout", "m2"), kill("survived", "m3")])
    assert (verdict.accepted, verdict.reason) == (False, "only_crash_kills")
