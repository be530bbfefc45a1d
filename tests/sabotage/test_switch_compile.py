"""A body-only mutant is compiled as its function alone, to the very code object compiling its module gives."""

from __future__ import annotations

import importlib.util
import sys

from drafter.data import Target
from sabotage import mutants_for
from sabotage.switch import SwitchUnsafe, _function_place, prepare_switch

AWKWARD_MODULE = '''\
from __future__ import annotations

import functools
import re as regex

LIMIT = 3


class Base:
    def total(self, items: list[int]) -> int:
        return sum(items)


class Box(Base):
    __secret = 2

    class Inner:
        @staticmethod
        def double(x: int) -> int:
            return x * 2 if x > 0 else -x

    @functools.lru_cache(maxsize=None)
    def total(self, items: tuple) -> int:
        return super().total(list(items)) * self.__secret + len(regex.findall("a", "aa"))

    async def wait(self, n: int) -> int:
        return n + 1


try:
    import json
except ImportError:  # pragma: no cover
    json = None
else:
    def dumps(value: object) -> str:
        return json.dumps(value).upper() + str(LIMIT)

if LIMIT > 5:
    pass
elif LIMIT > 1:
    def grow(xs: list) -> list:
        xs.append(len(xs)); return [x + 1 for x in xs]


def late(text: str) -> list:
    return os.path.split(text.strip())


import os
'''


def test_every_mutant_compiled_alone_equals_compiling_its_whole_module(tmp_path, helpers) -> None:
    src = helpers.write_src(tmp_path, {"awkward.py": AWKWARD_MODULE})
    spec = importlib.util.spec_from_file_location("awkward", src / "awkward.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["awkward"] = module
    try:
        spec.loader.exec_module(module)
        compared = set()
        lines = AWKWARD_MODULE.splitlines()
        nested = [Target(f"awkward:{name}", "awkward", name, "awkward.py", lines.index(line) + 1,
                         lines.index(line) + 2, (), None, (), None, False, name)
                  for name, line in (("dumps", "    def dumps(value: object) -> str:"),
                                     ("grow", "    def grow(xs: list) -> list:"))]  # extraction skips these
        for target in [*helpers.targets_of(src), *nested]:
            for mutant in mutants_for(target, src).mutants:
                alone = _prepared(module, target.qualname, mutant.source, body_only=True)
                whole = _prepared(module, target.qualname, mutant.source, body_only=False)
                if isinstance(whole, str):  # refused the same way (a mutant dropping `super()` loses `__class__`)
                    assert alone == whole and "closure mismatch" in whole
                    continue
                assert alone.code == whole.code, mutant.id
                assert list(alone.code.co_positions()) == list(whole.code.co_positions()), mutant.id
                assert alone.code.co_qualname == whole.code.co_qualname
                assert _function_place(module.__file__, target.qualname).piece(mutant.source) is not None
                compared.add(target.qualname)
    finally:
        del sys.modules["awkward"]
    assert {"Box.total", "Box.Inner.double", "Box.wait", "dumps", "grow", "late"} <= compared


def _prepared(module, qualname, source, body_only):
    try:
        return prepare_switch(module, qualname, source, body_only)
    except SwitchUnsafe as exc:
        return str(exc)


def test_a_function_defined_twice_or_changed_outside_falls_back_to_the_whole_module(tmp_path, helpers) -> None:
    text = "import sys\nif sys.version_info >= (3, 12):\n    def f(x):\n        return x + 1\nelse:\n    def f(x):\n        return x - 1\n"
    once = "A = 0\n\n\ndef g(x):\n    return x + 1\n\n\nB = 2\n"
    src = helpers.write_src(tmp_path, {"twice.py": text, "once.py": once})
    assert _function_place(str(src / "twice.py"), "f") is None
    place = _function_place(str(src / "once.py"), "g")
    assert place.piece(once.replace("x + 1", "x - 1")) == "\n\n\ndef g(x):\n    return x - 1\n"
    assert place.piece(once.replace("A = 0", "A = 1")) is None  # a line before the def changed
    assert place.piece(once.replace("B = 2", "B = 3")) is None  # or after it
