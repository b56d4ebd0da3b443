"""The runs a config's other keys name (a `compare.baseline`, an `expect` entry): a run's spec in
any spelling, a cross-validated run's, a run file's or a fusion's, or a run's name; a tuned run's
name (``dirichlet tuned``) is resolved once the tuned runs the config asks for are known."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from yaml.nodes import Node

from harness.config.nodes import INVALID, Ctx
from harness.metrics import parse_measure
from harness.specs.identity import Tuned, parse_run
from harness.specs.names import TUNED

__all__ = ["TunedName", "unique_run", "resolve_tuned", "tuned_runs"]


@dataclass(frozen=True)
class TunedName:
    """``MODEL tuned``, the name of a cross-validated run, until the tuned runs are known
    (:func:`resolve_tuned`)."""

    family: str


def unique_run(
    ctx: Ctx, text: str, path: str, node: Node, seen: dict[str | TunedName, str], hint: str = ""
) -> str | TunedName | None:
    """The spec of the run ``text`` names (a canonical or any spelling of a spec, or a run's name),
    recorded in ``seen`` (run -> path); None, with a problem reported, when it names no run or one
    already named at another path. A cross-validated run's name (``dirichlet tuned``) stays a
    :class:`TunedName` until the tuned runs are known."""
    by_name = ctx.found.get("by_name", {})
    tuned_family = text[: -len(TUNED) - 1] if text.endswith(" " + TUNED) else None
    run: str | TunedName
    try:
        if text in by_name:
            run = by_name[text]
        elif tuned_family is not None and "(" not in text:
            run = TunedName(tuned_family)
        else:
            run = _run_spec(text)
    except ValueError as e:
        # `runs` invalid, or an entry of it: the text may be the name of a run that is not
        # known, whose problem is reported
        if "by_name" in ctx.found and ctx.found.get("run_order") is not INVALID:
            ctx.problem(path, f"not a run name: {e}{hint}", node)
        return None
    if run in seen:
        ctx.problem(path, f"names the same run as {seen[run]} ({run})", node)
        return None
    seen[run] = path
    return run


def resolve_tuned(run: str | TunedName, tuned: list[Tuned]) -> str:
    """The spec of a run ``unique_run`` gave: a tuned run's for its name (the name itself when no
    tuned run has it), any other unchanged."""
    if not isinstance(run, TunedName):
        return run
    return next((str(t) for t in tuned if t.family == run.family), f"{run.family} {TUNED}")


def _run_spec(text: str) -> str:
    """The spec of a run, canonical (harness.specs.identity.parse_run): a similarity in any
    spelling (``bm25(k1=0.9,b=0.4)``), a cross-validated run (``dirichlet(cv:AP,folds=5,seed=42)``,
    its measure canonicalised), a run file's or a fusion's."""
    run = parse_run(text)
    if isinstance(run, Tuned):
        run = replace(run, measure=str(parse_measure(run.measure)))
    return str(run)


def tuned_runs(v: dict, measures: Any) -> list[Tuned]:
    """The cross-validated runs the config asks for (one per swept model), or [] when it asks for
    none or the parts they are named from are invalid."""
    c = v.get("compare")
    if not isinstance(c, dict) or v["runs"] is INVALID or c.get("cross_validation") is INVALID:
        return []
    cv = c.get("cross_validation")
    if not isinstance(cv, dict) or cv.get("folds") in (None, INVALID) or c.get("seed") is INVALID:
        return []
    cmp = c.get("measures") if c.get("measures") not in (None, INVALID) else measures
    if cmp is INVALID or not cmp:
        return []
    models = [r.family for r in v["runs"]]
    swept = [m for m in dict.fromkeys(models) if models.count(m) > 1]
    return [Tuned(m, str(cmp[0]), cv["folds"], c["seed"]) for m in swept]
