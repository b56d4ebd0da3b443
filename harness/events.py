"""Typed progress events: what the harness tells a user while it works.

Every step that used to log a line emits one of these instead; ``str(event)`` is that line,
so the text on stderr is unchanged, while code that reacts to progress (the command line's
bars, tests) dispatches on the type. A leaf: imports nothing from harness.

    >>> str(RunReady("bm25", "searched", topics=15, seconds=0.04))
    'run bm25: searched 15 topics in 0.04 s'
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass

__all__ = [
    "Event",
    "Emit",
    "ignore",
    "to_stderr",
    "Waiting",
    "Cleaned",
    "IndexRebuild",
    "IndexBuild",
    "ClusterReady",
    "ShardsBuild",
    "RunsPlanned",
    "IndexReady",
    "not_indexed",
    "DepthNote",
    "RunReady",
    "Progress",
    "rate_text",
    "Compared",
    "Note",
    "ReportWritten",
    "CollectionStart",
    "CollectionFailed",
]


class Event:
    """Base class; ``str(event)`` is the line shown to a user ('' for an event with no text)."""


Emit = Callable[[Event], None]


def ignore(event: Event) -> None:
    """An Emit that drops every event."""


def to_stderr(event: Event) -> None:
    """An Emit that prints each event's line to stderr (events without text are skipped)."""
    text = str(event)
    if text:
        print(text, file=sys.stderr, flush=True)


@dataclass(frozen=True)
class Waiting(Event):
    target: str
    holder: str  # the other process's pid ("4242", or "4242 on host h2" for another machine's), or "?"

    def __str__(self) -> str:
        return f"waiting for another harness process (pid {self.holder}) that is writing {self.target} ..."


@dataclass(frozen=True)
class InUse(Event):
    """A rebuild waits for the harness processes still searching the index it replaces."""

    target: str

    def __str__(self) -> str:
        return f"waiting for other harness processes still searching {self.target} before replacing it ..."


@dataclass(frozen=True)
class Cleaned(Event):
    """What was cleaned up after an interrupted run (temporary files, folders, a restored one)."""

    note: str

    def __str__(self) -> str:
        return self.note


@dataclass(frozen=True)
class IndexRebuild(Event):
    path: str

    def __str__(self) -> str:
        return f"index {self.path}: fingerprint changed, rebuilding (the old index stays until the new one is complete)"


@dataclass(frozen=True)
class IndexBuild(Event):
    corpus: str
    format: str
    path: str

    def __str__(self) -> str:
        return f"indexing {self.corpus} ({self.format}) -> {self.path}"


@dataclass(frozen=True)
class ClusterReady(Event):
    address: str
    workers: int
    threads: int

    def __str__(self) -> str:
        return f"dask: scheduler {self.address}, {self.workers} worker(s), {self.threads} thread(s)"


@dataclass(frozen=True)
class ShardsBuild(Event):
    shards: int

    def __str__(self) -> str:
        return f"dask: indexing {self.shards} shard(s) on the workers"


@dataclass(frozen=True)
class RunsPlanned(Event):
    """How many runs the experiment will report (configured plus cross-validated): not printed."""

    total: int

    def __str__(self) -> str:
        return ""


@dataclass(frozen=True)
class IndexReady(Event):
    path: str
    reused: bool
    documents: int | str  # an int, or "?" when not counted
    terms: int | str
    not_indexed: str = ""  # what IndexCollection left out (not_indexed()), "" when nothing

    def __str__(self) -> str:
        how = "reused" if self.reused else "built"
        left = f"; {self.not_indexed}" if self.not_indexed else ""
        return f"index {how}: {self.path} ({self.documents} documents, {self.terms} terms{left})"


def not_indexed(manifest: dict) -> str:
    """What IndexCollection counted and left out of an index (its manifest's ``counters``), in the
    words of the run's output and of the report; the empty documents named by the ids the manifest
    keeps (``empty_ids``: the first few), "" when nothing was left out.

    >>> not_indexed({"counters": {"indexed": 1398, "empty": 2}, "empty_ids": ["471", "995"]})
    'not indexed: 2 empty documents (471, 995)'
    >>> not_indexed({"counters": {"empty": 7, "skipped": 1}, "empty_ids": list("abcde")})
    'not indexed: 7 empty documents (a, b, c, d, e and 2 more), 1 skipped'
    """
    counters = manifest.get("counters") or {}
    parts = []
    empty = counters.get("empty") or 0
    if empty:
        ids = [str(i) for i in manifest.get("empty_ids") or ()][:empty]
        named = ", ".join(ids) + (f" and {empty - len(ids)} more" if len(ids) < empty else "")
        parts.append(f"{empty} empty document{'s' if empty != 1 else ''}" + (f" ({named})" if ids else ""))
    for key in ("unindexable", "skipped", "errors"):
        if counters.get(key):
            parts.append(f"{counters[key]} {key}")
    return "not indexed: " + ", ".join(parts) if parts else ""


@dataclass(frozen=True)
class DepthNote(Event):
    depth: int
    documents: int

    def __str__(self) -> str:
        return (
            f"note: depth {self.depth} exceeds the {self.documents} documents of the index: "
            "a topic returns at most all of them"
        )


@dataclass(frozen=True)
class RunReady(Event):
    """A run is ready: ``how`` is searched, reused, or (a cross-validated run) assembled."""

    name: str
    how: str
    topics: int = 0
    seconds: float = 0.0
    empty: int = 0  # topics that returned nothing
    chosen: str | None = None  # cross-validated: each fold's choice

    def __str__(self) -> str:
        if self.chosen is not None:
            return f"run {self.name}: {self.how} from the folds' choices ({self.chosen})"
        return f"run {self.name}: {self.how} {self.topics} topics in {self.seconds:.2f} s" + (
            f" ({self.empty} returned nothing)" if self.empty else ""
        )


@dataclass(frozen=True)
class Progress(Event):
    """How far a long phase is (indexing: documents; searching a run: topics), for a terminal's
    bar with the rate and the time left (harness.cli.progress); no text, so logs stay quiet."""

    phase: str  # "indexing" or "searching <run>"
    done: int
    total: int | None  # None: not known beforehand (no time left is shown)
    seconds: float  # since the phase began
    unit: str  # "documents", "topics"

    def __str__(self) -> str:
        return ""


def rate_text(done: int, total: int | None, seconds: float, unit: str) -> str:
    """``done/total unit, rate unit/s, time left`` of a phase, as the progress bar shows it.

    >>> rate_text(3500, 6980, 2.0, "topics")
    '3,500/6,980 topics, 1,750 topics/s, 2 s left'
    >>> rate_text(120_000, 8_841_823, 60.0, "documents")
    '120,000/8,841,823 documents, 2,000 documents/s, 1 h 12 min left'
    >>> rate_text(10, None, 0.0, "documents")
    '10 documents'
    """
    if total is None:
        head = f"{done:,} {unit}"
    else:
        head = f"{done:,}/{total:,} {unit}"
    if seconds <= 0 or done <= 0:
        return head
    rate = done / seconds
    text = f"{head}, {rate:,.0f} {unit}/s"
    if total is None:
        return text
    left = max(total - done, 0) / rate
    return f"{text}, {_duration(left)} left"


def _duration(seconds: float) -> str:
    s = int(round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60} min"


@dataclass(frozen=True)
class Compared(Event):
    pairs: int
    measures: int
    significant: int
    policy: str

    def __str__(self) -> str:
        return (
            f"compared {self.pairs} pair(s) on {self.measures} measure(s): "
            f"{self.significant} significant ({self.policy})"
        )


@dataclass(frozen=True)
class Note(Event):
    """A remark for the user (lab mode: a judged document not in the index, ...)."""

    text: str

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class ReportWritten(Event):
    path: str

    def __str__(self) -> str:
        return f"report written to {self.path}"


@dataclass(frozen=True)
class CollectionStart(Event):
    """A study goes on to its next collection (each one's lines follow)."""

    name: str
    number: int  # from 1
    total: int

    def __str__(self) -> str:
        return f"collection {self.number}/{self.total}: {self.name}"


@dataclass(frozen=True)
class CollectionFailed(Event):
    """A collection of a study failed; the study goes on with the others."""

    name: str
    message: str

    def __str__(self) -> str:
        return f"collection {self.name} failed: {self.message} (the other collections go on)"
