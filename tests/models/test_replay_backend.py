"""replay:PATH: verbatim strings, re-serialised objects, missing targets, unknown keys, bad files."""

from __future__ import annotations

import json

import pytest

from drafter.errors import ModelError
from drafter.models import load_backend

RAW = 'Sure! ```json\n{"candidates": []}\n```'


def test_strings_verbatim_objects_serialised_missing_reported(tmp_path, prompts_for, extraction_of, build_target):
    obj = {"candidates": [{"name": "b", "kind": "bound"}], "a": 1}
    path = tmp_path / "replies.json"
    path.write_text(json.dumps({"pkg.mod:f": RAW, "pkg.mod:g": obj, "pkg.mod:ghost": "x", "pkg.mod:n": 3}))
    be = load_backend(f"replay:{path}")
    ids = ["pkg.mod:f", "pkg.mod:g", "pkg.mod:h", "pkg.mod:n"]
    seen = []
    f, g, h, n = be.propose(prompts_for(ids), extraction_of([build_target(i.split(":")[1]) for i in ids]), seen.append)
    assert f.text == RAW and f.error is None
    assert g.text == json.dumps(obj, sort_keys=True, indent=2) and json.loads(g.text) == obj
    assert h.text is None and h.error == f"no reply for this target in {path}"
    assert n.text is None and "pkg.mod:n" in n.error and "int" in n.error
    assert be.unknown_targets == ("pkg.mod:ghost",)
    assert len(seen) == 4 and be.name == f"replay:{path}"


@pytest.mark.parametrize("content, words", [(None, "cannot be read"), ("{not json", "not valid JSON"),
                                             ("[1, 2]", "expected a JSON object")])
def test_bad_file_names_it(tmp_path, content, words):
    path = tmp_path / "replies.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(ModelError) as info:
        load_backend(f"replay:{path}")
    assert str(path) in str(info.value) and words in str(info.value)
    path.write_text("{}")  # the same path with a good file loads
    assert load_backend(f"replay:{path}").replies == {}
