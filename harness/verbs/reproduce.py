"""The reproduce verb (``harness reproduce``, ``harness.reproduce``): an original experiment (a
baseline run and an advanced run) beside its reproduction, measured as repro_eval 0.5.0 measures
it (Breuer et al., SIGIR 2020), its numbers equal to repro_eval's (tests/test_reproduce.py):

- *reproducibility*: the reproduced runs answer the original topics and are scored against the
  same qrels. Per run (baseline, advanced): how alike the rankings are (KTU, RBO:
  harness.metrics.agreement), how far the per-topic scores are (RMSE, nRMSE) and the paired
  t-test's p; per measure: the effect ratio (ER) and the delta relative improvement (DRI)
  (harness.stats.reproduction).
- *replicability*: the reproduced runs answer another collection's topics, scored against its
  qrels (``rep_qrels``): ER, DRI and the unpaired t-test only; the measures that pair documents
  or topics across the two experiments have no value.

Every run is cut to ``policy.depth`` documents per topic in trec_eval's order and scored with
the harness's evaluation under ``policy.evaluation``: on every judged topic, one the run lacks
scoring 0, as ir_measures scores it for repro_eval. So runs scored against the same qrels are
scored on the same topics, paired by topic id. KTU and RBO take the topics both runs rank, where
repro_eval takes the reproduction's and stops when the original lacks one. docs/reproduce.md
lists where the harness departs from repro_eval and why.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from harness.errors import DataError
from harness.formats.hygiene import regular_file
from harness.formats.named import is_named, read_user_qrels
from harness.formats.qrels import Qrels, judgments_named
from harness.formats.run import Run
from harness.formats.run_files import read_run_file
from harness.formats.topic_ids import check_run_against_qrels, few
from harness.metrics import Evaluation, parse_measures
from harness.metrics import evaluate as evaluate_run
from harness.metrics.agreement import agreement
from harness.metrics.evaluate import in_order
from harness.metrics.measures import reads_ranks
from harness.policies import DEFAULT_MEASURES, ReadPolicy, ReproducePolicy
from harness.stats.paired import paired_t
from harness.stats.reproduction import delta_ri, effect_ratio, nrmse, rmse, unpaired_t

__all__ = ["ROLES", "Side", "Reproduction", "reproduce", "reproduce_policy"]

PathLike = str | os.PathLike

# the four runs, by the name every door gives them (the command line's flags without --)
ROLES = ("baseline", "advanced", "rep-baseline", "rep-advanced")


@dataclass(frozen=True)
class Side:
    """One run of the experiment (baseline or advanced) beside its reproduction. Under
    replicability ``ktu``, ``rbo``, ``rmse`` and ``nrmse`` are None."""

    ktu: float | None
    rbo: float | None
    rmse: dict[str, float] | None
    nrmse: dict[str, float] | None
    p: dict[str, float]
    ranked_topics: int  # the topics both runs rank (KTU, RBO); 0 under replicability


@dataclass(frozen=True)
class Reproduction:
    """What ``harness reproduce`` reports; :meth:`as_dict` is ``--json``'s shape."""

    replicability: bool
    measures: tuple[str, ...]
    baseline: Side
    advanced: Side
    er: dict[str, float]
    dri: dict[str, float]
    policy: ReproducePolicy
    topics: dict[str, int]  # each run's scored topics, by role: its qrels' judged topics

    def as_dict(self) -> dict:
        """``{"ktu": {"baseline": x, "advanced": y}, "rbo": {...}, "rmse": {"baseline":
        {MEASURE: v}, "advanced": {...}}, "nrmse": {...}, "er": {MEASURE: v}, "dri": {...},
        "p": {"baseline": {...}, "advanced": {...}}}``: every door's answer. A value that is not
        a finite number is None (JSON's null): every KTU, RBO, RMSE and nRMSE under
        replicability, an ER whose original shows no effect, a p-value without enough topics."""
        sides = {"baseline": self.baseline, "advanced": self.advanced}

        def per_measure(values: dict[str, float] | None) -> dict:
            return {m: _finite(None if values is None else values[m]) for m in self.measures}

        return {
            "ktu": {k: _finite(s.ktu) for k, s in sides.items()},
            "rbo": {k: _finite(s.rbo) for k, s in sides.items()},
            "rmse": {k: per_measure(s.rmse) for k, s in sides.items()},
            "nrmse": {k: per_measure(s.nrmse) for k, s in sides.items()},
            "er": per_measure(self.er),
            "dri": per_measure(self.dri),
            "p": {k: per_measure(s.p) for k, s in sides.items()},
        }


def _finite(v: float | None) -> float | None:
    return v if v is not None and math.isfinite(v) else None


def reproduce_policy(**options) -> ReproducePolicy:
    """A ReproducePolicy from keyword options; a bad value is a DataError naming the option."""
    try:
        return ReproducePolicy(**options)
    except ValueError as e:
        raise DataError("reproduce", str(e)) from None


def _qrels(q: Qrels | PathLike, what: str) -> tuple[Qrels, str]:
    if isinstance(q, Qrels):
        if not len(q):
            raise DataError(what, "the qrels have no judgments: nothing could be evaluated")
        return q, what
    name = os.fspath(q)
    return read_user_qrels(name), name


def _vectors(ev: Evaluation, measure: str, topics: Sequence[str]) -> list[float]:
    values = ev.per_topic[measure]
    return [values[t] for t in topics]


def reproduce(
    baseline: Run | PathLike,
    advanced: Run | PathLike,
    rep_baseline: Run | PathLike,
    rep_advanced: Run | PathLike,
    qrels: Qrels | PathLike,
    rep_qrels: Qrels | PathLike | None = None,
    *,
    measures: str | Sequence = DEFAULT_MEASURES,
    policy: ReproducePolicy = ReproducePolicy(),
    read: ReadPolicy = ReadPolicy(),
    source: str = "measures",
    on: Callable[[str], None] | None = None,
) -> Reproduction:
    """The original ``baseline`` and ``advanced`` runs (files or Runs) beside their reproductions
    ``rep_baseline`` and ``rep_advanced``, on ``measures`` (named in errors as ``source``). With
    ``rep_qrels`` the reproduction is a replication on another collection, scored against
    ``rep_qrels``; else all four runs are scored against ``qrels``. ``on(role)`` is called
    after each run is read and scored (the roles of :data:`ROLES`)."""
    ms = parse_measures(measures, source=source)
    if reads_ranks(ms):  # the runs are scored in trec_eval's order, which KTU and RBO compare
        official = ", ".join(str(m) for m in ms if m.info.ranks)
        raise DataError(
            source,
            f"{official} reads a run's rank column as written (MS MARCO's evaluation), and a reproduction "
            "scores runs in trec_eval's order: evaluate it with harness evaluate, or use RR@10",
        )
    given = dict(zip(ROLES, (baseline, advanced, rep_baseline, rep_advanced)))
    files = [(r, "run file") for r in given.values() if not isinstance(r, Run)]
    files += [(q, "qrels file") for q in (qrels, rep_qrels) if isinstance(q, (str, os.PathLike))]
    for path, what in files:  # every file before any is read
        if not is_named(os.fspath(path)):  # pyserini:NAME, irds:ID: found in a local cache below
            regular_file(Path(path), what)
    original_qrels = _qrels(qrels, "qrels")
    replicated_qrels = _qrels(rep_qrels, "rep-qrels") if rep_qrels is not None else original_qrels

    runs: dict[str, Run] = {}
    names: dict[str, str] = {}
    evaluations: dict[str, Evaluation] = {}
    for role, r in given.items():
        run = r if isinstance(r, Run) else read_run_file(r, read)
        names[role] = run.source if isinstance(r, Run) else os.fspath(r)
        judged, judged_name = replicated_qrels if role.startswith("rep-") else original_qrels
        check_run_against_qrels(run, judged, names[role], judged_name, policy.evaluation.missing_topics)
        runs[role] = in_order(run, policy.evaluation.ties, policy.depth)
        with judgments_named(judged_name):
            evaluations[role] = evaluate_run(runs[role], judged, ms, policy.evaluation)
        if on is not None:
            on(role)

    replicability = rep_qrels is not None
    measure_names = [str(m) for m in ms]
    sides = {}
    for role in ("baseline", "advanced"):
        sides[role] = _side(role, runs, evaluations, names, measure_names, policy, replicability)

    # ER pairs each experiment's two runs by topic (both are scored on their qrels' topics); DRI
    # reads each run's mean
    ev = evaluations
    er, dri = {}, {}
    for m in measure_names:
        original = [_vectors(ev[role], m, ev["baseline"].topics) for role in ("baseline", "advanced")]
        reproduced = [_vectors(ev[role], m, ev["rep-baseline"].topics) for role in ("rep-baseline", "rep-advanced")]
        er[m] = effect_ratio(*original, *reproduced)
        dri[m] = delta_ri(*(ev[role].means[m] for role in ROLES))
    return Reproduction(
        replicability,
        tuple(measure_names),
        sides["baseline"],
        sides["advanced"],
        er,
        dri,
        policy,
        {role: len(e.topics) for role, e in evaluations.items()},
    )


def _side(
    role: str,
    runs: dict[str, Run],
    evaluations: dict[str, Evaluation],
    names: dict[str, str],
    measures: list[str],
    policy: ReproducePolicy,
    replicability: bool,
) -> Side:
    """The run ``role`` (baseline or advanced) beside its reproduction."""
    rep = f"rep-{role}"
    original, reproduced = evaluations[role], evaluations[rep]
    if replicability:
        p = {
            m: unpaired_t(_vectors(original, m, original.topics), _vectors(reproduced, m, reproduced.topics))
            for m in measures
        }
        return Side(None, None, None, None, p, 0)
    ranked = agreement(runs[role], runs[rep], policy.rbo_p, policy.depth)
    if not ranked.topics:
        raise DataError(
            names[rep],
            f"ranks no topic of {names[role]}, which it reproduces: it ranks {few(runs[rep].topics())}, "
            f"the original {few(runs[role].topics())}",
        )
    topics = original.topics  # the reproduction's too: the same qrels' judged topics
    errors, normalised, p = {}, {}, {}
    for m in measures:
        o, r = _vectors(original, m, topics), _vectors(reproduced, m, topics)
        errors[m], normalised[m] = rmse(o, r), nrmse(o, r)
        p[m] = paired_t(o, r) if len(topics) >= 2 else math.nan
    return Side(ranked.mean_ktu, ranked.mean_rbo, errors, normalised, p, len(ranked.topics))
