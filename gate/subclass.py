"""A test's subclass of a production class (`class WithPrefix(semver.Version)`), whose base lives in the sandbox.

`class Mine(Base)` gets, in place of the handle `Base`, a test-side base made here (`mirror`): instances are
handles whose class is the test's `Mine`. The sandbox makes a twin subclass of the real `Base` whose members the
test defined call the test's own functions back, so production code that calls `cls(...)` or `str(self)` on an
instance of `Mine` runs the test's code, as it would in one process. `super()` in the test's methods reaches the
members of `Base` above the twin, in the sandbox. Construction happens in the sandbox (`Mine(...)` asks it).

Limits, each a channel-limit error naming the class: one base only (no mixins of the test's own), and only
functions, class and static methods, read-only properties and plain values in the class body.
"""


# Dunders a handle answers by asking the sandbox; the mirror answers them from the base's own (the `super()`
# of a test's subclass that overrides them).
FROM_BASE = ("__init__", "__str__", "__repr__", "__format__", "__bool__", "__len__", "__hash__", "__int__", "__float__",
             "__index__", "__iter__", "__getitem__", "__setitem__", "__delitem__", "__contains__", "__eq__",
             "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__neg__", "__pos__", "__abs__", "__invert__",
             *(f"__{r}{op}__" for op in ("add", "sub", "mul", "matmul", "truediv", "floordiv", "mod", "pow",
                                         "lshift", "rshift", "and", "or", "xor") for r in ("", "r")))
OWN = frozenset({"__module__", "__qualname__", "__doc__", "__dict__", "__weakref__", "__firstlineno__",
                 "__static_attributes__", "__orig_bases__", "__classcell__", "__annotations__", "_gate_class"})
_names: dict[int, list] = {}


def mirror(base, handle_class: type, crosses, limit) -> type:
    """The test-side base that stands for the sandbox's class `base` in one class statement. `handle_class` is
    the proxies' handle type, `crosses(value)` says whether a value is plain data, `limit(text)` is the error for
    what the channel cannot carry."""
    names = _names.get(base._number)
    if names is None:
        names = _names[base._number] = [n for n in base._dunder("dir") if type(n) is str and not n.startswith("__")]
    namespace = {name: _Inherited(name) for name in names}
    namespace.update({name: _from_base(name) for name in FROM_BASE})
    namespace.update({"_gate_base": base, "_gate_from": None, "_gate_tools": (crosses, limit),
                      "__init_subclass__": classmethod(_made)})
    return _Mirror(base._meta["name"] or "Base", (handle_class,), namespace)


class _Mirror(type):
    def __call__(cls, *args, **kwargs):
        return cls._gate_class(*args, **kwargs)  # made in the sandbox; it comes back as an instance of cls


def _made(cls, **options) -> None:
    """A test's class statement: the sandbox makes its twin."""
    bases = [b for b in cls.__bases__ if b is not object]
    name = f"{cls.__module__}.{cls.__qualname__}"
    crosses, limit = cls._gate_tools
    if len(bases) != 1:
        raise limit(f"the test's class {name} mixes a production class with other bases, which the channel "
                    "cannot carry")
    parent = bases[0]._gate_class if "_gate_class" in vars(bases[0]) else bases[0]._gate_base
    members = []
    for member, value in vars(cls).items():
        if member in OWN:
            continue
        kind, value = _member(value, crosses)
        if kind is None:
            raise limit(f"the test's class {name} defines {member!r} as a {type(value).__name__}, which the "
                        "channel cannot carry to production code")
        members.append([member, kind, value])
    cls._gate_class = parent._dunder("subclass", cls.__name__, cls.__qualname__, cls.__module__, members, cls)
    if "_gate_from" in vars(bases[0]) and vars(bases[0])["_gate_from"] is None:
        bases[0]._gate_from = cls._gate_class


def _member(value, crosses) -> tuple[str | None, object]:
    if isinstance(value, staticmethod):
        return "staticmethod", value.__func__
    if isinstance(value, classmethod):
        return "classmethod", value.__func__
    if isinstance(value, property):
        return ("property", value.fget) if value.fset is None and value.fdel is None else (None, value)
    if callable(value) and not isinstance(value, type):
        return "method", value
    return ("value", value) if crosses(value) else (None, value)


def _start(mirror_class: type):
    start = vars(mirror_class).get("_gate_from")
    if start is None:
        raise AttributeError("the production class has no subclass of the test's yet")
    return start


class _Inherited:
    """A member of the production class, as `super()` or an instance of the test's subclass reads it."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __set_name__(self, owner, name) -> None:
        self.owner = owner

    def __get__(self, instance, owner=None):
        target = instance if instance is not None else vars(owner).get("_gate_class", self.owner._gate_base)
        return target._dunder("from_base", _start(self.owner), self.name)


def _from_base(name: str):
    def call(self, *args, **kwargs):
        mirror_class = next(c for c in type(self).__mro__ if type(c) is _Mirror and "_gate_base" in vars(c))
        return self._dunder("call_from_base", _start(mirror_class), name, list(args), kwargs)
    call.__name__ = name
    return call


def instance(cls, handle_class: type, number: int, meta: dict):
    """A handle on an instance of the sandbox's twin of `cls`, as an instance of the test's own class."""
    if not (isinstance(cls, type) and issubclass(cls, handle_class) and type(cls) is _Mirror):
        return handle_class(number, meta)
    made = object.__new__(cls)
    handle_class.__init__(made, number, meta)
    return made
