"""`oracle-gate`: each part a subcommand. Exit codes: 0 pass, 2 blocked, 3 usage or environment error.

Every error (unreadable or malformed file, unknown revision, bad option) is a non-zero exit, never a pass.
"""

import json
import sys
import textwrap
from importlib.metadata import version
import traceback
from pathlib import Path
from typing import Callable, Optional

import typer
from rich.console import Console
from rich.table import Table

from gate import ledger as ledger_mod
from gate.check import EXIT_BLOCKED, EXIT_PASS, EXIT_USAGE, Check, GateError, failed, read_json
from gate.cochange import check_cochange
from gate.deny import check_deny
from gate.lock import verify_lock, verify_sidecars, write_lock
from gate.seal import add_row, verify_drafted_locks, verify_manifest

# gate.classify, gate.snapshot and gate.verdict load libcst; they are imported by the commands that need them
# so every other command starts fast.


class GateApp(typer.Typer):
    """Typer app whose usage errors exit 3, so they never look like 0 (pass) or 2 (blocked)."""

    def __call__(self, *args, **kwargs):
        try:
            code = super().__call__(*args, standalone_mode=False, **kwargs)
        except typer.Abort:
            code = EXIT_USAGE
        except Exception as exc:  # click's usage errors carry show(); anything else is a bug, still not a pass
            if hasattr(exc, "show") and hasattr(exc, "exit_code"):
                exc.show()
            else:
                traceback.print_exc()
            code = EXIT_USAGE
        sys.exit(code if isinstance(code, int) else EXIT_PASS)


app = GateApp(help=__doc__, no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)
lock_app = typer.Typer(help="Fixture lock: sha256 per file under a folder, and sidecar digests.")
seal_app = typer.Typer(help="Sealed fixture manifest.")
flake_app = typer.Typer(help="Flake ledger: record results; admit/release are the human commands.")


def _version(value: bool) -> None:
    if value:
        print(f"oracle-gate {version('drafter')}")
        raise typer.Exit(EXIT_PASS)


@app.callback()
def main(show_version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                           help="print the version and exit")) -> None:
    """oracle-gate: decide whether a patch may merge, from evidence the patch cannot rewrite."""


app.add_typer(lock_app, name="lock")
app.add_typer(seal_app, name="seal")
app.add_typer(flake_app, name="flake")
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)

JsonOpt = typer.Option(False, "--json", help="print the result as JSON")


def _emit(check: Check, as_json: bool) -> None:
    if as_json:
        print(json.dumps(check.to_json(), indent=2, sort_keys=True))
    else:
        out.print(f"{check.name}: {'PASS' if check.ok else 'BLOCKED'}", markup=False)
        for reason in check.reasons:
            out.print(f"  {reason}", markup=False)


def _finish(make: Callable[[], Check], as_json: bool, name: str) -> None:
    try:
        check = make()
    except GateError as exc:
        err.print(f"oracle-gate {name}: error: {exc}", markup=False)
        if as_json:
            print(json.dumps(failed(name, exc).to_json(), indent=2, sort_keys=True))
        raise typer.Exit(EXIT_USAGE)
    _emit(check, as_json)
    raise typer.Exit(EXIT_PASS if check.ok else EXIT_BLOCKED)


def _json_object(text: str, flag: str) -> dict:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise GateError(f"{flag} is not JSON: {exc.msg}") from None
    if not isinstance(value, dict):
        raise GateError(f"{flag} must be a JSON object")
    return value


@lock_app.command("write")
def lock_write(root: Path = typer.Option(..., "--root"), lock: Path = typer.Option(..., "--lock"),
               as_json: bool = JsonOpt) -> None:
    """Write the lock: sha256 per file under ROOT, sorted, stable JSON."""
    _finish(lambda: write_lock(root, lock), as_json, "lock")


@lock_app.command("verify")
def lock_verify(root: Path = typer.Option(..., "--root"), lock: Path = typer.Option(..., "--lock"),
                as_json: bool = JsonOpt) -> None:
    """Fail on any missing:, changed: or untracked: file."""
    _finish(lambda: verify_lock(root, lock), as_json, "lock")


@lock_app.command("sidecars")
def lock_sidecars(folder: Path = typer.Argument(...), as_json: bool = JsonOpt) -> None:
    """Check every `x.sha256` sidecar against the file `x` beside it."""
    _finish(lambda: verify_sidecars(folder), as_json, "sidecars")


@seal_app.command("verify")
def seal_verify(manifest: Path = typer.Option(..., "--manifest"), as_json: bool = JsonOpt) -> None:
    """Every sealed row matches its bytes and no file in the fixtures folder is unsealed."""
    _finish(lambda: verify_manifest(manifest), as_json, "seal")


@seal_app.command("add")
def seal_add(manifest: Path = typer.Option(..., "--manifest"), fixture_id: str = typer.Option(..., "--id"),
             path: str = typer.Option(..., "--path", help="relative to the manifest's folder"),
             extra: str = typer.Option("{}", "--extra", help="JSON object of extra keys, e.g. must_remain"),
             as_json: bool = JsonOpt) -> None:
    """Oracle owner: seal one fixture file (replaces the row with the same id or path)."""
    def make() -> Check:
        keys = _json_object(extra, "--extra")
        if {"id", "path", "sha256"} & set(keys):
            raise GateError("--extra must not set id, path or sha256")
        return add_row(manifest, fixture_id, path, keys)
    _finish(make, as_json, "seal")


@app.command()
def init(repo: Path = typer.Option(Path("."), "--repo", help="repository root to create the oracle in"),
         oracle: str = typer.Option("oracle", "--oracle", help="oracle folder relative to the root"),
         policy: str = typer.Option("hysteresis", "--policy", help="flake ledger policy: " + ", ".join(ledger_mod.POLICIES)),
         params: str = typer.Option("{}", "--params", help="JSON object overriding the policy defaults"),
         as_json: bool = JsonOpt) -> None:
    """Create oracle/ (deny list, properties with a conftest, empty sealed manifest, ledger) and an oracle-owned
    pytest.ini; refuses to overwrite anything."""
    from gate.init import init_oracle

    _finish(lambda: init_oracle(repo, oracle, policy, _json_object(params, "--params")), as_json, "init")


@seal_app.command("drafted")
def seal_drafted(oracle_dir: Path = typer.Argument(Path("oracle"), help="oracle folder holding drafted.lock.json files"),
                 as_json: bool = JsonOpt) -> None:
    """Promoted property files match the sha256 their drafted.lock.json records (`drafter promote` writes it)."""
    _finish(lambda: verify_drafted_locks(oracle_dir), as_json, "drafted-lock")


@app.command()
def snapshot(root: Path = typer.Argument(..., help="repository root"),
             out_file: Optional[Path] = typer.Option(None, "--out", help="write a snapshot before the agent runs"),
             compare: Optional[Path] = typer.Option(None, "--compare", help="compare after the agent ran"),
             oracle: str = typer.Option("oracle", "--oracle", help="oracle folder relative to the root"),
             as_json: bool = JsonOpt) -> None:
    """Snapshot the oracle surface (oracle folder, conftests, pytest config, plugins, site hooks)."""
    if (out_file is None) == (compare is None):
        raise typer.BadParameter("give exactly one of --out FILE or --compare FILE")
    from gate.snapshot import compare_snapshot, write_snapshot

    if out_file is not None:
        _finish(lambda: write_snapshot(root, out_file, oracle), as_json, "snapshot")
    _finish(lambda: compare_snapshot(root, compare, oracle), as_json, "snapshot")


@app.command()
def deny(deny_list: Path = typer.Option(..., "--deny", help="gitignore-style deny list"),
         patch: Optional[Path] = typer.Option(None, "--patch", help="unified or git diff"),
         base: Optional[str] = typer.Option(None, "--base", help="read the deny list (and changes) from REV"),
         repo: Path = typer.Option(Path("."), "--repo"),
         app_dir: Optional[Path] = typer.Option(None, "--app", help="tree the patch applies to (default --repo)"),
         as_json: bool = JsonOpt) -> None:
    """Fail if the patch writes any denied path, as `git apply` writes it in a copy (both sides of a rename)."""
    _finish(lambda: check_deny(deny_list, patch, base, repo, app_dir), as_json, "deny")


@app.command()
def cochange(base: str = typer.Option(..., "--base"), src: str = typer.Option("src", "--src"),
             oracle: str = typer.Option("oracle", "--oracle"), repo: Path = typer.Option(Path("."), "--repo"),
             as_json: bool = JsonOpt) -> None:
    """Fail when one commit in base..HEAD touches both the production and the oracle tree."""
    _finish(lambda: check_cochange(repo, base, src, oracle), as_json, "cochange")


@app.command()
def classify(base: str = typer.Option(..., "--base"), tests: str = typer.Option("tests", "--tests"),
             prod: str = typer.Option("src,app,lib", "--prod"),
             ledger: Optional[Path] = typer.Option(None, "--ledger", help="frozen/quarantined tests are witnesses"),
             oracle: str = typer.Option("oracle", "--oracle", help="oracle folder whose properties vote too"),
             repo: Path = typer.Option(Path("."), "--repo"), as_json: bool = JsonOpt) -> None:
    """Label each test vote | non_voting | witness; blocks when neither a test nor the oracle votes."""
    from gate.classify import check_classify

    def make() -> Check:
        witnesses = {}
        if ledger is not None:
            led = ledger_mod.load_ledger(ledger)
            witnesses = {t: s.reason for t, s in ledger_mod.states(led, repo).items() if not s.votes}
        return check_classify(repo, base, tests, prod, witnesses, oracle)
    _finish(make, as_json, "classify")


@flake_app.command("init")
def flake_init(ledger: Path = typer.Option(..., "--ledger"),
               policy: str = typer.Option("hysteresis", "--policy", help=", ".join(ledger_mod.POLICIES)),
               params: str = typer.Option("{}", "--params", help="JSON object overriding the policy defaults"),
               as_json: bool = JsonOpt) -> None:
    """Create an empty ledger with a policy."""
    def make() -> Check:
        led = ledger_mod.init_ledger(ledger, policy, _json_object(params, "--params"))
        return Check("flake", True, (f"ledger {ledger} created with policy {led.policy}",), {"params": led.params})
    _finish(make, as_json, "flake")


@flake_app.command("record")
def flake_record(ledger: Path = typer.Option(..., "--ledger"), commit: str = typer.Option(..., "--commit"),
                 host: str = typer.Option(None, "--host", help="defaults to this machine's name"),
                 test: Optional[str] = typer.Option(None, "--test"),
                 outcome: Optional[str] = typer.Option(None, "--outcome", help=", ".join(ledger_mod.OUTCOMES)),
                 lane: str = typer.Option("vote", "--lane", help=", ".join(ledger_mod.LANES)),
                 seed: Optional[str] = typer.Option(None, "--seed", help="the frozen seed the result ran under"),
                 from_file: Optional[Path] = typer.Option(None, "--from", help="a gate pytest summary JSON"),
                 trusted: bool = typer.Option(False, "--trusted", help="confirm the results come from a trusted "
                                                                       "revision (base, main, scheduled rerun)"),
                 as_json: bool = JsonOpt) -> None:
    """Append results of a trusted revision (one test, or every result of a pytest run summary). Never changes
    membership."""
    def make() -> Check:
        if not trusted:
            raise GateError("only results of trusted revisions (the base, main, scheduled reruns) may enter the "
                            "flake window: pass --trusted to confirm; results of gated patches never count")
        host_name = host or ledger_mod.default_host()
        if from_file is not None:
            summary = read_json(from_file, "results summary")
            if not isinstance(summary, dict) or not isinstance(summary.get("results"), list):
                raise GateError(f"results summary {from_file}: key \"results\" must be a list")
            rows = [ledger_mod.Result(str(r.get("test", "")), commit, host_name, str(r.get("outcome")),
                                      str(r.get("lane", "vote")), seed) if isinstance(r, dict) else None
                    for r in summary["results"]]
            if None in rows:
                raise GateError(f"results summary {from_file}: every result must be an object")
        elif test and outcome:
            rows = [ledger_mod.Result(test, commit, host_name, outcome, lane, seed)]
        else:
            raise GateError("give --test and --outcome, or --from SUMMARY")
        ledger_mod.record(ledger, rows)
        return Check("flake", True, (f"recorded {len(rows)} results for commit {commit} on {host_name}",))
    _finish(make, as_json, "flake")


@flake_app.command("status")
def flake_status(ledger: Path = typer.Option(..., "--ledger"),
                 repo: Path = typer.Option(Path("."), "--repo", help="reproducer paths are relative to this root"),
                 as_json: bool = JsonOpt) -> None:
    """Each test's state with raw rates and the 95% upper bound. Exit 2 while any test keeps merges red."""
    try:
        led = ledger_mod.load_ledger(ledger)
        states = ledger_mod.states(led, repo)
    except GateError as exc:
        err.print(f"oracle-gate flake: error: {exc}", markup=False)
        raise typer.Exit(EXIT_USAGE)
    red = [t for t, s in states.items() if s.status == "red"]
    if as_json:
        print(json.dumps({"policy": led.policy, "params": led.params, "red": red,
                          "tests": {t: {"status": s.status, "reason": s.reason, **s.figures}
                                    for t, s in states.items()}}, indent=2, sort_keys=True))
    else:
        table = Table(title=f"flake ledger {ledger} (policy {led.policy})")
        for column in ("test", "status", "figures", "reason"):
            table.add_column(column)
        for t, s in states.items():
            table.add_row(t, s.status, ", ".join(f"{k}={v}" for k, v in s.figures.items()), s.reason)
        out.print(table)
    raise typer.Exit(EXIT_BLOCKED if red else EXIT_PASS)


@flake_app.command("admit")
def flake_admit(ledger: Path = typer.Option(..., "--ledger"), test: str = typer.Option(..., "--test"),
                by: str = typer.Option(..., "--by", help="the human taking responsibility"),
                note: str = typer.Option("", "--note"),
                reproducer: Optional[Path] = typer.Option(None, "--reproducer", help="file under oracle/reproducers/"),
                repo: Path = typer.Option(Path("."), "--repo"), as_json: bool = JsonOpt) -> None:
    """Human command: put a test under quarantine (recording its reproducer's sha256)."""
    _finish(lambda: Check("flake", True, (f"admitted {test}",),
                          {"entry": ledger_mod.admit(ledger, test, by, note, reproducer, repo).tests[test]}),
            as_json, "flake")


@flake_app.command("release")
def flake_release(ledger: Path = typer.Option(..., "--ledger"), test: str = typer.Option(..., "--test"),
                  as_json: bool = JsonOpt) -> None:
    """Human command: remove a test's entry and results; it votes again."""
    def make() -> Check:
        ledger_mod.release(ledger, test)
        return Check("flake", True, (f"released {test}",))
    _finish(make, as_json, "flake")


def _missing_inputs(paths: dict[str, Path | None], folder: Path) -> list[str]:
    missing = [f"{flag} {path} does not exist" for flag, path in paths.items() if path is not None
               and not Path(path).is_file()]
    return missing + ([] if Path(folder).is_dir() else [f"--app {folder} is not a folder"])


def _inside_repository(path: Path, folder: Path) -> bool:
    try:
        Path(path).resolve().relative_to(Path(folder).resolve())
        return True
    except ValueError:
        return False


@app.command()
def run(app_dir: Path = typer.Option(..., "--app", help="the base checkout the patch applies to"),
        patch: Path = typer.Option(..., "--patch"), deny_list: Path = typer.Option(..., "--deny"),
        manifest: Path = typer.Option(..., "--manifest"), ledger: Path = typer.Option(..., "--ledger"),
        snapshot_file: Optional[Path] = typer.Option(None, "--snapshot", help="taken before the agent ran"),
        lock: Optional[Path] = typer.Option(None, "--lock"), lock_root: Optional[Path] = typer.Option(None, "--lock-root"),
        pytest_args: str = typer.Option("", "--pytest-args"), timeout: float = typer.Option(600, "--timeout"),
        commit: Optional[str] = typer.Option(None, "--commit", help="ledger key; defaults to the patch digest"),
        host: Optional[str] = typer.Option(None, "--host"), merge_job: bool = typer.Option(False, "--merge-job"),
        seed: Optional[int] = typer.Option(None, "--seed", min=0, max=2 ** 32 - 1,
                                           help="pin the Hypothesis seed to reproduce a verdict (default: fresh)"),
        trusted: bool = typer.Option(False, "--trusted", help="a trusted revision (base, main, scheduled rerun): "
                                                              "record its results in the flake ledger"),
        oracle: str = typer.Option("oracle", "--oracle", help="oracle folder relative to the app"),
        junit: Optional[Path] = typer.Option(None, "--junit", help="also write JUnit XML (outside the app)"),
        seeds: int = typer.Option(1, "--seeds", min=1, max=50, help="run the properties under this many seeds "
                                  "(the first is --seed or fresh, the rest drawn from it); any failure blocks"),
        second_vote: bool = typer.Option(True, "--second-vote/--no-second-vote",
                                         help="also run the properties with production code in-process, inside a "
                                              "kernel wall, under the same seed; either vote failing blocks"),
        clock_years: int = typer.Option(0, "--clock-years", min=0, max=200,
                                        help="also run the properties in-process, walled, with the clock this many "
                                             "years ahead (a break that switches on at a later date); 0: off"),
        trust_patch_code: bool = typer.Option(False, "--trust-patch-code",
                                              help="import production code into the properties' process (faster; "
                                                   "only for code you trust: it can then rewrite the test run)"),
        verdict_out: Path = typer.Option(Path("oracle-gate-verdict.json"), "--out", help="JSON verdict file"),
        as_json: bool = JsonOpt) -> None:
    """Apply, deny paths, snapshot, seals and locks, properties, oracle re-hash, ledger: one verdict line, exit 2
    on any block, 3 when the gate's own inputs are missing."""
    missing = _missing_inputs({"--patch": patch, "--deny": deny_list, "--manifest": manifest, "--ledger": ledger,
                               "--snapshot": snapshot_file, "--lock": lock}, app_dir)
    if junit is not None and _inside_repository(junit, app_dir):
        missing.append(f"--junit {junit} lies inside the app folder; write it outside the repository")
    if missing:
        for line in missing:
            err.print(f"oracle-gate run: error: {line}", markup=False)
        if as_json:
            print(json.dumps(failed("inputs", "; ".join(missing)).to_json(), indent=2, sort_keys=True))
        raise typer.Exit(EXIT_USAGE)
    from gate.junit import write_junit
    from gate.verdict import run_gate, write_verdict

    verdict = run_gate(app_dir, patch, deny_list, manifest, ledger, snapshot_file, lock, lock_root, pytest_args,
                       timeout, commit, host, merge_job, seed, trusted, oracle, trust_patch_code, second_vote, seeds,
                       clock_years)
    try:
        write_verdict(verdict, verdict_out)
        if junit is not None:
            write_junit(verdict, junit)
    except OSError as exc:
        err.print(f"oracle-gate run: cannot write the verdict: {exc}", markup=False)
        raise typer.Exit(EXIT_USAGE)
    if as_json:
        print(json.dumps(verdict.to_json(), indent=2, sort_keys=True))
    else:
        out.print(verdict.line(), markup=False)
        if verdict.sandbox():
            out.print(f"  sandbox: {verdict.sandbox()}", markup=False)
        for failure in verdict.failures():
            out.print(f"  failed: {failure['test']}: {failure['error']}", markup=False)
            for example in failure["falsifying_examples"]:
                out.print(textwrap.indent(example, "    "), markup=False)
            out.print(f"    reproduce: the same command with --seed {failure['seed']}", markup=False)
        for check in verdict.checks:
            for reason in check.reasons if not check.ok or not verdict.may_merge else check.reasons[:1]:
                out.print(f"  {check.name}: {reason}", markup=False)
    raise typer.Exit(EXIT_PASS if verdict.may_merge else EXIT_BLOCKED)


if __name__ == "__main__":
    app()
