"""The `compare:` block checked against the config's runs and measures: its baselines, the
measures it compares, and the folds of its cross-validation against the judged topics; its
statistics are read by harness.config.statistics."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from yaml.nodes import Node, ScalarNode, SequenceNode

from harness.config.keys import Key
from harness.config.nodes import INVALID, Ctx, expected, read_string
from harness.config.run_names import TunedName, resolve_tuned, unique_run
from harness.config.sources import all_run_specs
from harness.config.statistics import compare_statistics
from harness.config.validated import CompareSpec
from harness.errors import HarnessError
from harness.formats.named import read_qrels_as
from harness.policies import ALL_PAIRS, StatsPolicy, anova_on, default_baseline
from harness.specs.identity import Tuned

__all__ = ["check_baseline", "finish_compare"]


def check_baseline(ctx: Ctx, key: Key, node: Node, path: str) -> Any:
    """Returns [(canonical run or ALL_PAIRS, path, node)]; checked against the runs in finish_compare."""
    example = f'a run name like "bm25(k1=0.9,b=0.4)", a list of them, or {ALL_PAIRS}'
    items = (
        [(path, node)]
        if isinstance(node, ScalarNode)
        else ([(f"{path}[{i}]", n) for i, n in enumerate(node.value)] if isinstance(node, SequenceNode) else None)
    )
    if items is None:
        return expected(ctx, path, example, node)
    if not items:
        return ctx.problem(path, f"an empty list names no baseline; give {example}", node)
    out: list[tuple[str | TunedName, str, Node]] = []
    seen: dict[str | TunedName, str] = {}
    for p, n in items:
        text = read_string(ctx, n, p)
        if text is INVALID:
            continue
        if text == ALL_PAIRS:
            if len(items) > 1:
                ctx.problem(p, f"{ALL_PAIRS} compares every pair already; give it alone, not in a list", n)
            else:
                out.append((ALL_PAIRS, p, n))
            continue
        run = unique_run(ctx, text, p, n, seen, f" (or give {ALL_PAIRS})")
        if run is not None:
            out.append((run, p, n))
    return out


def finish_compare(ctx: Ctx, v: dict, measures: Any, tuned_runs: list[Tuned]) -> CompareSpec | None:
    """The compare block against the runs and measures of the config."""
    if "compare" not in ctx.present:
        return None
    c = v["compare"]
    if c is INVALID:
        return None
    ok = True
    if v["qrels"] is None:
        ctx.problem(
            "compare",
            "needs qrels: runs are compared on their per-topic scores; add `qrels: <path>` or remove `compare`",
            ctx.nodes["compare"],
        )
        return None
    runs = all_run_specs(ctx, v)
    if runs is not None and len(runs) == 1:
        ctx.problem(
            "compare",
            f"needs at least two runs to compare; the config has one ({runs[0]}): "
            "add runs or a sweep, or remove `compare`",
            ctx.nodes["compare"],
        )
        ok = False
    baselines: list[str] = []
    tuned = [str(t) for t in tuned_runs]
    all_pairs = False
    if "compare.baseline" not in ctx.present:
        all_pairs = default_baseline(c["test"]) == ALL_PAIRS  # a many-system test's
        baselines = [] if all_pairs else runs[:1] if runs else []
    elif c["baseline"] is INVALID:
        ok = False
    else:
        for run, p, node in c["baseline"]:
            run = resolve_tuned(run, tuned_runs)
            if run == ALL_PAIRS:
                all_pairs = True
            elif runs is not None and run not in runs + tuned:
                ctx.problem(
                    p,
                    f"no run {run} in this config; its runs are: {', '.join(runs + tuned)} (or give {ALL_PAIRS})",
                    node,
                )
                ok = False
            else:
                baselines.append(run)
    if "compare.measures" not in ctx.present:
        cmp_measures = measures
    else:
        cmp_measures = c["measures"]
        if cmp_measures is not INVALID and measures is not INVALID:
            for i, m in enumerate(cmp_measures):
                if m not in measures:
                    p = f"compare.measures[{i}]"
                    node = ctx.nodes["compare.measures"].value[i]
                    now = ", ".join(map(str, measures))
                    ctx.problem(p, f"{m} is not computed; add it to `measures` (now: {now})", node)
                    ok = False
    correction, power = compare_statistics(ctx, c)
    folds = None
    if "compare.cross_validation" in ctx.present:
        cv = c["cross_validation"]
        folds = cv["folds"] if isinstance(cv, dict) else INVALID  # `cross_validation: 5`: reported
        if runs is not None:
            models = [r.family for r in v["runs"]]
            if all(models.count(m) < 2 for m in models):
                ctx.problem(
                    "compare.cross_validation",
                    "no model of `runs` has more than one "
                    "setting, so there is nothing to tune; sweep a parameter (e.g. "
                    "`dirichlet: {mu: [500, 1000, 2000]}`) or remove `cross_validation`",
                    ctx.nodes["compare.cross_validation"],
                )
                ok = False
            elif c["seed"] is not INVALID and isinstance(folds, int):
                _check_folds(ctx, v, folds)
    if (
        not ok
        or runs is None
        or any(x is INVALID for x in (cmp_measures, folds, correction, power))
        or any(
            c[k] is INVALID
            for k in (
                "test",
                "permutations",
                "bootstrap_samples",
                "ci_level",
                "seed",
                "correction",
                "family",
                "alpha",
                "align",
                "anova",
            )
        )
    ):
        return None
    policy = StatsPolicy(
        test=c["test"],
        correction=correction,
        family=c["family"],
        alpha=c["alpha"],
        permutations=c["permutations"],
        bootstrap_samples=c["bootstrap_samples"],
        ci_level=c["ci_level"],
        seed=c["seed"],
    )
    anova = anova_on(c["anova"], policy.test)
    assert folds is None or isinstance(folds, int)  # INVALID returned None above
    return CompareSpec(tuple(baselines), all_pairs, tuple(cmp_measures), policy, folds, c["align"], anova, power)


def _check_folds(ctx: Ctx, v: dict, folds: int) -> None:
    """More folds than judged topics would leave a fold without topics: say so now, not after
    indexing and searching. Every judged topic is evaluated under `missing_topics: zero` (the
    default); under `drop` only those a run answers, which is checked again when they are known."""
    if not isinstance(v.get("qrels"), Path):
        return
    try:
        judged = len(read_qrels_as(v["qrels"], ctx.found.get("qrels_format", "trec")).topics())
    except HarnessError:
        return  # the qrels file's own problem is reported when it is read
    if folds > judged:
        ctx.problem(
            "compare.cross_validation.folds",
            f"{folds} folds need at least {folds} judged topics, but the qrels judge {judged}; use fewer folds",
            ctx.nodes.get("compare.cross_validation.folds") or ctx.nodes["compare.cross_validation"],
        )
