"""Judgments by rank position: per topic, the labels of ranks 1..n of a returned list.

This is how the course lab (and many hand evaluations) judge: no doc ids, just
``"vector space model: 1,0,1,0,0"``, optionally with R, the number of relevant docs in the
collection (``"vector space model: 1,0,1,0,0; R=5"``). A label is an integer >= 0, or ``?``
for a returned doc nobody judged (not relevant; bpref skips it, Judged@k does not count it).

Rank judgments turn into the one internal shape the doc-id path also uses
(:class:`harness.metrics.kernels.RankedLabels`), so every registry measure applies:

>>> j = parse_judgments("q1: 1,0,1,0,0; R=3")
>>> evaluate_judgments(j, ["P@5", "AP"]).means
{'P@5': 0.4, 'AP': 0.5555555555555555}

The pool behind each topic (for R, bpref's non-relevant count and the ideal DCG) is the judged
labels of the list plus, when R exceeds the relevant labels in the list, that many unreturned
relevant docs of grade 1. With a doc-id run, :func:`to_qrels` builds equivalent qrels instead.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import yaml

from harness.errors import DataError, read_error
from harness.formats.qrels import Qrels
from harness.formats.run import Run
from harness.metrics.evaluate import EvalPolicy, Evaluation, evaluate_labels
from harness.metrics.ranked import NOT_JUDGED, RankedLabels

__all__ = [
    "RankJudgments",
    "parse_judgment",
    "parse_judgments",
    "read_judgments",
    "to_ranked_labels",
    "to_qrels",
    "evaluate_judgments",
]

_UNJUDGED = "?"


@dataclass(frozen=True)
class RankJudgments:
    """``labels[topic]``: int64 labels of ranks 1..n (-1 = unjudged); ``R[topic]``: relevant
    docs in the collection, or None (then: the relevant labels in the list)."""

    labels: dict[str, np.ndarray]
    R: dict[str, int | None]
    source: str = "<judgments>"

    def topics(self) -> list[str]:
        return list(self.labels)


def _parse_labels(value, topic: str, source: str, line: int | None) -> np.ndarray:
    if isinstance(value, str):
        tokens = [t for t in re.split(r"[,\s]+", value.strip()) if t]
    elif isinstance(value, (list, tuple)):
        tokens = list(value)
    else:
        raise DataError(
            source,
            f"topic {topic!r}: labels must be a list or a string like '1,0,2' (got {type(value).__name__})",
            line=line,
        )
    out = []
    for i, tok in enumerate(tokens, start=1):
        if isinstance(tok, bool):
            tok = repr(tok)
        unjudged = not isinstance(tok, int) and str(tok).strip() == _UNJUDGED
        if isinstance(tok, int):
            v = tok
        elif unjudged:
            v = NOT_JUDGED
        else:
            try:
                v = int(str(tok).strip())
            except ValueError:
                v = None
        # -1 is only the internal code for '?': a written -1 is an error like any negative label
        if v is None or (v < 0 and not unjudged):
            raise DataError(
                source,
                f"topic {topic!r}: bad relevance label {str(tok)!r} at rank {i}; "
                f"labels are integers >= 0, or '{_UNJUDGED}' for an unjudged doc",
                line=line,
            )
        out.append(v)
    return np.array(out, dtype=np.int64)


def _parse_R(value, topic, source, line):
    try:
        r = int(str(value).strip())
    except ValueError:
        r = -1
    if isinstance(value, bool) or r < 0:
        raise DataError(source, f"topic {topic!r}: R must be an integer >= 0 (got {value!r})", line=line)
    return r


def _check(labels, R, topic, source, line):
    in_list = int(np.count_nonzero(labels >= 1))
    if R is not None and R < in_list:
        raise DataError(
            source,
            f"topic {topic!r}: R={R} but the list already has {in_list} "
            f"relevant labels; R counts all relevant docs in the collection",
            line=line,
        )


def parse_judgments(data, *, source: str = "<judgments>") -> RankJudgments:
    """Parse text (one ``topic: labels[; R=N]`` per line, ``#`` comments) or a mapping
    ``{topic: "1,0,1" | [1, 0, 1] | {"labels": ..., "R": N}}`` (as loaded from YAML)."""
    labels: dict[str, np.ndarray] = {}
    Rs: dict[str, int | None] = {}
    if isinstance(data, Mapping):
        for topic, value in data.items():
            topic = str(topic)
            R = None
            if isinstance(value, Mapping):
                unknown = set(value) - {"labels", "R"}
                if unknown or "labels" not in value:
                    raise DataError(
                        source,
                        f"topic {topic!r}: expected keys 'labels' and optionally 'R' (got {sorted(map(str, value))})",
                    )
                R = None if value.get("R") is None else _parse_R(value["R"], topic, source, None)
                value = value["labels"]
            labels[topic] = _parse_labels(value, topic, source, None)
            Rs[topic] = R
            _check(labels[topic], R, topic, source, None)
        return RankJudgments(labels, Rs, source)
    if not isinstance(data, str):
        raise DataError(source, f"judgments must be text or a mapping (got {type(data).__name__})")
    for n, raw in enumerate(data.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        topic, topic_labels, R = parse_judgment(line, source=source, line=n)
        if topic in labels:
            raise DataError(source, f"topic {topic!r} is judged twice", line=n)
        labels[topic], Rs[topic] = topic_labels, R
    return RankJudgments(labels, Rs, source)


_EXPECTED = "expected 'topic: labels' (e.g. 'q1: 1,0,2; R=4')"


def parse_judgment(
    text: str, *, source: str, line: int | None = None, expected: str = _EXPECTED
) -> tuple[str, np.ndarray, int | None]:
    """One judgment ``topic: labels[; R=N]`` -> (topic, labels of ranks 1..n, R or None): the
    one parser of that form (a judgments file's lines; the lab's ``--relevance``). The topic is
    everything before the last ``:``; labels are integers >= 0, or ``?`` (unjudged), separated
    by commas or spaces. A malformed judgment is a DataError naming ``source`` (and ``line``);
    ``expected`` is what it says the form is."""
    topic, colon, rest = text.rpartition(":")
    topic = topic.strip()
    if not colon or not topic:
        raise DataError(source, f"{expected}, got {text.strip()!r}", line=line)
    body, semi, extra = rest.partition(";")
    R = None
    if semi:
        key, eq, val = extra.strip().partition("=")
        if key.strip() != "R" or not eq:
            raise DataError(
                source, f"topic {topic!r}: after ';' expected 'R=<number>', got {extra.strip()!r}", line=line
            )
        R = _parse_R(val, topic, source, line)
    labels = _parse_labels(body, topic, source, line)
    _check(labels, R, topic, source, line)
    return topic, labels, R


def read_judgments(path) -> RankJudgments:
    """Read rank judgments from a text file, or a YAML mapping (``.yaml``/``.yml``)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise read_error(str(path), f"cannot read judgments: {e.strerror}", e) from None
    if path.suffix in (".yaml", ".yml"):
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as e:
            mark = getattr(e, "problem_mark", None)
            raise DataError(
                str(path), f"invalid YAML: {getattr(e, 'problem', e)}", line=mark.line + 1 if mark else None
            ) from None
        if not isinstance(data, Mapping):
            raise DataError(str(path), "expected a mapping of topic -> labels")
        return parse_judgments(data, source=str(path))
    return parse_judgments(text, source=str(path))


def _extra_relevant(j: RankJudgments, topic: str) -> int:
    R = j.R[topic]
    return 0 if R is None else R - int(np.count_nonzero(j.labels[topic] >= 1))


def to_ranked_labels(j: RankJudgments) -> RankedLabels:
    """The internal shape: each topic's list as ranked, its pool = judged labels of the list
    plus the unreturned relevant docs implied by R (grade 1)."""
    topics = j.topics()
    lists = [j.labels[t] for t in topics]
    pools = [
        np.concatenate([lab[lab >= 0], np.ones(_extra_relevant(j, t), dtype=np.int64)]) for t, lab in zip(topics, lists)
    ]
    offsets = np.zeros(len(topics) + 1, dtype=np.int64)
    np.cumsum([len(x) for x in lists], out=offsets[1:])
    pool_offsets = np.zeros(len(topics) + 1, dtype=np.int64)
    np.cumsum([len(x) for x in pools], out=pool_offsets[1:])
    cat = lambda xs: np.concatenate(xs) if xs else np.zeros(0, dtype=np.int64)
    return RankedLabels.contiguous(topics, offsets, cat(lists), pool_offsets, cat(pools))


def to_qrels(run: Run, j: RankJudgments) -> Qrels:
    """Doc-id qrels equivalent to rank judgments of ``run`` (labels follow the run's order):
    rank i's doc gets label i; unjudged ranks get no judgment; R adds unreturned relevant docs
    named ``<unreturned-n>``. Lists longer than the run's are an error."""
    out: dict[str, dict[str, int]] = {}
    for topic in j.topics():
        labels = j.labels[topic]
        docs = run.ranked(topic)[0] if run.topic_index(topic) is not None else []
        if len(labels) > len(docs):
            raise DataError(j.source, f"topic {topic!r}: {len(labels)} labels but the run returns {len(docs)} docs")
        judged = {d: int(v) for d, v in zip(docs, labels.tolist()) if v >= 0}
        for n in range(_extra_relevant(j, topic)):
            judged[f"<unreturned-{n + 1}>"] = 1
        out[topic] = judged
    return Qrels.from_dict(out, source=j.source)


def evaluate_judgments(j: RankJudgments, measures, policy: EvalPolicy = EvalPolicy()) -> Evaluation:
    """Every registry measure on rank judgments (the lists are already ranked, so the tie
    policy has nothing to reorder)."""
    rl = to_ranked_labels(j)
    audit = {
        "topics_judged": len(rl.topics),
        "topics_evaluated": len(rl.topics),
        "evaluated_without_relevant": int(sum(1 for t in rl.topics if not (j.labels[t] >= 1).any() and not j.R[t])),
        "topics_reordered": 0,
    }
    return evaluate_labels(rl, measures, policy, audit)
