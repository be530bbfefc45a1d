"""Extraction of awkward source written into tmp_path."""

import pytest

from drafter.extract import extract

AWKWARD = '''
import functools
from typing import overload


def plain(a, /, b: int = 1, *args: str, key: "str | None" = None, flag=False, **kwargs) -> None:
    """First line.

    Detail.
        Indented detail.
    """


@functools.lru_cache(maxsize=None)
@staticmethod
def cached(n: int) -> int:
    return n


async def fetch(url: str, *, timeout: float = 2.5) -> bytes:
    return b""


def outer(x):
    def inner_helper(y):
        return y
    return inner_helper(x)


def _private(x):
    return x


@overload
def both(x: int) -> int: ...
@overload
def both(x: str) -> str: ...
def both(x):
    return x


class Outer:
    """A class with everything."""

    def __init__(self, size: int, name="n"):
        self.size = size

    def __repr__(self):
        return "Outer"

    def _hidden(self):
        return 1

    def method(self, value):
        return value

    @property
    def size_twice(self) -> int:
        return self.size * 2

    @size_twice.setter
    def size_twice(self, value: int) -> None:
        self.size = value // 2

    @staticmethod
    def make(n: int) -> "Outer":
        return Outer(n)

    @classmethod
    def default(cls) -> "Outer":
        return cls(1)

    async def run(self) -> None:
        pass

    class Inner:
        def deep(self, q: list[int]) -> int:
            return len(q)

        class Innermost:
            def deepest(self):
                return None


class _Secret:
    def visible_name(self):
        return 1

    class Public:
        def method(self):
            return 2


if True:
    def conditional(flag):
        return not flag
'''


@pytest.fixture
def awkward(write_tree):
    return extract(write_tree({"pkg/__init__.py": "", "pkg/mod.py": AWKWARD}))


def test_public_functions_and_methods_only(awkward):
    assert {t.qualname for t in awkward.targets} == {
        "plain", "cached", "fetch", "outer", "both", "conditional",
        "Outer.method", "Outer.size_twice", "Outer.make", "Outer.default", "Outer.run",
        "Outer.Inner.deep", "Outer.Inner.Innermost.deepest",
    }
    assert all(t.id == f"pkg.mod:{t.qualname}" for t in awkward.targets)


def test_parameter_kinds_annotations_and_defaults(awkward):
    plain = awkward.target("pkg.mod:plain")
    assert [(p.name, p.kind, p.annotation, p.default) for p in plain.params] == [
        ("a", "positional_only", None, None),
        ("b", "positional_or_keyword", "int", "1"),
        ("args", "var_positional", "str", None),
        ("key", "keyword_only", '"str | None"', "None"),
        ("flag", "keyword_only", None, "False"),
        ("kwargs", "var_keyword", None, None),
    ]
    assert plain.returns == "None"
    assert plain.docstring == "First line.\n\nDetail.\n    Indented detail."  # inspect.cleandoc


def test_async_and_bare_star(awkward):
    fetch = awkward.target("pkg.mod:fetch")
    assert fetch.is_async and fetch.returns == "bytes"
    assert [(p.name, p.kind, p.default) for p in fetch.params] == [
        ("url", "positional_or_keyword", None),
        ("timeout", "keyword_only", "2.5"),
    ]
    assert awkward.target("pkg.mod:Outer.run").is_async
    assert not awkward.target("pkg.mod:Outer.method").is_async


def test_decorators_are_source_text_without_at(awkward):
    assert awkward.target("pkg.mod:cached").decorators == ("functools.lru_cache(maxsize=None)", "staticmethod")
    assert awkward.target("pkg.mod:Outer.size_twice").decorators == ("property",)
    assert awkward.target("pkg.mod:Outer.make").decorators == ("staticmethod",)
    assert [p.name for p in awkward.target("pkg.mod:Outer.default").params] == ["cls"]


def test_property_setter_and_overload_stubs_do_not_shadow_the_real_definition(awkward):
    getter = awkward.target("pkg.mod:Outer.size_twice")
    assert getter.returns == "int" and [p.name for p in getter.params] == ["self"]
    both = awkward.target("pkg.mod:both")
    assert both.decorators == () and both.params[0].annotation is None


def test_nested_classes_and_lines(awkward, write_tree):
    lines = AWKWARD.splitlines()
    for qualname in ("Outer.Inner.deep", "Outer.Inner.Innermost.deepest", "plain", "fetch"):
        target = awkward.target(f"pkg.mod:{qualname}")
        # the file is written dedented; AWKWARD has no common indent, so lines match one to one
        assert lines[target.line - 1].lstrip().startswith(("def ", "async def ")), qualname
        assert f"def {target.name}(" in lines[target.line - 1]
        assert target.end_line >= target.line


def test_class_info(awkward):
    classes = {c.name: c for c in awkward.classes}
    assert set(classes) == {"Outer", "Outer.Inner", "Outer.Inner.Innermost"}  # _Secret and what it holds are private
    outer = classes["Outer"]
    assert outer.kind == "class"
    assert [(f.name, f.annotation, f.default) for f in outer.fields] == [("size", "int", None), ("name", None, '"n"')]


def test_enums_and_dataclasses(write_tree):
    src = write_tree({"models.py": '''
        import dataclasses
        import enum
        from dataclasses import KW_ONLY, dataclass, field
        from typing import ClassVar


        class Color(enum.Enum):
            RED = 1
            GREEN = enum.auto()
            _ignore_ = ["x"]

            def describe(self) -> str:
                return self.name


        class Level(int, enum.IntEnum):
            LOW = 1
            HIGH = 2


        @dataclass(frozen=True, order=True)
        class Point:
            x: int
            y: int = 0
            label: str = field(default="p")
            cache: dict = field(default_factory=dict, init=False)
            COUNT: ClassVar[int] = 0
            _: KW_ONLY
            scale: float = 1.0


        @dataclasses.dataclass
        class Box:
            items: list[int]


        class Plain:
            pass
    '''})
    classes = {c.name: c for c in extract(src).classes}
    assert (classes["Color"].kind, classes["Color"].members) == ("enum", ("RED", "GREEN"))
    assert (classes["Level"].kind, classes["Level"].members) == ("enum", ("LOW", "HIGH"))
    point = classes["Point"]
    assert point.kind == "dataclass"
    assert [(f.name, f.kind, f.annotation, f.default) for f in point.fields] == [
        ("x", "positional_or_keyword", "int", None),
        ("y", "positional_or_keyword", "int", "0"),
        ("label", "positional_or_keyword", "str", 'field(default="p")'),
        ("scale", "keyword_only", "float", "1.0"),
    ]
    assert classes["Box"].kind == "dataclass" and [f.name for f in classes["Box"].fields] == ["items"]
    assert (classes["Plain"].kind, classes["Plain"].fields) == ("class", ())


def test_module_names_follow_dunder_all_for_imports(write_tree):
    src = write_tree({"api.py": '''
        from os.path import join, split
        import json

        __all__ = ["join", "public_fn"]
        LIMIT = 10
        _hidden = 1
        A, (B, C) = 1, (2, 3)

        def public_fn(): pass
        def _private_fn(): pass
        class Thing: pass
        try:
            FAST = True
        except ImportError:
            FAST = False
    '''})
    names = extract(src).module_names["api"]
    assert names == ("A", "B", "C", "FAST", "LIMIT", "Thing", "join", "public_fn")
    assert "split" not in names and "json" not in names and "_hidden" not in names


USAGE = '''
def everything(a, b, c, d, e, f, g, h, i, j, k, m):
    words = a.lower().split()
    total = b * 3
    if c > 10:
        pass
    n = len(d)
    first = e[0]
    for key, value in f.items():
        pass
    text = g.decode("utf-8")
    if h:
        pass
    result = i(1)
    label = "id-" + j
    part = k[1:3]
    m.append(1)
    return words


def shadowed(a):
    def inner(a):
        return a.split()
    return inner


def nothing(a, b):
    return helper(a, key=b)
'''


def test_usage_evidence_per_kind(write_tree):
    extraction = extract(write_tree({"use.py": USAGE}))
    params = {p.name: p.usage for p in extraction.target("use:everything").params}
    kinds = {name: [u.kind for u in usage] for name, usage in params.items()}
    assert kinds == {
        "a": ["text"], "b": ["number"], "c": ["number"], "d": ["sequence"], "e": ["sequence"],
        "f": ["mapping"], "g": ["bytes"], "h": ["bool"], "i": ["callable"], "j": ["text"], "k": ["sequence"],
        "m": ["sequence"],
    }
    assert params["a"][0].evidence == "calls .lower()"
    assert params["c"][0].evidence == "compared with 10"
    assert params["d"][0].evidence == "passed to len()"
    # a parameter of a nested function is a different variable; passing a value on says nothing
    assert extraction.target("use:shadowed").params[0].usage == ()
    assert [p.usage for p in extraction.target("use:nothing").params] == [(), ()]


def test_usage_is_deduplicated_in_first_seen_order(write_tree):
    src = write_tree({"order.py": '''
        def f(x):
            if x < 0:
                return x.strip()
            y = x.strip()
            return x < 0 or x.upper()
    '''})
    (x,) = extract(src).target("order:f").params
    assert [u.evidence for u in x.usage] == ["compared with 0", "calls .strip()", "calls .upper()"]


def test_usage_evidence_for_formatting_membership_and_builtins(write_tree):
    src = write_tree({"more.py": '''
        def shapes(a, b, c, d, e, f, g, h):
            if not a:
                return None
            message = f"value {b}"
            ok = isinstance(c, str)
            joined = ", ".join(d)
            delta = e - h
            if f >= -1:
                pass
            return g["name"]
    '''})
    usage = {p.name: [(u.kind, u.evidence) for u in p.usage] for p in extract(src).target("more:shapes").params}
    assert usage == {
        "a": [("bool", "used as a condition")],
        "b": [("text", "formatted into an f-string")],
        "c": [("text", "checked with isinstance(..., str)")],
        "d": [("sequence", "joined with str.join()")],
        "e": [("number", "arithmetic (-)")],
        "f": [("number", "compared with -1")],
        "g": [("mapping", "indexed with a string key")],
        "h": [("number", "arithmetic (-)")],
    }


def test_literal_collection_constants_and_unpacked_names(write_tree):
    src = write_tree({"consts.py": '''
        from dataclasses import dataclass

        TAGS = (" ", "-", "+")
        FORBIDDEN = frozenset({"ssn", "password"})
        CODES: list[int] = [200, 404]
        MIXED = ("a", 1)
        FLAGS = (True, False)
        ONE = ("only",)
        _PRIVATE = ("x", "y")
        TWICE = ("a", "b")
        TWICE = ("c", "d")
        COMPUTED = tuple(str(i) for i in range(3))


        @dataclass
        class Hunk:
            lines: tuple[tuple[str, str], ...]
            size: int

            def show(self):
                return [tag + text for tag, text in self.lines]


        def walk(pairs, items):
            for key, value in pairs:
                pass
            for item in items:
                pass
    '''})
    extraction = extract(src)
    assert extraction.constants == {"consts": {
        "CODES": (200, 404), "FORBIDDEN": ("password", "ssn"), "TAGS": (" ", "-", "+"),
    }}
    (hunk,) = extraction.classes
    assert [(f.name, f.unpacked) for f in hunk.fields] == [("lines", ("tag", "text")), ("size", ())]
    walk = extraction.target("consts:walk")
    assert [(p.name, p.unpacked) for p in walk.params] == [("pairs", ("key", "value")), ("items", ())]
