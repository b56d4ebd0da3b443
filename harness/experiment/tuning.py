"""Cross-validated runs: the system a k-fold tuning of a sweep actually evaluates, as a run.

For each swept model (a model with several settings), :func:`harness.stats.cross_validate`
chooses, on each fold, the setting with the best mean of the first compared measure on the other
folds. The *tuned run* answers each fold's topics with that fold's chosen setting: its rows for a
topic are the chosen setting's rows, unchanged (same documents, ranks and scores). So trec_eval on
its file gives, topic by topic, exactly the held-out values of the cross-validation, and it can be
compared with any other run by the same tests, in the same correction family.

Its values are out-of-fold: every topic is scored by a setting chosen without it. Topics outside
the folds (run topics without judgments) are not part of the tuned system and have no rows.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from harness import stats
from harness.config import Config
from harness.errors import DataError
from harness.events import Emit, RunReady
from harness.experiment.compare import aligned_scores
from harness.experiment.result import RunResult
from harness.experiment.store import RunStore
from harness.formats.run import Run
from harness.metrics import Evaluation
from harness.specs.identity import Tuned
from harness.specs.similarity import Similarity
from harness.specs.sweeps import sweeps

__all__ = ["TunedRun", "tune_sweeps", "assemble", "add_tuned_runs"]


@dataclass(frozen=True)
class TunedRun:
    """A swept model tuned by cross-validation: its name, the settings it chose from, the folds
    (each with its chosen setting) and the per-topic held-out scores, in ``topics`` order."""

    spec: Tuned
    settings: tuple[str, ...]  # the sweep's runs, config order (ties go to the first)
    topics: tuple[str, ...]  # the evaluated topics the folds are made of
    cv: stats.CrossValidation

    @property
    def name(self) -> str:
        return str(self.spec)

    def chosen(self) -> dict[str, str]:
        """topic -> the setting that answers it."""
        return {q: f.chosen for f in self.cv.folds for q in f.test_topics}


def tune_sweeps(
    runs: Sequence[Similarity],
    topics: Sequence[str],
    scores: Mapping[str, Mapping[str, np.ndarray]],
    measure: str,
    folds: int,
    seed: int,
) -> list[TunedRun]:
    """One TunedRun per swept model of ``runs``; ``scores[run][measure]`` are per-topic vectors in
    ``topics`` order (``harness.experiment.compare.aligned_scores``)."""
    out = []
    for family, group, _varying in sweeps(runs):
        names = [str(r) for r in group]
        cv = stats.cross_validate({n: scores[n][measure] for n in names}, topics, folds=folds, seed=seed)
        out.append(TunedRun(Tuned(family, measure, folds, seed), tuple(names), tuple(topics), cv))
    return out


def assemble(tuned: TunedRun, setting_runs: Mapping[str, Run], topic_order: Sequence[str]) -> Run:
    """The tuned run: for each topic of the folds, in ``topic_order`` (the experiment's topics,
    then any other judged topic), the rows of the setting chosen for it."""
    chosen = tuned.chosen()
    order = [q for q in topic_order if q in chosen] + sorted(q for q in chosen if q not in set(topic_order))
    names, lens, ids, scores = [], [], [], []
    for q in order:
        run = setting_runs[chosen[q]]
        t = run.topic_index(q)
        if t is None:  # the chosen setting returned nothing for q: scored 0 (or dropped) as in it
            continue
        lo, hi = int(run.offsets[t]), int(run.offsets[t + 1])
        names.append(q)
        lens.append(hi - lo)
        ids.append(run.docids[lo:hi])
        scores.append(run.scores[lo:hi])
    offsets = np.concatenate(([0], np.cumsum(lens, dtype=np.int64))).astype(np.int64)
    docids = np.concatenate(ids) if ids else np.zeros(0, dtype="S8")
    return Run(names, offsets, docids, np.concatenate(scores) if scores else np.zeros(0), tuned.name)


def add_tuned_runs(
    cfg: Config,
    results: list[RunResult],
    evaluations: Mapping[str, Evaluation],
    topic_order: list[str],
    store: RunStore,
    on: Emit,
) -> tuple[list[RunResult], list[TunedRun]]:
    """Tune every swept model by cross-validation: ``results`` with each tuned run right after
    the model's last setting (its file cached under a key of what it is made of, or read back
    from the cache), and the TunedRun values (evaluated by the caller)."""
    spec = cfg.compare
    assert spec is not None and spec.folds is not None  # called only to cross-validate
    measure = spec.measure_names[0]
    topics, scores, _ = aligned_scores({r.name: evaluations[r.name] for r in results}, [measure], spec.align)
    if spec.folds > len(topics):
        raise DataError(
            "compare.cross_validation.folds",
            f"{spec.folds} folds need at least {spec.folds} evaluated topics, but {len(topics)} are evaluated "
            "(with `missing_topics: drop` only the topics every run answered); use fewer folds",
        )
    tuned = tune_sweeps(cfg.runs, topics, scores, measure, spec.folds, spec.policy.seed)
    by_name = {r.name: r for r in results}
    results = list(results)
    for tr in tuned:
        t = time.perf_counter()
        path = store.tuned(tr.name, {n: by_name[n].path for n in tr.settings}, tr.chosen())
        got = store.read(path)
        reused = got is not None
        if got is not None:
            run = got[0]
        else:
            run = assemble(tr, {n: by_name[n].run for n in tr.settings}, topic_order)
            store.write(path, run, tr.name)
        in_run = set(run.topics())
        empty = [q for q in tr.topics if q not in in_run]
        last = max(i for i, r in enumerate(results) if r.name in tr.settings)
        results.insert(last + 1, RunResult(tr.spec, tr.name, run, path, time.perf_counter() - t, reused, empty))
        chosen = ", ".join(cfg.name_of(f.chosen) for f in tr.cv.folds)  # progress calls runs by their names
        on(RunReady(cfg.name_of(tr.name), "reused" if reused else "assembled", chosen=chosen))
    return results, tuned
