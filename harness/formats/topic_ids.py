"""Topic ids of a run or a topics file against the qrels': the one rule every door follows
(a config's `harness run` / `search` / `validate` and ``harness.run``, `harness evaluate` /
`compare` and ``harness.evaluate``; `harness trec_eval` keeps trec_eval's behaviour and uses only
the diagnosis).

- **No topic in common** is an error naming both sides and samples of their ids: nothing could be
  evaluated (a config would write a report of zeros, and a t-test on them).
- **Ids written two ways**: a topic the qrels do not judge that matches a judged topic nothing
  asks for once both are written alike (leading zeros ``001``/``1``, a prefix ``Q1``/``1``, case
  ``a1``/``A1``, surrounding spaces) is an error too, in words: "leading zeros: topic 001 vs qrels
  1". Its numbers would be wrong for certain, not merely incomplete (the topic's results counted
  nowhere, its judgments scoring 0), and nothing else explains such a pair.
- **A partial overlap** otherwise is evaluated, with a warning naming how many topics and which.

:func:`check_run_against_qrels` applies the rule to a run (evaluate, compare and the API), and
warns too when none of the run's doc ids is judged.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from harness.errors import DataError, warn
from harness.policies import EvalPolicy

if TYPE_CHECKING:
    from harness.formats.qrels import Qrels
    from harness.formats.run import Run

__all__ = [
    "TopicMatch",
    "match_topic_ids",
    "diagnosis",
    "refuse_unmatched",
    "partial_notes",
    "few",
    "check_run_against_qrels",
]

_PREFIX = re.compile(r"([^\W\d_]+[-_:.#]?)(?=\d)")  # letters (and a separator) before the number: Q1, q-1, topic_1


def few(ids, n: int = 5) -> str:
    """``'1', '2', '3' and 4 more``: a sample of ids as a message shows them."""
    ids = list(ids)
    shown = ", ".join(repr(x) for x in ids[:n])
    return shown + (f" and {len(ids) - n} more" if len(ids) > n else "")


def _parts(qid: str) -> tuple[str, str, str]:
    """(spaces around, prefix, rest) of an id."""
    core = qid.strip()
    m = _PREFIX.match(core)
    prefix = m.group(1) if m else ""
    return qid[: len(qid) - len(qid.lstrip())] + qid[len(qid.rstrip()) :], prefix, core[len(prefix) :]


def _key(qid: str) -> str:
    """An id as it compares across ways of writing it: no spaces around, no letter prefix, no
    leading zeros on a number, case folded."""
    _, _, rest = _parts(qid)
    return (str(int(rest)) if rest.isdigit() and rest.isascii() else rest).casefold()


def _how(ours: str, judged: str) -> str:
    """How two ids of one key differ, in words: 'leading zeros', 'a prefix and case'..."""
    (s1, p1, r1), (s2, p2, r2) = _parts(ours), _parts(judged)
    kinds = []
    if s1 or s2:
        kinds.append("surrounding spaces")
    if p1.casefold() != p2.casefold():
        kinds.append("a prefix")
    if r1 != r2 and r1.casefold() != r2.casefold() and r1.isdigit() and r2.isdigit():
        kinds.append("leading zeros")
    if (p1 != p2 and p1.casefold() == p2.casefold()) or (r1 != r2 and r1.casefold() == r2.casefold()):
        kinds.append("case")
    return " and ".join(kinds) or "written differently"


@dataclass(frozen=True)
class TopicMatch:
    """Two sides' topic ids: ``ours`` (a run's or a topics file's, in order) and ``judged`` (the
    qrels')."""

    ours: tuple[str, ...]
    judged: tuple[str, ...]
    unjudged: tuple[str, ...]  # ours, not judged
    unasked: tuple[str, ...]  # judged, not ours
    two_ways: tuple[tuple[str, str, str], ...]  # (how, our id, the judged id) written two ways

    @property
    def common(self) -> int:
        return len(self.ours) - len(self.unjudged)


def match_topic_ids(ours: Iterable[str], judged: Iterable[str]) -> TopicMatch:
    """Which of ``ours`` the qrels judge, which judged topics ``ours`` lack, and which of those
    two are one topic written two ways (paired only where the key is unambiguous on both sides).

    >>> match_topic_ids(["001", "002", "100"], ["1", "2", "100", "7"]).two_ways
    (('leading zeros', '001', '1'), ('leading zeros', '002', '2'))
    """
    ours, judged = tuple(dict.fromkeys(ours)), tuple(dict.fromkeys(judged))
    judged_set, ours_set = set(judged), set(ours)
    unjudged = tuple(q for q in ours if q not in judged_set)
    unasked = tuple(q for q in judged if q not in ours_set)
    pairs: list[tuple[str, str, str]] = []
    if unjudged and unasked:
        counts: dict[tuple[int, str], int] = {}
        for side, ids in ((0, ours), (1, judged)):
            for q in ids:
                counts[side, _key(q)] = counts.get((side, _key(q)), 0) + 1
        theirs = {_key(q): q for q in unasked if counts[1, _key(q)] == 1}
        for q in unjudged:
            k = _key(q)
            if k in theirs and counts[0, k] == 1:
                pairs.append((_how(q, theirs[k]), q, theirs[k]))
    return TopicMatch(ours, judged, unjudged, unasked, tuple(pairs))


def _shown(qid: str) -> str:
    return repr(qid) if qid != qid.strip() or not qid else qid


def diagnosis(match: TopicMatch, ours_word: str = "topic") -> str:
    """The ids written two ways, in words: ``leading zeros: topic 001 vs qrels 1 (and 98 more
    like it)``; empty when there are none."""
    if not match.two_ways:
        return ""
    by_how: dict[str, list[tuple[str, str]]] = {}
    for how, a, b in match.two_ways:
        by_how.setdefault(how, []).append((a, b))
    parts = []
    for how, pairs in by_how.items():
        (a, b), more = pairs[0], len(pairs) - 1
        parts.append(
            f"{how}: {ours_word} {_shown(a)} vs qrels {_shown(b)}" + (f" (and {more} more like it)" if more else "")
        )
    return "; ".join(parts)


def refuse_unmatched(
    match: TopicMatch,
    ours_name: str,
    judged_name: str,
    *,
    ours_word: str = "topic",
    what: str = "the {n} topics",
    also: str = "",
) -> None:
    """DataError (source ``ours_name``) when no topic of ``ours`` is judged, or when ids are
    written two ways. ``what`` names our side's topics (``the run's {n} topics``), ``ours_word``
    one of our ids in the diagnosis (``topic 001 vs qrels 1``); ``also`` is added to the
    no-overlap message."""
    two = diagnosis(match, ours_word)
    fix = "write each id the same way in both" + (
        " (a DataFrame column read as numbers loses leading zeros: read it as text)" if "leading zeros" in two else ""
    )
    if match.ours and not match.common:
        why = f"; ids written two ways: {two}: {fix}" if two else ". Do the ids match, written the same way?"
        raise DataError(
            ours_name,
            f"none of {what.format(n=len(match.ours))} ({few(match.ours, 3)}) is judged in {judged_name} "
            f"(judged: {few(match.judged, 3)}): nothing could be evaluated{also}{why}",
        )
    if two:
        raise DataError(
            ours_name,
            f"{len(match.two_ways)} of {what.format(n=len(match.ours))} are judged in {judged_name} only under "
            f"another id: {two}. Their numbers would be wrong (the results counted nowhere, the judgments scored "
            f"0 or left out): {fix}",
        )


def partial_notes(
    match: TopicMatch, ours_name: str, judged_name: str, *, what: str, where: str, unjudged: str, unasked: str
) -> list[str]:
    """The warnings of a partial overlap, naming how many topics and which: ``what`` names our
    topics (``{n} topics``, ``the run's {n} topics``), ``where`` our side (``the topics file t.tsv``),
    ``unjudged`` and ``unasked`` what happens to each kind (``are searched but not evaluated``)."""
    out = []
    if match.unjudged:
        out.append(
            f"{ours_name}: {len(match.unjudged)} of {what.format(n=len(match.ours))} have no judgments in {judged_name} "
            f"({few(match.unjudged)}): they {unjudged}"
        )
    if match.unasked:
        out.append(
            f"{judged_name}: {len(match.unasked)} judged topics are not in {where} ({few(match.unasked)}): "
            f"they {unasked}"
        )
    return out


def check_run_against_qrels(
    run: Run, qrels: Qrels, run_name: str, qrels_name: str, missing_topics: str = EvalPolicy.missing_topics
) -> None:
    """The run's topic ids against the judged ones, by the rule of every door
    (this module's): a run whose results are all for topics the qrels do not
    judge is refused, as trec_eval refuses it (where ``-c`` would score every judged topic 0: a
    PyTerrier frame whose ``qid`` pandas read as an integer, 1, against qrels of topic '001'), and
    so is a run whose ids are the judged ones written another way (leading zeros, a prefix, case);
    a partial overlap is a warning naming the topics. Then a warning when none of the run's doc
    ids is judged: every score would be 0. A run with no results at all is evaluated (0 on every
    judged topic under ``-c``), as the Python API has always done with ``{}``."""
    if not len(run):
        return
    match = match_topic_ids(run.topics(), qrels.topics())
    refuse_unmatched(
        match,
        run_name,
        qrels_name,
        ours_word="run",
        what="the run's {n} topics",
        also=', and trec_eval refuses it too ("No queries with both results and relevance info")',
    )
    effect = (
        "score 0 in every mean (trec_eval -c)" if missing_topics == "zero" else "are left out (as trec_eval without -c)"
    )
    for note in partial_notes(
        match,
        run_name,
        qrels_name,
        what="the run's {n} topics",
        where="the run",
        unjudged="are not evaluated",
        unasked=effect,
    ):
        warn(note)
    if not _shares_an_id(run, qrels.docids.tolist()):
        warn(
            f"{run_name}: none of its document ids is judged in {qrels_name}: every score will be 0. "
            "Do the ids match (file names with or without an extension, a prefix)?"
        )


def _shares_an_id(run: Run, judged: list) -> bool:
    """Whether any of the run's doc ids is in ``judged``. Almost always one of its first hits
    is: those are looked at first, and the rest only when none is, in blocks (no list of every
    id at once). np.unique and intersect1d over a 10M-line run's ids took 6.5 s of an
    8.9-second evaluation (numpy 2.5)."""
    head = 1 << 14
    if not set(run.docids[:head].tolist()).isdisjoint(judged):
        return True
    judged_set, step = set(judged), 1 << 16
    return any(not judged_set.isdisjoint(run.docids[lo : lo + step].tolist()) for lo in range(head, len(run), step))
