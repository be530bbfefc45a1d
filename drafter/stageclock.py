"""Wall and CPU seconds of each stage of a run, as recorded in report.json and run.json and shown after a run."""

from __future__ import annotations

import math
import resource
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from drafter.errors import ConfigError
from drafter.jsonfile import MapOf, OptionalKey, read_json
from drafter.runfolder import RUN_META


def cpu_seconds() -> float:
    """User + system CPU of this process and of every child it has waited for. A stage's worker pools are joined
    before it ends, and a pool worker is credited with the children it forked and waited for, so a stage's CPU
    counts all of its processes."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def now() -> tuple[float, float]:
    """Wall and CPU clocks at this moment."""
    return time.perf_counter(), cpu_seconds()


@dataclass
class StageClock:
    seconds: dict[str, float] = field(default_factory=dict)  # wall
    cpu: dict[str, float] = field(default_factory=dict)

    @contextmanager
    def measure(self, name: str) -> Iterator[None]:
        started = now()
        try:
            yield
        finally:
            self.add(name, started)

    def add(self, name: str, started: tuple[float, float]) -> None:
        """The time since `started` (a `now()`) to stage `name`."""
        wall, cpu = now()
        self.seconds[name] = round(self.seconds.get(name, 0.0) + wall - started[0], 3)
        self.cpu[name] = round(self.cpu.get(name, 0.0) + cpu - started[1], 3)

    @classmethod
    def of(cls, outcome) -> StageClock:
        """A clock that goes on from a draft's or run's stages so far."""
        return cls(dict(outcome.stage_seconds), dict(outcome.stage_cpu))

    def stages(self) -> dict[str, dict[str, float]]:
        """run.json's record: stage -> wall and CPU seconds."""
        return {name: {"seconds": wall, "cpu_seconds": self.cpu.get(name, 0.0)} for name, wall in self.seconds.items()}


STAGES = MapOf({"seconds": float, "cpu_seconds": float})


def recorded_stages(run_dir: Path) -> dict[str, dict[str, float]]:
    """Stage -> wall and CPU seconds from a run folder's run.json, read as untrusted: checked by shape, a negative
    time refused; {} for runs that recorded none (merged runs, runs of older versions)."""
    path = Path(run_dir) / RUN_META
    stages = read_json(path, {"stages": OptionalKey(STAGES)}).get("stages", {})
    for name, times in stages.items():
        if not all(math.isfinite(t) and t >= 0 for t in times.values()):
            raise ConfigError(f"{path}: key 'stages.{name}' holds a time that is negative or not a number")
    return stages
