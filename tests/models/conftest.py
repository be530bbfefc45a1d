"""Hand-built targets and prompts for the backend tests (the OpenAI-compatible server lives in tests/conftest.py)."""

from __future__ import annotations

import pytest

from drafter.data import Extraction, Param, Prompt, Target


def make_target(qualname: str, params: tuple[Param, ...] = (), returns: str | None = None, module: str = "pkg.mod",
                docstring: str | None = None, decorators: tuple[str, ...] = ()) -> Target:
    return Target(id=f"{module}:{qualname}", module=module, qualname=qualname, file="pkg/mod.py", line=1, end_line=2,
                  params=params, returns=returns, decorators=decorators, docstring=docstring, is_async=False,
                  fingerprint="0" * 16)


@pytest.fixture
def build_target():
    return make_target


@pytest.fixture
def prompts_for():
    """Prompts whose user text ends with the target id, so the server can tell targets apart."""

    def build(target_ids):
        return [Prompt(t, "system text", f"propose invariants for {t}") for t in target_ids]

    return build


@pytest.fixture
def extraction_of():
    def build(targets, classes=(), names=None):
        modules = {t.module for t in targets}
        module_names = names if names is not None else {
            m: tuple(sorted({t.qualname.split(".")[0] for t in targets if t.module == m} | {c.name for c in classes}))
            for m in modules}
        return Extraction(root="/nowhere", targets=tuple(targets), classes=tuple(classes), module_names=module_names)

    return build
