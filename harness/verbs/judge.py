"""The judge verb: prepare what the judging page shows — the runs (a config's, or lab-style
queries under one or more similarities), each topic's pool, every pooled document's text and
tokens — before the server starts, so the server never touches the JVM
(:mod:`harness.judge.session` holds the session types and the pool order)."""

from __future__ import annotations

import dataclasses

from harness.config import is_study
from harness.errors import DataError
from harness.events import Emit, ignore
from harness.experiment.adhoc import lab_qid
from harness.experiment.execute import run_experiment
from harness.experiment.names import with_names
from harness.formats.run import Run
from harness.judge.session import JudgeSession, fill, pools
from harness.verbs.query import open_index, query
from harness.verbs.similarity import parse_similarity

__all__ = ["from_config", "from_lab"]


def from_config(cfg, run_names=None, depth: int = 10, on: Emit = ignore) -> JudgeSession:
    """The config's runs (all, or those named), searched or reused from the run cache as
    ``harness run`` does; the config's own qrels are not read."""
    if is_study(cfg):
        raise DataError(
            cfg.source,
            f"a study of {len(cfg.collections)} collections ({', '.join(cfg.collections)}): the judging page pools "
            "one collection's runs; give a config of that collection alone",
        )
    runs = cfg.runs
    if run_names:
        want = []
        spec_of = {name: spec for spec, name in cfg.names.items()}
        for name in run_names:
            sim = parse_similarity(spec_of.get(name, name), source="--runs")
            if sim not in cfg.runs:
                raise DataError(
                    "--runs", f"{name!r} is not a run of {cfg.source}; its runs: {', '.join(map(str, cfg.runs))}"
                )
            want.append(sim)
        runs = tuple(dict.fromkeys(want))
    # the searched runs only: runs from files and fusions are not pooled (docs/experiments.md)
    cfg = dataclasses.replace(cfg, runs=runs, sources=(), order=(), qrels_path=None, compare=None, expect={})
    result = with_names(run_experiment(cfg, on=on))
    by_name = {r.name: r.run for r in result.runs}
    session = JudgeSession(
        cfg.name,
        [],
        by_name,
        cfg.measure_names,
        depth,
        note=f"runs of {cfg.source.name} searched to depth {cfg.depth}; pool: top {depth} of each",
    )
    return fill(session, result.topics, pools(result.topics, by_name, depth), result.index.path, result.index.options)


def from_lab(
    index: str, queries: list[str], similarities, depth: int = 10, on: Emit = ignore, language: str | None = None
) -> JudgeSession:
    """``harness lab``'s queries on its index with each similarity; the runs are each top
    ``depth`` (the lab's convention: the top k is the run), evaluated with the lab's measures."""
    ids: dict[str, str] = {}
    for q in queries:
        qid = lab_qid(q)
        if not qid:
            raise DataError("--queries", "an empty query was given")
        if qid in ids:
            raise DataError("--queries", f"queries {ids[qid]!r} and {q!r} get the same topic id {qid!r}")
        ids[qid] = q
    topics = list(ids.items())
    where = open_index(index, on=on, language=language)
    ranked = query(where, [q for _, q in topics], list(similarities), depth)
    runs = {
        name: Run.from_ranked({qid: r for (qid, _), r in zip(topics, results) if len(r[0])})
        for name, results in ranked.by_similarity.items()
    }
    measures = (f"P@{depth}", f"R@{depth}", "AP", f"nDCG@{depth}", "RR")
    session = JudgeSession(
        "lab", [], runs, measures, depth, note=f"the top {depth} of each similarity is the run (the lab's convention)"
    )
    return fill(session, topics, pools(topics, runs, depth), where.path, where.options)
