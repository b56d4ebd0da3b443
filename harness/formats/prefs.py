"""trec_eval's other judgment files (its ``-R`` rel_info formats), strict and with line numbers:

- ``prefs``: ``qid jg jsg docno rel_level``: preferences. Within a judgment sub-group (jsg) of a
  judgment group (jg, one user's information need), a document with a higher ``rel_level`` is
  preferred to one with a lower; 0.0 means non-relevant. ``rel_level`` is a decimal number.
- ``qrels_prefs``: a qrels file (``qid jg docno rel_level``) read as prefs: its second field is
  the judgment group, each group one sub-group; ``rel_level`` a decimal number.
- ``qrels_jg``: ``qid jg docno rel``: one set of qrels per judgment group (``rel`` an integer,
  negative: in the pool but unjudged, as in qrels).

Hygiene as the other readers (:mod:`harness.formats.hygiene`): a regular UTF-8 file, a leading
BOM dropped, bounded lines, ids without whitespace or control characters; an error names the
file and line. Fields are separated by C's whitespace (space, tab, CR, VT, FF), as trec_eval
splits them. Where trec_eval reads a malformed number with ``atof``/``atol`` (as 0), the harness
refuses it; a line given twice (the same document in the same (sub-)group of a topic) is an
error naming both lines (trec_eval refuses it in qrels_jg; in prefs it counts it twice, or
stops when the two levels differ).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from harness.errors import DataError
from harness.formats.hygiene import check_id, numbered_lines

__all__ = ["REL_INFO_FORMATS", "Pref", "PrefsJudgments", "JudgmentGroups", "read_prefs", "read_qrels_jg"]

REL_INFO_FORMATS = ("qrels", "prefs", "qrels_prefs", "qrels_jg")  # trec_eval 9.0.8's -R choices
_FIELDS = re.compile(r"[ \t\r\v\f]+")
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_INTEGER = re.compile(r"[+-]?\d+")
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1  # labels are held as int64; qrels refuse larger ones too
_SHAPES = {
    "prefs": "qid jg jsg docno rel_level",
    "qrels_prefs": "qid jg docno rel_level",
    "qrels_jg": "qid jg docno rel",
}


@dataclass(frozen=True)
class Pref:
    """One line of a prefs file: its judgment group and sub-group, the document and its level
    (a float32 value, as trec_eval holds it)."""

    jg: str
    jsg: str
    docno: str
    rel_level: float


@dataclass(frozen=True)
class PrefsJudgments:
    """Per topic, its preference lines in file order; ``source`` names the file."""

    topics: dict[str, list[Pref]]
    source: str


@dataclass(frozen=True)
class JudgmentGroups:
    """Per topic, per judgment group, ``{docno: rel}`` (qrels_jg)."""

    topics: dict[str, dict[str, dict[str, int]]]
    source: str


def _lines(path, fmt: str):
    """(line number, fields) of each non-blank line, each id checked."""
    shape = _SHAPES[fmt]
    want = len(shape.split())
    for n, line in numbered_lines(path):
        fields = _FIELDS.split(line.strip(" \t\r\v\f\n"))
        if fields == [""]:
            continue
        if len(fields) != want:
            raise DataError(
                path,
                f"expected {want} fields '{shape}' (trec_eval -R {fmt}), got {len(fields)}",
                line=n,
            )
        for i, what in enumerate(shape.split()[:-1]):
            check_id(path, what if what != "docno" else "doc id", fields[i], line=n)
        yield n, fields


def _number(path, n: int, text: str, fmt: str) -> float:
    if not _NUMBER.fullmatch(text):
        raise DataError(path, f"rel_level must be a decimal number such as 2 or 0.5 (got {text!r}; -R {fmt})", line=n)
    with np.errstate(over="ignore"):  # beyond float32: inf, as C's (float) atof(...) gives
        return float(np.float32(float(text)))  # trec_eval's float rel_level


def read_prefs(path, fmt: str = "prefs") -> PrefsJudgments:
    """A ``prefs`` file, or with ``fmt="qrels_prefs"`` a qrels file read as preferences (each
    judgment group one sub-group, "0", as trec_eval names it)."""
    topics: dict[str, list[Pref]] = {}
    seen: dict[tuple, int] = {}
    for n, fields in _lines(path, fmt):
        if fmt == "prefs":
            qid, jg, jsg, docno, rel = fields
        else:
            qid, jg, docno, rel = fields
            jsg = "0"
        key = (qid, jg, jsg, docno)
        if key in seen:
            where = f"judgment group {jg!r}" + (f", sub-group {jsg!r}" if fmt == "prefs" else "")
            raise DataError(
                path,
                f"topic {qid!r}, {where}: document {docno!r} is given twice (lines {seen[key]} and {n}); "
                "keep one line per document and (sub-)group",
                line=n,
            )
        seen[key] = n
        topics.setdefault(qid, []).append(Pref(jg, jsg, docno, _number(path, n, rel, fmt)))
    if not topics:
        raise DataError(path, f"no judgments: the file is empty (expected lines '{_SHAPES[fmt]}')")
    return PrefsJudgments(topics, str(path))


def read_qrels_jg(path) -> JudgmentGroups:
    """A ``qrels_jg`` file: qrels whose second field names the judgment group."""
    topics: dict[str, dict[str, dict[str, int]]] = {}
    seen: dict[tuple, int] = {}
    for n, (qid, jg, docno, rel) in _lines(path, "qrels_jg"):
        if not _INTEGER.fullmatch(rel) or not _INT64_MIN <= int(rel) <= _INT64_MAX:
            raise DataError(path, f"relevance label (field 4) must be an integer (got {rel!r})", line=n)
        key = (qid, jg, docno)
        if key in seen:
            raise DataError(
                path,
                f"topic {qid!r}, judgment group {jg!r}: document {docno!r} is judged twice (lines {seen[key]} and {n})",
                line=n,
            )
        seen[key] = n
        topics.setdefault(qid, {}).setdefault(jg, {})[docno] = int(rel)
    if not topics:
        raise DataError(path, f"no judgments: the file is empty (expected lines '{_SHAPES['qrels_jg']}')")
    return JudgmentGroups(topics, str(path))
