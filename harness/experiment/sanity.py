"""Sanity checks a user wants before trusting a table. None of them changes a number; each
becomes a warning on stderr and in the report (``ExperimentResult.warnings``).

- **Qrels vs collection.** The judged doc ids are looked up in the index's ``id`` terms (a
  deterministic sample of at most 5,000, :mod:`harness.engine.docids`): none found means the
  ids do not match (``cats`` judged, ``cats.txt`` indexed) and every score is 0; under half
  found means most judgments cannot count.
- **Topics without judgments** are not evaluated (as trec_eval); **judged topics missing from
  the topics file** or **without results in a run** score 0 (``missing_topics: zero``) or are
  left out (``drop``). Topics that match no judged topic at all, or only once written another
  way (``001`` and ``1``), are errors before anything is indexed (:func:`refuse_unmatched_topics`,
  by the rule of every door, :mod:`harness.formats.topic_ids`).
- **The best setting of a sweep at the edge of its grid**: on the first compared (else the
  first) measure, a swept parameter with 3 values or more whose best value is the smallest or
  the largest one: the optimum may lie outside the grid.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from harness.engine.docids import count_in_index, sample_ids
from harness.formats.topic_ids import few, match_topic_ids, partial_notes, refuse_unmatched
from harness.specs.params import format_number

__all__ = ["check_qrels_overlap", "check_topics", "check_grid_edges", "refuse_unmatched_topics", "MIN_OVERLAP"]

MIN_OVERLAP = 0.5  # below this share of judged doc ids found in the index: a warning


def refuse_unmatched_topics(topics, qrels, topics_path, qrels_path) -> None:
    """A DataError when the topics match no judged topic, or match some only once written
    another way (leading zeros, a prefix, case): checked before anything is indexed."""
    match = match_topic_ids([q for q, _ in topics], qrels.topics())
    refuse_unmatched(match, str(topics_path), str(qrels_path), ours_word="topic", what="the {n} topics")


def qrels_doc_ids(qrels) -> list[str]:
    return [d.decode("utf-8", "replace") if isinstance(d, bytes) else str(d) for d in qrels.docids.tolist()]


def check_qrels_overlap(qrels, index_path, qrels_path, retrieved_example: Sequence[str] = ()) -> list[str]:
    ids = sample_ids(qrels_doc_ids(qrels))
    if not ids:
        return []
    found, missing = count_in_index(index_path, ids)
    share = found / len(ids)
    if share >= MIN_OVERLAP:
        return []
    sample = "" if len(ids) == len(set(qrels_doc_ids(qrels))) else f" (a sample of {len(ids):,})"
    example = f"; the index has e.g. {few(retrieved_example, 3)}" if retrieved_example else ""
    if found == 0:
        return [
            f"{qrels_path}: none of the {len(ids):,} judged document ids{sample} is in the collection "
            f"(e.g. {few(missing, 3)} are not){example}: every score will be 0. Do the ids match "
            "(file names with or without an extension, a prefix)?"
        ]
    return [
        f"{qrels_path}: only {found:,} of {len(ids):,} judged document ids{sample} ({share:.0%}) are in the "
        f"collection (e.g. {few(missing, 3)} are not){example}: judgments of missing documents cannot count"
    ]


def check_topics(topics, qrels, topics_path, qrels_path, runs, missing_policy: str) -> list[str]:
    """``runs``: (name, topics with no results) pairs."""
    judged = set(qrels.topics())
    effect = "score 0 in every mean (missing_topics: zero)" if missing_policy == "zero" else "are left out (drop)"
    out = partial_notes(
        match_topic_ids([q for q, _ in topics], qrels.topics()),
        str(topics_path),
        str(qrels_path),
        what="{n} topics",
        where=f"the topics file {topics_path}",
        unjudged="are searched but not evaluated",
        unasked=effect,
    )
    by_missing: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for name, empty in runs:
        empty_judged = tuple(t for t in empty if t in judged)
        if empty_judged:
            by_missing[empty_judged].append(name)
    for empty_judged, names in by_missing.items():
        who = f"run {names[0]}" if len(names) == 1 else f"{len(names)} runs ({', '.join(names)})"
        out.append(f"{who} returned nothing for {len(empty_judged)} judged topics ({few(empty_judged)}): they {effect}")
    return out


def _numeric(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def check_grid_edges(runs, evaluations, measure: str, name_of=str) -> list[str]:
    """``runs``: the config's Similarity values; ``evaluations``: run name -> Evaluation; ``name_of``:
    a run's name as the warning shows it (the config's name for it)."""
    out = []
    by_model: dict[str, list] = defaultdict(list)
    for r in runs:
        by_model[r.model].append(r)
    for model, sims in by_model.items():
        if len(sims) < 3 or any(str(s) not in evaluations for s in sims):
            continue
        scores = [evaluations[str(s)].means[measure] for s in sims]
        if max(scores) == min(scores):
            continue  # no best setting (e.g. every score 0)
        best = max(sims, key=lambda s: evaluations[str(s)].means[measure])
        for name, value in best.values:
            # A grid edge is a numeric parameter every setting of the model has; a choice
            # (axiomatic's function, dfi's measure) or a parameter only some settings take has none.
            if not _numeric(value) or not all(name in s.params and _numeric(s.params[name]) for s in sims):
                continue
            values = sorted({s.params[name] for s in sims})
            if len(values) < 3 or values[0] < value < values[-1]:
                continue
            edge = "smallest" if value == values[0] else "largest"
            out.append(
                f"the best {model} setting on {measure}, {name_of(str(best))}, has the {edge} {name} of the grid "
                f"({', '.join(format_number(v) for v in values)}): the optimum may lie outside it; "
                "extend the sweep"
            )
    return out
