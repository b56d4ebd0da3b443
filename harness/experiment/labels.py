"""Runs by their labels: what every output a user reads calls them (tables, plots, the explorer,
comparisons, per-topic files, report run files, the Python API), applied once to an experiment's
result. The identity of each run stays in ``RunResult.spec``, and the manifest and
summary.json write it beside the label (:func:`harness.specs.labels.run_labels` makes them)."""

from __future__ import annotations

from dataclasses import replace

from harness.experiment.result import ExperimentResult

__all__ = ["relabel"]


def relabel(result: ExperimentResult) -> ExperimentResult:
    """``result`` with every run named by its label (a copy; the result itself is not changed)."""
    label = result.config.label
    if all(label(r.name) == r.name for r in result.runs):
        return result
    c = result.comparisons
    if c is not None:
        c = replace(
            c,
            baselines=tuple(label(b) for b in c.baselines),
            pairs=tuple((label(b), label(r)) for b, r in c.pairs),
            rows=tuple(replace(row, baseline=label(row.baseline), run=label(row.run)) for row in c.rows),
            sweeps=tuple(
                replace(
                    s,
                    runs=tuple(label(n) for n in s.runs),
                    not_worse={m: tuple(label(n) for n in ns) for m, ns in s.not_worse.items()},
                )
                for s in c.sweeps
            ),
            tuning=tuple(
                replace(
                    t,
                    best_fixed=label(t.best_fixed),
                    run=label(t.run),
                    folds=tuple(replace(f, chosen=label(f.chosen)) for f in t.folds),
                )
                for t in c.tuning
            ),
            groups=tuple(
                replace(
                    g,
                    runs=tuple(map(label, g.runs)),
                    best=label(g.best),
                    indistinguishable=tuple(map(label, g.indistinguishable)),
                )
                for g in c.groups
            ),
            anova={m: replace(a, systems=tuple(map(label, a.systems))) for m, a in c.anova.items()},
            power=tuple(
                replace(
                    p,
                    baseline=None if p.baseline is None else label(p.baseline),
                    run=None if p.run is None else label(p.run),
                )
                for p in c.power
            ),
        )
    return replace(
        result,
        runs=[replace(r, name=label(r.name)) for r in result.runs],
        evaluations={label(n): ev for n, ev in result.evaluations.items()},
        checks=[replace(k, run=label(k.run)) for k in result.checks],
        comparisons=c,
        pr_curves={label(n): v for n, v in result.pr_curves.items()},
    )
