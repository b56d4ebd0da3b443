"""``harness.reproduce``: an original experiment beside its reproduction, measured as repro_eval
0.5.0 measures it; the reproduce verb's adapter, named by its verb as verbs/reproduce.py and
cli/reproduce.py are."""

from __future__ import annotations

import os
from collections.abc import Sequence

from harness.api.frames import as_policy, as_qrels, as_run
from harness.policies import DEFAULT_MEASURES, ReadPolicy, ReproducePolicy
from harness.verbs.reproduce import reproduce as reproduce_verb
from harness.verbs.reproduce import reproduce_policy

__all__ = ["reproduce"]


def _file_or_table(x, what: str, convert):
    return x if isinstance(x, (str, os.PathLike)) else convert(x, what)


def reproduce(
    baseline,
    advanced,
    rep_baseline,
    rep_advanced,
    qrels,
    rep_qrels=None,
    measures: str | Sequence[str] = DEFAULT_MEASURES,
    *,
    depth: int = ReproducePolicy.depth,
    rbo_p: float = ReproducePolicy.rbo_p,
    run_format: str = ReadPolicy.run_format,
) -> dict:
    """How close a reproduction comes to the original experiment, as ``harness reproduce``
    computes it (equal to repro_eval 0.5.0; docs/reproduce.md says how to read each number).

    ``baseline`` and ``advanced``: the original runs; ``rep_baseline`` and ``rep_advanced``:
    their reproductions. Each is a TREC run file, a DataFrame (``qid``, ``docno``, ``score``) or
    a ``{qid: {docno: score}}`` dict. ``qrels``: the original judgments (a file, a DataFrame, a
    dict, ``irds:ID`` or ``pyserini:NAME``). Without ``rep_qrels`` the reproduction is scored
    against ``qrels`` (reproducibility); with it, the reproduction is a replication on another
    collection scored against ``rep_qrels`` (replicability: ER, DRI and an unpaired t-test; the
    other numbers are None). ``depth``: documents per topic that count, in trec_eval's order;
    ``rbo_p``: RBO's persistence. ``run_format`` (trec | msmarco): the run files' layout.

    Returns ``harness reproduce --json``'s object: ``{"ktu": {"baseline": x, "advanced": y},
    "rbo": {...}, "rmse": {"baseline": {measure: v}, "advanced": {...}}, "nrmse": {...}, "er":
    {measure: v}, "dri": {measure: v}, "p": {"baseline": {...}, "advanced": {...}}}``, None where
    a value is not a finite number; ``pandas.DataFrame(result["rmse"])`` is a table of one.
    """
    policy = reproduce_policy(depth=depth, rbo_p=rbo_p)
    read = as_policy(ReadPolicy, "policy", run_format=run_format)
    runs = (
        _file_or_table(r, role, as_run)
        for r, role in zip(
            (baseline, advanced, rep_baseline, rep_advanced), ("baseline", "advanced", "rep_baseline", "rep_advanced")
        )
    )
    base, adv, rep_base, rep_adv = runs
    judged = _file_or_table(qrels, "qrels", as_qrels)
    rep_judged = None if rep_qrels is None else _file_or_table(rep_qrels, "rep_qrels", as_qrels)
    out = reproduce_verb(base, adv, rep_base, rep_adv, judged, rep_judged, measures=measures, policy=policy, read=read)
    return out.as_dict()
