"""Runs by their names: what every output a user reads calls them (tables, plots, the explorer,
comparisons, per-topic files, report run files, the Python API), applied once to an experiment's
result. The identity of each run stays in ``RunResult.spec``, and the manifest and
summary.json write it beside the name (:func:`harness.specs.names.run_names` makes them)."""

from __future__ import annotations

from dataclasses import replace

from harness.experiment.result import ExperimentResult

__all__ = ["with_names"]


def with_names(result: ExperimentResult) -> ExperimentResult:
    """``result`` with every run under its name (a copy; the result itself is not changed)."""
    name_of = result.config.name_of
    if all(name_of(r.name) == r.name for r in result.runs):
        return result
    c = result.comparisons
    if c is not None:
        c = replace(
            c,
            baselines=tuple(name_of(b) for b in c.baselines),
            pairs=tuple((name_of(b), name_of(r)) for b, r in c.pairs),
            rows=tuple(replace(row, baseline=name_of(row.baseline), run=name_of(row.run)) for row in c.rows),
            sweeps=tuple(
                replace(
                    s,
                    runs=tuple(name_of(n) for n in s.runs),
                    not_worse={m: tuple(name_of(n) for n in ns) for m, ns in s.not_worse.items()},
                )
                for s in c.sweeps
            ),
            tuning=tuple(
                replace(
                    t,
                    best_fixed=name_of(t.best_fixed),
                    run=name_of(t.run),
                    folds=tuple(replace(f, chosen=name_of(f.chosen)) for f in t.folds),
                )
                for t in c.tuning
            ),
            groups=tuple(
                replace(
                    g,
                    runs=tuple(map(name_of, g.runs)),
                    best=name_of(g.best),
                    indistinguishable=tuple(map(name_of, g.indistinguishable)),
                )
                for g in c.groups
            ),
            anova={m: replace(a, systems=tuple(map(name_of, a.systems))) for m, a in c.anova.items()},
            power=tuple(
                replace(
                    p,
                    baseline=None if p.baseline is None else name_of(p.baseline),
                    run=None if p.run is None else name_of(p.run),
                )
                for p in c.power
            ),
        )
    return replace(
        result,
        runs=[replace(r, name=name_of(r.name)) for r in result.runs],
        evaluations={name_of(n): ev for n, ev in result.evaluations.items()},
        checks=[replace(k, run=name_of(k.run)) for k in result.checks],
        comparisons=c,
        pr_curves={name_of(n): v for n, v in result.pr_curves.items()},
    )
