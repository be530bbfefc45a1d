"""report.md: what a reviewer needs first — per target, the kept candidates, then the holes, then the rejections.

It stays readable on large runs: surviving mutants are listed only for targets with a candidate that held on the
clean code (the others met no mutant), and long lists stop after a few items with a count and a pointer to
report.html and report.json, which hold everything.
"""

from __future__ import annotations

from collections import defaultdict

from drafter.report.entries import FACED_MUTANTS, RunReport, by_target, overall_score, score_without_no_difference
from drafter.report.rounds import rounds_markdown, score_by_round

SHOWN_SURVIVORS = 5  # per target
SHOWN_REJECTIONS = 10  # per reason
SHOWN_KILLS = 8  # per kept candidate
ELSEWHERE = "report.html (all of them, collapsed) and report.json"


def _fence(text: str, lang: str = "") -> str:
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}{lang}\n{text.rstrip()}\n{fence}"


def _score(killed: int, total: int) -> str:
    return f"{killed}/{total} ({killed / total:.0%})" if total else "no mutants"


def _triage_lines(report: RunReport) -> list[str]:
    """The survivors' triage and the score beside the plain one, when triage ran."""
    t = report.summary.get("triage") or {}
    if not any(t.get(k) for k in ("distinguished", "no_difference_found", "not_triaged")):
        return []
    plain, told_apart = overall_score(report), score_without_no_difference(report)
    return [
        f"Surviving mutants triaged by a differential search: {t['distinguished']} distinguished (an input on which "
        f"they differ from the original), {t['no_difference_found']} with no difference found (likely equivalent, "
        f"not proven), {t['not_triaged']} not triaged"
        + (f" ({report.summary['seconds']['triage']:.1f} s)" if "triage" in report.summary.get("seconds", {}) else "")
        + ". "
        f"Mutation score {_percent(plain)} over all mutants, {_percent(told_apart)} over mutants not marked "
        "no difference found.",
        "",
    ]


def _percent(score: float | None) -> str:
    return "–" if score is None else f"{score:.1%}"


def _triage_rank(mutant) -> int:
    return {"distinguished": 0, "no_difference_found": 2}.get((mutant.triage or {}).get("status"), 1)


def _triage_mark(triage: dict | None) -> str:
    if not triage:
        return ""
    if triage["status"] == "distinguished":
        return f" · told apart on <code>{_html(triage['call'])}</code>"
    if triage["status"] == "no_difference_found":
        tried = f" in {triage['examples']} examples" if triage["examples"] > 0 else ""
        return f" · no difference found{tried} (likely equivalent)"
    return " · not triaged"


def _triage_detail(triage: dict | None) -> list[str]:
    if not triage:
        return []
    if triage["status"] == "distinguished":
        return [f"On `{triage['call']}` the original {triage['original']}; the mutant {triage['mutant']} "
                f"(inputs from {triage['inputs']}).", ""]
    if triage["status"] == "not_triaged" and triage.get("detail"):
        return [f"Not triaged: {triage['detail']}", ""]
    return []


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def render_markdown(report: RunReport) -> str:
    s = report.summary
    lines = [
        f"# Sabotage-survival report `{report.run_id}`",
        "",
        f"Source `{report.source['path']}`"
        + (f" at commit `{report.source['git_commit'][:12]}`" if report.source.get("git_commit") else "")
        + f", tree `{report.source['tree_hash'][:12]}`; model `{report.model}`.",
        "",
        f"**{s['kept']} kept** of {s['candidates']} candidates for {s['targets']} targets; "
        f"mutants: {s['mutants']['killed']} killed, {s['mutants']['timeout']} killed by timeout, "
        f"{s['mutants']['survived']} survived, {s['mutants']['not_reached']} not reached (no candidate executes the "
        f"changed lines), {s['mutants']['not_evaluated']} not evaluated (no sound candidate; outside every score), "
        f"{s['mutants']['invalid']} invalid "
        f"({s['mutants']['dropped_equivalent']} equivalent and {s['mutants']['dropped_duplicate']} duplicate mutants dropped before running).",
        "",
        "Nothing here is an oracle yet: review each kept file, then `drafter promote` it into `oracle/properties/`.",
        "",
    ] + _triage_lines(report)
    if report.warnings:
        lines += ["## Warnings", ""] + [f"- {w}" for w in report.warnings] + [""]
    lines += rounds_markdown(report)

    candidates_by_target, mutants_by_target = by_target(report.candidates), by_target(report.mutants)
    mutant_descriptions = {m.id: m.description for m in report.mutants}

    lines += ["## Targets", ""]
    for target in report.targets:
        lines += [f"### `{target.id}`", ""]
        lines.append(
            f"{target.file}:{target.line} · fingerprint `{target.fingerprint}` · "
            f"mutation score {_score(target.killed, target.mutants)}"
            + (f" (by round: {score_by_round(report, target.id)})" if score_by_round(report, target.id) else "")
            + (f" · {target.not_reached} not reached" if target.not_reached else "")
            + (f" · {target.not_evaluated} not evaluated" if target.not_evaluated else "")
            + (f" · {_score(target.killed, target.mutants - target.no_difference_found)} without the "
               f"{target.no_difference_found} with no difference found" if target.no_difference_found else "")
        )
        lines.append("")
        if target.note:
            lines += [f"No accepted candidate: {target.note}.", ""]
        kept = [c for c in candidates_by_target[target.id] if c.status == "kept"]
        if kept:
            lines += ["**Kept**", ""]
            for c in kept:
                lines.append(f"- `{c.name}` ({c.kind}, round {c.round}) → `{c.file}`")
                lines.append(f"  - kills {len(c.kills)}: "
                             + "; ".join(mutant_descriptions.get(k, k) for k in c.kills[:SHOWN_KILLS]))
                if len(c.kills) > SHOWN_KILLS:
                    lines.append(f"  - … and {len(c.kills) - SHOWN_KILLS} more")
            lines.append("")
        faced = any(c.stage in FACED_MUTANTS for c in candidates_by_target[target.id])
        for status, heading, more in (
                ("survived", "Surviving mutants ({n})**: holes in the oracle, or equivalent mutants.", "surviving mutants"),
                ("not_reached", "Mutants not reached ({n})**: no candidate's inputs execute the changed lines, so none "
                                "was run; holes in what the oracle exercises.", "mutants not reached")):
            shown = [m for m in mutants_by_target[target.id] if m.status == status] if faced else []
            if shown:
                lines += ["**" + heading.format(n=len(shown)), ""]
                for m in sorted(shown, key=_triage_rank)[:SHOWN_SURVIVORS]:
                    lines += [f"<details><summary><code>{m.id}</code>: {m.description}{_triage_mark(m.triage)}</summary>",
                              "", *_triage_detail(m.triage), _fence(m.diff, "diff"), "", "</details>", ""]
                if len(shown) > SHOWN_SURVIVORS:
                    lines += [f"… and {len(shown) - SHOWN_SURVIVORS} more {more} of this target in {ELSEWHERE}.", ""]

    rejected = [c for c in report.candidates if c.status == "rejected"]
    if rejected:
        lines += ["## Rejections by reason", ""]
        groups = defaultdict(list)
        for c in rejected:
            groups[(c.stage, c.reason)].append(c)
        for (stage, reason), items in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1] or "")):
            lines += [f"### {reason} (stage `{stage}`, {len(items)})", ""]
            for c in items[:SHOWN_REJECTIONS]:
                lines.append(f"- `{c.id}`: {c.detail or reason}")
                if c.counterexample:
                    lines += ["", _fence(c.counterexample), ""]
            if len(items) > SHOWN_REJECTIONS:
                lines.append(f"- … and {len(items) - SHOWN_REJECTIONS} more rejected as `{reason}` in {ELSEWHERE}")
            lines.append("")

    cpu = s.get("cpu_seconds", {})
    lines += ["## Numbers", "", "| stage | wall seconds | CPU seconds |", "|---|---:|---:|"]
    lines += [f"| {stage} | {sec:.2f} | {cpu[stage]:.2f} |" if stage in cpu else f"| {stage} | {sec:.2f} | |"
              for stage, sec in s["seconds"].items()]
    lines += [
        "",
        f"Kill matrix: {s['matrix']['evaluations']} evaluations in {s['matrix']['seconds']:.2f} s "
        f"({s['matrix']['test_seconds']:.2f} s inside whole Hypothesis runs, "
        f"{s['matrix'].get('timeout_seconds', 0.0):.2f} CPU s of them in runs over budget); "
        f"{s['matrix'].get('not_reached_pairs', 0)} pairs not reached, not run.",
        f"Model tokens: {s['tokens']['total_tokens']} ({s['tokens']['prompt_tokens']} prompt, {s['tokens']['completion_tokens']} completion).",
        "",
    ]
    return "\n".join(lines)
