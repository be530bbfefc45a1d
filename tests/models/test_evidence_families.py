"""The evidence-driven families on real vendored code: sound on the real module, caught on a deliberately broken copy.

Each test runs the whole pipeline with the heuristic on a copy of a vendored package (bench/vendor/), once as it is
and once with a bug planted, and reads the soundness status of the candidates the new families wrote.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path


from drafter.config import Settings
from drafter.extract import extract
from drafter.models import load_backend
from drafter.pipeline import run

from .test_heuristic_backend import _prompt

VENDOR = Path(__file__).resolve().parents[2] / "bench" / "vendor"


def statuses(src: Path, workspace: Path, select: tuple[str, ...]) -> dict[str, str]:
    """candidate id -> soundness status, for every candidate the heuristic drafts for the selected targets."""
    # Soundness is all these tests read: no triage of the survivors (sabotage.triage), which costs CPU only.
    settings = Settings(model="heuristic", workspace=workspace, jobs=2, max_examples=30, seeds=2, select=select,
                        triage_examples=0)
    outcome = run(src, settings).outcome
    return {d.id: outcome.soundness[d.id].status for d in outcome.drafted
            if d.candidate is not None and d.id in outcome.soundness}


def copy_with(package: str, tmp_path: Path, label: str, edits: list[tuple[str, str, str]]) -> Path:
    """A copy of bench/vendor/<package> with each (file, old, new) replaced once; each edit must apply."""
    dest = tmp_path / label / package
    shutil.copytree(VENDOR / package, dest)
    for file, old, new in edits:
        path = dest / file
        text = path.read_text()
        assert text.count(old) >= 1, (file, old)
        path.write_text(text.replace(old, new, 1))
    return dest


INFLECTION = ("inflection:underscore", "inflection:camelize", "inflection:ordinal", "inflection:dasherize", "inflection:ordinalize", "inflection:transliterate")
INFLECTION_FAMILIES = ("inflection:underscore::underscore_is_idempotent",
                       "inflection:underscore::underscore_inverts_camelize",
                       "inflection:dasherize::result_has_no_underscores",
                       "inflection:ordinalize::ordinalize_endswith_ordinal",
                       "inflection:transliterate::result_is_ascii")
INFLECTION_BUGS = [
    ("inflection/__init__.py", "    word = word.replace(\"-\", \"_\")\n    return word.lower()",
     "    word = word.replace(\"-\", \"_\")\n    return word"),
    ("inflection/__init__.py", "return word.replace('_', '-')", "return word.replace('_', '_-')"),
    ("inflection/__init__.py", 'return "{}{}".format(number, ordinal(number))',
     'return "{}{}".format(ordinal(number), number)'),
    ("inflection/__init__.py", "return normalized.encode('ascii', 'ignore').decode('ascii')", "return normalized"),
]


def test_text_form_families_hold_on_inflection_and_catch_planted_bugs(tmp_path):
    real = statuses(copy_with("inflection", tmp_path, "real", []), tmp_path / "ws1", INFLECTION)
    broken = statuses(copy_with("inflection", tmp_path, "broken", INFLECTION_BUGS), tmp_path / "ws2", INFLECTION)
    for candidate in INFLECTION_FAMILIES:
        assert real[candidate] == "sound", (candidate, real)
    # Lower-casing removed: the round trip from snake_case words breaks (idempotence alone would not see it).
    assert broken["inflection:underscore::underscore_inverts_camelize"] == "unsound"
    for candidate in INFLECTION_FAMILIES[2:]:
        assert broken[candidate] == "unsound", (candidate, broken)


SEMVER = ("semver.version:Version.minor", "semver.version:Version.to_tuple", "semver.version:Version.bump_minor",
          "semver.version:Version.compare", "semver.version:Version.parse", "semver.version:Version.is_valid")
SEMVER_FAMILIES = ("semver.version:Version.minor::minor_reads_back_its_field",
                   "semver.version:Version.to_tuple::to_tuple_rebuilds_an_equal_version",
                   "semver.version:Version.bump_minor::bump_minor_returns_a_larger_version",
                   "semver.version:Version.bump_minor::bump_minor_adds_one_to_minor",
                   "semver.version:Version.compare::compare_is_antisymmetric",
                   "semver.version:Version.compare::compare_of_itself_is_zero",
                   "semver.version:Version.parse::parse_reads_what_str_writes",
                   "semver.version:Version.is_valid::is_valid_accepts_what_str_writes")
SEMVER_BUGS = [
    ("semver/version.py", 'self._minor = version_parts["minor"]', 'self._minor = version_parts["patch"]'),
    ("semver/version.py", "return (self.major, self.minor, self.patch, self.prerelease, self.build)",
     "return (self.major, self.patch, self.minor, self.prerelease, self.build)"),
    ("semver/version.py", "        if rc1 == rc2:\n            return 0", "        if rc1 == rc2:\n            return 1"),
    ("semver/version.py", 'version = "%d.%d.%d" % (self.major, self.minor, self.patch)',
     'version = "%d.%d.%d " % (self.major, self.minor, self.patch)'),
]


def test_method_families_hold_on_semver_and_catch_planted_bugs(tmp_path):
    real = statuses(copy_with("semver", tmp_path, "real", []), tmp_path / "ws1", SEMVER)
    broken = statuses(copy_with("semver", tmp_path, "broken", SEMVER_BUGS), tmp_path / "ws2", SEMVER)
    for candidate in SEMVER_FAMILIES:
        assert real[candidate] == "sound", (candidate, real)
    for candidate in ("semver.version:Version.minor::minor_reads_back_its_field",
                      "semver.version:Version.to_tuple::to_tuple_rebuilds_an_equal_version",
                      "semver.version:Version.compare::compare_is_antisymmetric",
                      "semver.version:Version.compare::compare_of_itself_is_zero",
                      "semver.version:Version.parse::parse_reads_what_str_writes",
                      "semver.version:Version.is_valid::is_valid_accepts_what_str_writes"):
        assert broken[candidate] == "unsound", (candidate, broken)


HUMANIZE = ("humanize.time:naturaldelta", "humanize.time:naturaltime", "humanize.time:precisedelta",
            "humanize.filesize:naturalsize")
HUMANIZE_BUGS = [
    ("humanize/time.py", 'return _("a moment")', "return None"),
    ("humanize/time.py", "return str(ago % delta)", "return None"),
    ("humanize/filesize.py", "    return ret", "    return bytes_"),
]


def test_lookup_keys_numeric_text_and_delegated_errors_make_humanize_candidates_sound(tmp_path):
    """Once unsound by the heuristic's own strategies: `minimum_unit` drawn as any text (KeyError in
    `Unit[minimum_unit.upper()]`, also one call away in naturaltime and per item in `suppress`), `value: float | str`
    drawn as any text (`float(value)`), and ValueErrors of the helpers the body calls treated as broken contracts."""
    src = copy_with("humanize", tmp_path, "real", [])
    replies = load_backend("heuristic").propose([_prompt(t) for t in HUMANIZE], extract(src))
    inputs = {r.target: json.loads(r.text)["candidates"][0]["inputs"] for r in replies}
    members = "st.sampled_from(['days', 'hours', 'microseconds', 'milliseconds', 'minutes', 'months', 'seconds', 'years'])"
    assert inputs["humanize.time:naturaldelta"]["minimum_unit"] == members
    assert inputs["humanize.time:naturaltime"]["minimum_unit"] == members
    assert inputs["humanize.time:precisedelta"]["suppress"] == f"st.lists({members}, max_size=3)"
    assert ".map(str)" in inputs["humanize.filesize:naturalsize"]["value"]
    real = statuses(src, tmp_path / "ws1", HUMANIZE)
    broken = statuses(copy_with("humanize", tmp_path, "broken", HUMANIZE_BUGS), tmp_path / "ws2", HUMANIZE)
    returns_str = [f"{t}::returns_str" for t in HUMANIZE]
    for candidate in returns_str:
        assert real[candidate] == "sound", (candidate, real)
    for candidate in (returns_str[0], returns_str[1], returns_str[3]):
        assert broken[candidate] == "unsound", (candidate, broken)


BODY_AND_PROSE = ("inflection:ordinal", "inflection:humanize", "inflection:titleize", "inflection:parameterize")
# candidate -> the mutant (by its description) it must kill by its own assertion
BODY_AND_PROSE_KILLS = {
    "inflection:ordinal::result_is_one_of_its_literals": '`return "th"` → `return ""`',
    "inflection:ordinal::sign_of_number_does_not_matter": "`abs(int(number))` → `int(number)`",
    "inflection:humanize::result_starts_with_a_capital": "`m.group(0).upper()` → `m.group(0)`",
    "inflection:titleize::every_word_starts_with_a_capital": "→ `return word`",
    "inflection:parameterize::result_is_url_safe": 'separator, string)` → `pass`',
}


def test_body_and_prose_families_are_kept_on_inflection_for_the_mutants_they_catch(tmp_path):
    """Results that are literals, a sign the body discards, capitals and URL-safety the docstring promises: each
    holds on the real module and kills, by its assertion, a mutant that breaks exactly what it claims."""
    settings = Settings(model="heuristic", workspace=tmp_path / "ws", jobs=2, max_examples=30, seeds=2,
                        select=BODY_AND_PROSE)
    outcome = run(copy_with("inflection", tmp_path, "real", []), settings).outcome
    verdicts = {d.id: d.verdict.stage for d in outcome.drafted}
    described = {m.id: m.description for m in outcome.mutants}
    for candidate, mutant in BODY_AND_PROSE_KILLS.items():
        assert verdicts[candidate] == "kept", (candidate, verdicts)
        killed = [described[r.mutant_id] for r in outcome.matrix.results
                  if r.candidate_id == candidate and r.outcome == "assertion"]
        assert any(mutant in d for d in killed), (candidate, killed)
