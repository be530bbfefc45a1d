"""The typed data passed between pipeline stages. Every box in the flow is one of these."""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CANDIDATE_KINDS = (
    "round_trip",
    "idempotence",
    "invariant",
    "bound",
    "monotonic",
    "commutative",
    "equivalence",
    "metamorphic",
    "error_contract",
)

# Where a candidate stopped: the first stage that rejected it, or "kept".
STAGES = ("parse", "lint", "render", "sound", "sabotage", "kept")


def to_jsonable(value: Any) -> Any:
    """Dataclasses, tuples and dicts to plain JSON values (stable key order is the writer's job)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    return value


# ---------------------------------------------------------------- extract


@dataclass(frozen=True)
class Usage:
    """Evidence of how a function body uses a parameter, e.g. kind="text", evidence="calls .split()"."""

    kind: str  # text | number | sequence | mapping | bytes | bool | callable
    evidence: str


@dataclass(frozen=True)
class Param:
    name: str
    kind: str  # positional_only | positional_or_keyword | var_positional | keyword_only | var_keyword
    annotation: str | None = None  # source text of the annotation
    default: str | None = None  # source text of the default
    usage: tuple[Usage, ...] = ()
    unpacked: tuple[str, ...] = ()  # names the code unpacks each element into (`for tag, text in lines`)


@dataclass(frozen=True)
class Target:
    """One public function or method of SRC."""

    id: str  # "shop.billing:apply_tax", "shop.envelope:Envelope.to_dict"
    module: str  # "shop.billing"
    qualname: str  # "apply_tax", "Envelope.to_dict"
    file: str  # posix path relative to SRC
    line: int
    end_line: int
    params: tuple[Param, ...]
    returns: str | None
    decorators: tuple[str, ...]
    docstring: str | None
    is_async: bool
    fingerprint: str  # hash of signature + docstring; stable across body and line changes

    @property
    def name(self) -> str:
        return self.qualname.rsplit(".", 1)[-1]

    @property
    def owner(self) -> str | None:
        """The class a method belongs to, or None for a module-level function."""
        return self.qualname.rsplit(".", 1)[0] if "." in self.qualname else None


@dataclass(frozen=True)
class ClassInfo:
    """A class defined in SRC, so strategies can be built for annotations that name it."""

    module: str
    name: str
    kind: str  # "enum" | "dataclass" | "class"
    fields: tuple[Param, ...] = ()  # dataclass fields / __init__ parameters
    members: tuple[str, ...] = ()  # enum member names


@dataclass(frozen=True)
class ExtractError:
    file: str
    reason: str


@dataclass(frozen=True)
class Extraction:
    root: str  # SRC as given (absolute)
    targets: tuple[Target, ...]
    classes: tuple[ClassInfo, ...] = ()
    errors: tuple[ExtractError, ...] = ()
    corpus: tuple[str, ...] = ()  # corpus file names, relative, sorted; never contents
    module_names: dict[str, tuple[str, ...]] = field(default_factory=dict)  # module -> public names
    # module -> public constant -> its literal values, for `NAME = ("a", "b")`-like collections of str or int
    constants: dict[str, dict[str, tuple[str | int, ...]]] = field(default_factory=dict)
    # folders and modules left out on purpose (tests, vendored code, private modules nobody re-exports), with why
    passed_over: tuple[ExtractError, ...] = ()

    def target(self, target_id: str) -> Target:
        return self._by_id[target_id]

    @functools.cached_property
    def _by_id(self) -> dict[str, Target]:
        # Looked up once per reply and per candidate: a dict keeps large trees linear.
        return {t.id: t for t in self.targets}


# ---------------------------------------------------------------- prompt / model


@dataclass(frozen=True)
class Prompt:
    target: str
    system: str
    user: str
    history: tuple[tuple[str, str], ...] = ()  # (role, text) turns between system and user: a feedback round's conversation
    round: int = 1


@dataclass(frozen=True)
class TokenUsage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0


@dataclass(frozen=True)
class Reply:
    """What a backend answered for one target: raw text, or an error saying why there is none."""

    target: str
    text: str | None
    error: str | None = None
    usage: TokenUsage | None = None
    seconds: float = 0.0
    model: str = ""
    round: int = 1


# ---------------------------------------------------------------- candidates


@dataclass(frozen=True)
class Candidate:
    target: str
    name: str
    kind: str
    inputs: dict[str, str]
    body: str
    counterexample: str
    assume: tuple[str, ...] = ()
    rationale: str = ""

    @property
    def id(self) -> str:
        return f"{self.target}::{self.name}"


@dataclass(frozen=True)
class Verdict:
    """Where a candidate stands after a stage. A rejection is data, not an exception."""

    stage: str  # one of STAGES
    accepted: bool
    reason: str | None = None  # reason code, e.g. "literal_expected", "unsound", "survives_sabotage"
    detail: str = ""  # human-readable explanation


@dataclass(frozen=True)
class Drafted:
    """One item of a reply, parsed or not, with its latest verdict."""

    id: str  # "<target>::<name>", or "<target>::#<index>" when no usable name
    target: str
    index: int  # position in the reply's candidate list
    raw: Any  # the item exactly as the model sent it
    candidate: Candidate | None
    verdict: Verdict
    round: int = 1  # the feedback round whose reply proposed it


# ---------------------------------------------------------------- back half


@dataclass(frozen=True)
class Rendered:
    candidate_id: str
    target: str
    path: str  # relative to the run folder, e.g. "staged/shop.billing.apply_tax/test_x.py"
    test_name: str  # the test function's name inside the file
    source: str


@dataclass(frozen=True)
class Soundness:
    candidate_id: str
    status: str  # sound | unsound | error | flaky | timeout
    seconds: float  # median clean-run wall time of one run
    detail: str = ""  # error text
    counterexample: str | None = None  # Hypothesis's shrunk falsifying example
    # Sound ones: the lines of its target the seed-0 clean run executed (None: not recorded) and its max_examples;
    # a kill run (seed 0) with as many examples draws the same inputs.
    lines: tuple[int, ...] | None = None
    traced_examples: int = 0
    examples: str = field(default="", repr=False)  # that run's inputs, for a replay (onerun.RunSpec.replay)


@dataclass(frozen=True)
class Mutant:
    id: str  # "<target>#<operator>-<n>" or "known_bad:<file>"
    target: str  # target id; "" for a known-bad patch spanning several targets
    operator: str
    description: str
    diff: str  # unified diff against the original module
    module: str  # dotted module the mutant changes
    file: str  # posix path relative to SRC
    source: str  # the whole mutated module source
    line: int = 0
    body_only: bool = False  # decided at generation: only the target's body changed, so no check in the worker
    # Lines of the original module of which at least one must run for the mutant to act (sabotage.mutants,
    # FunctionSplice.reach); () = unknown, the mutant always runs.
    reach: tuple[int, ...] = ()


@dataclass(frozen=True)
class MutantSet:
    target: str
    mutants: tuple[Mutant, ...]
    dropped_equivalent: int = 0  # same normalised tree as the original
    dropped_duplicate: int = 0  # same normalised tree as an earlier mutant


# How one candidate x mutant pair ended. "not_reached": never run, because the candidate's recorded clean run
# never executed a line the mutant changes (see drafter.killmatrix); it is not a kill and not a survival.
KILL_OUTCOMES = ("assertion", "crash", "timeout", "survived", "not_reached", "invalid")
# What the report says of one mutant. "not_evaluated": no sound candidate of its target met it, so it is out of
# every score; "not_reached": every candidate that met it left its changed lines unexecuted (a hole, scored as one).
MUTANT_STATUSES = ("killed", "timeout", "survived", "not_reached", "not_evaluated", "invalid")


@dataclass(frozen=True)
class KillResult:
    candidate_id: str
    mutant_id: str
    outcome: str  # one of KILL_OUTCOMES
    seconds: float = 0.0
    detail: str = ""

    @property
    def killed(self) -> bool:
        return self.outcome in ("assertion", "crash", "timeout")


@dataclass(frozen=True)
class KillMatrix:
    """Every sound candidate of a target against every mutant of that target."""

    results: tuple[KillResult, ...]
    invalid: tuple[str, ...] = ()  # mutant ids that do not import; not counted
    fresh_process: dict[str, str] = field(default_factory=dict)  # mutant id -> why it could not be switched in-process
    seconds: float = 0.0  # wall time of the whole matrix
    test_seconds: float = 0.0  # time inside whole Hypothesis runs (generation and all), summed over workers
    notes: tuple[str, ...] = ()
    vacuous: dict[str, str] = field(default_factory=dict)  # candidate id -> why the forced-fail proof rejects it
    body_seconds: float = -1.0  # with time_bodies: time inside the test bodies themselves (-1: not measured)
    timeout_seconds: float = 0.0  # CPU seconds of the runs that ended over budget (first runs and confirmations)


# ---------------------------------------------------------------- whole runs (pipeline -> report)


@dataclass(frozen=True)
class DraftOutcome:
    src: Path
    run_dir: Path
    extraction: Extraction
    model: str
    replies: tuple[Reply, ...]
    drafted: tuple[Drafted, ...]
    target_notes: dict[str, str]  # target id -> why it has no accepted candidate
    warnings: tuple[str, ...]
    stage_seconds: dict[str, float]  # wall
    prompts_version: str = ""  # template version + hash of the texts that built the prompts
    backend: object = field(default=None, repr=False, compare=False)  # asked again in feedback rounds
    stage_cpu: dict[str, float] = field(default_factory=dict)  # user + system, with waited-for children


@dataclass(frozen=True)
class RunOutcome:
    draft: DraftOutcome
    drafted: tuple[Drafted, ...]  # final verdicts
    rendered: dict[str, Rendered]
    soundness: dict[str, Soundness]
    mutants: tuple[Mutant, ...]
    dropped_mutants: dict[str, tuple[int, int]]  # target -> (equivalent, duplicate)
    matrix: KillMatrix
    warnings: tuple[str, ...]
    stage_seconds: dict[str, float]  # wall
    settings: dict  # the settings that shape results, recorded in the report
    rounds: tuple[RoundRecord, ...] = ()  # feedback rounds: who was asked in each, why targets stopped
    triage: dict[str, Triage] = field(default_factory=dict)  # surviving mutant id -> its differential search
    stage_cpu: dict[str, float] = field(default_factory=dict)  # user + system, with waited-for children


# ---------------------------------------------------------------- triage of surviving mutants

# "distinguished": an input on which original and mutant differ was found (and shrunk); "no_difference_found":
# the search tried its examples and found none (likely equivalent, never proven); "not_triaged": no search ran to
# its end (budget, no strategy for the parameters, a method, an error).
TRIAGE_STATUSES = ("distinguished", "no_difference_found", "not_triaged")


@dataclass(frozen=True)
class Triage:
    """The differential search for one surviving mutant (sabotage.triage)."""

    mutant_id: str
    status: str  # one of TRIAGE_STATUSES
    call: str = ""  # distinguished: the shrunk input as a call, e.g. "shorten('a b', width=3)"
    original: str = ""  # distinguished: what the original does on it ("returns 'a b'", "raises ValueError: …")
    mutant: str = ""  # distinguished: what the mutant does on it
    difference: str = ""  # distinguished: "result", "exception" or "argument" (an in-place change)
    examples: int = 0  # examples tried over all input sets (-1: not counted; see examples_budget)
    examples_budget: int = 0  # examples allotted to this mutant
    inputs: str = ""  # where the strategies came from, e.g. "candidate shorten_bound", "combined", "signature"
    detail: str = ""  # not_triaged: why; else notes (an input set that could not run)


# ---------------------------------------------------------------- feedback rounds


@dataclass(frozen=True)
class FeedbackMutant:
    """A mutant that no kept candidate catches, as the next round's prompt shows it."""

    id: str
    description: str
    line: int
    diff: str  # short: the changed lines with one line of context
    triage: Triage | None = None  # the differential search's outcome, when it ran


@dataclass(frozen=True)
class FeedbackRejection:
    """A candidate of the last round that was not kept, and why."""

    name: str
    kind: str
    stage: str
    reason: str
    detail: str  # for an unsound candidate: the failure, with the failing line of the test
    counterexample: str | None = None  # Hypothesis's shrunk falsifying example


@dataclass(frozen=True)
class Feedback:
    """The evidence of one finished round for one target, cut to the prompt's size budget."""

    target: str
    round: int  # the round the evidence comes from; the prompt asks for round + 1
    survivors: tuple[FeedbackMutant, ...]
    survivors_total: int
    survivor_lines: int  # distinct lines among all survivors
    rejections: tuple[FeedbackRejection, ...]
    rejections_total: int
    kept: tuple[tuple[str, str], ...]  # (name, kind) of every candidate kept so far
    used_names: tuple[str, ...]
    unevaluated: int = 0  # mutants no sound candidate has met yet


@dataclass(frozen=True)
class RoundRecord:
    """Who was asked in one round and why targets stop after it."""

    round: int
    asked: tuple[str, ...]  # targets whose prompt went to the backend (or the cache)
    not_asked: tuple[str, ...] = ()  # targets the call or token budget kept from being asked
    stopped: dict[str, str] = field(default_factory=dict)  # target -> why it gets no further round
