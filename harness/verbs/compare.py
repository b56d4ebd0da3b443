"""The compare verb: paired tests of runs against a baseline on per-topic scores from any source,
and ``compare_files``, which evaluates run files first. ``harness compare``, ``harness.compare``
and a config's ``compare:`` block pair topics by one rule (:mod:`harness.stats.align`)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from harness.errors import DataError
from harness.formats.hygiene import windows_path_hint
from harness.formats.named import is_named, read_user_qrels
from harness.formats.run_files import names_of_run_files, read_run_file, runs_and_descriptions, shared_names
from harness.formats.topic_ids import check_run_against_qrels
from harness.metrics import Evaluation, parse_measures
from harness.metrics import evaluate as evaluate_run
from harness.metrics.measures import reads_ranks
from harness.policies import ALL_PAIRS, ComparePolicy, EvalPolicy, ReadPolicy, default_baseline
from harness.stats import Comparison, all_pairs, compare_tables, pairs_against
from harness.stats.align import align
from harness.stats.anova import ANOVA_FIELDS
from harness.stats.compare import COMPARISON_FIELDS
from harness.stats.power import POWER_FIELDS

__all__ = [
    "COMPARISON_FIELDS",
    "ANOVA_FIELDS",
    "POWER_FIELDS",
    "ComparisonTable",
    "FileComparison",
    "baseline_pairs",
    "compare",
    "compare_files",
    "runs_and_descriptions",  # the rule compare_files applies to its runs, for the command line's note
]


@dataclass(frozen=True)
class ComparisonTable:
    """The comparisons, measures outer and pairs inner, with what decided them."""

    rows: tuple[Comparison, ...]
    policy: ComparePolicy
    runs: tuple[str, ...]
    measures: tuple[str, ...]
    pairs: tuple[tuple[str, str], ...]
    topics: tuple[str, ...]  # the order of every paired vector
    dropped: tuple[str, ...]  # topics left out by align="common"
    # as harness.stats.Tables: when every pair is tested, each measure's grouping (stats.Grouping);
    # the ANOVA tables (policy.with_anova) and the power rows (policy.power)
    groups: tuple = ()
    anova: Mapping = field(default_factory=dict)
    power: tuple = ()


@dataclass(frozen=True)
class FileComparison:
    table: ComparisonTable
    baseline: str
    evaluations: dict[str, Evaluation]  # by run name
    shared: dict  # a file name several runs share -> [(name, path)] (harness.formats.run_files.shared_names)


def baseline_pairs(baselines, runs: Sequence[str]) -> list[tuple[str, str]]:
    """(baseline, run) pairs: ``None`` the first run, ``ALL_PAIRS`` every pair once (the earlier
    run as the baseline), or one or more names. With several baselines, two baselines are
    compared once (the earlier one as the baseline), so no test enters the correction family
    twice.

    >>> baseline_pairs(["a", "b"], ["a", "b", "c"])
    [('a', 'b'), ('a', 'c'), ('b', 'c')]
    """
    runs = list(runs)
    if baselines is None:
        baselines = [runs[0]]
    elif baselines == ALL_PAIRS:
        return all_pairs(runs)
    elif isinstance(baselines, str):
        baselines = [baselines]
    out: list[tuple[str, str]] = []
    for b, r in pairs_against(list(baselines), runs):
        if (r, b) not in out:
            out.append((b, r))
    return out


def compare(
    per_topic: Mapping[str, Mapping[str, Mapping[str, float]]],
    *,
    baselines=None,
    measures: Sequence[str] | None = None,
    policy: ComparePolicy = ComparePolicy(),
    where: str = "runs",
    hint: str = "",
) -> ComparisonTable:
    """Compare ``per_topic[run][measure][topic]`` (runs in the order given) against
    ``baselines`` (see :func:`baseline_pairs`; None with a many-system test: every pair) on
    ``measures`` (default: the first run's), with the ANOVA and power tables the policy asks for.
    Topics are paired by ``policy.align``; ``hint`` tells the user how to ask for the other
    alignment in their door's words."""
    names = list(per_topic)
    if baselines is None:
        baselines = default_baseline(policy.stats.test)
    if len(names) < 2:
        raise DataError(where, f"needs two runs or more to compare (got {', '.join(names) or 'none'})")
    if measures is None:
        measures = list(per_topic[names[0]])
    measures = list(measures)
    if baselines not in (None, ALL_PAIRS):
        for b in [baselines] if isinstance(baselines, str) else baselines:
            if b not in per_topic:
                raise DataError("baseline", f"no run named {b!r}; runs: {', '.join(names)} (or {ALL_PAIRS!r})")
    pairs = baseline_pairs(baselines, names)
    aligned = align(per_topic, measures, policy.align, where=where, hint=hint)
    tables = compare_tables(aligned.scores, pairs, measures, policy.stats, anova=policy.with_anova, power=policy.power)
    return ComparisonTable(
        tables.rows,
        policy,
        tuple(names),
        tuple(measures),
        tuple(pairs),
        aligned.topics,
        aligned.dropped,
        tables.groups,
        dict(tables.anova),
        tables.power,
    )


def _inputs(runs: Sequence[str | os.PathLike], baseline: str) -> tuple[list[str], list[Path], str]:
    """(names, paths) of the runs, the baseline first, and the baseline's name. The baseline is
    one of the runs by its name (harness.formats.run_files.names_of_run_files) or path, or another
    run file; a file name several runs share is no run's name, and an error lists theirs. ``ALL_PAIRS``:
    every pair of the runs, in the order given. A run's ir_metadata file given with it is left out
    (harness.formats.run_files.runs_and_descriptions)."""
    paths = [Path(p) for p in runs_and_descriptions(runs)[0]]
    seen = set()
    for p in paths:
        if p.resolve() in seen:
            raise DataError(str(p), "run file given twice")
        seen.add(p.resolve())
    base = str(baseline)
    names = names_of_run_files(paths)
    if base == ALL_PAIRS:
        if len(paths) < 2:
            raise DataError("compare", f"{ALL_PAIRS} needs two runs or more")
        return names, paths, ALL_PAIRS
    shared = shared_names(paths, names)
    same = lambda p: Path(base).exists() and p.exists() and Path(base).resolve() == p.resolve()  # noqa: E731
    matches = [i for i, n in enumerate(names) if n == base] or [
        i for i, p in enumerate(paths) if base == str(p) or same(p)
    ]
    if not matches and base in shared:
        raise DataError(
            "--baseline",
            f"{len(shared[base])} run files are named {base!r} ({', '.join(p for _, p in shared[base])}): give one of "
            f"their runs' names, {', '.join(name for name, _ in shared[base])}, or its path",
        )
    if not matches and Path(base).is_file():
        paths.append(Path(base))  # another run file: named with the runs (its file's name may be theirs)
        names, matches = names_of_run_files(paths), [len(paths) - 1]
    if not matches:
        raise DataError("--baseline", f"{base!r} is neither one of the runs ({', '.join(names)}) nor a run file")
    i = matches[0]
    names.insert(0, names.pop(i))
    paths.insert(0, paths.pop(i))
    if len(paths) < 2:
        raise DataError("compare", "needs at least one run besides the baseline")
    return names, paths, names[0]


def compare_files(
    runs: Sequence[str | os.PathLike],
    qrels: str | os.PathLike,
    *,
    baseline: str,
    measures,
    eval_policy: EvalPolicy = EvalPolicy(),
    read: ReadPolicy = ReadPolicy(),
    policy: ComparePolicy = ComparePolicy(),
    hint: str = "",
    on=None,
) -> FileComparison:
    """Evaluate each run file against ``qrels`` and compare them with ``baseline`` (one of the
    runs, by name or path, or another run file, which is then listed first; or ``ALL_PAIRS``,
    every pair of the runs; a run's ir_metadata file among them is left out). A run's name is
    its file name without the extension, runs whose files share one being named by their folders
    (:func:`harness.formats.run_files.names_of_run_files`: ``a/bm25``, ``b/bm25``). ``on(name)``
    is called after each run is evaluated."""
    ms = parse_measures(measures, source="-m")
    names, paths, base = _inputs(runs, baseline)
    for p in [*paths, *(() if is_named(os.fspath(qrels)) else (Path(qrels),))]:  # irds:ID, pyserini:NAME: read below
        if not p.is_file():
            raise DataError(str(p), f"file not found{windows_path_hint(p)}")
    qrels_obj = read_user_qrels(qrels)
    evaluations = {}
    for name, path in zip(names, paths):
        run = read_run_file(path, read, ranks=reads_ranks(ms))  # MS MARCO's MRR reads the rank column
        check_run_against_qrels(run, qrels_obj, str(path), str(qrels), eval_policy.missing_topics)
        evaluations[name] = evaluate_run(run, qrels_obj, ms, eval_policy)
        if on is not None:
            on(name)
    per_topic = {n: ev.per_topic for n, ev in evaluations.items()}
    table = compare(
        per_topic, baselines=base, measures=[str(m) for m in ms], policy=policy, where=str(qrels), hint=hint
    )
    return FileComparison(table, base, evaluations, shared_names(paths, names))
