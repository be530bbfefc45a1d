"""The line tracer costs one Python call per call and raises no audit event of its own (the box's hook would run)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent('''
    import json, sys, types
    import hypothesis.errors  # imported before the hook: ExampleRecorder needs it, and importing reads attributes
    from drafter.tracing import ExampleRecorder, LineRecorder, installed

    source = """
    def helper(x):
        return x + 1

    def target(n):
        total = 0
        def gen():
            yield 1
            yield 2
        for i in range(n):
            total += helper(i)
        return total + sum(gen())
    """
    module = types.ModuleType("traced_mod")
    module.__file__ = "/nowhere/traced_mod.py"
    exec(compile(source, module.__file__, "exec"), module.__dict__)
    sys.modules["traced_mod"] = module

    class Test:  # what ExampleRecorder wraps: Hypothesis's handle on the body
        class hypothesis:
            inner_test = staticmethod(lambda: None)

    recorder = LineRecorder.for_target("traced_mod:target")
    counted = []
    sys.addaudithook(lambda event, args: counted.append(event) if event in ("object.__getattr__", "builtins.id") else None)
    with installed(recorder, None, ExampleRecorder(Test, "/elsewhere")):
        module.target(1000)
        module.helper(5)
    print(json.dumps({"events": len(counted), "lines": sorted(recorder.lines)}))
''')


def test_tracing_a_thousand_calls_raises_no_audit_event_and_records_only_the_targets_lines():
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["events"] == 0  # reading frame.f_code or calling id() per call would give 2000 or more
    # The target's lines and its generator's (after its resumption too); never the helper's line 3.
    assert result["lines"] == [6, 7, 8, 9, 10, 11, 12], result
