"""Static extraction of drafting targets from a read-only SRC folder (libcst; the code is never imported)."""

from __future__ import annotations

import ast
import dataclasses
import fnmatch
import hashlib
import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from drafter.data import ClassInfo, Extraction, ExtractError, Param, Target, Usage
from drafter.errors import SourceError
from drafter.exports import ModuleImports, public_paths, read_imports
from drafter.usage import _children, _collect_usage, _dotted, _tuple_names
from drafter.walk import is_private, iter_modules, list_corpus

ENUM_BASES = frozenset({"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag", "ReprEnum"})
SKIPPED_DECORATORS = ("overload", "typing.overload")  # stubs: the implementation below them is the target


def extract(src: Path, corpus_dirs: Sequence[Path] = (), select: Sequence[str] = (),
            include_private: bool = False) -> Extraction:
    """Every public function and method of SRC (what a public module re-exports from a private one too, under
    the public id), its classes and module names, and the corpus file names. `include_private` adds the rest.

    With `select`, only modules a glob can match are parsed, with the modules they import from and, for a private
    module, the public modules of the packages above it (which may re-export it)."""
    src = Path(src)
    if not src.exists():
        raise SourceError(f"SRC {src}: no such folder")
    if not src.is_dir():
        raise SourceError(f"SRC {src}: not a folder of Python modules")
    corpus = list_corpus(corpus_dirs)
    errors: list[ExtractError] = []
    passed_over: list[ExtractError] = []
    files = dict((module, rel) for rel, module in iter_modules(src, errors, passed_over))
    known = set(files)
    packages = {m for m, rel in files.items() if rel.endswith("__init__.py")}
    parsed: dict[str, tuple[_Found, ModuleImports]] = {}
    pending = [m for m in files if _may_match(m, select)]
    # Who may re-export a selected private module: the public modules of the packages above it.
    above = {a for m in pending if is_private(m) for a in _ancestors(m)}
    pending += sorted(m for m in known if not is_private(m) and (m in above or m.rpartition(".")[0] in above))
    while pending:
        module = pending.pop(0)
        if module in parsed or module not in files:
            continue
        result = _parse(src, files[module], module, include_private, errors, known, module in packages)
        if result is None:
            continue
        parsed[module] = result
        if select:  # without a selection every module is parsed anyway
            imports = result[1]
            pending += [source for source, _ in imports.names.values()] + imports.stars
    definitions = {m: {t.qualname.split(".")[0] for t in f.targets} | {c.name.split(".")[0] for c in f.classes}
                   for m, (f, _) in parsed.items()}
    public = public_paths({m: i for m, (_, i) in parsed.items()}, definitions, packages)
    targets: dict[str, Target] = {}
    classes: list[ClassInfo] = []
    module_names: dict[str, tuple[str, ...]] = {}
    constants: dict[str, dict[str, tuple[str | int, ...]]] = {}
    for module, (found, _) in sorted(parsed.items()):
        hidden = False
        for target in found.targets:
            target = _public_target(target, public, include_private)
            if target is None:
                hidden = True
                continue
            targets[target.id] = target  # a later definition of the same name replaces the earlier one, as in Python
        if hidden:
            passed_over.append(ExtractError(files[module], _hidden_reason(found, public, module)))
        classes.extend(found.classes)
        module_names[module] = found.names
        if found.constants:
            constants[module] = found.constants
    kept = [t for t in targets.values() if not select or any(_selected(t, g) for g in select)]
    return Extraction(
        root=str(src.resolve()),
        targets=tuple(sorted(kept, key=lambda t: (t.file, t.line, t.id))),
        classes=tuple(sorted(classes, key=lambda c: (c.module, c.name))),
        errors=tuple(sorted(errors, key=lambda e: (e.file, e.reason))),
        corpus=corpus,
        module_names=dict(sorted(module_names.items())),
        constants=dict(sorted(constants.items())),
        passed_over=tuple(sorted(passed_over, key=lambda e: (e.file, e.reason))),
    )


def _parse(src: Path, rel: str, module: str, include_private: bool, errors: list[ExtractError], known: set[str],
           is_package: bool) -> tuple[_Found, ModuleImports] | None:
    try:
        tree = cst.parse_module((src / rel).read_bytes())
    except cst.ParserSyntaxError as exc:
        reason = f"syntax error at line {exc.editor_line}, column {exc.editor_column}: {exc.message}"
        errors.append(ExtractError(rel, reason))
        return None
    except (OSError, UnicodeDecodeError, LookupError, SyntaxError) as exc:
        errors.append(ExtractError(rel, f"cannot read: {exc}"))
        return None
    try:
        found = _ModuleAnalysis(tree, module, rel, include_private).run()
        imports = read_imports(_statements(tree.body), module, is_package, known)
    except Exception as exc:  # noqa: BLE001 - one odd file (deep nesting, libcst limits) must not stop the others
        errors.append(ExtractError(rel, f"cannot analyse: {type(exc).__name__}: {exc}"))
        return None
    return found, imports


def _may_match(module: str, select: Sequence[str]) -> bool:
    """Whether some glob of `select` can match a target defined in or re-exported by `module`."""
    return not select or any(":" not in g or fnmatch.fnmatchcase(module, g.split(":", 1)[0]) for g in select)


def _ancestors(module: str) -> list[str]:
    parts = module.split(".")
    return [".".join(parts[:n]) for n in range(1, len(parts))]


def _selected(target: Target, glob: str) -> bool:
    """A glob matches the public id or where the target is defined (`pathvalidate._filename:*`)."""
    return fnmatch.fnmatchcase(target.id, glob) or fnmatch.fnmatchcase(f"{target.module}:{target.qualname}", glob)


def _public_target(target: Target, public: dict[tuple[str, str], str], include_private: bool) -> Target | None:
    """The target under the id users call it by; None for a private one nobody re-exports (unless included)."""
    if not is_private(target.module):
        return target
    exported_from = public.get((target.module, target.qualname.split(".")[0]))
    if exported_from is not None:
        return dataclasses.replace(target, id=f"{exported_from}:{target.qualname}")
    return target if include_private else None


def _hidden_reason(found: _Found, public: dict[tuple[str, str], str], module: str) -> str:
    names = sorted({t.qualname.split(".")[0] for t in found.targets if (module, t.qualname.split(".")[0]) not in public})
    shown = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
    return (f"a private module: {shown} not re-exported by a public module (a package __init__ importing it, "
            "or __all__), so not drafted; --include-private drafts them")


# ---------------------------------------------------------------- one module


def _public(qualname: str, include_private: bool = False) -> bool:
    """No part private; with `include_private`, no part a dunder (`__init__`, `__eq__` are not drafted alone)."""
    if include_private:
        return not any(part.startswith("__") and part.endswith("__") for part in qualname.split("."))
    return not any(part.startswith("_") for part in qualname.split("."))


def _normalised(text: str | None) -> str | None:
    """Expression text with formatting and comments removed, so layout changes do not change fingerprints."""
    if text is None:
        return None
    try:
        return ast.unparse(ast.parse(text.strip(), mode="eval"))
    except SyntaxError:
        return " ".join(text.split())


class _Found:
    def __init__(self) -> None:
        self.targets: list[Target] = []
        self.classes: list[ClassInfo] = []
        self.names: tuple[str, ...] = ()
        self.constants: dict[str, tuple[str | int, ...]] = {}


# Compound statements whose blocks still define names of the enclosing module or class body.
_BLOCKS = (cst.If, cst.Else, cst.Try, cst.TryStar, cst.ExceptHandler, cst.ExceptStarHandler, cst.Finally, cst.With,
           cst.For, cst.While)


def _statements(body: Sequence[cst.CSTNode]) -> Iterator[cst.CSTNode]:
    """The statements of a module or class body, looking through if/try/with blocks but not into defs."""
    for statement in body:
        if isinstance(statement, cst.SimpleStatementLine):
            yield from statement.body
            continue
        yield statement
        if isinstance(statement, _BLOCKS):
            block = statement.body
            yield from _statements(block.body if isinstance(block, cst.IndentedBlock) else [block])
            for part in ("orelse", "handlers", "finalbody"):
                child = getattr(statement, part, None)
                for item in child if isinstance(child, tuple | list) else [child] if child else []:
                    yield from _statements([item])


def _assigned_names(statement: cst.CSTNode) -> list[str]:
    if isinstance(statement, cst.Assign):
        targets = [t.target for t in statement.targets]
    elif isinstance(statement, (cst.AnnAssign, cst.AugAssign)):
        targets = [statement.target]
    else:
        return []
    names: list[str] = []
    while targets:
        target = targets.pop(0)
        if isinstance(target, cst.Name):
            names.append(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            targets += [e.value for e in target.elements]
    return names


class _ModuleAnalysis:
    """One walk over a parsed module's definitions. Qualified names come from the nesting of class bodies (what
    QualifiedNameProvider reports for local definitions, at a fraction of its cost); lines from PositionProvider."""

    def __init__(self, tree: cst.Module, module: str, rel: str, include_private: bool = False) -> None:
        self.include_private = include_private
        self.tree = tree
        self.module = module
        self.rel = rel
        self.found = _Found()
        self.enum_classes: set[str] = set()
        self.positions = MetadataWrapper(tree, unsafe_skip_copy=True).resolve(PositionProvider)

    def run(self) -> _Found:
        self._body(self.tree.body, prefix="")
        self.found.names = self._module_names()
        self.found.constants = self._constants()
        return self.found

    def _code(self, node: cst.CSTNode) -> str:
        text = self.tree.code_for_node(node).strip()
        # Only an expression spread over lines can carry layout or comments worth dropping.
        return (_normalised(text) or text) if "\n" in text else text

    def _body(self, body: Sequence[cst.CSTNode], prefix: str) -> None:
        for statement in _statements(body):
            if isinstance(statement, cst.FunctionDef):
                self._function(statement, prefix + statement.name.value)
            elif isinstance(statement, cst.ClassDef):
                self._class(statement, prefix + statement.name.value)

    # -- functions and methods

    def _function(self, node: cst.FunctionDef, qualname: str) -> None:
        if not _public(qualname, self.include_private):
            return
        decorators = tuple(self._code(d.decorator) for d in node.decorators)
        if any(d in SKIPPED_DECORATORS or d.endswith((".setter", ".deleter")) for d in decorators):
            return
        usage, unpacked = _collect_usage(node, self.positions)
        params = tuple(self._params(node, usage, unpacked))
        returns = self._code(node.returns.annotation) if node.returns else None
        docstring = node.get_docstring(clean=True)
        is_async = node.asynchronous is not None
        where = self.positions[node]
        self.found.targets.append(
            Target(
                id=f"{self.module}:{qualname}",
                module=self.module,
                qualname=qualname,
                file=self.rel,
                line=where.start.line,
                end_line=where.end.line,
                params=params,
                returns=returns,
                decorators=decorators,
                docstring=docstring,
                is_async=is_async,
                fingerprint=fingerprint(qualname, params, returns, decorators, docstring, is_async),
            )
        )

    def _params(
        self,
        node: cst.FunctionDef,
        usage: Mapping[str, tuple[Usage, ...]] | None = None,
        unpacked: Mapping[str, tuple[str, ...]] | None = None,
    ) -> Iterator[Param]:
        p = node.params
        star = [p.star_arg] if isinstance(p.star_arg, cst.Param) else []
        kwargs = [p.star_kwarg] if p.star_kwarg else []
        groups = (
            ("positional_only", p.posonly_params),
            ("positional_or_keyword", p.params),
            ("var_positional", star),
            ("keyword_only", p.kwonly_params),
            ("var_keyword", kwargs),
        )
        for kind, members in groups:
            for param in members:
                yield Param(
                    name=param.name.value,
                    kind=kind,
                    annotation=self._code(param.annotation.annotation) if param.annotation else None,
                    default=self._code(param.default) if param.default else None,
                    usage=(usage or {}).get(param.name.value, ()),
                    unpacked=(unpacked or {}).get(param.name.value, ()),
                )

    # -- classes

    def _class(self, node: cst.ClassDef, qualname: str) -> None:
        if not _public(qualname, self.include_private):
            return
        bases = {_dotted(b.value).rsplit(".", 1)[-1] for b in node.bases}
        decorators = {_dotted(d.decorator) for d in node.decorators}
        methods = [s for s in _statements(node.body.body) if isinstance(s, cst.FunctionDef)]
        if bases & (ENUM_BASES | self.enum_classes):
            self.enum_classes.add(node.name.value)
            info = ClassInfo(self.module, qualname, "enum", members=self._enum_members(node))
        elif decorators & {"dataclass", "dataclasses.dataclass"}:
            fields = _with_unpacked(self._dataclass_fields(node), methods)
            info = ClassInfo(self.module, qualname, "dataclass", fields=fields)
        else:
            init = next((m for m in methods if m.name.value == "__init__"), None)
            fields = _with_unpacked((f for f in self._params(init) if f.name != "self") if init else (), methods)
            info = ClassInfo(self.module, qualname, "class", fields=fields)
        self.found.classes.append(info)
        self._body(node.body.body, prefix=qualname + ".")

    def _enum_members(self, node: cst.ClassDef) -> tuple[str, ...]:
        members: list[str] = []
        for statement in _statements(node.body.body):
            if isinstance(statement, cst.AnnAssign) and statement.value is None:
                continue  # a bare annotation is not a member
            if not isinstance(statement, cst.AugAssign):
                members += [n for n in _assigned_names(statement) if not n.startswith("_")]
        return tuple(members)

    def _dataclass_fields(self, node: cst.ClassDef) -> Iterator[Param]:
        kind = "keyword_only" if self._dataclass_kw_only(node) else "positional_or_keyword"
        for statement in _statements(node.body.body):
            if not isinstance(statement, cst.AnnAssign) or not isinstance(statement.target, cst.Name):
                continue
            head = _dotted(statement.annotation.annotation).rsplit(".", 1)[-1]
            if head == "KW_ONLY":
                kind = "keyword_only"
                continue
            if head == "ClassVar" or self._init_false(statement.value):
                continue
            annotation = self._code(statement.annotation.annotation)
            default = self._code(statement.value) if statement.value is not None else None
            yield Param(statement.target.value, kind, annotation, default)

    @staticmethod
    def _dataclass_kw_only(node: cst.ClassDef) -> bool:
        for decorator in node.decorators:
            if isinstance(decorator.decorator, cst.Call):
                for arg in decorator.decorator.args:
                    if arg.keyword and arg.keyword.value == "kw_only" and _dotted(arg.value) == "True":
                        return True
        return False

    @staticmethod
    def _init_false(value: cst.BaseExpression | None) -> bool:
        if not isinstance(value, cst.Call) or _dotted(value.func).rsplit(".", 1)[-1] != "field":
            return False
        return any(a.keyword and a.keyword.value == "init" and _dotted(a.value) == "False" for a in value.args)

    # -- module names

    def _module_names(self) -> tuple[str, ...]:
        names: set[str] = set()
        exported: list[str] = []
        for statement in _statements(self.tree.body):
            if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
                names.add(statement.name.value)
            assigned = _assigned_names(statement)
            names.update(assigned)
            if "__all__" in assigned and isinstance(statement.value, (cst.List, cst.Tuple, cst.Set)):
                exported += [
                    e.value.evaluated_value for e in statement.value.elements if isinstance(e.value, cst.SimpleString)
                ]
        return tuple(sorted({n for n in names if not n.startswith("_")} | set(exported)))


    def _constants(self) -> dict[str, tuple[str | int, ...]]:
        """Public names bound once, at module level, to a literal collection of strings or of ints."""
        values: dict[str, tuple[str | int, ...] | None] = {}
        for statement in _statements(self.tree.body):
            assigned = _assigned_names(statement)
            for name in assigned:
                values[name] = None if name in values else _literal_collection(statement, self.tree)
        return {n: v for n, v in sorted(values.items()) if v is not None and not n.startswith("_")}


COLLECTION_CALLS = ("tuple", "list", "set", "frozenset")


def _literal_collection(statement: cst.CSTNode, tree: cst.Module) -> tuple[str | int, ...] | None:
    """The values of `NAME = (...)`, `[...]`, `{...}` or `frozenset({...})` of two or more strs or ints (not bools)."""
    if not isinstance(statement, (cst.Assign, cst.AnnAssign)) or statement.value is None:
        return None
    if isinstance(statement, cst.Assign) and not (
        len(statement.targets) == 1 and isinstance(statement.targets[0].target, cst.Name)
    ):
        return None
    value = statement.value
    if isinstance(value, cst.Call) and _dotted(value.func) in COLLECTION_CALLS and len(value.args) == 1:
        value = value.args[0].value
    if not isinstance(value, (cst.Tuple, cst.List, cst.Set)):
        return None
    try:
        items = ast.literal_eval(tree.code_for_node(value))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    kinds = {type(item) for item in items}
    if len(items) < 2 or len(kinds) != 1 or kinds - {str, int}:
        return None
    return tuple(sorted(items)) if isinstance(items, (set, frozenset)) else tuple(items)


def _with_unpacked(fields: Iterator[Param] | Sequence[Param], methods: Sequence[cst.FunctionDef]) -> tuple[Param, ...]:
    """Fields with the names methods unpack their elements into (`for tag, text in self.lines`)."""
    fields = tuple(fields)
    if not fields:
        return fields
    found: dict[str, tuple[str, ...]] = {}
    for method in methods:
        pending: list[cst.CSTNode] = [method.body]
        while pending:
            node = pending.pop()
            attribute = getattr(node, "iter", None)
            if isinstance(attribute, cst.Attribute) and _dotted(attribute.value) == "self":
                names = _tuple_names(node)
                if names:
                    found.setdefault(attribute.attr.value, names)
            pending.extend(_children(node))
    return tuple(dataclasses.replace(f, unpacked=found[f.name]) if f.name in found else f for f in fields)


def fingerprint(
    qualname: str,
    params: Sequence[Param],
    returns: str | None,
    decorators: Sequence[str],
    docstring: str | None,
    is_async: bool,
) -> str:
    """sha256 (16 hex digits) of the normalised signature and docstring; the body and layout do not count."""
    signature = {
        "qualname": qualname,
        "async": is_async,
        "decorators": [_normalised(d) for d in decorators],
        "params": [[p.name, p.kind, _normalised(p.annotation), _normalised(p.default)] for p in params],
        "returns": _normalised(returns),
        "docstring": docstring,
    }
    return hashlib.sha256(json.dumps(signature, sort_keys=True).encode()).hexdigest()[:16]
