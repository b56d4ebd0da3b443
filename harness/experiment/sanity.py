"""Sanity checks a user wants before trusting a table. None of them changes a number; each
becomes a warning on stderr and in the report (``ExperimentResult.warnings``).

- **Qrels vs collection.** The judged doc ids are looked up in the index's ``id`` terms (a
  deterministic sample of at most 5,000, :mod:`harness.engine.docids`): none found means the
  ids do not match (``cats`` judged, ``cats.txt`` indexed) and every score is 0; under half
  found means most judgments cannot count.
- **Topics without judgments** are not evaluated (as trec_eval); **judged topics missing from
  the topics file** or **without results in a run** score 0 (``missing_topics: zero``) or are
  left out (``drop``).
- **The best setting of a sweep at the edge of its grid**: on the first compared (else the
  first) measure, a swept parameter with 3 values or more whose best value is the smallest or
  the largest one: the optimum may lie outside the grid.
"""

from __future__ import annotations

from collections import defaultdict

from harness.engine.similarity import format_number

__all__ = ["check_qrels_overlap", "check_topics", "check_grid_edges", "MIN_OVERLAP"]

MIN_OVERLAP = 0.5  # below this share of judged doc ids found in the index: a warning


def _few(items, n: int = 5) -> str:
    items = list(items)
    shown = ", ".join(repr(x) for x in items[:n])
    return shown + (f" and {len(items) - n} more" if len(items) > n else "")


def qrels_doc_ids(qrels) -> list[str]:
    return [d.decode("utf-8", "replace") if isinstance(d, bytes) else str(d) for d in qrels.docids.tolist()]


def check_qrels_overlap(qrels, index_path, qrels_path, retrieved_example: list[str] = ()) -> list[str]:
    from harness.engine.docids import count_in_index, sample_ids

    ids = sample_ids(qrels_doc_ids(qrels))
    if not ids:
        return []
    found, missing = count_in_index(index_path, ids)
    share = found / len(ids)
    if share >= MIN_OVERLAP:
        return []
    sample = "" if len(ids) == len(set(qrels_doc_ids(qrels))) else f" (a sample of {len(ids):,})"
    example = f"; the index has e.g. {_few(retrieved_example, 3)}" if retrieved_example else ""
    if found == 0:
        return [
            f"{qrels_path}: none of the {len(ids):,} judged document ids{sample} is in the collection "
            f"(e.g. {_few(missing, 3)} are not){example}: every score will be 0. Do the ids match "
            "(file names with or without an extension, a prefix)?"
        ]
    return [
        f"{qrels_path}: only {found:,} of {len(ids):,} judged document ids{sample} ({share:.0%}) are in the "
        f"collection (e.g. {_few(missing, 3)} are not){example}: judgments of missing documents cannot count"
    ]


def check_topics(topics, qrels, topics_path, qrels_path, runs, missing_policy: str) -> list[str]:
    """``runs``: (name, topics with no results) pairs."""
    out = []
    judged = set(qrels.topics())
    qids = [q for q, _ in topics]
    unjudged = [q for q in qids if q not in judged]
    if unjudged:
        out.append(
            f"{topics_path}: {len(unjudged)} of {len(qids)} topics have no judgments in {qrels_path} "
            f"({_few(unjudged)}): they are searched but not evaluated"
        )
    asked = set(qids)
    absent = [t for t in qrels.topics() if t not in asked]
    effect = "score 0 in every mean (missing_topics: zero)" if missing_policy == "zero" else "are left out (drop)"
    if absent:
        out.append(
            f"{qrels_path}: {len(absent)} judged topics are not in the topics file {topics_path} "
            f"({_few(absent)}): they {effect}"
        )
    by_missing: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for name, empty in runs:
        empty_judged = tuple(t for t in empty if t in judged)
        if empty_judged:
            by_missing[empty_judged].append(name)
    for empty_judged, names in by_missing.items():
        who = f"run {names[0]}" if len(names) == 1 else f"{len(names)} runs ({', '.join(names)})"
        out.append(
            f"{who} returned nothing for {len(empty_judged)} judged topics ({_few(empty_judged)}): they {effect}"
        )
    return out


def _numeric(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def check_grid_edges(runs, evaluations, measure: str, label=str) -> list[str]:
    """``runs``: the config's Similarity values; ``evaluations``: run name -> Evaluation; ``label``:
    a run's name as the warning shows it (the config's label for it)."""
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
                f"the best {model} setting on {measure}, {label(str(best))}, has the {edge} {name} of the grid "
                f"({', '.join(format_number(v) for v in values)}): the optimum may lie outside it; "
                "extend the sweep"
            )
    return out
