"""Wall and CPU per stage: what a stage counts, and run.json's record read back as untrusted input."""

import json
import math
import subprocess
import sys

import pytest

from drafter.errors import ConfigError
from drafter.runfolder import RUN_META, write_json
from drafter.stageclock import StageClock, recorded_stages

BURN = "import time\nwhile time.process_time() < 0.3: pass\n"  # 0.3 s of the child's own CPU, however slow the machine


def test_a_stage_counts_the_cpu_of_the_children_it_waited_for():
    clock = StageClock()
    with clock.measure("work"):
        subprocess.run([sys.executable, "-c", BURN], check=True)
    with clock.measure("idle"):
        pass
    assert set(clock.seconds) == set(clock.cpu) == {"work", "idle"}
    assert clock.cpu["work"] >= 0.3  # the child's CPU, which this process never spent itself
    assert clock.seconds["work"] >= 0 and clock.seconds["idle"] >= 0 and clock.cpu["idle"] >= 0
    assert clock.stages()["work"] == {"seconds": clock.seconds["work"], "cpu_seconds": clock.cpu["work"]}


def test_a_stage_measured_twice_adds_up():
    clock = StageClock({"render": 1.0}, {"render": 2.0})
    with clock.measure("render"):
        pass
    assert clock.seconds["render"] >= 1.0 and clock.cpu["render"] >= 2.0


def test_recorded_stages_reads_back_what_run_json_holds(tmp_path):
    stages = {"extract": {"seconds": 0.2, "cpu_seconds": 0.1}, "soundness": {"seconds": 3.0, "cpu_seconds": 5.5}}
    write_json(tmp_path / RUN_META, {"id": "x", "stages": stages})
    assert recorded_stages(tmp_path) == stages
    assert list(recorded_stages(tmp_path)) == ["extract", "soundness"]  # in the order the stages ran


def test_a_run_json_without_stages_has_none(tmp_path):
    write_json(tmp_path / RUN_META, {"id": "merged"})  # merged runs and runs of older versions
    assert recorded_stages(tmp_path) == {}


@pytest.mark.parametrize("stages, key", [
    ({"soundness": {"seconds": -1.0, "cpu_seconds": 0.5}}, "stages.soundness"),
    ({"soundness": {"seconds": 1.0, "cpu_seconds": "fast"}}, "stages.soundness.cpu_seconds"),
    ({"soundness": {"seconds": 1.0}}, "stages.soundness"),
    ({"soundness": {"seconds": math.nan, "cpu_seconds": 1.0}}, "stages.soundness"),
    ([1, 2], "stages"),
])
def test_a_tampered_stage_record_is_refused_naming_file_and_key(tmp_path, stages, key):
    (tmp_path / RUN_META).write_text(json.dumps({"id": "x", "stages": stages}))
    with pytest.raises(ConfigError, match=rf"{RUN_META}.*{key}"):
        recorded_stages(tmp_path)
